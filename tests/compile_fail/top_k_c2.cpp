// expect: xlet::top_k [C2]: k must be in [0, size of the last dimension]
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    auto r = top_k<4>(a);
}
