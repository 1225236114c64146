// replica_pool: one SPMD program run as R replicas x P partitions inside this process, each device a
// fiber carried by the threads of one task_arena (fiber.hpp; shared_memory.hpp: how devices meet,
// wait and fail).
#pragma once
#include "../core/simd.hpp" // before TBB: see core/simd.hpp

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include "../core/owner.hpp"
#include "fiber.hpp"
#include "shared_memory.hpp"
#include "transport.hpp"

namespace xlet {

namespace detail {

// The devices one process runs for a pool (all of replica_pool's, a rank's block of mpi_pool's):
// each one's result or exception. A root-cause exception reaches the transport at once (every
// wait is cancelled), a cancellation is kept as such, and the transport hears of each device's end.
template<class Result>
struct device_runs {
    static constexpr bool is_void = std::is_void_v<Result>;
    std::vector<std::exception_ptr> errors;
    std::vector<char> cascaded;
    std::vector<std::optional<std::conditional_t<is_void, char, Result>>> results;
    explicit device_runs(std::size_t n) : errors(n), cascaded(n, 0), results(is_void ? 0 : n) {}

    // Device d (slot i) of `program`, on transport t.
    template<class F, class T>
    void run(F& program, T& t, std::uint32_t d, std::size_t i, std::uint32_t partitions) {
        replica_context ctx(t, d / partitions, d % partitions);
        try {
            if constexpr (is_void)
                program(ctx);
            else
                results[i].emplace(program(ctx));
        } catch (const cancelled_error&) {
            errors[i] = std::current_exception();
            cascaded[i] = 1;
        } catch (const std::exception& e) {
            errors[i] = std::current_exception();
            t.cancel(d, e.what());
        } catch (...) {
            errors[i] = std::current_exception();
            t.cancel(d, "an exception that is not a std::exception");
        }
        t.finished(d, ctx.collectives_by_channel());
    }
    std::vector<Result> take() requires(!is_void) {
        std::vector<Result> out;
        out.reserve(results.size());
        for (auto& r : results)
            out.push_back(std::move(*r));
        return out;
    }
};

// Runs device(0) ... device(n - 1) concurrently: as fibers carried by the threads of `arena`
// (made on first use, with `threads` threads, 0: oneTBB's default; fiber.hpp), or as OS threads
// under the sanitizers (XLET_POOL_THREADS). The arena and the stacks live as long as the pool, so
// that a second run() maps no new stacks.
template<class Device>
void run_devices(std::uint32_t n, Device& device, owner<tbb::task_arena>& arena, owner<fiber_stacks>& stacks,
                 int threads) {
    if constexpr (XLET_POOL_THREADS) {
        std::vector<std::thread> ts;
        for (std::uint32_t i = 0; i < n; ++i)
            ts.emplace_back([&device, i] { device(i); });
        for (auto& th : ts)
            th.join();
    } else {
        if (!arena) arena = make_owner<tbb::task_arena>(threads > 0 ? threads : int{tbb::task_arena::automatic});
        if (!stacks) stacks = make_owner<fiber_stacks>();
        arena->execute([&] {
            fiber_sched s(n, arena->max_concurrency());
            s.run([](void* d, std::uint32_t i) { (*static_cast<Device*>(d))(i); }, &device, *stacks);
        });
    }
}

} // namespace detail

// Runs one SPMD program on replicas x partitions devices:
//   xlet::replica_pool pool(4);
//   auto outs = pool.run([&](xlet::replica_context& ctx) { return xlet::all_reduce(ctx, x, xlet::add_fn{}); });
// `threads` (0: oneTBB's default) bounds the threads that run the devices; results do not depend
// on it. run() returns the program's results by device id (replica * partitions + partition), or
// nothing for a void program; it rethrows the first root-cause exception of any device.
// (A template of nothing, `replica_pool` its one name: a unit that runs no pool compiles none of it.)
template<class Nothing = void>
class basic_replica_pool {
public:
    explicit basic_replica_pool(std::uint32_t replicas, std::uint32_t partitions = 1, int threads = 0)
        : R_(replicas), P_(partitions), threads_(threads) {
        if (replicas == 0 || partitions == 0)
            throw error("replica_pool", "needs at least one replica and one partition (got ", replicas, " x ",
                        partitions, ")");
    }
    std::uint32_t replica_count() const { return R_; }
    std::uint32_t partition_count() const { return P_; }
    std::uint32_t device_count() const { return R_ * P_; }

    template<class F>
    requires std::is_invocable_v<F&, replica_context&>
    auto run(F&& program) {
        using Result = std::invoke_result_t<F&, replica_context&>;
        const std::uint32_t D = device_count();
        detail::basic_shared_memory_transport<Nothing> t(R_, P_);
        detail::device_runs<Result> runs(D);
        auto device = [&](std::uint32_t d) { runs.run(program, t, d, d, P_); };
        detail::run_devices(D, device, arena_, stacks_, threads_);
        for (std::uint32_t d = 0; d < D; ++d)
            if (runs.errors[d] && !runs.cascaded[d]) std::rethrow_exception(runs.errors[d]);
        for (std::uint32_t d = 0; d < D; ++d)
            if (runs.errors[d]) std::rethrow_exception(runs.errors[d]);
        if (auto m = t.count_mismatch(); !m.empty()) throw error("replica_pool", m);
        if constexpr (!std::is_void_v<Result>) return runs.take();
    }

private:
    std::uint32_t R_, P_;
    int threads_;
    detail::owner<tbb::task_arena> arena_;
    detail::owner<detail::fiber_stacks> stacks_;
};
using replica_pool = basic_replica_pool<>;

} // namespace xlet
