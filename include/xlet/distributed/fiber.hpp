// Fibers for the replica pool's devices: each device runs on its own stack, carried by the threads
// of the pool's task_arena; a device that waits switches back to its carrier, which goes on with
// another device. Why not oneTBB's task suspension, which this replaces: on Linux it switches with
// glibc's swapcontext, whose signal-mask system call was ~35% of a 4-byte all_reduce across 64
// replicas on one thread and the switch itself another 28% (perf, Zen 4): 0.67 us per replica per
// collective. The switch below saves six registers, MXCSR and the x87 control word (x86-64; other
// targets use ucontext).
//
// Carriers are tasks of one tbb::task_group in the arena, at most one per arena thread, started
// when a device becomes ready and none is free, ending when no device is ready: an idle thread is
// an ordinary oneTBB worker again, and helps the parallel loops of the devices that run. The
// thread that called run() carries too, and between carriers waits for a device to become ready
// (an MPI progress thread may resume one) or for all to finish.
//
// A device may wait only in its own flow: a collective called inside a parallel loop of its
// program (on a stolen chunk, or nested in the loop's wait) is an xlet::error, since another
// device would run inside that oneTBB wait. Two cases cannot be detected and must be avoided, as
// with oneTBB's own suspension: waiting inside tbb::this_task_arena::isolate (the isolation
// belongs to the thread) and inside a catch block (so does the exception being handled); the
// device may resume on another thread.
#pragma once
#include "../core/simd.hpp" // before TBB: see core/simd.hpp

#include <tbb/global_control.h>
#include <tbb/task.h>
#include <tbb/task_group.h>

#include <sys/mman.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "../core/error.hpp"

#if !defined(XLET_FIBER_UCONTEXT)
#if defined(__x86_64__)
#define XLET_FIBER_UCONTEXT 0
#else
#define XLET_FIBER_UCONTEXT 1
#endif
#endif
#if XLET_FIBER_UCONTEXT
#include <ucontext.h>
#endif
#if !defined(__x86_64__) && !defined(__i386__)
#include <chrono> // (fiber_clock; not read on x86, where the umbrella does not otherwise need it)
#endif

namespace xlet::detail {

#if !XLET_FIBER_UCONTEXT
// Saves the callee-saved registers, MXCSR and the x87 control word on this stack, stores the stack
// pointer in *from (rdi), and continues where the stack pointer `to` (rsi) was saved, or at
// fiber_trampoline for a new stack (fiber_stacks::frame).
[[gnu::naked, gnu::noinline]] inline void fiber_switch(void** /*from*/, void* /*to*/) {
    asm volatile("pushq %rbp\n\t"
                 "pushq %rbx\n\t"
                 "pushq %r12\n\t"
                 "pushq %r13\n\t"
                 "pushq %r14\n\t"
                 "pushq %r15\n\t"
                 "subq $8, %rsp\n\t"
                 "stmxcsr (%rsp)\n\t"
                 "fnstcw 4(%rsp)\n\t"
                 "movq %rsp, (%rdi)\n\t"
                 "movq %rsi, %rsp\n\t"
                 "ldmxcsr (%rsp)\n\t"
                 "fldcw 4(%rsp)\n\t"
                 "addq $8, %rsp\n\t"
                 "popq %r15\n\t"
                 "popq %r14\n\t"
                 "popq %r13\n\t"
                 "popq %r12\n\t"
                 "popq %rbx\n\t"
                 "popq %rbp\n\t"
                 "ret\n\t");
}
// A new fiber's first return address: its entry (r13) called with its fiber (r12).
[[gnu::naked, gnu::noinline]] inline void fiber_trampoline() {
    asm volatile("movq %r12, %rdi\n\t"
                 "callq *%r13\n\t"
                 "ud2\n\t");
}
#endif

// The lock of the pool's short critical sections (a rendezvous, the ready queue): spins, then
// yields. With std::mutex, the second thread slept in the kernel (futex) at contended collectives:
// a 4-byte all_reduce across 64 replicas on 2 threads took 2-3x its time on one.
class spin_mutex {
public:
    void lock() noexcept {
        for (int spins = 0;;) {
            if (!locked_.exchange(true, std::memory_order_acquire)) return;
            while (locked_.load(std::memory_order_relaxed)) {
                if (++spins < 2048) {
#if defined(__x86_64__) || defined(__i386__)
                    __builtin_ia32_pause();
#endif
                } else {
                    std::this_thread::yield();
                }
            }
        }
    }
    bool try_lock() noexcept {
        return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
    }
    void unlock() noexcept { locked_.store(false, std::memory_order_release); }

private:
    std::atomic<bool> locked_{false};
};

// A cheap clock for the scheduler's heuristic: the time-stamp counter on x86 (a few ns; about
// 2000-4000 ticks a microsecond on the project's hosts, so fiber_clock_us is a rough scale),
// steady_clock elsewhere.
#if defined(__x86_64__) || defined(__i386__)
inline std::int64_t fiber_clock() { return static_cast<std::int64_t>(__builtin_ia32_rdtsc()); }
inline constexpr std::int64_t fiber_clock_us = 3000;
#else
inline std::int64_t fiber_clock() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
inline constexpr std::int64_t fiber_clock_us = 1000;
#endif

template<class>
struct basic_fiber_sched;

struct fiber {
#if XLET_FIBER_UCONTEXT
    ucontext_t self{}, carrier{};
#else
    void* sp = nullptr;         // saved by fiber_switch while not running
    void* carrier_sp = nullptr; // the carrier's, while running
#endif
    basic_fiber_sched<void>* sched = nullptr;
    void (*fn)(void*, std::uint32_t) = nullptr; // the device: fn(ctx, index)
    void* ctx = nullptr;
    std::uint32_t index = 0;
    bool done = false;
    void (*act)(void*, fiber*) = nullptr; // what its carrier does once it has switched away
    void* act_ctx = nullptr;
    const void* tbb_ctx = nullptr; // oneTBB's current context when switched in
};

// The fiber this thread runs, if any (set by its carrier around each switch).
inline thread_local fiber* fiber_current = nullptr;
// Read it here in code that runs on a fiber: a device may resume on another thread, and a
// compiler may keep a thread-local's address (or the thread pointer) in a register across the
// switch, so the read must be a call it cannot see into.
[[gnu::noinline]] inline fiber* fiber_self() {
    asm volatile("" ::: "memory");
    return fiber_current;
}

// Stacks for the devices: kept as long as the pool, so that later runs map none. The size is
// oneTBB's thread stack size (what a suspended task had), below it one page without access.
// (Templates of nothing, here and below: a unit that runs no pool compiles none of it.)
template<class = void>
class basic_fiber_stacks {
public:
    basic_fiber_stacks() = default;
    basic_fiber_stacks(const basic_fiber_stacks&) = delete;
    basic_fiber_stacks& operator=(const basic_fiber_stacks&) = delete;
    ~basic_fiber_stacks() {
        for (void* s : stacks_)
            munmap(s, guard + size_);
    }
    // Stack i's top (16-byte aligned), mapping stacks up to i.
    char* top(std::size_t i) {
        if (size_ == 0)
            size_ =
                (tbb::global_control::active_value(tbb::global_control::thread_stack_size) + guard - 1) / guard * guard;
        while (stacks_.size() <= i) {
            void* s = mmap(nullptr, guard + size_, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
            if (s == MAP_FAILED) throw error("replica_pool", "cannot map a stack for device ", i);
            mprotect(s, guard, PROT_NONE);
            stacks_.push_back(s);
        }
        return static_cast<char*>(stacks_[i]) + guard + size_;
    }
    std::size_t size() const { return size_; }

private:
    static constexpr std::size_t guard = 4096;
    std::vector<void*> stacks_;
    std::size_t size_ = 0;
};

using fiber_stacks = basic_fiber_stacks<>;

template<class = void>
[[noreturn]] void fiber_start(fiber* f) noexcept;

// The devices of one run and their carriers.
template<class>
struct basic_fiber_sched {
    explicit basic_fiber_sched(std::uint32_t n, int max_carriers)
        : fibers(n), ring(n), max_(max_carriers < 1 ? 1 : max_carriers) {}

    // Runs fn(ctx, i) for i < n, each on a fiber; returns when all have returned.
    void run(void (*fn)(void*, std::uint32_t), void* ctx, fiber_stacks& stacks) {
        const auto n = static_cast<std::uint32_t>(fibers.size());
        for (std::uint32_t i = 0; i < n; ++i) {
            fiber& f = fibers[i];
            f.sched = this;
            f.fn = fn;
            f.ctx = ctx;
            f.index = i;
            char* top = stacks.top(i);
#if XLET_FIBER_UCONTEXT
            getcontext(&f.self);
            f.self.uc_stack.ss_sp = top - stacks.size();
            f.self.uc_stack.ss_size = stacks.size();
            f.self.uc_link = nullptr;
            const auto p = reinterpret_cast<std::uintptr_t>(&f);
            makecontext(&f.self, reinterpret_cast<void (*)()>(&ucontext_start), 2, static_cast<unsigned>(p >> 32),
                        static_cast<unsigned>(p & 0xffffffffu));
#else
            // The frame fiber_switch pops: MXCSR / x87 control word, r15 .. rbp, the return
            // address; the trampoline then calls with a 16-byte aligned stack.
            auto* w = reinterpret_cast<std::uint64_t*>(top - 80);
            std::uint32_t mxcsr = 0;
            std::uint16_t fpucw = 0;
            asm volatile("stmxcsr %0" : "=m"(mxcsr));
            asm volatile("fnstcw %0" : "=m"(fpucw));
            w[0] = mxcsr | (std::uint64_t{fpucw} << 32);
            w[1] = w[2] = 0;                                            // r15, r14
            w[3] = reinterpret_cast<std::uintptr_t>(&fiber_start<>);    // r13
            w[4] = reinterpret_cast<std::uintptr_t>(&f);                // r12
            w[5] = w[6] = 0;                                            // rbx, rbp
            w[7] = reinterpret_cast<std::uintptr_t>(&fiber_trampoline); // return address
            f.sp = w;
#endif
            push(&f);
        }
        live_ = n;
        // One carrier to start with: the first run that turns out long (or any run, while the
        // mean stays long) starts the others (switch_in).
        carriers_ = 1;
        for (;;) {
            carry();
            tg_.wait();
            std::unique_lock lk(m_);
            cv_.wait(lk, [&] { return live_ == 0 || count_ > 0; });
            if (live_ == 0) return;
            ++carriers_;
        }
    }

    // Makes f ready (any thread; once per wait). From a device of this run, starts a carrier if
    // a thread is free; from outside (an MPI progress thread), wakes run()'s thread when no
    // carrier runs.
    void resume(fiber* f) {
        bool spawn = false;
        {
            std::lock_guard g(m_);
            push(f);
            if (const fiber* self = fiber_self(); self && self->sched == this)
                spawn = claim_carrier();
            else if (carriers_ == 0)
                cv_.notify_one();
        }
        if (spawn) start_carrier();
    }

    // The calling device is about to run long (its part of a large collective, whose size it
    // knows): a carrier for the devices that became ready meanwhile, if a thread is free. The
    // run-length mean would see the run only once it ended: two replicas' parts of a 64 MiB
    // all_reduce then ran one after the other (2 threads: 0.5 of the paired copy).
    void expect_long() { recruit(true); }

    std::vector<fiber> fibers;

private:
    // One more carrier, if a thread is free, a device is ready and runs are long (measured, or
    // known_long) (m_ held): whether the caller is to start it.
    bool claim_carrier(bool known_long = false) {
        if (carriers_ >= max_ || count_ == 0 || (!known_long && slice_.load(std::memory_order_relaxed) < recruit_at))
            return false;
        ++carriers_;
        return true;
    }
    // claim_carrier and start it, unless no device is ready.
    void recruit(bool known_long) {
        if (count_.load(std::memory_order_relaxed) == 0) return;
        bool spawn = false;
        {
            std::lock_guard g(m_);
            spawn = claim_carrier(known_long);
        }
        if (spawn) start_carrier();
    }
    void start_carrier() {
        tg_.run([this] { carry(); });
    }
    // Runs ready fibers until none is.
    void carry() {
        for (;;) {
            fiber* f;
            {
                std::lock_guard g(m_);
                if (count_ == 0) {
                    --carriers_;
                    return;
                }
                f = ring[head_];
                head_ = (head_ + 1) % ring.size();
                --count_;
            }
            switch_in(f);
        }
    }
    void switch_in(fiber* f) {
        fiber* prev = std::exchange(fiber_current, f);
        f->tbb_ctx = tbb::task::current_context();
        const std::int64_t t0 = fiber_clock();
#if XLET_FIBER_UCONTEXT
        swapcontext(&f->carrier, &f->self);
#else
        fiber_switch(&f->carrier_sp, f->sp);
#endif
        fiber_current = prev;
        const std::int64_t s = slice_.load(std::memory_order_relaxed);
        const std::int64_t mean = s + (fiber_clock() - t0 - s) / 8;
        slice_.store(mean, std::memory_order_relaxed);
        // Devices turned long-running while others wait ready (resumed when runs were short): a
        // carrier for them now, not at the next resume.
        if (mean >= recruit_at) recruit(false);
        if (f->done) {
            std::lock_guard g(m_);
            if (--live_ == 0) cv_.notify_one();
            return;
        }
        // (f may run elsewhere as soon as act hands it over: not touched after)
        auto act = std::exchange(f->act, nullptr);
        act(f->act_ctx, f);
    }
    void push(fiber* f) { // m_ held, or before any carrier starts
        ring[(head_ + count_) % ring.size()] = f;
        ++count_;
    }
#if XLET_FIBER_UCONTEXT
    static void ucontext_start(unsigned hi, unsigned lo) {
        fiber_start<>(reinterpret_cast<fiber*>((std::uintptr_t{hi} << 32) | lo));
    }
#endif

    // More carriers only for devices that run long between waits: the mean run (exponential, over
    // the last ~8 switches of any carrier) at least this long. Devices that only meet (a 4-byte
    // all_reduce: 0.15 us a run) gain nothing from a second thread but the lock's and the
    // rendezvous' cache lines moving between cores (64 replicas: 10 us per collective on one
    // thread, 12 on two).
    static constexpr std::int64_t recruit_at = fiber_clock_us * 5;
    std::atomic<std::int64_t> slice_{recruit_at};
    std::vector<fiber*> ring; // ready fibers, FIFO (each at most once)
    std::size_t head_ = 0, live_ = 0;
    std::atomic<std::size_t> count_{0}; // changed under m_

    int carriers_ = 0;
    const int max_;
    spin_mutex m_;
    std::condition_variable_any cv_;
    tbb::task_group tg_;
};

using fiber_sched = basic_fiber_sched<void>;

template<class>
void fiber_start(fiber* f) noexcept {
    f->fn(f->ctx, f->index);
    f->done = true;
#if XLET_FIBER_UCONTEXT
    setcontext(&f->carrier);
#else
    void* unused = nullptr;
    fiber_switch(&unused, f->carrier_sp);
#endif
    __builtin_unreachable();
}

// Throws unless the calling device may wait here: it runs on its fiber, in its own flow (not in a
// parallel loop of its program). Transports call this before they publish anything of the
// device's (a rendezvous slot, a waiter), so that the error leaves nothing behind.
inline void fiber_check_wait() {
    const fiber* f = fiber_self();
    if (!f || tbb::task::current_context() != f->tbb_ctx)
        throw error("replica_pool", "a device waits (a collective, send or recv) inside a parallel loop of its own "
                                    "program: call collectives from the device's own flow");
}

// Suspends the calling device: once its carrier has switched away, callback(self) runs there and
// hands `self` to whoever will pass it to fiber_resume (possibly at once, from any thread).
template<class Callback>
void fiber_suspend(Callback&& callback) {
    fiber* f = fiber_self();
    using C = std::remove_reference_t<Callback>;
    f->act_ctx = &callback;
    f->act = [](void* c, fiber* self) { (*static_cast<C*>(c))(self); };
#if XLET_FIBER_UCONTEXT
    swapcontext(&f->self, &f->carrier);
#else
    fiber_switch(&f->sp, f->carrier_sp);
#endif
}

template<class = void>
void fiber_resume(fiber* f) {
    f->sched->resume(f);
}

// basic_fiber_sched::expect_long for the calling device (nothing off a fiber).
template<class = void>
void fiber_expect_long() {
    if (fiber* f = fiber_self()) f->sched->expect_long();
}

} // namespace xlet::detail
