// expect: xlet::sort [C1]: sort needs at least one operand
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    auto r = sort(std::tuple<>{}, sort_less{});
}
