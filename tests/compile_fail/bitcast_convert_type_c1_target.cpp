// expect: xlet::bitcast_convert_type [C1]: pred has no bit layout
// expect: xlet::tensor<bool>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    u8<2> a; auto e = bitcast_convert_type<bool>(a);
}
