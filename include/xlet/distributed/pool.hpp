// replica_pool: one SPMD program run as R replicas x P partitions inside this process, each device a
// oneTBB task. A device that reaches a collective before the rest of its group suspends
// (tbb::task::suspend): its thread goes on with other devices, so 256 replicas on 2 threads make
// progress without 256 OS threads, and nobody spins.
//
// Matching: the n-th collective a device enters meets the n-th of every other device (SPMD: they
// all run the same program). The first device to arrive records the collective's description; a
// device arriving with another op, operand type or shape, attributes, channel or groups fails the
// collective for everyone waiting there, with a message naming both devices and both
// descriptions. A device whose program returns while devices of its group wait for it, or throws,
// wakes them with an xlet::error that says so; the pool then rethrows the first root cause (by
// device id) to run()'s caller. Nothing waits on a timeout.
//
// Under AddressSanitizer or ThreadSanitizer (or with XLET_POOL_THREADS defined to 1) each device is
// an OS thread that blocks on a condition variable instead: the sanitizers cannot follow oneTBB's
// stack switches (Debian's libtbb has no fiber annotations; oneTBB itself falls back to threads
// when built with sanitizers), and the rendezvous logic they check is the same.
#pragma once
#include "../core/simd.hpp" // before TBB: see core/simd.hpp

#ifndef XLET_POOL_THREADS
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define XLET_POOL_THREADS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define XLET_POOL_THREADS 1
#endif
#endif
#endif
#ifndef XLET_POOL_THREADS
#define XLET_POOL_THREADS 0
#endif

#include <tbb/task.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>

#include "transport.hpp"

namespace xlet {

namespace detail {

// An error a device raises only because another device failed first; the pool prefers root causes.
class cancelled_error : public error {
public:
    using error::error;
};

inline std::string device_name(std::uint32_t d, std::uint32_t P) {
    if (P == 1) return "replica " + std::to_string(d);
    return "replica " + std::to_string(d / P) + " partition " + std::to_string(d % P);
}

inline std::string describe(const collective_desc& d) {
    std::string s = std::string(d.op) + " " + std::string(d.operand) + " (";
    for (std::size_t i = 0; i < d.attrs.size(); ++i)
        if (d.attr_names[i]) s += std::string(d.attr_names[i]) + "=" + std::to_string(d.attrs[i]) + ", ";
    s += "channel_id=" + std::to_string(d.channel_id) + ", " + mode_name(d.mode);
    if (d.groups) s += ", " + std::string(d.op == std::string_view("collective_permute") ? "source_target_pairs=" : "replica_groups=") + groups_string(*d.groups);
    return s + ")";
}

// Visits the contiguous runs of a box: fn(src_offset, dst_offset, length), in elements.
template<class Fn>
void for_each_run(const box& b, std::ptrdiff_t src0, std::ptrdiff_t dst0, Fn&& fn) {
    // Merge trailing dimensions that are contiguous in both source and destination.
    std::size_t r = b.rank, run = 1;
    while (r > 0 && b.src_stride[r - 1] == static_cast<std::ptrdiff_t>(run) &&
           b.dst_stride[r - 1] == static_cast<std::ptrdiff_t>(run)) {
        run *= b.size[r - 1];
        --r;
    }
    if (run == 0) return;
    std::array<std::size_t, 8> idx{};
    for (;;) {
        std::ptrdiff_t s = src0, d = dst0;
        for (std::size_t i = 0; i < r; ++i) {
            s += static_cast<std::ptrdiff_t>(idx[i]) * b.src_stride[i];
            d += static_cast<std::ptrdiff_t>(idx[i]) * b.dst_stride[i];
        }
        fn(s, d, run);
        std::size_t i = r;
        for (; i > 0; --i) {
            if (++idx[i - 1] < b.size[i - 1]) break;
            idx[i - 1] = 0;
        }
        if (i == 0) return;
    }
}

// The in-process transport: devices are tasks of one task_arena, rendezvous are in shared memory
// and move data directly from the senders' arrays into the receivers' (no staging copies).
class shared_memory_transport final : public transport {
public:
    shared_memory_transport(std::uint32_t R, std::uint32_t P)
        : R_(R), P_(P), finished_at_(static_cast<std::size_t>(R) * P, unfinished) {}

    std::uint32_t replica_count() const override { return R_; }
    std::uint32_t partition_count() const override { return P_; }

    void all_reduce(replica_context& ctx, const collective_desc& d, const group_view& g, const void* in, void* out,
                    std::size_t n, std::size_t eb, const combiner& f) override {
        meet(ctx, d, g, {in, out, 0}, 2 * n * eb * g.members.size(), [&](std::size_t j, const std::vector<slot>& s) {
            const std::size_t G = s.size();
            // Part j: elements [lo, hi), folded in group order a block at a time (the block stays
            // in L1/L2 while every input is added), then copied to the other members' outputs.
            const std::size_t lo = n * j / G, hi = n * (j + 1) / G, block = std::max<std::size_t>(1, 16384 / eb);
            for (std::size_t b = lo; b < hi; b += block) {
                const std::size_t len = std::min(block, hi - b);
                auto at = [&](const void* p) { return static_cast<const char*>(p) + b * eb; };
                char* acc = static_cast<char*>(s[0].out) + b * eb;
                if (G == 1) {
                    std::memcpy(acc, at(s[0].in), len * eb);
                    continue;
                }
                f(acc, at(s[0].in), at(s[1].in), len);
                for (std::size_t k = 2; k < G; ++k) f(acc, acc, at(s[k].in), len);
                for (std::size_t k = 1; k < G; ++k) std::memcpy(static_cast<char*>(s[k].out) + b * eb, acc, len * eb);
            }
        });
    }

    void exchange(replica_context& ctx, const collective_desc& d, const group_view& g, const void* in, void* out,
                  const box& b) override {
        meet(ctx, d, g, {in, out, 0}, 2 * b.elements() * b.elem_bytes * g.members.size(),
             [&](std::size_t j, const std::vector<slot>& s) {
                 const std::size_t eb = b.elem_bytes;
                 for (std::size_t k = 0; k < s.size(); ++k) {
                     auto* src = static_cast<const char*>(s[k].in);
                     auto* dst = static_cast<char*>(s[j].out);
                     for_each_run(b, static_cast<std::ptrdiff_t>(j) * b.src_step,
                                  static_cast<std::ptrdiff_t>(k) * b.dst_step,
                                  [&](std::ptrdiff_t so, std::ptrdiff_t dof, std::size_t len) {
                                      std::memcpy(dst + dof * static_cast<std::ptrdiff_t>(eb),
                                                  src + so * static_cast<std::ptrdiff_t>(eb), len * eb);
                                  });
                 }
             });
    }

    void reduce_scatter(replica_context& ctx, const collective_desc& d, const group_view& g, const void* in,
                        void* out, const box& b, const combiner& f) override {
        meet(ctx, d, g, {in, out, 0}, 2 * b.elements() * b.elem_bytes * g.members.size(),
             [&](std::size_t j, const std::vector<slot>& s) {
                 const std::size_t eb = b.elem_bytes, G = s.size(), block = std::max<std::size_t>(1, 16384 / eb);
                 auto* dst = static_cast<char*>(s[j].out);
                 for_each_run(b, static_cast<std::ptrdiff_t>(j) * b.src_step, 0,
                              [&](std::ptrdiff_t so, std::ptrdiff_t dof, std::size_t len) {
                                  for (std::size_t o = 0; o < len; o += block) {
                                      const std::size_t l = std::min(block, len - o);
                                      auto at = [&](std::size_t k) {
                                          return static_cast<const char*>(s[k].in) +
                                                 (so + static_cast<std::ptrdiff_t>(o)) * static_cast<std::ptrdiff_t>(eb);
                                      };
                                      char* acc = dst + (dof + static_cast<std::ptrdiff_t>(o)) * static_cast<std::ptrdiff_t>(eb);
                                      if (G == 1) {
                                          std::memcpy(acc, at(0), l * eb);
                                          continue;
                                      }
                                      f(acc, at(0), at(1), l);
                                      for (std::size_t k = 2; k < G; ++k) f(acc, acc, at(k), l);
                                  }
                              });
             });
    }

    void copy_from(replica_context& ctx, const collective_desc& d, const group_view& g, std::ptrdiff_t source,
                   const void* in, void* out, std::size_t bytes) override {
        meet(ctx, d, g, {in, out, source}, 2 * bytes * g.members.size(),
             [&](std::size_t j, const std::vector<slot>& s) {
                 if (s[j].source >= 0)
                     std::memcpy(s[j].out, s[static_cast<std::size_t>(s[j].source)].in, bytes);
                 else
                     std::memset(s[j].out, 0, bytes);
             });
    }

    // The pool's side: a device's program returned (entered = collectives it entered) or threw.
    void finished(std::uint32_t dev, std::uint64_t entered) {
        std::lock_guard lk(m_);
        finished_at_[dev] = entered;
        for (auto& [n, inst] : instances_) {
            if (n < entered) continue;
            for (auto& [leader, gs] : inst.groups) {
                if (gs.phase != 0 || !gs.error.empty()) continue;
                if (std::find(gs.members.begin(), gs.members.end(), dev) == gs.members.end()) continue;
                fail(gs, device_name(dev, P_) + " returned after " + std::to_string(entered) +
                             " collectives while " + waiting_names(gs) + " wait for it at collective #" +
                             std::to_string(n) + ", " + text(inst), false);
            }
        }
    }
    void cancel(std::uint32_t dev, const std::string& what) {
        std::lock_guard lk(m_);
        if (!cancel_reason_.empty()) return;
        cancel_reason_ = device_name(dev, P_) + " threw: " + what;
        for (auto& [n, inst] : instances_)
            for (auto& [leader, gs] : inst.groups)
                if (gs.phase == 0 && gs.error.empty()) fail(gs, "cancelled: " + cancel_reason_, true);
    }
    // After every device returned: all must have entered the same number of collectives.
    std::string count_mismatch() const {
        for (std::size_t i = 1; i < finished_at_.size(); ++i)
            if (finished_at_[i] != finished_at_[0])
                return device_name(0, P_) + " entered " + std::to_string(finished_at_[0]) + " collectives but " +
                       device_name(static_cast<std::uint32_t>(i), P_) + " entered " + std::to_string(finished_at_[i]);
        return {};
    }

private:
    static constexpr std::uint64_t unfinished = ~std::uint64_t{0};
    // Below this many bytes moved, the last device to arrive does the whole collective while the
    // others stay suspended (one wake-up each); above it every member does its own part.
    static constexpr std::size_t split_bytes = 256 * 1024;

    struct slot {
        const void* in = nullptr;
        void* out = nullptr;
        std::ptrdiff_t source = 0;
    };
    struct group_state {
        std::vector<std::uint32_t> members;
        std::vector<slot> slots;
        std::vector<char> present;
        std::size_t arrived = 0, finished = 0, left = 0;
        int phase = 0; // 0: gathering, 1: every member does its part, 2: complete
        std::string error;
        bool cancelled = false;
        std::exception_ptr part_error;
        std::vector<tbb::task::suspend_point> waiters;
        std::condition_variable cv; // XLET_POOL_THREADS
    };
    struct instance {
        collective_desc first;         // groups pointer not kept: the first device may be gone
        replica_groups_t groups_copy;  // what `first.groups` pointed at
        std::string operand;
        std::uint32_t first_device = 0;
        std::size_t joined = 0;
        std::string failure;
        std::map<std::uint32_t, group_state> groups; // by the group's first member
    };

    // The first device's description, for messages (built only when one is needed).
    static std::string text(const instance& inst) {
        collective_desc d = inst.first;
        d.operand = inst.operand;
        d.groups = &inst.groups_copy;
        return describe(d);
    }
    std::string waiting_names(const group_state& gs) const {
        std::string s;
        std::size_t shown = 0, total = 0;
        for (std::size_t k = 0; k < gs.members.size(); ++k) {
            if (!gs.present[k]) continue;
            ++total;
            if (shown < 8) s += (shown++ ? ", " : "") + device_name(gs.members[k], P_);
        }
        if (total > shown) s += " and " + std::to_string(total - shown) + " more";
        return s;
    }
    static void wake(group_state& gs) {
        if constexpr (XLET_POOL_THREADS) gs.cv.notify_all();
        auto w = std::move(gs.waiters);
        gs.waiters.clear();
        for (auto sp : w) tbb::task::resume(sp);
    }
    static void fail(group_state& gs, std::string why, bool cancelled) {
        gs.error = std::move(why);
        gs.cancelled = cancelled;
        wake(gs);
    }
    template<class Pred>
    void wait(std::unique_lock<std::mutex>& lk, group_state& gs, Pred done) {
        if constexpr (XLET_POOL_THREADS) {
            gs.cv.wait(lk, done);
            return;
        }
        while (!done()) {
            lk.unlock();
            tbb::task::suspend([&](tbb::task::suspend_point sp) {
                std::lock_guard g(m_);
                if (done())
                    tbb::task::resume(sp);
                else
                    gs.waiters.push_back(sp);
            });
            lk.lock();
        }
    }
    static bool same(const collective_desc& a, const std::string& a_operand, const replica_groups_t& a_groups,
                     const collective_desc& b) {
        return std::strcmp(a.op, b.op) == 0 && a_operand == b.operand && a.attrs == b.attrs &&
               a.channel_id == b.channel_id && a.mode == b.mode &&
               (b.groups ? a_groups == *b.groups : a_groups.empty());
    }
    void leave(instance& inst, std::uint64_t n, group_state& gs, std::uint32_t leader) {
        if (++gs.left == gs.members.size()) inst.groups.erase(leader);
        if (inst.groups.empty() && inst.joined == finished_at_.size()) instances_.erase(n);
    }

    // The rendezvous every collective goes through: `work(j, slots)` is member j's part.
    template<class Work>
    void meet(replica_context& ctx, const collective_desc& d, const group_view& g, slot mine, std::size_t bytes,
              Work&& work) {
        const std::uint64_t n = ctx.next_sequence();
        const std::uint32_t dev = ctx.device_id();
        std::unique_lock lk(m_);
        if (!cancel_reason_.empty()) throw cancelled_error(d.op, "cancelled: " + cancel_reason_);
        instance& inst = instances_[n];
        if (inst.joined == 0 && inst.failure.empty()) {
            inst.first = d;
            inst.operand = std::string(d.operand);
            if (d.groups) inst.groups_copy = *d.groups;
            inst.first.groups = nullptr;
            inst.first.operand = {};
            inst.first_device = dev;
        } else if (inst.failure.empty() && !same(inst.first, inst.operand, inst.groups_copy, d)) {
            inst.failure = "devices disagree at collective #" + std::to_string(n) + ": " +
                           device_name(inst.first_device, P_) + " is at " + text(inst) + " but " +
                           device_name(dev, P_) + " reached " + describe(d);
            for (auto& [leader, gs] : inst.groups)
                if (gs.phase == 0 && gs.error.empty()) fail(gs, inst.failure, false);
        }
        ++inst.joined;
        if (!inst.failure.empty()) throw error(d.op, inst.failure);
        if (g.me < 0) { // in no group: takes part in the matching only
            if (inst.groups.empty() && inst.joined == finished_at_.size()) instances_.erase(n);
            return;
        }
        for (auto m : g.members)
            if (finished_at_[m] != unfinished && finished_at_[m] <= n)
                throw error(d.op, device_name(m, P_) + " returned after " + std::to_string(finished_at_[m]) +
                                      " collectives; " + device_name(dev, P_) + " waits for it at collective #" +
                                      std::to_string(n) + ", " + text(inst));
        const std::uint32_t leader = g.members[0];
        group_state& gs = inst.groups[leader];
        const std::size_t G = g.members.size(), me = static_cast<std::size_t>(g.me);
        if (gs.members.empty()) {
            gs.members = g.members;
            gs.slots.resize(G);
            gs.present.assign(G, 0);
        }
        if (!gs.error.empty()) throw error(d.op, gs.error);
        gs.slots[me] = mine;
        gs.present[me] = 1;
        if (++gs.arrived == G) {
            if (bytes < split_bytes || G == 1) {
                lk.unlock();
                std::exception_ptr e;
                try {
                    for (std::size_t j = 0; j < G; ++j) work(j, gs.slots);
                } catch (...) {
                    e = std::current_exception();
                }
                lk.lock();
                gs.part_error = e;
                gs.phase = 2;
            } else {
                gs.phase = 1;
            }
            wake(gs);
        } else {
            wait(lk, gs, [&] { return gs.phase >= 1 || !gs.error.empty(); });
            if (gs.phase == 0) { // failed before it started: nobody reads anyone's arrays
                const std::string why = gs.error;
                const bool c = gs.cancelled;
                if (--gs.arrived == 0) inst.groups.erase(leader);
                else gs.present[me] = 0;
                if (c) throw cancelled_error(d.op, why);
                throw error(d.op, why);
            }
        }
        if (gs.phase == 1) {
            // Every member has arrived and reads the others' arrays: this phase always completes,
            // whatever else fails, so no array is freed while it is read.
            lk.unlock();
            std::exception_ptr e;
            try {
                work(me, gs.slots);
            } catch (...) {
                e = std::current_exception();
            }
            lk.lock();
            if (e && !gs.part_error) gs.part_error = e;
            if (++gs.finished == G) {
                gs.phase = 2;
                wake(gs);
            } else {
                wait(lk, gs, [&] { return gs.phase == 2; });
            }
        }
        std::exception_ptr e = gs.part_error;
        leave(inst, n, gs, leader);
        lk.unlock();
        if (e) std::rethrow_exception(e);
    }

    std::uint32_t R_, P_;
    std::mutex m_;
    std::map<std::uint64_t, instance> instances_;
    std::vector<std::uint64_t> finished_at_;
    std::string cancel_reason_;
};

} // namespace detail

// Runs one SPMD program on replicas x partitions devices:
//   xlet::replica_pool pool(4);
//   auto outs = pool.run([](xlet::replica_context& ctx) { return xlet::all_reduce(ctx, x, xlet::add_fn{}); });
// `threads` (0: oneTBB's default) bounds the threads that run the devices; results do not depend
// on it. run() returns the program's results by device id (replica * partitions + partition), or
// nothing for a void program; it rethrows the first root-cause exception of any device.
class replica_pool {
public:
    explicit replica_pool(std::uint32_t replicas, std::uint32_t partitions = 1, int threads = 0)
        : R_(replicas), P_(partitions), threads_(threads) {
        if (replicas == 0 || partitions == 0)
            throw error("replica_pool", "needs at least one replica and one partition (got " +
                                            std::to_string(replicas) + " x " + std::to_string(partitions) + ")");
    }
    std::uint32_t replica_count() const { return R_; }
    std::uint32_t partition_count() const { return P_; }
    std::uint32_t device_count() const { return R_ * P_; }

    template<class F>
    requires std::is_invocable_v<F&, replica_context&>
    auto run(F&& program) {
        using Result = std::invoke_result_t<F&, replica_context&>;
        const std::uint32_t D = device_count();
        detail::shared_memory_transport t(R_, P_);
        std::vector<std::exception_ptr> errors(D);
        std::vector<char> cascaded(D, 0);
        constexpr bool is_void = std::is_void_v<Result>;
        std::vector<std::optional<std::conditional_t<is_void, char, Result>>> results(is_void ? 0 : D);
        auto device = [&](std::uint32_t d) {
            replica_context ctx(t, d / P_, d % P_);
            try {
                if constexpr (is_void)
                    program(ctx);
                else
                    results[d].emplace(program(ctx));
            } catch (const detail::cancelled_error&) {
                errors[d] = std::current_exception();
                cascaded[d] = 1;
            } catch (const std::exception& e) {
                errors[d] = std::current_exception();
                t.cancel(d, e.what());
            } catch (...) {
                errors[d] = std::current_exception();
                t.cancel(d, "an exception that is not a std::exception");
            }
            t.finished(d, ctx.collectives_entered());
        };
        if constexpr (XLET_POOL_THREADS) {
            std::vector<std::thread> threads;
            for (std::uint32_t d = 0; d < D; ++d) threads.emplace_back([&device, d] { device(d); });
            for (auto& th : threads) th.join();
        } else {
            tbb::task_arena arena(threads_ > 0 ? threads_ : tbb::task_arena::automatic);
            arena.execute([&] {
                tbb::task_group tg;
                for (std::uint32_t d = 0; d < D; ++d) tg.run([&device, d] { device(d); });
                tg.wait();
            });
        }
        for (std::uint32_t d = 0; d < D; ++d)
            if (errors[d] && !cascaded[d]) std::rethrow_exception(errors[d]);
        for (std::uint32_t d = 0; d < D; ++d)
            if (errors[d]) std::rethrow_exception(errors[d]);
        if (auto m = t.count_mismatch(); !m.empty()) throw error("replica_pool", m);
        if constexpr (!is_void) {
            std::vector<Result> out;
            out.reserve(D);
            for (auto& r : results) out.push_back(std::move(*r));
            return out;
        }
    }

private:
    std::uint32_t R_, P_;
    int threads_;
};

} // namespace xlet
