// expect: xlet::outfeed [C1]: an item must be an array expression or a std::tuple of them (no nested tuples)
#include <xlet/xlet.hpp>
using namespace xlet;
void f(feed_queue& q) {
    (void)outfeed(q, 1.5f, after_all()); // a C++ float
}
