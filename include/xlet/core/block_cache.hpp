// Large array storage with a small cache of freed blocks.
//
// Ops that return a new array (gather, scatter, sort, dynamic_update_slice, ...) allocate their
// result. For arrays of many MiB the allocator hands back fresh pages from the OS every time, and
// touching them for the first time (page faults, the kernel zeroing each page) costs more than
// the op itself: a gather of 2^20 rows of 64 f32 runs at 5 GB/s into fresh memory and at 40 GB/s
// into memory already mapped (docs/performance.md). So a freed large block is kept, up to
// cache_blocks blocks and cache_bytes bytes, and handed to the next allocation of the same size
// and alignment: `y = gather(...)` in a loop then writes into the block `y` held before.
//
// Blocks of at least 2 * huge_page_bytes are aligned to 2 MiB and offered to transparent huge
// pages (madvise, Linux): a [4096,4096] f32 transpose walks 4096 pages per column sweep with 4 KiB
// pages, and a fresh result takes 512x fewer page faults.
//
// The cache is process-wide, guarded by a mutex (only allocations of >= 1 MiB reach it), and
// release_cached_memory() returns every cached block to the allocator. Define
// XLET_BLOCK_CACHE_BLOCKS=0 to turn the cache off.
#pragma once
#include <array>
#include <algorithm>
#include <cstddef>
#include <mutex>
#include <new>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#ifndef XLET_BLOCK_CACHE_BLOCKS
#define XLET_BLOCK_CACHE_BLOCKS 8
#endif

namespace xlet {
namespace detail {

inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
inline constexpr std::size_t heap_alignment(std::size_t bytes) {
    return bytes >= 2 * huge_page_bytes ? huge_page_bytes : 64;
}

// Blocks below this size go straight to the allocator (it keeps small blocks mapped itself).
inline constexpr std::size_t cache_min_bytes = std::size_t{1} << 20;
inline constexpr std::size_t cache_blocks = XLET_BLOCK_CACHE_BLOCKS;
inline constexpr std::size_t cache_bytes = std::size_t{1} << 30;

class block_cache {
    struct entry {
        void* p = nullptr;
        std::size_t bytes = 0, align = 0;
    };
    std::mutex m_;
    std::array<entry, (cache_blocks > 0 ? cache_blocks : 1)> e_{};
    std::size_t held_ = 0;

public:
    // A cached block of exactly this size and alignment, or nullptr.
    void* take(std::size_t bytes, std::size_t align) {
        std::lock_guard<std::mutex> lock(m_);
        for (auto& x : e_)
            if (x.p != nullptr && x.bytes == bytes && x.align == align) {
                void* p = x.p;
                x.p = nullptr;
                held_ -= bytes;
                return p;
            }
        return nullptr;
    }
    // Keeps the block if there is room; false: the caller frees it.
    bool keep(void* p, std::size_t bytes, std::size_t align) {
        if constexpr (cache_blocks == 0) return false;
        std::lock_guard<std::mutex> lock(m_);
        if (held_ + bytes > cache_bytes) return false;
        for (auto& x : e_)
            if (x.p == nullptr) {
                x = entry{p, bytes, align};
                held_ += bytes;
                return true;
            }
        return false;
    }
    void release() {
        std::lock_guard<std::mutex> lock(m_);
        for (auto& x : e_)
            if (x.p != nullptr) {
                ::operator delete[](x.p, std::align_val_t{x.align});
                x.p = nullptr;
            }
        held_ = 0;
    }
    std::size_t held_bytes() {
        std::lock_guard<std::mutex> lock(m_);
        return held_;
    }
    // Never destroyed: tensors with static storage duration may free blocks during exit.
    static block_cache& instance() {
        static block_cache* c = new block_cache;
        return *c;
    }
};

// Raw storage for `bytes` bytes aligned to `align` (heap_alignment(bytes)); contents unspecified.
inline void* allocate_block(std::size_t bytes, std::size_t align) {
    if (bytes >= cache_min_bytes)
        if (void* p = block_cache::instance().take(bytes, align)) return p;
    void* p = ::operator new[](bytes, std::align_val_t{align});
#if defined(__linux__)
    if (align == huge_page_bytes) ::madvise(p, bytes, MADV_HUGEPAGE); // a hint: failure is harmless
#endif
    return p;
}
inline void free_block(void* p, std::size_t bytes, std::size_t align) noexcept {
    if (p == nullptr) return;
    if (bytes >= cache_min_bytes) {
        try {
            if (block_cache::instance().keep(p, bytes, align)) return;
        } catch (...) { // a mutex that cannot be locked: just free the block
        }
    }
    ::operator delete[](p, std::align_val_t{align});
}

// Uninitialised scratch space of n T for an op's temporaries (partial sums, ...). Blocks of
// 64 KiB and more are rounded up to the cache's minimum, so a call repeated in a loop reuses its
// block: the allocator maps such blocks afresh per call otherwise, and the page faults of the
// 512 KiB of partial sums of a [4096,4096] column sum cost 5% of it.
template<class T>
class scratch {
    static_assert(std::is_trivially_destructible_v<T>);
    std::size_t bytes_, align_;
    T* p_;

public:
    explicit scratch(std::size_t n)
        : bytes_(n * sizeof(T) >= (std::size_t{64} << 10) ? std::max(n * sizeof(T), cache_min_bytes)
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
inline void release_cached_memory() { detail::block_cache::instance().release(); }
// Bytes held by that cache now.
inline std::size_t cached_memory_bytes() { return detail::block_cache::instance().held_bytes(); }

} // namespace xlet
