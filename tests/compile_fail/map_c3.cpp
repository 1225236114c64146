// expect: xlet::map [C3]: the computation must accept the operands' element types
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
#include <string>
using namespace xlet;
void f() {
    f32<2, 3> a;
    auto m = map([](float x) { return std::to_string(x); }, a);
}
