// Static shapes: extents are std::array values computed by constexpr functions (cheaper to compile
// than recursive templates), and dims<...> values carry dimension lists as static attributes.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace xlet {

template<std::size_t R> using extents_t = std::array<std::size_t, R>;

// A list of dimension numbers as a static attribute: add(a, v, dims<1>), transpose(a, dims<1, 0>).
template<std::int64_t... I>
struct dims_t {
    static constexpr std::size_t size = sizeof...(I);
    static constexpr std::array<std::int64_t, sizeof...(I)> value{I...};
};
template<std::int64_t... I> inline constexpr dims_t<I...> dims{};

template<class T> inline constexpr bool is_dims = false;
template<std::int64_t... I> inline constexpr bool is_dims<dims_t<I...>> = true;

template<std::size_t R>
constexpr std::size_t product(const extents_t<R>& e) {
    std::size_t p = 1;
    for (auto d : e) p *= d;
    return p;
}

// Row-major (XLA default layout {R-1, ..., 0}) element strides.
template<std::size_t R>
constexpr std::array<std::ptrdiff_t, R> row_major_strides(const extents_t<R>& e) {
    std::array<std::ptrdiff_t, R> s{};
    std::ptrdiff_t acc = 1;
    for (std::size_t i = R; i-- > 0;) {
        s[i] = acc;
        acc *= static_cast<std::ptrdiff_t>(e[i]);
    }
    return s;
}

template<std::size_t A, std::size_t B>
constexpr bool same_extents(const extents_t<A>& a, const extents_t<B>& b) {
    if constexpr (A != B) return false;
    else return a == b;
}

// Multi-index of a flat row-major position.
template<std::size_t R>
constexpr std::array<std::size_t, R> unflatten(std::size_t flat, const extents_t<R>& e) {
    std::array<std::size_t, R> idx{};
    for (std::size_t i = R; i-- > 0;) {
        if (e[i] != 0) {
            idx[i] = flat % e[i];
            flat /= e[i];
        }
    }
    return idx;
}

// Rules on dimension lists, shared by every op that takes one.
template<std::size_t N>
constexpr bool dims_in_range(const std::array<std::int64_t, N>& d, std::size_t rank) {
    for (auto x : d)
        if (x < 0 || static_cast<std::size_t>(x) >= rank) return false;
    return true;
}
template<std::size_t N>
constexpr bool dims_unique(const std::array<std::int64_t, N>& d) {
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = i + 1; j < N; ++j)
            if (d[i] == d[j]) return false;
    return true;
}
template<std::size_t N>
constexpr bool dims_increasing(const std::array<std::int64_t, N>& d) {
    for (std::size_t i = 1; i < N; ++i)
        if (d[i - 1] >= d[i]) return false;
    return true;
}

namespace diag {
// Carries the offending types into the compiler's note, so a failed static_assert names the shapes:
//   static_assert(diag::got<ok, tensor<float,2,3>, tensor<float,3,2>>::value, "xlet::add [C1]: ...")
// prints "got<false, xlet::tensor<float, 2, 3>, xlet::tensor<float, 3, 2>>" under the message.
template<bool Ok, class... Operands> struct got {
    static constexpr bool value = Ok;
};
// A dimension list shown as a type in diagnostics.
template<std::int64_t... I> struct dimensions {};
} // namespace diag

} // namespace xlet
