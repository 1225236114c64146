// expect: xlet::bitcast_convert_type [C1]: pred has no bit layout
// expect: xlet::tensor<bool, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    pred<2> a; auto e = bitcast_convert_type<std::uint8_t>(a);
}
