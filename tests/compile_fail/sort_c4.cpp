// expect: xlet::sort [C4]: dimension must be in [-rank, rank)
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    auto r = sort<sort_config{.dimension = 2}>(a, sort_less{});
}
