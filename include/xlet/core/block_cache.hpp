// Heap array storage with a small cache of freed blocks.
//
// Ops that return a new array (gather, scatter, sort, dot, any `auto y = eval(...)`) allocate
// their result. For arrays of many MiB the allocator hands back fresh pages from the OS every
// time, and touching them for the first time (page faults, the kernel zeroing each page) costs
// more than the op itself: a gather of 2^20 rows of 64 f32 runs at 5 GB/s into fresh memory and at
// 40 GB/s into memory already mapped (docs/performance.md). Small blocks cost the allocator's
// aligned path (a 16 KiB `eval(a + b)` took 25% longer fresh than assigned). So a freed block of
// at least cache_min_bytes is kept, up to cache_blocks blocks and cache_bytes bytes, and handed to
// the next allocation of the same size and alignment: `y = gather(...)` in a loop then writes
// into the block `y` held before. When the cache is full, the least recently kept blocks are freed
// to make room: a program whose sizes change keeps the blocks it uses now, not those of an
// earlier phase (which had filled every slot and sent each new block back to the OS).
//
// Blocks of at least 2 * huge_page_bytes are aligned to 2 MiB and offered to transparent huge
// pages (madvise, Linux): a [4096,4096] f32 transpose walks 4096 pages per column sweep with 4 KiB
// pages, and a fresh result takes 512x fewer page faults.
//
// The cache is process-wide, guarded by a mutex, and release_cached_memory() returns every cached
// block to the allocator. Define XLET_BLOCK_CACHE_BLOCKS=0 to turn the cache off.
#pragma once
#include <array>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#ifndef XLET_BLOCK_CACHE_BLOCKS
#define XLET_BLOCK_CACHE_BLOCKS 16
#endif

namespace xlet {
namespace detail {

inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
inline constexpr std::size_t heap_alignment(std::size_t bytes) {
    return bytes >= 2 * huge_page_bytes ? huge_page_bytes : 64;
}

// Blocks below this size go straight to the allocator (tensors up to 4 KiB are inline anyway).
inline constexpr std::size_t cache_min_bytes = std::size_t{4} << 10;
inline constexpr std::size_t cache_blocks = XLET_BLOCK_CACHE_BLOCKS;
inline constexpr std::size_t cache_bytes = std::size_t{1} << 30;

inline void free_raw(void* p, std::size_t align) noexcept { ::operator delete[](p, std::align_val_t{align}); }

// Up to N freed blocks, each handed back only to an allocation of the same size and alignment.
// When a block is kept and there is no free slot (or the bytes held would pass the budget), the
// least recently kept blocks make room: a program whose sizes change keeps the blocks it uses
// now, not those of an earlier phase (which had filled every slot and sent each new block back to
// the OS). Not synchronised: block_cache locks it, thread_block_cache is per thread.
template<std::size_t N>
class block_slots {
    struct entry {
        void* p = nullptr;
        std::size_t bytes = 0, align = 0;
        std::uint64_t stamp = 0; // when it was kept
    };
    std::array<entry, (N > 0 ? N : 1)> e_{};
    std::uint64_t clock_ = 0;
    std::size_t held_ = 0;

public:
    void* take(std::size_t bytes, std::size_t align) {
        for (auto& x : e_)
            if (x.p != nullptr && x.bytes == bytes && x.align == align) {
                held_ -= bytes;
                return std::exchange(x.p, nullptr);
            }
        return nullptr;
    }
    // Keeps p (bytes <= budget); every block evicted to make room goes to evict(p, align).
    template<class F>
    void keep(void* p, std::size_t bytes, std::size_t align, std::size_t budget, F&& evict) {
        for (;;) {
            entry* slot = nullptr;
            entry* oldest = nullptr;
            for (auto& x : e_)
                if (x.p == nullptr) {
                    if (!slot) slot = &x;
                } else if (!oldest || x.stamp < oldest->stamp) {
                    oldest = &x;
                }
            if (slot && held_ + bytes <= budget) {
                *slot = entry{p, bytes, align, ++clock_};
                held_ += bytes;
                return;
            }
            held_ -= oldest->bytes; // exists: no free slot, or some bytes are held
            evict(std::exchange(oldest->p, nullptr), oldest->align);
        }
    }
    void release() {
        for (auto& x : e_)
            if (x.p != nullptr) free_raw(std::exchange(x.p, nullptr), x.align);
        held_ = 0;
    }
    std::size_t held_bytes() const { return held_; }
};

// The process-wide cache, for blocks of 1 MiB and more.
class block_cache {
    std::mutex m_;
    block_slots<cache_blocks> slots_;

public:
    void* take(std::size_t bytes, std::size_t align) {
        std::lock_guard<std::mutex> lock(m_);
        return slots_.take(bytes, align);
    }
    // false: the block is larger than the whole cache and the caller frees it. Evicted blocks
    // are freed after the lock is released.
    bool keep(void* p, std::size_t bytes, std::size_t align) {
        if constexpr (cache_blocks == 0) return false;
        if (bytes > cache_bytes) return false;
        std::array<std::pair<void*, std::size_t>, (cache_blocks > 0 ? cache_blocks : 1)> evicted{};
        std::size_t n = 0;
        {
            std::lock_guard<std::mutex> lock(m_);
            slots_.keep(p, bytes, align, cache_bytes, [&](void* q, std::size_t a) { evicted[n++] = {q, a}; });
        }
        for (std::size_t i = 0; i < n; ++i)
            free_raw(evicted[i].first, evicted[i].second);
        return true;
    }
    void release() {
        std::lock_guard<std::mutex> lock(m_);
        slots_.release();
    }
    std::size_t held_bytes() {
        std::lock_guard<std::mutex> lock(m_);
        return slots_.held_bytes();
    }
    // Never destroyed: tensors with static storage duration may free blocks during exit.
    static block_cache& instance() {
        static block_cache* c = new block_cache;
        return *c;
    }
};

// Blocks below 1 MiB are cached per thread, without a lock (a 16 KiB add takes 0.4 us; two
// mutex round trips were a quarter of that), up to 16 of them (16 MiB): a forward pass of a small
// model holds that many results and temporaries at once (examples/quantized_mlp_model.hpp beside
// the f32 one, 256 rows: 9 blocks); with 4 slots each pass evicted the others' blocks and
// faulted fresh pages in, a third of the int8 pass's time on the Zen 5 host (558 -> 336 us). The
// blocks of a thread that ends are freed.
inline constexpr std::size_t thread_cache_max_bytes = std::size_t{1} << 20;
inline thread_local bool thread_cache_gone = false; // trivial: readable during exit
class thread_block_cache : public block_slots<(cache_blocks < 16 ? cache_blocks : 16)> {
public:
    thread_block_cache() = default;
    thread_block_cache(const thread_block_cache&) = delete;
    thread_block_cache& operator=(const thread_block_cache&) = delete;
    ~thread_block_cache() {
        release();
        thread_cache_gone = true;
    }
    bool keep(void* p, std::size_t bytes, std::size_t align) {
        if constexpr (cache_blocks == 0) return false;
        block_slots::keep(p, bytes, align, std::numeric_limits<std::size_t>::max(), free_raw); // slots only
        return true;
    }
    // nullptr once this thread's cache is destroyed (tensors freed later, during exit).
    static thread_block_cache* instance() {
        if (thread_cache_gone) return nullptr;
        thread_local thread_block_cache c;
        return &c;
    }
};

// Raw storage for `bytes` bytes aligned to `align` (heap_alignment(bytes)); contents unspecified.
inline void* allocate_block(std::size_t bytes, std::size_t align) {
    if (bytes >= cache_min_bytes && bytes < thread_cache_max_bytes) {
        if (thread_block_cache* c = thread_block_cache::instance())
            if (void* p = c->take(bytes, align)) return p;
    } else if (bytes >= cache_min_bytes) {
        if (void* p = block_cache::instance().take(bytes, align)) return p;
    }
    void* p = ::operator new[](bytes, std::align_val_t{align});
#if defined(__linux__)
    if (align == huge_page_bytes) ::madvise(p, bytes, MADV_HUGEPAGE); // a hint: failure is harmless
#endif
    return p;
}
inline void free_block(void* p, std::size_t bytes, std::size_t align) noexcept {
    if (p == nullptr) return;
    if (bytes >= cache_min_bytes && bytes < thread_cache_max_bytes) {
        if (thread_block_cache* c = thread_block_cache::instance())
            if (c->keep(p, bytes, align)) return;
    } else if (bytes >= cache_min_bytes) {
        try {
            if (block_cache::instance().keep(p, bytes, align)) return;
        } catch (...) { // a mutex that cannot be locked: just free the block
        }
    }
    free_raw(p, align);
}

// Uninitialised scratch space of n T for an op's temporaries (partial sums, ...). Blocks of
// 64 KiB and more are rounded up to 1 MiB, so that a call repeated in a loop finds its block in
// the cache even when the exact size varies a little: the allocator maps such blocks afresh per
// call otherwise, and the page faults of the 512 KiB of partial sums of a [4096,4096] column sum
// cost 5% of it.
template<class T>
class scratch {
    static_assert(std::is_trivially_destructible_v<T>);
    std::size_t bytes_, align_;
    T* p_;

public:
    explicit scratch(std::size_t n)
        : bytes_(n * sizeof(T) >= (std::size_t{64} << 10) ? std::max(n * sizeof(T), std::size_t{1} << 20)
                                                          : std::max<std::size_t>(n * sizeof(T), 1)),
          align_(std::max(alignof(T), heap_alignment(bytes_))), p_(static_cast<T*>(allocate_block(bytes_, align_))) {}
    scratch(const scratch&) = delete;
    scratch& operator=(const scratch&) = delete;
    ~scratch() { free_block(p_, bytes_, align_); }
    T* data() { return p_; }
    T& operator[](std::size_t i) { return p_[i]; }
    const T& operator[](std::size_t i) const { return p_[i]; }
};

} // namespace detail

// Returns every block held by xlet's cache of freed large arrays to the allocator (and so,
// for blocks the allocator maps directly, to the OS).
// (and the calling thread's cache of blocks below 1 MiB)
inline void release_cached_memory() {
    detail::block_cache::instance().release();
    if (auto* c = detail::thread_block_cache::instance()) c->release();
}
// Bytes held by that cache now (with the calling thread's).
inline std::size_t cached_memory_bytes() {
    auto* c = detail::thread_block_cache::instance();
    return detail::block_cache::instance().held_bytes() + (c ? c->held_bytes() : 0);
}

} // namespace xlet
