// expect: xlet::reduce_precision [C1]: element type must be a floating type
// expect: xlet::tensor<int, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s32<2> a; auto e = reduce_precision<5, 10>(a);
}
