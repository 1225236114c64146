// Shared by the sort differential tests (sort_diff_test.cpp, sort_types_test.cpp): random data
// with ties, the reference order as a general comparator, and one differential case (one operand
// and a variadic sort with payloads, radix and general paths, ascending and descending).
#pragma once
#include "layout_common.hpp"
#include "reference/reference_sort.hpp"

namespace st {

using lt::rf;

// Random data; `ties` draws from a handful of values so that stability shows.
template<class Tn>
Tn sample_data(bool ties) {
    using T = typename Tn::value_type;
    Tn t;
    for (std::size_t i = 0; i < Tn::size(); ++i) {
        if constexpr (std::is_same_v<T, bool>)
            t.data()[i] = (lt::rng()() & 1) != 0;
        else if (ties)
            t.data()[i] = static_cast<T>(static_cast<int>(lt::rng()() % 6) -
                                         (std::is_signed_v<T> || !std::is_integral_v<T> ? 3 : 0));
        else if constexpr (std::is_same_v<T, double>)
            t.data()[i] = lt::random_elem<float>();
        else if constexpr (std::is_same_v<T, bfloat16>)
            t.data()[i] = bfloat16(lt::random_elem<float>());
        else
            t.data()[i] = lt::random_elem<T>();
    }
    return t;
}

// The reference order as a general comparator: one type per element type (not one lambda per
// case) keeps the number of instantiations, and the compile time, down.
template<class T>
struct ref_less {
    bool desc;
    bool operator()(const T& a, const T& b) const { return desc ? r::total_less(b, a) : r::total_less(a, b); }
    bool operator()(const T& a, const T& b, std::int32_t, std::int32_t, double, double) const { return (*this)(a, b); }
};

// One operand and the three comparators; then keys with a position payload and an f64 copy.
template<std::int64_t Dim, class Tn>
void diff_case(bool ties) {
    using T = typename Tn::value_type;
    constexpr std::int64_t R = static_cast<std::int64_t>(Tn::rank);
    constexpr std::int64_t d = Dim < 0 ? Dim + R : Dim;
    constexpr sort_config C{.dimension = Dim};
    CAPTURE(r::show_dims(lt::ref_of_array(Tn{}).dims));
    CAPTURE(Dim);
    CAPTURE(ties);
    const Tn x = sample_data<Tn>(ties);
    const auto rx = rf(x);
    for (bool desc : {false, true}) {
        CAPTURE(desc);
        const ref_less<T> less{desc};
        auto want = std::get<0>(r::sort(std::tuple{rx}, d, [&](std::int64_t i, std::int64_t j) {
            return less(rx.data[static_cast<std::size_t>(i)], rx.data[static_cast<std::size_t>(j)]);
        }));
        if (desc)
            CHECK_SAME(sort<C>(x, sort_greater{}), want);
        else
            CHECK_SAME(sort<C>(x, sort_less{}), want);
        CHECK_SAME(sort<C>(x, less), want); // the general path

        typename detail::tensor_of_impl<std::int32_t, Tn::extents, std::make_index_sequence<Tn::rank>>::type pos;
        for (std::size_t i = 0; i < Tn::size(); ++i)
            pos.data()[i] = static_cast<std::int32_t>(i);
        typename detail::tensor_of_impl<double, Tn::extents, std::make_index_sequence<Tn::rank>>::type dbl;
        for (std::size_t i = 0; i < Tn::size(); ++i)
            dbl.data()[i] = static_cast<double>(i) * 0.5;
        auto rw = r::sort(std::tuple{rx, rf(pos), rf(dbl)}, d, [&](std::int64_t i, std::int64_t j) {
            return less(rx.data[static_cast<std::size_t>(i)], rx.data[static_cast<std::size_t>(j)]);
        });
        auto check3 = [&](const auto& got) {
            CHECK_SAME(std::get<0>(got), std::get<0>(rw));
            CHECK_SAME(std::get<1>(got), std::get<1>(rw));
            CHECK_SAME(std::get<2>(got), std::get<2>(rw));
        };
        if (desc)
            check3(sort<C>(std::forward_as_tuple(x, pos, dbl), sort_greater{}));
        else
            check3(sort<C>(std::forward_as_tuple(x, pos, dbl), sort_less{}));
        check3(sort<C>(std::forward_as_tuple(x, pos, dbl), less));
    }
}

} // namespace st
