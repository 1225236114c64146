// expect: xlet::batch_norm_inference [C8]: the element type must be floating point (f16, bf16, f32, f64)
// expect: xlet::tensor<std::complex<float>, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    c64<2, 3> x;
    c64<3> s, o, m, v;
    auto r = batch_norm_inference<1>(x, s, o, m, v, 1e-3f);
}
