#include <cstdio>
#include <xlet/distributed/mpi.hpp>

int main(int argc, char** argv) {
    xlet::mpi_session mpi(argc, argv);
    xlet::mpi_pool pool(MPI_COMM_WORLD, 1, 2); // this rank hosts two devices
    auto outs = pool.run([](xlet::replica_context& ctx) {
        xlet::s32<1> x{static_cast<std::int32_t>(ctx.replica_id()) + 1};
        return xlet::all_reduce(ctx, x, xlet::add_fn{}).data()[0];
    });
    std::printf("all_reduce on %d rank x 2 devices: %d %d\n", mpi.size(), outs[0], outs[1]);
}
