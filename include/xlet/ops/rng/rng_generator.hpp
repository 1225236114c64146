// The generator state behind RngUniform / RngNormal (spec: RngGetAndUpdateState).
//
// XLA keeps one hidden global state per module and advances it with the HLO-internal
// RngGetAndUpdateState(delta). xlet makes it an explicit object the user passes:
//   rng_generator gen(seed);          // key = seed, 128-bit counter = 0
//   auto s = gen.get_and_update_state(n); // u64[3] {key, counter lo, counter hi} before the call;
//                                     // reserves n Philox counters (one atomic fetch_add)
//   default_rng_generator()           // the instance rng_uniform / rng_normal use when none is
//                                     // passed: seed 0, process-wide
// Thread-safe: concurrent draws reserve disjoint counter ranges, so no two draws ever share a
// stream; which thread gets which range follows the order of the atomic operations. A program
// that draws from one thread (or gives each thread its own generator) is reproducible.
// The counter is 128-bit in the state's layout; xlet advances its low 64 bits (2^64 counters of
// 16 bytes each: never reached in practice), the high word stays 0.
#pragma once
#include <atomic>
#include <cstdint>

#include "../../core/tensor.hpp"

namespace xlet {

class rng_generator {
public:
    explicit rng_generator(std::uint64_t seed = 0) noexcept : key_(seed) {}
    rng_generator(const rng_generator&) = delete;
    rng_generator& operator=(const rng_generator&) = delete;

    // RngGetAndUpdateState(delta): the Philox state u64[3] {key, counter lo, counter hi} as it
    // was, after reserving `delta` counters for the caller.
    u64<3> get_and_update_state(std::uint64_t delta) noexcept {
        const std::uint64_t c = counter_.fetch_add(delta, std::memory_order_relaxed);
        return u64<3>{key_, c, 0};
    }
    // The current state (no counter reserved).
    u64<3> state() const noexcept { return u64<3>{key_, counter_.load(std::memory_order_relaxed), 0}; }
    std::uint64_t seed() const noexcept { return key_; }

private:
    const std::uint64_t key_;
    std::atomic<std::uint64_t> counter_{0};
};

// The generator rng_uniform and rng_normal use when none is passed (seed 0).
inline rng_generator& default_rng_generator() noexcept {
    static rng_generator g{0};
    return g;
}

} // namespace xlet
