// Compile-time probe (bench/trace_overhead.sh): the umbrella header and a few typical expressions.
#include <xlet/xlet.hpp>
using namespace xlet;
f32<64, 64> f(const f32<64, 64>& a, const f32<64, 64>& b, const f32<64>& v) {
    f32<64, 64> c = a * b + exp(a) - max(a, b);
    auto d = dot(c, transpose(b, dims<1, 0>));
    auto s = reduce(d, 0.0f, add_fn{}, dims<1>);
    return eval(add(d, s, dims<0>) + add(c, v, dims<1>));
}
