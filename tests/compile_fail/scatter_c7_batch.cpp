// expect: xlet::scatter [C7]: update batch sizes must equal the indices' batch sizes and window sizes must fit the operand
// expect: xlet::tensor<float, 2, 5>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 5> a; s32<3, 1> i; f32<2, 5> u; auto e = scatter<scatter_dims{.update_window_dims = {1}, .inserted_window_dims = {0}, .scatter_dims_to_operand_dims = {0}, .index_vector_dim = 1}>(a, i, u, [](float x, float y) { return x + y; });
}
