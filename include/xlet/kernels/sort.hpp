// Sorting kernels over contiguous buffers (no op-level API; ops/reduce/sort.hpp drives them):
//  - radix keys: a bijection from every ordered element type onto unsigned integers whose order is
//    XLA's total order (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN for floats), optionally
//    reversed (descending);
//  - an LSD radix sort (8-bit digits, stable) of keys or of (key, index) items, sequential for one
//    slice and chunk-parallel for one large slice; passes whose digit is the same for every item
//    are skipped;
//  - a parallel stable merge sort for one large slice under an arbitrary comparator;
//  - the selection of the k best (key, index) items of one row for top_k.
// Every kernel's output is a function of its input only: a stable sort's result is unique, and the
// chunkings below depend on the length alone, so the thread count never shows in a result.
#pragma once
#include "../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include <tbb/blocked_range.h>

#include "../eval/parallel.hpp"

namespace xlet::detail {

// ---- radix keys -----------------------------------------------------------------------------------

template<class T>
inline constexpr bool radix_sortable = is_pred<T> || is_integer<T> || is_float<T>;

template<class T>
using radix_key_t =
    std::conditional_t<sizeof(T) == 1, std::uint8_t,
                       std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                          std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

template<class T>
constexpr radix_key_t<T> radix_float_bits(T x) noexcept {
    if constexpr (is_narrow_float<T>)
        return x.bits();
    else
        return std::bit_cast<radix_key_t<T>>(x);
}

// The key of x: unsigned, ordered as T's total order (Desc: reversed). Branch-free so that loops
// over keys vectorise.
template<class T, bool Desc = false>
constexpr radix_key_t<T> to_radix_key(T x) noexcept {
    using K = radix_key_t<T>;
    constexpr int W = 8 * sizeof(K);
    constexpr K sign = static_cast<K>(K{1} << (W - 1));
    constexpr K flip = Desc ? static_cast<K>(~K{0}) : K{0};
    if constexpr (is_pred<T>) {
        return static_cast<K>(K(x ? 1 : 0) ^ flip);
    } else if constexpr (is_unsigned_int<T>) {
        return static_cast<K>(x ^ flip);
    } else if constexpr (is_signed_int<T>) {
        return static_cast<K>(std::bit_cast<K>(x) ^ sign ^ flip);
    } else {
        // Sign-magnitude to offset binary: negatives flip every bit, positives set the sign bit.
        const K u = radix_float_bits(x);
        const K m = static_cast<K>(static_cast<K>(K{0} - static_cast<K>(u >> (W - 1))) | sign);
        return static_cast<K>(u ^ m ^ flip);
    }
}

template<class T, bool Desc = false>
constexpr T from_radix_key(radix_key_t<T> key) noexcept {
    using K = radix_key_t<T>;
    constexpr int W = 8 * sizeof(K);
    constexpr K sign = static_cast<K>(K{1} << (W - 1));
    constexpr K flip = Desc ? static_cast<K>(~K{0}) : K{0};
    const K k = static_cast<K>(key ^ flip);
    if constexpr (is_pred<T>) {
        return k != 0;
    } else if constexpr (is_unsigned_int<T>) {
        return k;
    } else if constexpr (is_signed_int<T>) {
        return std::bit_cast<T>(static_cast<K>(k ^ sign));
    } else {
        const K m = static_cast<K>(static_cast<K>(static_cast<K>(k >> (W - 1)) - K{1}) | sign);
        const K u = static_cast<K>(k ^ m);
        if constexpr (is_narrow_float<T>)
            return T::from_bits(u);
        else
            return std::bit_cast<T>(u);
    }
}

// ---- radix sort -----------------------------------------------------------------------------------

// A key with the position it came from (variadic sorts permute the other operands by it; top_k
// returns it).
template<class K, class I>
struct radix_item {
    K key;
    I idx;
};
template<class K>
constexpr K item_key(K k) noexcept requires std::is_unsigned_v<K> {
    return k;
}
template<class K, class I>
constexpr K item_key(const radix_item<K, I>& it) noexcept {
    return it.key;
}
template<class It>
using item_key_t = decltype(item_key(std::declval<const It&>()));

// Buffers of trivially copyable items, not zero-filled (every element is written before it is read).
template<class It>
std::unique_ptr<It[]> item_buffer(std::size_t n) {
    return std::make_unique_for_overwrite<It[]>(n);
}

inline constexpr std::size_t radix_digits = 256;
// Below this length a slice is insertion-sorted (a radix pass costs 256 counters per digit).
inline constexpr std::size_t radix_small = 48;

template<class It>
void insertion_sort_items(It* a, std::size_t n) {
    for (std::size_t i = 1; i < n; ++i) {
        It v = a[i];
        const auto k = item_key(v);
        std::size_t j = i;
        for (; j > 0 && k < item_key(a[j - 1]); --j)
            a[j] = a[j - 1]; // strict <: stable
        a[j] = v;
    }
}

template<class K>
constexpr std::size_t digit_of(K k, std::size_t pass) noexcept {
    return static_cast<std::size_t>((k >> (8 * pass)) & 0xFFu);
}

// Stable sort of a[0, n) by key; b is scratch for n items. Returns a or b, whichever holds the result.
template<class It>
It* radix_sort_seq(It* a, It* b, std::size_t n) {
    using K = item_key_t<It>;
    constexpr std::size_t P = sizeof(K);
    if (n < radix_small) {
        insertion_sort_items(a, n);
        return a;
    }
    std::array<std::array<std::size_t, radix_digits>, P> cnt{};
    for (std::size_t i = 0; i < n; ++i) {
        const K k = item_key(a[i]);
        for (std::size_t p = 0; p < P; ++p)
            ++cnt[p][digit_of(k, p)];
    }
    for (std::size_t p = 0; p < P; ++p) {
        auto& c = cnt[p];
        if (c[digit_of(item_key(a[0]), p)] == n) continue; // one digit value: the pass keeps the order
        std::size_t sum = 0;
        for (auto& x : c) {
            const std::size_t t = x;
            x = sum;
            sum += t;
        }
        for (std::size_t i = 0; i < n; ++i)
            b[c[digit_of(item_key(a[i]), p)]++] = a[i];
        std::swap(a, b);
    }
    return a;
}

// Above this length one slice is radix-sorted by several tasks; chunks hold at least
// radix_min_chunk items and there are at most radix_max_chunks of them (from n alone).
inline constexpr std::size_t radix_parallel_min = std::size_t{1} << 17;
inline constexpr std::size_t radix_min_chunk = std::size_t{1} << 16;
inline constexpr std::size_t radix_max_chunks = 64;

inline std::size_t chunk_count(std::size_t n, std::size_t min_chunk, std::size_t max_chunks) {
    return std::clamp<std::size_t>(n / min_chunk, 1, max_chunks);
}
inline std::size_t chunk_begin(std::size_t c, std::size_t chunks, std::size_t n) {
    return n / chunks * c + std::min(c, n % chunks);
}

template<class F>
void for_chunks(std::size_t chunks, const F& f) {
    run_parallel(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t c = r.begin(); c != r.end(); ++c)
            f(c);
    });
}

// The same sort as radix_sort_seq, each pass split over chunks: every chunk counts its digits,
// the counts give each (digit, chunk) its output offset in chunk order, and the chunks scatter
// in parallel. The result is the stable order, whatever runs where.
template<class It>
It* radix_sort_par(It* a, It* b, std::size_t n) {
    using K = item_key_t<It>;
    constexpr std::size_t P = sizeof(K);
    const std::size_t chunks = chunk_count(n, radix_min_chunk, radix_max_chunks);
    if (chunks == 1) return radix_sort_seq(a, b, n);
    using counts = std::array<std::size_t, radix_digits>;
    std::vector<std::array<counts, P>> first(chunks); // every pass's counts, from the input order
    for_chunks(chunks, [&](std::size_t c) {
        auto& h = first[c];
        for (auto& x : h)
            x.fill(0);
        for (std::size_t i = chunk_begin(c, chunks, n), e = chunk_begin(c + 1, chunks, n); i < e; ++i) {
            const K k = item_key(a[i]);
            for (std::size_t p = 0; p < P; ++p)
                ++h[p][digit_of(k, p)];
        }
    });
    std::vector<counts> cnt(chunks);
    bool first_pass = true;
    for (std::size_t p = 0; p < P; ++p) {
        counts total{};
        for (std::size_t c = 0; c < chunks; ++c)
            for (std::size_t d = 0; d < radix_digits; ++d)
                total[d] += first[c][p][d];
        if (total[digit_of(item_key(a[0]), p)] == n) continue;
        if (first_pass) {
            for (std::size_t c = 0; c < chunks; ++c)
                cnt[c] = first[c][p];
        } else {
            for_chunks(chunks, [&](std::size_t c) {
                auto& h = cnt[c];
                h.fill(0);
                for (std::size_t i = chunk_begin(c, chunks, n), e = chunk_begin(c + 1, chunks, n); i < e; ++i)
                    ++h[digit_of(item_key(a[i]), p)];
            });
        }
        first_pass = false;
        std::size_t sum = 0;
        for (std::size_t d = 0; d < radix_digits; ++d)
            for (std::size_t c = 0; c < chunks; ++c) {
                const std::size_t t = cnt[c][d];
                cnt[c][d] = sum;
                sum += t;
            }
        for_chunks(chunks, [&](std::size_t c) {
            auto& o = cnt[c];
            for (std::size_t i = chunk_begin(c, chunks, n), e = chunk_begin(c + 1, chunks, n); i < e; ++i)
                b[o[digit_of(item_key(a[i]), p)]++] = a[i];
        });
        std::swap(a, b);
    }
    return a;
}

// ---- stable merge sort under any comparator, for one large slice -----------------------------------

inline constexpr std::size_t merge_parallel_min = std::size_t{1} << 16;
inline constexpr std::size_t merge_min_chunk = std::size_t{1} << 14;
inline constexpr std::size_t merge_max_chunks = 64;

// Stable: chunks are std::stable_sort-ed in parallel, then merged pairwise (std::merge takes the
// left run's element on ties), a round at a time. Only std::stable_sort and std::merge touch the
// comparator, so one that is not a strict weak order still never reads out of bounds.
template<class V, class Less>
void parallel_stable_sort(V* a, std::size_t n, const Less& less) {
    const std::size_t chunks = chunk_count(n, merge_min_chunk, merge_max_chunks);
    std::vector<std::size_t> bounds(chunks + 1);
    for (std::size_t c = 0; c <= chunks; ++c)
        bounds[c] = chunk_begin(c, chunks, n);
    for_chunks(chunks, [&](std::size_t c) { std::stable_sort(a + bounds[c], a + bounds[c + 1], less); });
    if (chunks == 1) return;
    auto tmp = std::make_unique<V[]>(n); // not std::vector: vector<bool> has no data()
    V* src = a;
    V* dst = tmp.get();
    for (std::size_t width = 1; width < chunks; width *= 2) {
        const std::size_t pairs = (chunks + 2 * width - 1) / (2 * width);
        for_chunks(pairs, [&](std::size_t q) {
            const std::size_t lo = bounds[2 * width * q];
            const std::size_t mid = bounds[std::min(chunks, 2 * width * q + width)];
            const std::size_t hi = bounds[std::min(chunks, 2 * width * q + 2 * width)];
            std::merge(src + lo, src + mid, src + mid, src + hi, dst + lo, less);
        });
        std::swap(src, dst);
    }
    if (src != a) std::copy(src, src + n, a);
}

// ---- top_k ------------------------------------------------------------------------------------

// Below this ratio of k to the row length, top_k keeps a sorted list of the k best while it scans
// the row (most elements lose one compare against the worst kept key); above it, it selects with
// nth_element over every (key, index) of the row.
inline constexpr std::size_t top_k_scan_ratio = 16;
inline constexpr std::size_t top_k_block = 32;

// The k best elements of x[0, n) (smallest key; ties: lower index), in order, as (key, index) into
// best[0, k). scratch holds n items when k * top_k_scan_ratio > n.
template<class T, bool Largest, class I>
void top_k_row(const T* x, std::size_t n, std::size_t k, radix_item<radix_key_t<T>, I>* best,
               radix_item<radix_key_t<T>, I>* scratch) {
    using K = radix_key_t<T>;
    using It = radix_item<K, I>;
    // (key, index) pairs are unique, so any selection gives the same result.
    auto lexi = [](const It& a, const It& b) { return a.key < b.key || (a.key == b.key && a.idx < b.idx); };
    if (k == 0) return;
    if (k * top_k_scan_ratio > n) {
        for (std::size_t i = 0; i < n; ++i)
            scratch[i] = It{to_radix_key<T, Largest>(x[i]), static_cast<I>(i)};
        if (k < n) std::nth_element(scratch, scratch + k, scratch + n, lexi);
        std::sort(scratch, scratch + k, lexi);
        std::copy(scratch, scratch + k, best);
        return;
    }
    for (std::size_t i = 0; i < k; ++i)
        best[i] = It{to_radix_key<T, Largest>(x[i]), static_cast<I>(i)};
    std::sort(best, best + k, lexi);
    K worst = best[k - 1].key;
    // Later indices lose ties, so an element enters only with a key strictly below the worst kept.
    auto offer = [&](std::size_t i) {
        const K key = to_radix_key<T, Largest>(x[i]);
        if (!(key < worst)) return;
        std::size_t pos = k - 1;
        while (pos > 0 && key < best[pos - 1].key) {
            best[pos] = best[pos - 1];
            --pos;
        }
        best[pos] = It{key, static_cast<I>(i)};
        worst = best[k - 1].key;
    };
    std::size_t i = k;
    for (; i < n && i % top_k_block != 0; ++i)
        offer(i);
    for (; i + top_k_block <= n; i += top_k_block) {
        K lo = static_cast<K>(~K{0});
        for (std::size_t j = 0; j < top_k_block; ++j)
            lo = std::min(lo, to_radix_key<T, Largest>(x[i + j])); // vectorises
        if (lo < worst)
            for (std::size_t j = 0; j < top_k_block; ++j)
                offer(i + j);
    }
    for (; i < n; ++i)
        offer(i);
}

} // namespace xlet::detail
