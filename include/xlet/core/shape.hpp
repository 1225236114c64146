// Static shapes: extents are std::array values computed by constexpr functions (cheaper to compile
// than recursive templates), and dims<...> values carry dimension lists as static attributes.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace xlet {

template<std::size_t R> using extents_t = std::array<std::size_t, R>;

// A list of dimension numbers as a static attribute: add(a, v, dims<1>), transpose(a, dims<1, 0>).
template<std::int64_t... I>
struct dims_t {
    static constexpr std::size_t size() noexcept { return sizeof...(I); }
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

// A short list of dimension numbers inside a structural attribute aggregate (gather_dims,
// scatter_dims, ...): `.offset_dims = {1, 2}`. Holds up to 8 entries (XLA ranks stay below).
struct dim_list {
    static constexpr std::size_t capacity = 8;
    std::array<std::int64_t, capacity> v{};
    std::size_t n = 0;
    constexpr dim_list() = default;
    constexpr dim_list(std::initializer_list<std::int64_t> l) {
        for (auto x : l) v.at(n++) = x; // more than 8 entries: not a constant expression
    }
    constexpr std::size_t size() const { return n; }
    constexpr std::int64_t operator[](std::size_t i) const { return v[i]; }
    constexpr bool contains(std::int64_t x) const {
        for (std::size_t i = 0; i < n; ++i)
            if (v[i] == x) return true;
        return false;
    }
    constexpr bool in_range(std::size_t rank) const {
        for (std::size_t i = 0; i < n; ++i)
            if (v[i] < 0 || static_cast<std::size_t>(v[i]) >= rank) return false;
        return true;
    }
    constexpr bool unique() const {
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j)
                if (v[i] == v[j]) return false;
        return true;
    }
    constexpr bool sorted() const {
        for (std::size_t i = 1; i < n; ++i)
            if (v[i - 1] >= v[i]) return false;
        return true;
    }
    // Position of x in the list, or -1.
    constexpr int find(std::int64_t x) const {
        for (std::size_t i = 0; i < n; ++i)
            if (v[i] == x) return static_cast<int>(i);
        return -1;
    }
};

// Padding of a windowed op (reduce_window, convolution): explicit low/high lists, or XLA's
// Padding enum: SAME (output size ceil(size / stride), low = total / 2) and VALID (none).
enum class pad_mode { explicit_, same, valid };

// PrecisionConfig: one entry per operand of dot and convolution. Accepted, no effect (always
// full precision of the accumulation type).
enum class precision { default_, high, highest };
struct precision_config {
    precision lhs = precision::default_;
    precision rhs = precision::default_;
};

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
