// expect: xlet::infeed [C1]: the item type must be a tensor type or a std::tuple of tensor types (no nested tuples)
#include <xlet/xlet.hpp>
using namespace xlet;
void f(feed_queue& q) {
    (void)infeed<std::tuple<f32<2>, std::tuple<s32<>>>>(q, after_all()); // a nested tuple
}
