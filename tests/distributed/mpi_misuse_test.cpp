// Misuse of the MPI transport (issue #27), run under mpirun -np 2 and -np 3: every case is diagnosed
// with an xlet::error that names the devices and what they were at, within a time bound (a hang
// fails the binary), and the root cause reaches exactly one rank as itself (the others get a
// cancelled_error naming it), with one device per rank and with several.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <stdexcept>
#include <string>

#include <xlet/xlet.hpp>
#include <xlet/distributed/mpi.hpp>

using namespace xlet;

namespace {

int ranks() { return mpi_session::size(); }
int sum_over_ranks(int v) {
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return v;
}

// What a run raised on this rank: its message, whether it was a cancellation, and how long it took.
struct outcome {
    std::string what;
    bool cancelled = false;
    double seconds = 0;
};

// Runs `program` on a pool of `per_rank` devices per rank with a short watchdog, failing the whole
// binary if it has not returned within 60 s.
template<class Fn>
outcome run_expecting_error(std::uint32_t per_rank, Fn&& program,
                            std::chrono::milliseconds watchdog = std::chrono::seconds(2)) {
    mpi_pool pool(MPI_COMM_WORLD, 1, per_rank);
    pool.set_watchdog(watchdog);
    outcome o;
    auto fut = std::async(std::launch::async, [&] {
        const auto t0 = std::chrono::steady_clock::now();
        try {
            pool.run(program);
        } catch (const detail::cancelled_error& e) {
            o.what = e.what();
            o.cancelled = true;
        } catch (const std::exception& e) {
            o.what = e.what();
        }
        o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
    if (fut.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
        std::fprintf(stderr, "mpi_misuse_test: a run did not finish within 60 s (a hang)\n");
        std::_Exit(1);
    }
    fut.get();
    return o;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Every rank failed, exactly one with the root cause itself, and every message names `part`.
void check_reported_once(const outcome& o, const std::string& part) {
    INFO(o.what);
    CHECK(!o.what.empty());
    CHECK(has(o.what, part));
    CHECK(sum_over_ranks(o.what.empty() ? 0 : 1) == ranks());
    CHECK(sum_over_ranks(o.cancelled ? 0 : 1) == 1);
}

} // namespace

TEST_CASE("devices that reach different collectives: both devices and both descriptions named") {
    for (std::uint32_t per : {1u, 2u}) {
        CAPTURE(per);
        const auto last = static_cast<std::uint32_t>(ranks()) * per - 1;
        auto o = run_expecting_error(per, [&](replica_context& ctx) {
            if (ctx.replica_id() == last)
                (void)all_reduce(ctx, f32<5>{}, add_fn{});
            else
                (void)all_reduce(ctx, f32<4>{}, add_fn{});
        });
        check_reported_once(o, "devices disagree at collective #0");
        CHECK(has(o.what, "all_reduce f32[5]"));
        CHECK(has(o.what, "all_reduce f32[4]"));
        CHECK(has(o.what, "replica " + std::to_string(last)));
        // Another op, with its attributes named.
        o = run_expecting_error(per, [&](replica_context& ctx) {
            if (ctx.replica_id() == last)
                (void)all_gather<0, 2>(ctx, f32<4>{});
            else
                (void)all_reduce(ctx, f32<4>{}, add_fn{});
        });
        if (ranks() * per == 2) {
            check_reported_once(o, "devices disagree at collective #0");
            CHECK(has(o.what, "all_gather f32[4] (all_gather_dimension=0, shard_count=2"));
        }
        // A member alone in its group sends nothing: the other device meets its next collective.
        o = run_expecting_error(per, [&](replica_context& ctx) {
            if (ctx.replica_id() == 0) (void)collective_broadcast(ctx, f32<2>{}, {.replica_groups = {{0}}});
            (void)all_reduce(ctx, f32<4>{}, add_fn{});
        });
        check_reported_once(o, "devices disagree at collective #");
        CHECK((has(o.what, "(its collective #1)") || has(o.what, "(its collective #0)")));
    }
}

TEST_CASE("a device that returns while others wait for it is named") {
    for (std::uint32_t per : {1u, 2u}) {
        CAPTURE(per);
        auto o = run_expecting_error(per, [&](replica_context& ctx) {
            (void)all_reduce(ctx, f32<4>{}, add_fn{});
            if (ctx.replica_id() == 1) return;
            (void)all_reduce(ctx, f32<4>{}, add_fn{});
        });
        check_reported_once(o, "replica 1 returned after 1 collectives");
        CHECK(o.seconds < 1.5); // noticed, not the watchdog
    }
}

TEST_CASE("an exception in one device ends every rank; its rank gets it as thrown") {
    struct boom : std::runtime_error {
        using std::runtime_error::runtime_error;
    };
    for (std::uint32_t per : {1u, 2u}) {
        CAPTURE(per);
        mpi_pool pool(MPI_COMM_WORLD, 1, per);
        pool.set_watchdog(std::chrono::seconds(5));
        int as_thrown = 0, cancelled = 0;
        try {
            pool.run([&](replica_context& ctx) {
                (void)all_reduce(ctx, f32<4>{}, add_fn{});
                if (ctx.replica_id() == 1) throw boom("replica one failed");
                (void)all_reduce(ctx, f32<4>{}, add_fn{});
            });
        } catch (const boom& e) {
            as_thrown = 1;
            CHECK(std::string(e.what()) == "replica one failed");
        } catch (const detail::cancelled_error& e) {
            cancelled = 1;
            CHECK(has(e.what(), "replica 1 threw: replica one failed"));
        }
        CHECK(sum_over_ranks(as_thrown) == 1);
        CHECK(sum_over_ranks(cancelled) == ranks() - 1);
    }
}

TEST_CASE("collectives that can never meet: the watchdog names who waits for what") {
    // Different channels never meet: a deadlock no process can see; the watchdog reports it.
    auto o = run_expecting_error(
        1,
        [&](replica_context& ctx) {
            (void)all_reduce(ctx, f32<4>{}, add_fn{}, {.channel_id = ctx.replica_id() == 0 ? 2 : 1});
        },
        std::chrono::milliseconds(500));
    check_reported_once(o, "watchdog");
    CHECK(has(o.what, "has waited"));
    CHECK(has(o.what, "all_reduce f32[4]"));
    CHECK(o.seconds < 10);
}

TEST_CASE("send / recv: another operand than the sender's, a receive from a device that returned") {
    if (ranks() < 2) return;
    auto o = run_expecting_error(1, [&](replica_context& ctx) {
        if (ctx.replica_id() == 0) send_done(send(ctx, s32<2>{1, 2}, 5, {{0, 1}}));
        if (ctx.replica_id() == 1) (void)recv_done(recv<s32<3>>(ctx, 5, {{0, 1}}));
    });
    check_reported_once(o, "replica 0 sent s32[2] on channel 5 but replica 1 receives s32[3]");
    o = run_expecting_error(1, [&](replica_context& ctx) {
        if (ctx.replica_id() == 1) (void)recv_done(recv<s32<2>>(ctx, 4, {{0, 1}}));
    });
    check_reported_once(o, "replica 0 returned, but replica 1 waits to receive from it on channel 4");
}

TEST_CASE("ragged_all_to_all: sizes that disagree are named as sizes") {
    if (ranks() != 2) return;
    auto o = run_expecting_error(1, [&](replica_context& ctx) {
        const s32<2> z{0, 0}, one{1, 1};
        (void)ragged_all_to_all(ctx, f32<3>{}, z, one, f32<4>{}, z, ctx.replica_id() == 0 ? one : s32<2>{1, 2});
    });
    check_reported_once(o, "whose recv_sizes says 2");
    CHECK(!has(o.what, "devices disagree"));
}

TEST_CASE("run-time rule violations fail on every rank; the counts are compared at the end") {
    auto o = run_expecting_error(1, [&](replica_context& ctx) {
        (void)all_reduce(ctx, f32<4>{}, add_fn{}, {.replica_groups = {{0, 99}}});
    });
    check_reported_once(o, "names replica 99");
    // Devices that enter different numbers of collectives without ever waiting for each other.
    if (ranks() == 2) {
        mpi_pool pool(MPI_COMM_WORLD);
        std::string what;
        try {
            pool.run([&](replica_context& ctx) {
                if (ctx.replica_id() == 0) (void)all_reduce(ctx, f32<1>{}, add_fn{}, {.replica_groups = {{0}, {1}}});
            });
        } catch (const std::exception& e) {
            what = e.what();
        }
        CHECK(has(what, "replica 0 entered 1 collectives but replica 1 entered 0"));
    }
    CHECK_THROWS_WITH_AS(mpi_pool(MPI_COMM_WORLD, 7, 1), doctest::Contains("do not make whole replicas"), error);
}

int main(int argc, char** argv) {
    mpi_session mpi(argc, argv);
    doctest::Context context(argc, argv);
    if (mpi.rank() != 0) context.setOption("minimal", true);
    int failed = context.run() != 0;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return failed;
}
