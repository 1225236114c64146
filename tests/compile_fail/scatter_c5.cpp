// expect: xlet::scatter [C5]: scatter_dims_to_operand_dims needs one unique operand dimension per index-vector element
// expect: xlet::tensor<int, 3, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 5> a; s32<3, 2> i; f32<3, 5> u; auto e = scatter<scatter_dims{.update_window_dims = {1}, .inserted_window_dims = {0}, .scatter_dims_to_operand_dims = {0}, .index_vector_dim = 1}>(a, i, u, [](float x, float y) { return x + y; });
}
