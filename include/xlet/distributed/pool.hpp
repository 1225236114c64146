// replica_pool: one SPMD program run as R replicas x P partitions inside this process, each device a
// oneTBB task of one task_arena (shared_memory.hpp: how devices meet, wait and fail).
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

#include "shared_memory.hpp"
#include "transport.hpp"

namespace xlet {

// Runs one SPMD program on replicas x partitions devices:
//   xlet::replica_pool pool(4);
//   auto outs = pool.run([&](xlet::replica_context& ctx) { return xlet::all_reduce(ctx, x, xlet::add_fn{}); });
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
            t.finished(d, ctx.collectives_by_channel());
        };
        if constexpr (XLET_POOL_THREADS) {
            std::vector<std::thread> threads;
            for (std::uint32_t d = 0; d < D; ++d)
                threads.emplace_back([&device, d] { device(d); });
            for (auto& th : threads)
                th.join();
        } else {
            // One arena for the pool's lifetime: oneTBB keeps the stacks of suspended tasks per
            // arena, so a second run() reuses them instead of mapping R x P new ones.
            if (!arena_) {
                const int n = threads_ > 0 ? threads_ : int{tbb::task_arena::automatic};
                arena_ = std::make_unique<tbb::task_arena>(n);
            }
            arena_->execute([&] {
                tbb::task_group tg;
                for (std::uint32_t d = 0; d < D; ++d)
                    tg.run([&device, d] { device(d); });
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
            for (auto& r : results)
                out.push_back(std::move(*r));
            return out;
        }
    }

private:
    std::uint32_t R_, P_;
    int threads_;
    std::unique_ptr<tbb::task_arena> arena_;
};

} // namespace xlet
