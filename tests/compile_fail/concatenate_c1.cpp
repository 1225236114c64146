// expect: xlet::concatenate [C1]: needs at least one operand
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    auto e = concatenate<0>();
}
