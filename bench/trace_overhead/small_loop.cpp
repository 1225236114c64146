// Run-time probe (bench/trace_overhead.sh): the cost of the export hooks on tiny tensors, where an
// evaluation is a few instructions and any overhead shows: an f32[4] update, a copy and an assignment.
#include <chrono>
#include <cstdio>

#include <xlet/xlet.hpp>
using namespace xlet;

int main() {
    f32<4> a{1, 2, 3, 4}, acc{};
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 20000000; ++i) {
        f32<4> y = acc * 0.5f + a; // evaluate_into
        f32<4> z = y;              // an inline copy
        acc = z;                   // an inline copy-assignment
        asm volatile("" : : "r"(acc.data()) : "memory");
    }
    auto t1 = std::chrono::steady_clock::now();
    std::printf("%.2f ns an iteration (acc[0] = %g)\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / 2e7,
                static_cast<double>(acc(0)));
}
