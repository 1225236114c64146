// The differential cases of reduce against the reference (tests/reference/reference_reduce.hpp),
// used by reduce_diff_test.cpp and reduce_diff_large_test.cpp: for each shape, every subset of its
// dimensions, on
//   f32 add (monoid, reassociated: within the summation bound of the exact double sum),
//   f32 max with NaN/+-0/+-inf mixed in and s32 add with wrapping (monoids: exact),
//   an f32 lambda and a variadic argmax (sequential folds: bit-exact with the reference),
//   a fused operand max(a * b) (exact).
// Shapes hit both loop layouts (last dimension reduced or kept), vector tails, unit and zero-size
// dimensions, and sizes large enough for the multi-threaded and chunked paths.
#pragma once
#include "reduce_common.hpp"

#include <functional>

using lt::rf;

namespace rdiff {

constexpr float inf = std::numeric_limits<float>::infinity();

template<class Tf, unsigned Mask>
void one_subset(const Tf& a, const Tf& b, const Tf& clean) {
    constexpr std::size_t R = Tf::rank;
    using D = typename rt::mask_dims<R, Mask>::type;
    const r::dims_t rd(D::value.begin(), D::value.end());
    INFO("reduced dimensions " << r::show_dims(rd));
    using Ti = tensor_type_of<decltype(convert_element_type<std::int32_t>(a))>;
    const Ti ia = lt::random_tensor<Ti>();
    std::size_t n = 1;
    for (auto d : rd)
        n *= Tf::extents[static_cast<std::size_t>(d)];

    const auto rc = rf(clean);
    rt::check_sum_close(reduce(clean, 0.0f, add_fn{}, D{}), r::reduce(rt::to_double(rc), 0.0, std::plus<>{}, rd),
                        r::reduce(rt::to_double(rc, true), 0.0, std::plus<>{}, rd), n);

    const auto mx = reduce(a, -inf, max_fn{}, D{});
    const auto want_mx = r::reduce(rf(a), -inf, rt::ieee_max, rd);
    for (std::size_t i = 0; i < mx.size(); ++i)
        CHECK(rt::same_float(mx.data()[i], want_mx.data[i]));
    const auto mn = reduce(a, inf, min_fn{}, D{});
    const auto want_mn = r::reduce(rf(a), inf, rt::ieee_min, rd);
    for (std::size_t i = 0; i < mn.size(); ++i)
        CHECK(rt::same_float(mn.data()[i], want_mn.data[i]));

    CHECK_SAME(reduce(ia, 0, add_fn{}, D{}), r::reduce(rf(ia), 0, rt::wrap_add<std::int32_t>, rd));

    auto plus = [](float x, float y) { return x + y; };
    CHECK_SAME(reduce(clean, 0.5f, plus, D{}), r::reduce(rc, 0.5f, plus, rd));

    auto argmax = [](float m, std::int32_t am, float v, std::int32_t i) {
        return v > m ? std::pair{v, i} : std::pair{m, am};
    };
    auto [m, i] = reduce(std::forward_as_tuple(clean, ia), std::tuple{-inf, -1}, argmax, D{});
    auto [wm, wi] = r::reduce(rc, rf(ia), -inf, -1, argmax, rd);
    CHECK_SAME(m, wm);
    CHECK_SAME(i, wi);

    const auto fm = reduce(a * b, -inf, max_fn{}, D{});
    const auto want_fm = r::reduce(rf(eval(a * b)), -inf, rt::ieee_max, rd);
    for (std::size_t k = 0; k < fm.size(); ++k)
        CHECK(rt::same_float(fm.data()[k], want_fm.data[k]));
}

template<class Tf, unsigned... M>
void all_subsets(std::integer_sequence<unsigned, M...>) {
    const auto a = std::make_unique<Tf>(lt::random_tensor<Tf>());
    const auto b = std::make_unique<Tf>(lt::random_tensor<Tf>());
    const auto clean = std::make_unique<Tf>(lt::random_tensor<Tf>(false));
    (one_subset<Tf, M>(*a, *b, *clean), ...);
}
template<class Tf>
void shape_case() {
    INFO("shape " << r::show_dims(rf(Tf{}).dims));
    all_subsets<Tf>(std::make_integer_sequence<unsigned, 1u << Tf::rank>{});
}

} // namespace rdiff
