// Counts this program's heap allocations (plain and aligned operator new) in `allocations`, for
// tests that prove a path allocates nothing. Include from exactly one source file per executable:
// it replaces the global allocation functions.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__GNUC__) && !defined(__clang__)
// GCC flags free() in a replaced operator delete as mismatched with new; here malloc pairs with it.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

inline std::atomic<long> allocations{0};

void* operator new(std::size_t n) {
    ++allocations;
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t al) {
    ++allocations;
    const std::size_t a = static_cast<std::size_t>(al);
    if (void* p = std::aligned_alloc(a, (n + a - 1) / a * a + (n == 0 ? a : 0))) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
