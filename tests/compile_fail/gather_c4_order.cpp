// expect: xlet::gather [C4]: offset_dims must be sorted, unique and output dimensions
// expect: xlet::tensor<float, 4, 5>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 5> a; s32<3, 1> i; auto e = gather<gather_dims{.offset_dims = {2, 1}, .collapsed_slice_dims = {}, .start_index_map = {0}, .index_vector_dim = 1, .slice_sizes = {2, 5}}>(a, i);
}
