// expect: xlet::gather [C2]: index_vector_dim must be in
// expect: xlet::tensor<int, 3, 1>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 5> a; s32<3, 1> i; auto e = gather<gather_dims{.offset_dims = {1}, .collapsed_slice_dims = {0}, .start_index_map = {0}, .index_vector_dim = 3, .slice_sizes = {1, 5}}>(a, i);
}
