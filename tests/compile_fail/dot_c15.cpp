// expect: xlet::dot [C15]: the zero points of rhs must be 0
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using A = uniform<std::int8_t, float, scale(0.5), 3>;
    tensor<A, 2, 3> a;
    tensor<A, 3> b;
    auto r = dot<A>(a, b);
}
