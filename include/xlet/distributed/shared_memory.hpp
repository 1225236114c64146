// The in-process transport of replica_pool: devices are fibers carried by the threads of one oneTBB
// task_arena (fiber.hpp), rendezvous live in shared memory, and data moves once, from the senders'
// arrays into the receivers'.
//
// Waiting: a device that must wait suspends (fiber_suspend): its thread goes on with other devices
// and the device that completes the wait resumes it. Under AddressSanitizer or ThreadSanitizer (or
// with XLET_POOL_THREADS defined to 1) every device is an OS thread blocking on a condition
// variable instead: the sanitizers cannot follow stack switches without annotations, and the logic
// they check is the same.
//
// Matching: the n-th collective a device enters on a channel (channel 0: those without one) meets
// the n-th on that channel of every other device (SPMD; only ops with the same channel id meet). The
// first device to arrive records the collective's description; a device arriving with another op,
// operand, attributes, channel or groups fails it for everyone waiting there, naming both devices
// and both descriptions. send/recv match in order per (channel, source, target).
//
// Misuse is diagnosed, never a hang: a device that returns while its group waits for it, an
// exception in any device (which cancels every wait that is not reading another device's memory),
// and a state in which every running device waits (a deadlock, e.g. a ring of blocking sends) all
// wake the waiting devices with an xlet::error that says who waits for what. No timeouts.
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

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <tuple>

#include "fiber.hpp"
#include "transport.hpp"

namespace xlet::detail {

// An error a device raises only because another device failed first; the pool prefers root causes.
class cancelled_error : public error {
public:
    using error::error;
};

template<class = void>
std::string device_name(std::uint32_t d, std::uint32_t P) {
    if (P == 1) return "replica " + std::to_string(d);
    return "replica " + std::to_string(d / P) + " partition " + std::to_string(d % P);
}

template<class = void>
std::string describe(const collective_desc& d) {
    std::string s = d.op;
    s += ' ';
    s += d.operand;
    s += " (";
    for (std::size_t i = 0; i < d.attrs.size(); ++i)
        if (d.attr_names[i]) {
            s += d.attr_names[i];
            s += '=';
            s += std::to_string(d.attrs[i]);
            s += ", ";
        }
    s += "channel_id=" + std::to_string(d.channel_id) + ", " + mode_name(d.mode);
    if (d.groups) {
        s += std::string_view(d.op) == "collective_permute" ? ", source_target_pairs=" : ", replica_groups=";
        s += groups_string(*d.groups);
    }
    s += ')';
    return s;
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

// (A template of nothing, so that a translation unit that never runs a replica_pool does not
// compile its member functions and what they instantiate: docs/architecture.md, "Compile time".)
template<class = void>
class basic_shared_memory_transport final : public transport {
    // A reduction's block: with its twin and the next input's pieces in flight, well inside a 32 KiB
    // L1 (16 KiB blocks streamed a 64 MiB all_reduce at 0.92-0.95 of the copy on one Zen 4 thread,
    // 1.02-1.05 on two; 8 KiB at 0.97-1.09 and 1.08-1.19; docs/performance.md).
    static constexpr std::size_t block_bytes = 8192;

public:
    basic_shared_memory_transport(std::uint32_t R, std::uint32_t P)
        : R_(R), P_(P), D_(static_cast<std::size_t>(R) * P), live_(D_), entered_(D_), is_finished_(D_, 0),
          waiting_(D_) {}

    std::uint32_t replica_count() const override { return R_; }
    std::uint32_t partition_count() const override { return P_; }

    pending_ptr all_reduce(replica_context& ctx, const collective_desc& d, const group_view& g, const void* in,
                           void* out, std::size_t n, std::size_t eb, const combiner& f, bool async) override {
        // Part j: elements [lo, hi), folded in group order a block at a time (the block stays in
        // L1 while every input is added), then copied to the members' outputs. Outputs larger
        // than the caches in all are folded on the stack and streamed (no read-for-ownership: the
        // collective then moves what a copy of its bytes does, R reads + R writes), a block's
        // outputs while the next block is folded, one output per input, so that reading and
        // writing overlap as in a copy.
        const bool stream = eb <= block_bytes && 2 * n * eb * g.members.size() >= stream_threshold_bytes;
        auto work = [n, eb, f, stream](std::size_t j, const std::vector<slot>& s) {
            const std::size_t G = s.size();
            const std::size_t lo = n * j / G, hi = n * (j + 1) / G, block = std::max<std::size_t>(1, block_bytes / eb);
            auto src = [&](std::size_t k, std::size_t b) { return static_cast<const char*>(s[k].in) + b * eb; };
            auto dst = [&](std::size_t k, std::size_t b) { return static_cast<char*>(s[k].out) + b * eb; };
            auto fold = [&](char* acc, std::size_t b, std::size_t len, std::size_t k) { // input k into acc
                if (G == 1)
                    std::memcpy(acc, src(0, b), len * eb);
                else if (k == 1)
                    f(acc, src(0, b), src(1, b), len);
                else if (k > 1)
                    f(acc, acc, src(k, b), len);
            };
            // Streamed, one thread reads G inputs in turn a block at a time, and the hardware's
            // prefetcher restarts on each: the fold goes in 1 KiB pieces, each requesting (into
            // L2) the same piece of the next input read (4 and 8 replicas on one thread, Zen 4:
            // 0.77 / 0.83 of the copy -> 0.9x).
            auto fold_ahead = [&](char* acc, std::size_t b, std::size_t len, std::size_t k) {
                if (G == 1 || k == 0) return fold(acc, b, len, k);
                const std::size_t piece = std::max<std::size_t>(1, 1024 / eb);
                for (std::size_t i = 0; i < len; i += piece) {
                    const std::size_t l = std::min(piece, len - i);
                    if (k + 1 < G) {
                        for (std::size_t o = 0; o < l * eb; o += 64)
                            __builtin_prefetch(src(k + 1, b + i) + o, 0, 2);
                    } else if (const std::size_t nb = b + len + i; nb < hi) { // the next block's first two
                        for (std::size_t o = 0; o < std::min(l, hi - nb) * eb; o += 64) {
                            __builtin_prefetch(src(0, nb) + o, 0, 2);
                            __builtin_prefetch(src(1, nb) + o, 0, 2);
                        }
                    }
                    const char* in0 = k == 1 ? src(0, b + i) : acc + i * eb;
                    f(acc + i * eb, in0, src(k, b + i), l);
                }
            };
            if (!stream) {
                for (std::size_t b = lo; b < hi; b += block) {
                    const std::size_t len = std::min(block, hi - b);
                    for (std::size_t k = 0; k < G; ++k)
                        fold(dst(0, b), b, len, k);
                    for (std::size_t k = 1; k < G; ++k)
                        std::memcpy(dst(k, b), dst(0, b), len * eb);
                }
                return;
            }
            alignas(64) char scratch[2][block_bytes];
            std::size_t prev = 0, prev_len = 0; // the block whose results are leaving
            auto put = [&](std::size_t k, const char* acc) {
                if (prev_len > 0 && !stream_bytes(dst(k, prev), acc, prev_len * eb))
                    std::memcpy(dst(k, prev), acc, prev_len * eb);
            };
            std::size_t t = 0;
            for (std::size_t b = lo; b < hi; b += block, ++t) {
                const std::size_t len = std::min(block, hi - b);
                for (std::size_t k = 0; k < G; ++k) {
                    fold_ahead(scratch[t & 1], b, len, k);
                    put(k, scratch[(t & 1) ^ 1]);
                }
                prev = b;
                prev_len = len;
            }
            for (std::size_t k = 0; k < G; ++k)
                put(k, scratch[(t & 1) ^ 1]);
            stream_fence();
        };
        return meet(ctx, d, g, {in, out, 0, nullptr}, 2 * n * eb * g.members.size(), work, async);
    }

    pending_ptr exchange(replica_context& ctx, const collective_desc& d, const group_view& g, const void* in, void* out,
                         const box& b, bool async) override {
        auto work = [b](std::size_t j, const std::vector<slot>& s) {
            const auto eb = static_cast<std::ptrdiff_t>(b.elem_bytes);
            for (std::size_t k = 0; k < s.size(); ++k) {
                auto* src = static_cast<const char*>(s[k].in);
                auto* dst = static_cast<char*>(s[j].out);
                for_each_run(b, static_cast<std::ptrdiff_t>(j) * b.src_step,
                             static_cast<std::ptrdiff_t>(k) * b.dst_step,
                             [&](std::ptrdiff_t so, std::ptrdiff_t dof, std::size_t len) {
                                 std::memcpy(dst + dof * eb, src + so * eb, len * b.elem_bytes);
                             });
            }
        };
        return meet(ctx, d, g, {in, out, 0, nullptr}, 2 * b.elements() * b.elem_bytes * g.members.size(), work, async);
    }

    pending_ptr reduce_scatter(replica_context& ctx, const collective_desc& d, const group_view& g, const void* in,
                               void* out, const box& b, const combiner& f, bool async) override {
        auto work = [b, f](std::size_t j, const std::vector<slot>& s) {
            const std::size_t G = s.size(), block = std::max<std::size_t>(1, block_bytes / b.elem_bytes);
            const auto eb = static_cast<std::ptrdiff_t>(b.elem_bytes);
            auto* dst = static_cast<char*>(s[j].out);
            for_each_run(b, static_cast<std::ptrdiff_t>(j) * b.src_step, 0,
                         [&](std::ptrdiff_t so, std::ptrdiff_t dof, std::size_t len) {
                             for (std::size_t o = 0; o < len; o += block) {
                                 const std::size_t l = std::min(block, len - o);
                                 const auto off = static_cast<std::ptrdiff_t>(o);
                                 auto at = [&](std::size_t k) {
                                     return static_cast<const char*>(s[k].in) + (so + off) * eb;
                                 };
                                 char* acc = dst + (dof + off) * eb;
                                 if (G == 1) {
                                     std::memcpy(acc, at(0), l * b.elem_bytes);
                                     continue;
                                 }
                                 f(acc, at(0), at(1), l);
                                 for (std::size_t k = 2; k < G; ++k)
                                     f(acc, acc, at(k), l);
                             }
                         });
        };
        return meet(ctx, d, g, {in, out, 0, nullptr}, 2 * b.elements() * b.elem_bytes * g.members.size(), work, async);
    }

    pending_ptr copy_from(replica_context& ctx, const collective_desc& d, const group_view& g, std::ptrdiff_t source,
                          const void* in, void* out, std::size_t bytes, bool async) override {
        auto work = [bytes](std::size_t j, const std::vector<slot>& s) {
            if (s[j].source >= 0)
                std::memcpy(s[j].out, s[static_cast<std::size_t>(s[j].source)].in, bytes);
            else
                std::memset(s[j].out, 0, bytes);
        };
        return meet(ctx, d, g, {in, out, source, nullptr}, 2 * bytes * g.members.size(), work, async);
    }

    pending_ptr ragged_exchange(replica_context& ctx, const collective_desc& d, const group_view& g, const void* in,
                                void* out, const ragged_meta& m, bool async) override {
        // Part j: receiver j copies, from every sender k, the rows k addressed to it.
        auto work = [](std::size_t j, const std::vector<slot>& s) {
            const std::size_t G = s.size();
            for (std::size_t k = 0; k < G; ++k) {
                const ragged_meta& mk = *s[k].meta;
                const ragged_meta& mj = *s[j].meta;
                for (std::size_t u = 0; u < mk.updates; ++u) {
                    const std::size_t at = j * mk.updates + u;
                    const std::int64_t io = mk.input_offsets[at], n = mk.send_sizes[at], oo = mk.output_offsets[at];
                    const std::int64_t expect = mj.recv_sizes[k * mj.updates + u];
                    if (n != expect)
                        throw error("ragged_all_to_all", "member ", k, " sends ", n, " rows (update ", u,
                                    ") to member ", j, ", whose recv_sizes says ", expect);
                    if (n < 0 || io < 0 || oo < 0 || static_cast<std::size_t>(io + n) > mk.in_rows ||
                        static_cast<std::size_t>(oo + n) > mj.out_rows)
                        throw error("ragged_all_to_all", "member ", k, " sends rows [", io, ", ", io + n, ") of ",
                                    mk.in_rows, " to rows [", oo, ", ", oo + n, ") of member ", j, "'s ", mj.out_rows,
                                    ": out of range");
                    std::memcpy(static_cast<char*>(s[j].out) + static_cast<std::size_t>(oo) * mk.row_bytes,
                                static_cast<const char*>(s[k].in) + static_cast<std::size_t>(io) * mk.row_bytes,
                                static_cast<std::size_t>(n) * mk.row_bytes);
                }
            }
        };
        return meet(ctx, d, g, {in, out, 0, &m}, 2 * m.in_rows * m.row_bytes * g.members.size(), work, async);
    }

    pending_ptr send(replica_context& ctx, std::int64_t channel, std::uint32_t target, std::string_view operand,
                     const void* in, std::size_t bytes) override {
        const std::uint32_t dev = ctx.device_id();
        std::lock_guard lk(m_);
        throw_if_failed("send");
        auto& box = mail_[{channel, dev, target}];
        box.messages.push_back(std::make_shared<message>());
        auto& msg = *box.messages.back();
        msg.data = in;
        msg.bytes = bytes;
        msg.operand = operand;
        wake(box.wl); // a receiver may be waiting
        auto p = make_owner<pending_transfer>();
        p->msg = box.messages.back();
        p->key = {channel, dev, target};
        p->sending = true;
        return p;
    }
    pending_ptr recv(replica_context& ctx, std::int64_t channel, std::uint32_t source, std::string_view operand,
                     void* out, std::size_t bytes) override {
        auto p = make_owner<pending_transfer>();
        p->key = {channel, source, ctx.device_id()};
        p->out = out;
        p->bytes = bytes;
        p->operand = operand;
        return p;
    }

    void complete(replica_context& ctx, pending& p) override {
        if (auto* t = dynamic_cast<pending_transfer*>(&p)) return complete_transfer(ctx, *t);
        auto& pm = static_cast<pending_meet&>(p);
        if (pm.done) return;
        if constexpr (!XLET_POOL_THREADS) fiber_check_wait();
        pm.done = true;
        std::unique_lock lk(m_);
        finish(lk, ctx, pm.key, pm);
    }

    // The pool's side: a device's program returned (or threw) having entered `entered[c]`
    // collectives on each channel c.
    void finished(std::uint32_t dev, const std::map<std::int64_t, std::uint64_t>& entered) {
        std::lock_guard lk(m_);
        entered_[dev] = entered;
        is_finished_[dev] = 1;
        ++finished_count_;
        --live_;
        for (auto& [key, inst] : instances_) {
            const auto [c, n] = key;
            if (n < entered_on(dev, c)) continue;
            for (auto& [leader, gs] : inst.groups) {
                if (gs.phase != 0 || !gs.error.empty()) continue;
                if (std::find(gs.members.begin(), gs.members.end(), dev) == gs.members.end()) continue;
                fail(gs,
                     device_name(dev, P_) + " returned after " + std::to_string(entered_on(dev, c)) + " collectives" +
                         on_channel(c) + " while " + waiting_names(gs) + " wait for it at " + where(c, n) + ", " +
                         text(inst),
                     false);
            }
        }
        for (auto& [key, box] : mail_)
            if (std::get<1>(key) == dev && box.messages.empty() && !box.wl.ws.empty())
                fail_all("deadlock: " + device_name(dev, P_) + " returned, but " + device_name(std::get<2>(key), P_) +
                         " waits to receive from it on channel " + std::to_string(std::get<0>(key)));
        if (live_ > 0 && blocked_ >= live_) declare_deadlock();
    }
    void cancel(std::uint32_t dev, const std::string& what) {
        std::lock_guard lk(m_);
        if (!cancel_reason_.empty()) return;
        cancel_reason_ = device_name(dev, P_) + " threw: " + what;
        fail_all("cancelled: " + cancel_reason_, true);
    }
    // After every device returned: all must have entered the same number of collectives on each
    // channel.
    std::string count_mismatch() const {
        for (std::size_t i = 1; i < D_; ++i)
            for (const auto* m : {&entered_[0], &entered_[i]})
                for (const auto& [c, n] : *m)
                    if (entered_on(0, c) != entered_on(static_cast<std::uint32_t>(i), c))
                        return device_name(0, P_) + " entered " + std::to_string(entered_on(0, c)) + " collectives" +
                               on_channel(c) + " but " + device_name(static_cast<std::uint32_t>(i), P_) + " entered " +
                               std::to_string(entered_on(static_cast<std::uint32_t>(i), c));
        return {};
    }

private:
    std::uint64_t entered_on(std::uint32_t dev, std::int64_t channel) const {
        auto it = entered_[dev].find(channel);
        return it == entered_[dev].end() ? 0 : it->second;
    }
    static std::string on_channel(std::int64_t c) { return c > 0 ? " on channel " + std::to_string(c) : std::string(); }
    static std::string where(std::int64_t c, std::uint64_t n) {
        return "collective #" + std::to_string(n) + on_channel(c);
    }
    // Below this many bytes moved, the last device to arrive does the whole collective while the
    // others stay suspended (one wake-up each); above it every member does its own part.
    static constexpr std::size_t split_bytes = 256 * 1024;

    struct slot {
        const void* in = nullptr;
        void* out = nullptr;
        std::ptrdiff_t source = 0;
        const ragged_meta* meta = nullptr;
    };

    // One wait of one device, on its stack. Registered and woken under m_; the suspend/resume
    // handshake is `state` alone (0: registered, 1: suspended at sp, 2: woken): whichever of the
    // suspend callback and the waker comes second resumes the task, without taking m_. A waiter
    // the last arrival finished the collective for (`retired`, its outcome in `error`) returns
    // without taking m_ either: the group is no longer its to touch.
    struct waiter {
        fiber* sp{};
        std::atomic<int> state{0};
        std::uint32_t dev = 0;
        bool retired = false;
        std::exception_ptr error;
    };
    // Devices waiting for one thing. Every one is counted in blocked_ (the deadlock check); whoever
    // wakes them takes them off that count, so a woken device is never counted as waiting.
    struct waiter_list {
        std::vector<waiter*> ws;
        std::condition_variable_any cv; // XLET_POOL_THREADS
    };
    // Waiters woken under m_ and resumed after it is released (at the end of the scope that holds
    // this, declared before that scope's lock).
    struct resume_after {
        std::vector<waiter*> ws;
        resume_after() = default;
        resume_after(const resume_after&) = delete;
        resume_after& operator=(const resume_after&) = delete;
        ~resume_after() {
            for (waiter* w : ws)
                resume_waiter(*w);
        }
    };
    struct group_state {
        std::vector<std::uint32_t> members;
        std::vector<slot> slots;
        std::vector<char> present;
        std::size_t arrived = 0, finished = 0, left = 0;
        int phase = 0;         // 0: gathering, 1: running, 2: complete
        bool whole = false;    // running: the last arrival does the whole collective (small ones),
                               // otherwise every member does its part
        bool poisoned = false; // a deadlock stopped it between the phases: nobody reads any more
        std::string error;
        bool cancelled = false;
        std::exception_ptr part_error;
        waiter_list wl;
    };
    struct instance {
        collective_desc first;        // groups pointer not kept: the first device may be gone
        replica_groups_t groups_copy; // what `first.groups` pointed at
        std::string operand;
        std::uint32_t first_device = 0;
        std::size_t joined = 0;
        std::string failure;
        std::map<std::uint32_t, group_state> groups; // by the group's first member
    };
    struct meet_key {
        std::int64_t channel = 0;
        std::uint64_t n = 0;
        std::uint32_t leader = 0;
        std::size_t me = 0;
        bool member = false;
        const char* op = "";
        instance* inst = nullptr; // (map nodes: stable until this member leaves)
        group_state* gs = nullptr;
    };
    // An async collective's meeting; its work (part j over the slots) is the derived class's.
    struct pending_meet : pending {
        meet_key key;
        bool done = false;
        virtual void operator()(std::size_t j, const std::vector<slot>& s) = 0;
    };
    template<class Work>
    struct pending_meet_of final : pending_meet {
        Work work;
        explicit pending_meet_of(const Work& w) : work(w) {}
        void operator()(std::size_t j, const std::vector<slot>& s) override { work(j, s); }
    };
    struct message {
        const void* data = nullptr;
        std::size_t bytes = 0;
        std::string operand, error;
        bool taken = false;
    };
    using mail_key = std::tuple<std::int64_t, std::uint32_t, std::uint32_t>; // channel, source, target
    struct mailbox {
        std::deque<std::shared_ptr<message>> messages;
        waiter_list wl;
    };
    struct pending_transfer final : pending {
        mail_key key;
        bool sending = false, done = false;
        std::shared_ptr<message> msg; // send
        void* out = nullptr;          // recv
        std::size_t bytes = 0;
        std::string operand;
    };
    // What a blocked device waits for, for the deadlock message.
    struct wait_note {
        const char* what = nullptr;
        std::uint64_t n = 0;
        std::int64_t channel = 0;
        std::uint32_t peer = 0;
    };

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
            if (shown < 8) {
                if (shown++) s += ", ";
                s += device_name(gs.members[k], P_);
            }
        }
        if (total > shown) s += " and " + std::to_string(total - shown) + " more";
        return s;
    }

    // Past this, the waker may not touch w: a waiter that had not suspended yet resumes itself
    // and returns.
    static void resume_waiter(waiter& w) {
        if constexpr (!XLET_POOL_THREADS) {
            if (w.state.exchange(2, std::memory_order_acq_rel) == 1) fiber_resume(w.sp);
        }
    }
    // Wakes every waiter of wl (under m_); with `later`, the tasks are resumed when it goes out of
    // scope, after m_ is released, instead of now.
    void wake(waiter_list& wl, resume_after* later = nullptr) {
        blocked_ -= wl.ws.size();
        for (waiter* w : wl.ws)
            waiting_[w->dev] = {};
        if constexpr (XLET_POOL_THREADS) {
            for (waiter* w : wl.ws)
                w->state.store(2, std::memory_order_relaxed);
            wl.ws.clear();
            wl.cv.notify_all();
        } else if (later) {
            later->ws.insert(later->ws.end(), wl.ws.begin(), wl.ws.end());
            wl.ws.clear();
        } else {
            auto ws = std::move(wl.ws);
            wl.ws.clear();
            for (waiter* w : ws)
                resume_waiter(*w);
        }
    }
    void fail(group_state& gs, std::string why, bool cancelled) {
        gs.error = std::move(why);
        gs.cancelled = cancelled;
        wake(gs.wl);
    }
    // Fails every wait that reads nobody's memory: gathering groups and mailboxes.
    void fail_all(const std::string& why, bool cancelled = false) {
        if (failure_.empty()) failure_ = why, failure_cancelled_ = cancelled;
        for (auto& [n, inst] : instances_)
            for (auto& [leader, gs] : inst.groups)
                if (gs.phase == 0 && gs.error.empty()) fail(gs, why, cancelled);
        for (auto& [key, box] : mail_) {
            for (auto& m : box.messages)
                if (m->error.empty()) m->error = why;
            wake(box.wl);
        }
    }
    // Every running device waits: nothing can wake anyone. Groups between their phases stop too
    // (poisoned: nobody is reading then, and nobody will).
    void declare_deadlock() {
        std::string why = "deadlock: every running device waits:";
        std::size_t shown = 0;
        for (std::uint32_t d = 0; d < waiting_.size() && shown < 8; ++d) {
            const auto& w = waiting_[d];
            if (!w.what) continue;
            why += (shown++ ? "; " : " ") + device_name(d, P_) + " in " + w.what;
            if (std::string_view(w.what) == "recv")
                why += " from " + device_name(w.peer, P_) + " on channel " + std::to_string(w.channel);
            else if (std::string_view(w.what) == "send_done")
                why += " to " + device_name(w.peer, P_) + " on channel " + std::to_string(w.channel);
            else
                why += " at " + where(w.channel, w.n);
        }
        fail_all(why);
        for (auto& [n, inst] : instances_)
            for (auto& [leader, gs] : inst.groups)
                if (gs.phase == 1 && !gs.whole) {
                    gs.poisoned = true;
                    if (gs.error.empty()) gs.error = why;
                    wake(gs.wl);
                }
    }
    // Waits (m_ held) until done(). Returns true when the last arrival finished this device's
    // collective for it while it waited (only a member waiting for its gathering group): then m_
    // is released and *retired_error is the collective's outcome.
    template<class Pred>
    bool wait(std::unique_lock<spin_mutex>& lk, waiter_list& wl, std::uint32_t dev, wait_note note, Pred done,
              std::exception_ptr* retired_error = nullptr) {
        while (!done()) {
            waiter w;
            w.dev = dev;
            // Whether the last arrival finished this collective for it (then its outcome is taken).
            auto retired = [&] {
                if (!retired_error || !w.retired) return false;
                if (w.error) *retired_error = std::move(w.error);
                return true;
            };
            ++blocked_;
            wl.ws.push_back(&w);
            waiting_[dev] = note;
            if (blocked_ >= live_) {
                declare_deadlock(); // fails or poisons every wait, this one's list included
                if (auto it = std::find(wl.ws.begin(), wl.ws.end(), &w); it != wl.ws.end()) {
                    wl.ws.erase(it);
                    --blocked_;
                    waiting_[dev] = {};
                }
                continue;
            }
            if constexpr (XLET_POOL_THREADS) {
                wl.cv.wait(lk, [&] { return w.state.load(std::memory_order_relaxed) == 2; });
                if (retired()) {
                    lk.unlock();
                    return true;
                }
            } else {
                lk.unlock();
                fiber_suspend([&w](fiber* sp) {
                    w.sp = sp;
                    int registered = 0;
                    if (!w.state.compare_exchange_strong(registered, 1, std::memory_order_acq_rel))
                        fiber_resume(sp); // woken before it suspended
                });
                (void)w.state.load(std::memory_order_acquire); // 2: what the waker wrote is visible
                // (returns without m_: the group is no longer its to touch)
                if (retired()) return true;
                lk.lock();
            }
        }
        return false;
    }
    void throw_if_failed(const char* op) const {
        if (failure_.empty()) return;
        if (failure_cancelled_) throw cancelled_error(op, failure_);
        throw error(op, failure_);
    }
    static bool same(const collective_desc& a, const std::string& a_operand, const replica_groups_t& a_groups,
                     const collective_desc& b) {
        return (a.op == b.op || std::strcmp(a.op, b.op) == 0) && a_operand == b.operand && a.attrs == b.attrs &&
               a.channel_id == b.channel_id && a.mode == b.mode &&
               (b.groups ? a_groups == *b.groups : a_groups.empty());
    }
    void leave(const meet_key& key, std::size_t members = 1) {
        auto it = instances_.find({key.channel, key.n});
        instance& inst = it->second;
        group_state& gs = inst.groups.at(key.leader);
        if ((gs.left += members) == gs.members.size()) inst.groups.erase(key.leader);
        if (inst.groups.empty() && inst.joined == D_) instances_.erase(it);
    }

    // Joins the collective (m_ held): records and checks the description, publishes this device's
    // slot, and (last to arrive, small) does the whole collective, finishing it for the members
    // waiting (their tasks are resumed by `later`). Returns where to finish it.
    template<class Work>
    meet_key arrive(std::unique_lock<spin_mutex>& lk, replica_context& ctx, const collective_desc& d,
                    const group_view& g, slot mine, std::size_t bytes, Work& work, resume_after& later) {
        meet_key key;
        key.channel = d.channel_id > 0 ? d.channel_id : 0;
        key.n = ctx.next_sequence(key.channel);
        key.op = d.op;
        const std::uint32_t dev = ctx.device_id();
        throw_if_failed(d.op);
        instance& inst = instances_[{key.channel, key.n}];
        if (inst.joined == 0 && inst.failure.empty()) {
            inst.first = d;
            inst.operand = std::string(d.operand);
            if (d.groups) inst.groups_copy = *d.groups;
            inst.first.groups = nullptr;
            inst.first.operand = {};
            inst.first_device = dev;
        } else if (inst.failure.empty() && !same(inst.first, inst.operand, inst.groups_copy, d)) {
            inst.failure = "devices disagree at " + where(key.channel, key.n) + ": " +
                           device_name(inst.first_device, P_) + " is at " + text(inst) + " but " +
                           device_name(dev, P_) + " reached " + describe(d);
            for (auto& [leader, gs] : inst.groups)
                if (gs.phase == 0 && gs.error.empty()) fail(gs, inst.failure, false);
        }
        ++inst.joined;
        if (!inst.failure.empty()) throw error(d.op, inst.failure);
        if (g.me < 0) { // in no group: takes part in the matching only
            if (inst.groups.empty() && inst.joined == D_) instances_.erase({key.channel, key.n});
            return key;
        }
        if (finished_count_ > 0) // (a loop over the group per device and collective otherwise)
            for (auto m : g.members)
                if (is_finished_[m] && entered_on(m, key.channel) <= key.n)
                    throw error(d.op, device_name(m, P_), " returned after ", entered_on(m, key.channel),
                                " collectives", on_channel(key.channel), "; ", device_name(dev, P_),
                                " waits for it at ", where(key.channel, key.n), ", ", text(inst));
        key.leader = g.members[0];
        key.me = static_cast<std::size_t>(g.me);
        key.member = true;
        group_state& gs = inst.groups[key.leader];
        key.inst = &inst;
        key.gs = &gs;
        const std::size_t G = g.members.size();
        if (gs.members.empty()) {
            gs.members = g.members;
            gs.slots.resize(G);
            gs.present.assign(G, 0);
            gs.wl.ws.reserve(G);
        }
        if (!gs.error.empty()) throw error(d.op, gs.error);
        gs.slots[key.me] = mine;
        gs.present[key.me] = 1;
        if (++gs.arrived == G) {
            gs.phase = 1; // from here on no failure elsewhere stops it: its arrays are read
            if (bytes < split_bytes || G == 1) {
                gs.whole = true;
                lk.unlock();
                std::exception_ptr e;
                try {
                    for (std::size_t j = 0; j < G; ++j)
                        work(j, gs.slots);
                } catch (...) {
                    e = std::current_exception();
                }
                lk.lock();
                if (e) gs.part_error = e;
                gs.phase = 2;
                // The members waiting have nothing left to do: this device finishes the collective
                // for them, and they return without touching it (one resume each, no lock).
                for (waiter* w : gs.wl.ws) {
                    w->retired = true;
                    if (e) w->error = e;
                }
                if (const std::size_t n = gs.wl.ws.size()) {
                    wake(gs.wl, &later);
                    leave(key, n); // not the last to leave: this device has not
                }
            } else {
                wake(gs.wl);
            }
        }
        return key;
    }

    // Waits for the others, does this member's part if the collective is split, waits for every
    // part, leaves. Called with the lock held.
    template<class Work>
    void finish(std::unique_lock<spin_mutex>& lk, replica_context& ctx, const meet_key& key, Work& work) {
        if (!key.member) return;
        const std::uint32_t dev = ctx.device_id();
        instance& inst = *key.inst;
        group_state& gs = *key.gs;
        const std::size_t G = gs.members.size();
        std::exception_ptr retired;
        if (wait(
                lk, gs.wl, dev, {"a collective", key.n, key.channel, 0},
                [&] { return gs.phase == 2 || (gs.phase == 1 && !gs.whole) || !gs.error.empty(); }, &retired)) {
            if (retired) std::rethrow_exception(retired);
            return;
        }
        if (gs.phase == 0) { // failed before it started: nobody reads anyone's arrays
            const std::string why = gs.error;
            const bool c = gs.cancelled;
            gs.present[key.me] = 0;
            if (--gs.arrived == 0) inst.groups.erase(key.leader);
            if (c) throw cancelled_error(key.op, why);
            throw error(key.op, why);
        }
        if (gs.phase == 1 && !gs.poisoned) {
            // Every member has arrived and reads the others' arrays: this phase always completes,
            // whatever else fails, so no array is freed while it is read.
            lk.unlock();
            if constexpr (!XLET_POOL_THREADS) fiber_expect_long(); // (split: at least split_bytes)
            std::exception_ptr e;
            try {
                work(key.me, gs.slots);
            } catch (...) {
                e = std::current_exception();
            }
            lk.lock();
            if (e && !gs.part_error) gs.part_error = e;
            if (++gs.finished == G) {
                gs.phase = 2;
                wake(gs.wl);
            } else {
                wait(lk, gs.wl, dev, {"a collective", key.n, key.channel, 0},
                     [&] { return gs.phase == 2 || gs.poisoned; });
            }
        }
        std::exception_ptr e = gs.part_error;
        const bool poisoned = gs.poisoned && gs.phase != 2;
        const std::string why = gs.error;
        leave(key);
        lk.unlock();
        if (poisoned) throw error(key.op, why);
        if (e) std::rethrow_exception(e);
    }

    template<class Work>
    pending_ptr meet(replica_context& ctx, const collective_desc& d, const group_view& g, slot mine, std::size_t bytes,
                     Work& work, bool async) {
        if constexpr (!XLET_POOL_THREADS) fiber_check_wait();
        resume_after later; // declared before the lock: resumes after it is released
        if (async) {
            auto p = make_owner<pending_meet_of<Work>>(work);
            std::unique_lock lk(m_);
            p->key = arrive(lk, ctx, d, g, mine, bytes, static_cast<pending_meet&>(*p), later);
            return p;
        }
        std::unique_lock lk(m_);
        const meet_key key = arrive(lk, ctx, d, g, mine, bytes, work, later);
        finish(lk, ctx, key, work);
        return nullptr;
    }

    void complete_transfer(replica_context& ctx, pending_transfer& t) {
        if (t.done) return;
        if constexpr (!XLET_POOL_THREADS) fiber_check_wait();
        t.done = true;
        const std::uint32_t dev = ctx.device_id();
        std::unique_lock lk(m_);
        auto& box = mail_[t.key];
        const auto [channel, source, target] = t.key;
        if (t.sending) { // send_done: the receiver has copied the data
            wait(lk, box.wl, dev, {"send_done", 0, channel, target},
                 [&] { return t.msg->taken || !t.msg->error.empty(); });
            if (!t.msg->taken) throw error("send", t.msg->error);
            return;
        }
        wait(lk, box.wl, dev, {"recv", 0, channel, source}, [&] { return !box.messages.empty() || !failure_.empty(); });
        if (box.messages.empty()) throw_if_failed("recv");
        auto msg = box.messages.front();
        box.messages.pop_front();
        if (msg->operand != t.operand) {
            msg->error = device_name(source, P_) + " sent " + msg->operand + " on channel " + std::to_string(channel) +
                         " but " + device_name(dev, P_) + " receives " + t.operand;
            wake(box.wl);
            throw error("recv", msg->error);
        }
        std::memcpy(t.out, msg->data, t.bytes);
        msg->taken = true;
        wake(box.wl);
    }

    std::uint32_t R_, P_;
    std::size_t D_;
    spin_mutex m_;
    std::size_t live_, blocked_ = 0;
    std::map<std::pair<std::int64_t, std::uint64_t>, instance> instances_; // by (channel, n)
    std::map<mail_key, mailbox> mail_;
    std::vector<std::map<std::int64_t, std::uint64_t>> entered_; // of finished devices, per channel
    std::vector<char> is_finished_;
    std::size_t finished_count_ = 0;
    std::vector<wait_note> waiting_;
    std::string cancel_reason_, failure_;
    bool failure_cancelled_ = false;
};
using shared_memory_transport = basic_shared_memory_transport<>;

} // namespace xlet::detail
