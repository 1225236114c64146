// expect: xlet::scatter [C2]: update_window_dims must be sorted, unique dimensions of the updates
// expect: xlet::tensor<float, 3, 5>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 5> a; s32<3, 1> i; f32<3, 5> u; auto e = scatter<scatter_dims{.update_window_dims = {2}, .inserted_window_dims = {0}, .scatter_dims_to_operand_dims = {0}, .index_vector_dim = 1}>(a, i, u, [](float x, float y) { return x + y; });
}
