// expect: xlet::conditional [C2]: there must be at least one branch and as many operands as branches
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    auto id = [](int v) { return v; };
    (void)conditional(0, std::tuple{id, id}, std::tuple{1}); // two branches, one operand
}
