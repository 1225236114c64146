// expect: xlet::gather [C9]: start_indices must have an integer element type
// expect: xlet::tensor<float, 3, 1>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 5> a; f32<3, 1> i; auto e = gather<gather_dims{.offset_dims = {1}, .collapsed_slice_dims = {0}, .start_index_map = {0}, .index_vector_dim = 1, .slice_sizes = {1, 5}}>(a, i);
}
