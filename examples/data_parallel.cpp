// Data-parallel training on a replica pool: 8 replicas each own 32 rows of a 256-row batch,
// compute their gradient, all_reduce it, and apply the same update; the result is compared with
// one replica training on the whole batch.
//
// With --mpi (built where MPI is found), the same program also runs on MPI processes, the 8
// replicas spread over the ranks, and every rank checks that its replicas' weights equal the
// in-process run's bit for bit:
//   mpirun -np 4 build/default/examples/data_parallel --mpi
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "data_parallel_model.hpp"

#ifdef XLET_EXAMPLE_MPI
#include <xlet/distributed/mpi.hpp>

// The 8-replica program on the ranks of MPI_COMM_WORLD against the in-process pool's weights.
int run_on_mpi(int argc, char** argv, const xlet::f32<data_parallel::features>& in_process) {
    using namespace data_parallel;
    xlet::mpi_session mpi(argc, argv);
    xlet::f32<batch, features> x;
    xlet::f32<batch> y;
    make_problem(x, y);
    auto pool = xlet::mpi_pool::spread(MPI_COMM_WORLD, 8);
    const auto mine = pool.run(trainer<8>(x, y, 300, 0.5f));
    int differ = 0;
    for (const auto& w : mine)
        differ |= std::memcmp(w.data(), in_process.data(), sizeof(float) * features) != 0;
    MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (mpi.rank() == 0)
        std::printf("8 replicas on %d MPI processes: weights %s the in-process run's\n", mpi.size(),
                    differ ? "DIFFER from" : "equal, bit for bit,");
    return differ;
}
#endif

int main(int argc, char** argv) {
    using namespace xlet;
    using namespace data_parallel;
    f32<batch, features> x;
    f32<batch> y;
    make_problem(x, y);
    const auto eight = train<8>(x, y, 300, 0.5f);
    if (argc > 1 && std::strcmp(argv[1], "--mpi") == 0) {
#ifdef XLET_EXAMPLE_MPI
        return run_on_mpi(argc, argv, eight);
#else
        std::fprintf(stderr, "data_parallel: built without MPI (install libopenmpi-dev and reconfigure)\n");
        return 2;
#endif
    }
    const auto one = train<1>(x, y, 300, 0.5f);
    float worst = 0;
    for (std::size_t j = 0; j < features; ++j) {
        std::printf("w[%zu] = %+.6f (1 replica) %+.6f (8 replicas), true %+.2f\n", j, one(j), eight(j), truth[j]);
        worst = std::fmax(worst, std::fabs(one(j) - eight(j)));
    }
    std::printf("largest difference between 1 and 8 replicas: %.3g\n", worst);
    return worst <= 1e-5f ? 0 : 1;
}
