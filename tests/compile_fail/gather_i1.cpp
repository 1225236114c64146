// expect: xlet::gather [I1]: the operand must not be per-axis quantized
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using P =
        quant::uniform_per_axis<std::int8_t, float, 1, quant::scales(0.5, 0.25, 2.0), quant::zero_points(1, -3, 0)>;
    tensor<P, 2, 3> a;
    s32<1, 1> idx;
    constexpr gather_dims G{.offset_dims = {1},
                            .collapsed_slice_dims = {0},
                            .start_index_map = {0},
                            .index_vector_dim = 1,
                            .slice_sizes = {1, 3}};
    auto e = gather<G>(a, idx);
    (void)e;
}
