// expect: xlet::scatter [C10]: input_batching_dims and scatter_indices_batching_dims must pair up dimensions of equal size
// expect: xlet::tensor<float, 2, 4, 5>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 4, 5> a; s32<3, 2, 1> i; f32<3, 2, 5> u; auto e = scatter<scatter_dims{.update_window_dims = {2}, .inserted_window_dims = {1}, .scatter_dims_to_operand_dims = {1}, .index_vector_dim = 2, .input_batching_dims = {0}, .scatter_indices_batching_dims = {0}}>(a, i, u, [](float x, float y) { return x + y; });
}
