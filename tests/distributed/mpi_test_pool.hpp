// The collectives suite on MPI (tests/CMakeLists.txt builds collectives_test.cpp a second time with
// XLET_TEST_MPI and runs it under mpirun -np 2 and -np 4): test_pool runs each program on the
// in-process replica_pool and on an mpi_pool spreading the same devices over the ranks, checks that
// every device this rank hosts got the same bits on both, and returns the in-process results of all
// devices (so the suite's own checks run unchanged on every rank). A program that fails in-process
// must fail under MPI too (any xlet::error: the messages differ where a process cannot see what the
// in-process pool sees), and within the watchdog's time.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <xlet/distributed/mpi.hpp>

namespace xlet_test {

template<class T>
bool same_bits(const T& a, const T& b);

template<class Tuple, std::size_t... I>
bool same_bits_each(const Tuple& a, const Tuple& b, std::index_sequence<I...>) {
    return (same_bits(std::get<I>(a), std::get<I>(b)) && ...);
}

template<class T>
bool same_bits(const T& a, const T& b) {
    if constexpr (requires {
                      a.data();
                      a.size();
                  }) {
        return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(*a.data())) == 0;
    } else if constexpr (requires { a.tie(); }) {
        return same_bits(a.tie(), b.tie());
    } else if constexpr (requires { std::tuple_size<T>::value; }) {
        return same_bits_each(a, b, std::make_index_sequence<std::tuple_size_v<T>>{});
    } else if constexpr (std::is_trivially_copyable_v<T>) {
        return std::memcmp(&a, &b, sizeof(T)) == 0;
    } else {
        return a == b;
    }
}

// How many programs ran on both pools, and how many device results differed (checked by main).
inline std::size_t runs = 0, mismatches = 0, unfailed = 0;

class test_pool {
public:
    explicit test_pool(std::uint32_t replicas, std::uint32_t partitions = 1, int threads = 0)
        : local_(replicas, partitions, threads),
          mpi_(xlet::mpi_pool::spread(MPI_COMM_WORLD, replicas, partitions, threads)) {
        // (the deadlock cases of the suite need the watchdog; XLET_MPI_WATCHDOG overrides)
        if (!std::getenv("XLET_MPI_WATCHDOG")) mpi_.set_watchdog(std::chrono::seconds(5));
    }
    std::uint32_t replica_count() const { return local_.replica_count(); }
    std::uint32_t partition_count() const { return local_.partition_count(); }
    std::uint32_t device_count() const { return local_.device_count(); }

    template<class F>
    auto run(F&& program) {
        using Result = std::invoke_result_t<F&, xlet::replica_context&>;
        ++runs;
        std::exception_ptr failed;
        if constexpr (std::is_void_v<Result>) {
            try {
                local_.run(program);
            } catch (...) {
                failed = std::current_exception();
            }
            expect_same_outcome(failed, [&] { mpi_.run(program); });
            if (failed) std::rethrow_exception(failed);
        } else {
            std::vector<Result> all;
            try {
                all = local_.run(program);
            } catch (...) {
                failed = std::current_exception();
            }
            expect_same_outcome(failed, [&] {
                auto mine = mpi_.run(program);
                for (std::size_t i = 0; i < mine.size(); ++i)
                    if (!same_bits(mine[i], all[mpi_.first_device() + i])) ++mismatches;
            });
            if (failed) std::rethrow_exception(failed);
            return all;
        }
    }

private:
    template<class Fn>
    static void expect_same_outcome(const std::exception_ptr& failed, Fn&& fn) {
        try {
            fn();
        } catch (const std::exception& e) {
            if (std::getenv("XLET_TEST_SHOW_ERRORS"))
                std::fprintf(stderr, "rank %d: %s\n", xlet::mpi_session::rank(), e.what());
            if (!failed) throw; // only MPI failed: the test reports it
            return;
        }
        if (failed) ++unfailed;
    }

    xlet::replica_pool local_;
    xlet::mpi_pool mpi_;
};

} // namespace xlet_test
