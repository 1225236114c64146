// expect: xlet::conditional [C1]: the branch index must be an s32 scalar
// expect: xlet::tensor<long
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s64<> k = 1;
    auto id = [](int v) { return v; };
    (void)conditional(k, std::tuple{id, id}, std::tuple{1, 2}); // s64 index
}
