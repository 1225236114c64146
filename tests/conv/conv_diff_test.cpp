// Differential tests of conv_general_dilated against the reference (tests/reference/reference_conv.hpp):
// 40 seeded random configurations (gen_conv_diff_cases.py -> conv_diff_cases.hpp) over 1-D, 2-D and
// 3-D convolutions with random layouts (dimension numbers as any permutation), strides, padding
// (negative included), lhs dilation (transposed convolutions), rhs dilation, window reversal,
// feature groups (grouped and depthwise), batch groups (filter gradients), f32 / f64 / s32 and bf16
// with a preferred f32 result; the last four are larger 2-D cases whose k runs take several passes
// of the kernel and whose rows leave a partial register tile.
// Floating results must lie within (K + 1) * 2u * sum |lhs||rhs| of the exact sum (dot_common.hpp),
// K the number of products per output; integers are exact modulo 2^32.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "dot_common.hpp"
#include "conv_common.hpp"

namespace {

template<class T, class Out, class L, class R, xlet::conv_config C>
void run_case() {
    const auto lhs = dt::random<L>();
    const auto rhs = dt::random<R>();
    const auto got = xlet::conv_general_dilated<C, Out>(lhs, rhs);
    const auto desc = ct::ref_desc<C, L, R>();
    const auto rl = lt::ref_of_array(lhs), rr = lt::ref_of_array(rhs);
    const std::size_t k = static_cast<std::size_t>(
        R::size() / std::max<std::size_t>(
                        1, R::extents[static_cast<std::size_t>(C.dimension_numbers.kernel_output_feature_dimension)]));
    using G = typename decltype(got)::value_type;
    if constexpr (std::is_integral_v<T>) {
        const auto want = xlet_ref::conv<std::uint64_t>(rl, rr, desc);
        r::dims_t d;
        for (auto e : decltype(got)::extents)
            d.push_back(static_cast<std::int64_t>(e));
        REQUIRE(d == want.dims);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < got.size(); ++i)
            bad += got.data()[i] != static_cast<G>(static_cast<std::uint32_t>(want.data[i]));
        CHECK(bad == 0);
    } else {
        const auto want = xlet_ref::conv<double>(rl, rr, desc);
        const auto abs = xlet_ref::conv_abs(rl, rr, desc);
        dt::check_close(got, want, abs, k);
    }
}

} // namespace

#define XLET_CONV_CASE(ID, T, OUT, L, R, CFG)                                                                          \
    TEST_CASE("random convolution " #ID) {                                                                             \
        constexpr xlet::conv_config cfg = CFG;                                                                         \
        run_case<T, OUT, L, R, cfg>();                                                                                 \
    }
#include "conv_diff_cases.hpp"
