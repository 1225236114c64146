// expect: xlet::gather [C8]: operand_batching_dims and start_indices_batching_dims must pair up dimensions of equal size
// expect: xlet::tensor<int, 3, 2, 1>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 4, 5> a; s32<3, 2, 1> i; auto e = gather<gather_dims{.offset_dims = {2}, .collapsed_slice_dims = {1}, .start_index_map = {1}, .index_vector_dim = 2, .operand_batching_dims = {0}, .start_indices_batching_dims = {0}, .slice_sizes = {1, 1, 5}}>(a, i);
}
