// What may and may not differ between ISA levels (docs/semantics.md, "What differs between ISAs").
// Element-wise results are promised bitwise identical for every x86-64 build with FMA (AVX2 + FMA
// or AVX-512): the same xsimd formulas with the same roundings (core/simd.hpp supplies the AVX-512
// fused multiply-add xsimd 8.1 lacks). This test hashes the bits of many element-wise results and
// compares them with constants; .ci/run runs it in the native build and in the AVX2 build, so an
// ISA-dependent element-wise result fails one of them. (The constants depend on xsimd's formulas:
// a new xsimd version may change them, and then they are re-taken here, once, for every ISA.)
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <xlet/xlet.hpp>

using namespace xlet;

namespace {

constexpr std::size_t n = 1 << 14;

// FNV-1a over the bit patterns.
template<class T>
std::uint64_t hash_bits(const T* p, std::size_t count) {
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < count; ++i) {
        using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
        U u = std::bit_cast<U>(p[i]);
        for (std::size_t b = 0; b < sizeof(U); ++b) {
            h ^= (u >> (8 * b)) & 0xFF;
            h *= 1099511628211ull;
        }
    }
    return h;
}

// Inputs spread over several binades and both signs, with a few specials.
template<class T>
std::unique_ptr<tensor<T, n>> inputs(T lo, T hi, std::uint32_t seed) {
    auto t = std::make_unique<tensor<T, n>>();
    std::uint32_t x = seed;
    for (std::size_t i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        t->data()[i] = lo + (hi - lo) * static_cast<T>(x >> 8) / static_cast<T>(1 << 24);
    }
    t->data()[0] = T(0);
    t->data()[1] = -T(0);
    t->data()[2] = std::numeric_limits<T>::infinity();
    t->data()[3] = -std::numeric_limits<T>::infinity();
    t->data()[4] = std::numeric_limits<T>::quiet_NaN();
    return t;
}

template<class E>
std::uint64_t h(const E& e) {
    auto r = std::make_unique<tensor_type_of<E>>(e);
    return hash_bits(r->data(), r->size());
}

} // namespace

#if defined(__FMA__)
TEST_CASE("element-wise results are the same bits on every FMA ISA level") {
    auto a = inputs<float>(-20.0f, 20.0f, 1);
    auto b = inputs<float>(0.01f, 50.0f, 2);
    auto c = inputs<float>(-3.0f, 3.0f, 3);
    auto d = inputs<double>(-30.0, 30.0, 4);
    struct row {
        const char* what;
        std::uint64_t got;
    };
    const row rows[] = {
        {"exp", h(exp(*a))},
        {"expm1", h(expm1(*c))},
        {"log", h(log(*b))},
        {"log1p", h(log1p(*b))},
        {"sin", h(sin(*a))},
        {"cos", h(cos(*a))},
        {"tan", h(tan(*c))},
        {"sin, 1e4 range", h(sin(*a * 500.0f))},
        {"cos, 1e4 range", h(cos(*a * 500.0f))},
        {"tanh", h(tanh(*a))},
        {"logistic", h(logistic(*a))},
        {"erf", h(erf(*c))},
        {"cbrt", h(cbrt(*a))},
        {"sqrt", h(sqrt(*b))},
        {"rsqrt", h(rsqrt(*b))},
        {"pow", h(pow(*b, *c))},
        {"atan2", h(atan2(*a, *c))},
        {"fused", h(*a * *b + exp(*c) - max(*a, *c))},
        {"neg", h(-*a)}, // +0 -> -0 (xsimd's AVX-512 negation was 0 - x)
        {"neg f64", h(-*d)},
        {"exp f64", h(exp(*d))},
        {"log f64", h(log(abs(*d)))},
        {"tanh f64", h(tanh(*d))},
    };
    const std::uint64_t want[] = {
#include "isa_test_expected.inc"
    };
    static_assert(std::size(want) == std::size(rows));
    for (std::size_t i = 0; i < std::size(rows); ++i) {
        INFO(rows[i].what);
        std::printf("0x%016llxull, // %s\n", static_cast<unsigned long long>(rows[i].got),
                    rows[i].what); // new constants
        CHECK(rows[i].got == want[i]);
    }
}
#endif

// Within one build: an element's sin / cos / tan does not depend on its neighbours (xsimd picks
// the argument reduction for a whole batch from its largest lane; xlet per lane). A slice starting
// at 1 puts every element beside other neighbours than in the whole array.
TEST_CASE("sin, cos, tan: an element's result does not depend on the other lanes of its batch") {
    auto x = inputs<float>(-30.0f, 30.0f, 7);
    for (std::size_t i = 5; i < n; i += 37)
        x->data()[i] *= 1000.0f; // medium and large magnitudes among small ones
    x->data()[100] = std::numeric_limits<float>::quiet_NaN();
    auto whole_sin = std::make_unique<f32<n>>(sin(*x));
    auto part_sin = std::make_unique<f32<n - 1>>(sin(slice(*x, dims<1>, dims<n>)));
    auto whole_tan = std::make_unique<f32<n>>(tan(*x));
    auto part_tan = std::make_unique<f32<n - 1>>(tan(slice(*x, dims<1>, dims<n>)));
    std::size_t differ = 0;
    for (std::size_t i = 1; i < n; ++i) {
        differ +=
            std::bit_cast<std::uint32_t>(whole_sin->data()[i]) != std::bit_cast<std::uint32_t>(part_sin->data()[i - 1]);
        differ +=
            std::bit_cast<std::uint32_t>(whole_tan->data()[i]) != std::bit_cast<std::uint32_t>(part_tan->data()[i - 1]);
    }
    CHECK(differ == 0);
    // and each element equals the same value computed in a batch of its own magnitude class
    CHECK(std::isnan(whole_sin->data()[100]));
    f32<1> one{x->data()[5]};
    auto alone = eval(sin(broadcast_in_dim(one, sizes<64>, dims<0>)));
    CHECK(std::bit_cast<std::uint32_t>(alone(0)) == std::bit_cast<std::uint32_t>(whole_sin->data()[5]));
}
