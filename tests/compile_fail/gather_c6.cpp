// expect: xlet::gather [C6]: start_index_map must be unique operand dimensions that are not batching dimensions
// expect: xlet::tensor<float, 4, 5>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 5> a; s32<3, 2> i; auto e = gather<gather_dims{.offset_dims = {1}, .collapsed_slice_dims = {0}, .start_index_map = {0, 0}, .index_vector_dim = 1, .slice_sizes = {1, 5}}>(a, i);
}
