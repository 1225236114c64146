// expect: xlet::bitcast_convert_type [C2]: converting to a wider type needs a last dimension
// expect: xlet::tensor<xlet::half, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f16<3> a; auto e = bitcast_convert_type<float>(a); // needs f16[..., 2]
}
