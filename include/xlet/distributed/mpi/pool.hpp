// mpi_pool: the replica pool's program on MPI processes. One device per rank, or several per rank
// as oneTBB tasks (the hybrid mode: ranks x local devices, intra-rank traffic in shared memory):
//   xlet::mpi_session mpi(argc, argv);                  // MPI_Init_thread / MPI_Finalize
//   xlet::mpi_pool pool(MPI_COMM_WORLD);                // replicas = ranks
//   auto mine = pool.run([&](xlet::replica_context& ctx) { return xlet::all_reduce(ctx, x, xlet::add_fn{}); });
// run() returns the results of this rank's devices (ids first_device() ...), bitwise equal to the
// same devices' results under replica_pool.
#pragma once
#include "../../core/simd.hpp" // before TBB: see core/simd.hpp

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "../pool.hpp" // device_runs, run_devices
#include "../transport.hpp"
#include "transport.hpp" // <mpi.h>

namespace xlet {

// MPI_Init_thread with the thread level the hybrid mode needs (serialized: the pool's lock orders
// every MPI call of a rank), and MPI_Finalize when it goes out of scope.
class mpi_session {
public:
    mpi_session(int& argc, char**& argv) {
        int provided = 0;
        detail::mpi::check(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
    }
    mpi_session(const mpi_session&) = delete;
    mpi_session& operator=(const mpi_session&) = delete;
    ~mpi_session() { MPI_Finalize(); }
    static int rank(MPI_Comm c = MPI_COMM_WORLD) {
        int r = 0;
        MPI_Comm_rank(c, &r);
        return r;
    }
    static int size(MPI_Comm c = MPI_COMM_WORLD) {
        int n = 0;
        MPI_Comm_size(c, &n);
        return n;
    }
};

class mpi_pool {
public:
    // ranks x devices_per_rank devices, as replicas x partitions (ranks * devices_per_rank must be a
    // multiple of partitions). Collective over `comm`.
    explicit mpi_pool(MPI_Comm comm, std::uint32_t partitions = 1, std::uint32_t devices_per_rank = 1, int threads = 0)
        : threads_(threads) {
        const auto n = static_cast<std::uint32_t>(mpi_session::size(comm));
        if (partitions == 0 || devices_per_rank == 0 || (n * devices_per_rank) % partitions != 0)
            throw error("mpi_pool", n, " ranks x ", devices_per_rank, " devices do not make whole replicas of ",
                        partitions, " partitions");
        init(comm, n * devices_per_rank / partitions, partitions);
    }
    // Any replicas x partitions over the ranks of `comm`, in blocks of consecutive device ids (some
    // ranks host one more device than others, or none when there are fewer devices than ranks).
    static mpi_pool spread(MPI_Comm comm, std::uint32_t replicas, std::uint32_t partitions = 1, int threads = 0) {
        return mpi_pool(comm, replicas, partitions, threads, 0);
    }
    mpi_pool(mpi_pool&& o) noexcept
        : comm_(std::exchange(o.comm_, MPI_COMM_NULL)), R_(o.R_), P_(o.P_), rank_(o.rank_), threads_(o.threads_),
          first_(std::move(o.first_)), watchdog_(o.watchdog_), arena_(std::move(o.arena_)) {}
    mpi_pool& operator=(mpi_pool&&) = delete;
    ~mpi_pool() {
        if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    }

    std::uint32_t replica_count() const { return R_; }
    std::uint32_t partition_count() const { return P_; }
    std::uint32_t device_count() const { return R_ * P_; }
    int rank() const { return rank_; }
    // This rank's devices: ids [first_device(), first_device() + local_device_count()).
    std::uint32_t first_device() const { return first_[static_cast<std::size_t>(rank_)]; }
    std::uint32_t local_device_count() const {
        return first_[static_cast<std::size_t>(rank_) + 1] - first_[static_cast<std::size_t>(rank_)];
    }
    // How long a device may wait for others before every device fails with what it waits for
    // (a deadlock across processes, or a rank that never comes). Default: XLET_MPI_WATCHDOG seconds
    // from the environment, else 600.
    void set_watchdog(std::chrono::milliseconds t) { watchdog_ = t; }

    template<class F>
    requires std::is_invocable_v<F&, replica_context&>
    auto run(F&& program) {
        using Result = std::invoke_result_t<F&, replica_context&>;
        constexpr bool is_void = std::is_void_v<Result>;
        const std::uint32_t first = first_device(), L = local_device_count();
        // Fresh communicators per run: nothing a failed run left in flight reaches the next one.
        MPI_Comm data = MPI_COMM_NULL, ctrl = MPI_COMM_NULL;
        detail::mpi::check(MPI_Comm_dup(comm_, &data), "MPI_Comm_dup");
        detail::mpi::check(MPI_Comm_dup(comm_, &ctrl), "MPI_Comm_dup");
        MPI_Comm_set_errhandler(data, MPI_ERRORS_RETURN);
        struct comms {
            MPI_Comm* a;
            MPI_Comm* b;
            ~comms() {
                MPI_Comm_free(a);
                MPI_Comm_free(b);
            }
        } free_at_end{&data, &ctrl};
        const bool tasks = L > 1 && !XLET_POOL_THREADS; // (threads poll for themselves)
        detail::mpi::transport t(data, ctrl, R_, P_, first_, tasks, watchdog_);
        detail::device_runs<Result> runs(L);
        auto device = [&](std::uint32_t i) { runs.run(program, t, first + i, i, P_); };
        if (L == 1)
            device(0); // (on this thread)
        else
            detail::run_devices(L, device, arena_, stacks_, threads_);
        t.drain();
        // The root cause is the lowest device that threw: its rank rethrows the exception itself,
        // every other rank a cancelled_error naming it (so a program that prints errors except
        // cancellations reports it once).
        if (const auto [root, what] = t.root_cause(); root >= 0) {
            const auto r = static_cast<std::uint32_t>(root);
            if (r >= first && r < first + L && runs.errors[r - first]) std::rethrow_exception(runs.errors[r - first]);
            throw detail::cancelled_error("mpi_pool", "cancelled: ", detail::device_name(r, P_), " threw: ", what);
        }
        for (std::uint32_t i = 0; i < L; ++i)
            if (runs.errors[i]) std::rethrow_exception(runs.errors[i]);
        if (auto m = t.count_mismatch(); !m.empty()) throw error("mpi_pool", m);
        if constexpr (!is_void) return runs.take();
    }

private:
    mpi_pool(MPI_Comm comm, std::uint32_t replicas, std::uint32_t partitions, int threads, int) : threads_(threads) {
        if (replicas == 0 || partitions == 0)
            throw error("mpi_pool", "needs at least one replica and one partition (got ", replicas, " x ", partitions,
                        ")");
        init(comm, replicas, partitions);
    }
    void init(MPI_Comm comm, std::uint32_t replicas, std::uint32_t partitions) {
        R_ = replicas;
        P_ = partitions;
        detail::mpi::check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
        rank_ = mpi_session::rank(comm_);
        const auto n = static_cast<std::uint64_t>(mpi_session::size(comm_));
        const std::uint64_t D = static_cast<std::uint64_t>(R_) * P_;
        for (std::uint64_t q = 0; q <= n; ++q)
            first_.push_back(static_cast<std::uint32_t>(D * q / n));
        if (const char* s = std::getenv("XLET_MPI_WATCHDOG"))
            watchdog_ = std::chrono::milliseconds(static_cast<long long>(std::atof(s) * 1000));
        int provided = 0;
        MPI_Query_thread(&provided);
        if (local_device_count() > 1 && provided < MPI_THREAD_SERIALIZED)
            throw error("mpi_pool",
                        "several devices per rank need MPI_THREAD_SERIALIZED or more (MPI was initialised "
                        "with level ",
                        provided, "; use xlet::mpi_session or MPI_Init_thread)");
    }

    MPI_Comm comm_ = MPI_COMM_NULL;
    std::uint32_t R_ = 0, P_ = 1;
    int rank_ = 0;
    int threads_;
    std::vector<std::uint32_t> first_;
    std::chrono::milliseconds watchdog_{600000};
    detail::owner<tbb::task_arena> arena_;
    detail::owner<detail::fiber_stacks> stacks_;
};

} // namespace xlet
