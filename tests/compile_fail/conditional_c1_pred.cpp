// expect: xlet::conditional [C1]: the predicate must be a pred scalar
// expect: xlet::tensor<int>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s32<> k = 1;
    auto id = [](int v) { return v; };
    (void)conditional(k, 1, id, 2, id); // an s32 scalar is not a predicate
}
