// expect: xlet::transpose [C1]: permutation must be a permutation of 0..rank-1
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; auto e = transpose(a, dims<2, 1, 0>);
}
