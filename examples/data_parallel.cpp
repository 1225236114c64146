// Data-parallel training on a replica pool: 8 replicas each own 32 rows of a 256-row batch,
// compute their gradient, all_reduce it, and apply the same update; the result is compared with
// one replica training on the whole batch.
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "data_parallel_model.hpp"

int main() {
    using namespace xlet;
    using namespace data_parallel;
    f32<batch, features> x;
    f32<batch> y;
    make_problem(x, y);
    const auto one = train<1>(x, y, 300, 0.5f);
    const auto eight = train<8>(x, y, 300, 0.5f);
    float worst = 0;
    for (std::size_t j = 0; j < features; ++j) {
        std::printf("w[%zu] = %+.6f (1 replica) %+.6f (8 replicas), true %+.2f\n", j, one(j), eight(j), truth[j]);
        worst = std::fmax(worst, std::fabs(one(j) - eight(j)));
    }
    std::printf("largest difference between 1 and 8 replicas: %.3g\n", worst);
    return worst <= 1e-5f ? 0 : 1;
}
