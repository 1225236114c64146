// tbb::parallel_for with ThreadSanitizer annotations. Debian's libtbb is not instrumented, so TSan
// cannot see that spawning a task publishes the caller's writes (the expression, the destination
// pointer) and that the join publishes the tasks' writes back; without these edges every parallel
// evaluation would be reported as a race. In builds without TSan the annotations vanish.
#pragma once
#include "../core/simd.hpp" // first: the intrinsic headers before TBB reads them (see there)
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstddef>

#if defined(__SANITIZE_THREAD__)
#define XLET_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define XLET_TSAN 1
#endif
#endif

#if defined(XLET_TSAN)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace xlet::detail {

// Every parallel loop reaches TBB through one body type per range type: a function pointer and
// the caller's body. tbb::parallel_for's task classes (start_for, the partitioner's work
// balancing, ...) are then compiled once per translation unit instead of once per op and
// expression type, which was a large share of compiling a program of a few ops. What it costs at
// run time is one indirect call per chunk; chunks are thousands of elements.
template<class Range>
struct erased_body {
    void (*run)(const void* body, const Range& r);
    const void* body;
    void operator()(const Range& r) const { run(body, r); }
};

template<class Range>
[[gnu::noinline]] void run_parallel_erased(const Range& range, erased_body<Range> body) {
#if defined(XLET_TSAN)
    char start = 0, done = 0;
    __tsan_release(&start);
    tbb::parallel_for(range, [&](const Range& r) {
        __tsan_acquire(&start);
        body(r);
        __tsan_release(&done);
    });
    __tsan_acquire(&done);
#else
    tbb::parallel_for(range, body);
#endif
}

// Threads a parallel loop may use here: the smaller of the arena's concurrency and
// tbb::global_control's max_allowed_parallelism (the arena's max_concurrency() does not see
// global_control: under a limit of 1 it still reads 2 on a 2-core host).
inline std::size_t parallel_threads() {
    const auto arena = static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
    return std::max<std::size_t>(
        1, std::min(arena, tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism)));
}

template<class Range, class Body>
void run_parallel(const Range& range, const Body& body) {
    // One thread (tbb::global_control or a task_arena of 1): the whole range in place, without
    // the tasks' splitting and stealing (the results never depend on the split; under
    // global_control a sum of 2^24 f32 in 256 tasks ran 1% slower than in place).
    if (parallel_threads() == 1) {
        body(range);
        return;
    }
    run_parallel_erased<Range>(range,
                               {[](const void* b, const Range& r) { (*static_cast<const Body*>(b))(r); }, &body});
}

} // namespace xlet::detail
