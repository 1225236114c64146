// expect: xlet::gather [C3]: start_index_map needs one entry per element of the index vector
// expect: xlet::tensor<int, 3, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 5> a; s32<3, 2> i; auto e = gather<gather_dims{.offset_dims = {1}, .collapsed_slice_dims = {0}, .start_index_map = {0}, .index_vector_dim = 1, .slice_sizes = {1, 5}}>(a, i);
}
