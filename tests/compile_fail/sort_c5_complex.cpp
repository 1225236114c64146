// expect: xlet::sort [C5]: the comparator must take 2n scalars of the operand element types (x_i, x_j, y_i, y_j, ...) and return bool
// expect: xlet::tensor<std::complex<float>, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    c64<4> a;
    auto r = sort(a, sort_less{}); // no total order on complex numbers
}
