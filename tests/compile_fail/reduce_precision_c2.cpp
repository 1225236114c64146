// expect: xlet::reduce_precision [C2]: exponent_bits must be at least 1
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2> a; auto e = reduce_precision<0, 10>(a);
}
