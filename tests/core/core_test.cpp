// Core: element types, static shapes, tensor and tensor_map, expression lifetime.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <sstream>
#include <vector>
#include <xlet/xlet.hpp>

using namespace xlet;

template<class T>
std::string str(const T& t) {
    std::ostringstream os;
    os << t;
    return os.str();
}

TEST_CASE("element traits") {
    CHECK(xla_name<bool> == "pred");
    CHECK(xla_name<std::int8_t> == "s8");
    CHECK(xla_name<std::uint64_t> == "u64");
    CHECK(xla_name<half> == "f16");
    CHECK(xla_name<bfloat16> == "bf16");
    CHECK(xla_name<std::complex<double>> == "c128");
    CHECK(element_traits<std::complex<float>>::bits == 64);
    CHECK(element_traits<bfloat16>::bits == 16);
    CHECK(kind_of<std::uint16_t> == kind::unsigned_int);
    CHECK(kind_of<half> == kind::floating);
    static_assert(std::is_same_v<compute_t<half>, float>);
    static_assert(std::is_same_v<compute_t<bfloat16>, float>);
    static_assert(std::is_same_v<real_t<std::complex<double>>, double>);
    static_assert(!element<long double> && !element<char>);
}

TEST_CASE("static shapes") {
    static_assert(f32<2, 3>::rank == 2 && f32<2, 3>::size() == 6);
    static_assert(f32<>::rank == 0 && f32<>::size() == 1);
    static_assert(f32<0, 5>::size() == 0);
    static_assert(row_major_strides(extents_t<3>{2, 3, 4}) == std::array<std::ptrdiff_t, 3>{12, 4, 1});
    static_assert(unflatten(17, extents_t<3>{2, 3, 4}) == std::array<std::size_t, 3>{1, 1, 1});
    static_assert(dims_unique(dims_t<0, 2, 1>::value) && !dims_unique(dims_t<1, 1>::value));
    static_assert(dims_in_range(dims_t<0, 2>::value, 3) && !dims_in_range(dims_t<3>::value, 3));
    static_assert(std::is_same_v<tensor_type_of<f32<2, 3>>, tensor<float, 2, 3>>);
}

TEST_CASE("size() as std::array spells it: tensors, tensor_maps, nodes, dims") {
    f32<2, 3> t{{1, 2, 3}, {4, 5, 6}};
    CHECK(t.size() == 6);
    static_assert(decltype(t)::size() == 6);
    static_assert(decltype(t)::num_elements == 6);
    static_assert(noexcept(t.size()));
    constexpr std::size_t n = f32<4, 5>::size(); // a constant expression
    std::array<float, n> buf{};
    static_assert(std::tuple_size_v<decltype(buf)> == 20);
    CHECK(std::distance(t.begin(), t.end()) == 6);

    tensor_map<float, 4, 5> m(buf.data());
    CHECK(m.size() == buf.size());
    static_assert(decltype(m)::size() == 20);

    auto e = add(t, t); // an expression node
    CHECK(e.size() == 6);
    static_assert(decltype(e)::size() == 6 && decltype(e)::num_elements == 6);
    auto tr = transpose(t, dims<1, 0>); // a view node
    static_assert(decltype(tr)::size() == 6);
    CHECK(tr.size() == t.size());

    static_assert(dims_t<2, 0, 1>::size() == 3 && decltype(dims<>)::size() == 0);
}

TEST_CASE("construction, access, iteration, printing") {
    f32<2, 3> a{{1, 2, 3}, {4, 5, 6}};
    CHECK(a(0, 0) == 1);
    CHECK(a(1, 2) == 6);
    a(1, 2) = 60;
    CHECK(a.data()[5] == 60);
    float sum = 0;
    for (float x : a)
        sum += x;
    CHECK(sum == 1 + 2 + 3 + 4 + 5 + 60);
    CHECK(str(a) == "f32[2,3] {{1, 2, 3}, {4, 5, 60}}");

    f32<> s{2.5f};
    CHECK(s() == 2.5f);
    CHECK(str(s) == "f32[] 2.5");
    CHECK(str(s8<2>{-1, 7}) == "s8[2] {-1, 7}");
    CHECK(str(pred<2>{true, false}) == "pred[2] {true, false}");
    CHECK(str(f32<0, 2>{}) == "f32[0,2] {}");

    f32<2, 2> z; // value-initialised
    CHECK(z(1, 1) == 0);
    auto f = f32<2, 2>::filled(7.0f);
    CHECK(f(1, 0) == 7);
}

TEST_CASE("bad initializer and out-of-range at() raise xlet::error") {
    CHECK_THROWS_WITH_AS((f32<2, 3>{{1, 2, 3}, {4, 5}}),
                         "xlet::tensor: initializer list has 2 entries in dimension 1 of size 3", error);
    CHECK_THROWS_WITH_AS((f32<2>{1, 2, 3}), "xlet::tensor: initializer list has 3 entries in dimension 0 of size 2",
                         error);
    f32<2, 3> a{};
    CHECK_THROWS_WITH_AS(a.at({0, 3}), "xlet::tensor::at: index 3 out of range for dimension 1 of size 3", error);
    CHECK(a.at({1, 2}) == 0);
}

TEST_CASE("xlet::error writes its message from parts: text, characters, integers") {
    const std::string s = "str";
    const std::string_view v = "view";
    CHECK(std::string(error("op", "a ", 1, ' ', -5, " ", s, v, 'x').what()) == "xlet::op: a 1 -5 strviewx");
    CHECK(std::string(error("op").what()) == "xlet::op: ");
    CHECK(std::string(
              error("op", std::numeric_limits<std::uint64_t>::max(), " ", std::numeric_limits<std::int64_t>::min())
                  .what()) == "xlet::op: 18446744073709551615 -9223372036854775808");
    CHECK(
        std::string(error("op", static_cast<std::uint8_t>(200), static_cast<std::int8_t>(-3), short(-7), 0u).what()) ==
        "xlet::op: 200-3-70");
    const std::string long_reason(300, 'z'); // longer than the message's inline buffer: on the heap
    CHECK(std::string(error(s, long_reason).what()) == "xlet::str: " + long_reason);
}

TEST_CASE("storage: small tensors inline, large ones on the heap; copies are deep") {
    static_assert(sizeof(f32<4, 4>) == 64);
    static_assert(sizeof(f32<16, 16>) == 1024);
    static_assert(sizeof(f32<1024, 1024>) == sizeof(void*));
    auto big = std::make_unique<f32<1024, 1024>>();
    (*big)(1023, 1023) = 3;
    auto copy = *big;
    copy(1023, 1023) = 4;
    CHECK((*big)(1023, 1023) == 3);
    CHECK(copy(1023, 1023) == 4);
    CHECK(reinterpret_cast<std::uintptr_t>(copy.data()) % 64 == 0);
    auto moved = std::move(copy);
    CHECK(moved(1023, 1023) == 4);
}

TEST_CASE("storage: default tensors are zeroed, large ones sit on 2 MiB pages, copies copy every element") {
    // 4 MiB: huge-page aligned (and offered to transparent huge pages); 1 MiB: 64-byte aligned.
    static_assert(detail::heap_alignment(sizeof(float) << 20) == detail::huge_page_bytes);
    static_assert(detail::heap_alignment(sizeof(float) << 18) == 64);
    auto big = std::make_unique<f32<1024, 1024>>();
    CHECK(reinterpret_cast<std::uintptr_t>(big->data()) % detail::huge_page_bytes == 0);
    CHECK(std::all_of(big->begin(), big->end(), [](float x) { return x == 0.0f; }));
    auto mid = std::make_unique<f32<512, 512>>();
    CHECK(reinterpret_cast<std::uintptr_t>(mid->data()) % 64 == 0);
    CHECK(std::all_of(mid->begin(), mid->end(), [](float x) { return x == 0.0f; }));
    for (std::size_t i = 0; i < big->size(); ++i)
        big->data()[i] = static_cast<float>(i % 977);
    auto copy = std::make_unique<f32<1024, 1024>>(*big); // no zero-fill first: every element copied
    CHECK(std::equal(big->begin(), big->end(), copy->begin()));
    auto from_expr = std::make_unique<f32<1024, 1024>>(*big + 1.0f); // evaluated into fresh storage
    for (std::size_t i = 0; i < big->size(); i += 4099)
        CHECK(from_expr->data()[i] == big->data()[i] + 1.0f);
}

TEST_CASE(
    "storage: a freed large block is reused by the next array of its size, zeroed again when default-constructed") {
    release_cached_memory();
    CHECK(cached_memory_bytes() == 0);
    const float* first = nullptr;
    {
        auto a = std::make_unique<f32<1024, 1024>>();
        std::fill(a->begin(), a->end(), 7.0f);
        first = a->data();
    }
    CHECK(cached_memory_bytes() == sizeof(float) << 20);
    auto b = std::make_unique<f32<1024, 1024>>();
    CHECK(b->data() == first);
    CHECK(cached_memory_bytes() == 0);
    CHECK(std::all_of(b->begin(), b->end(), [](float x) { return x == 0.0f; }));
    { auto other = std::make_unique<f32<1024, 1025>>(); } // another size: cached beside, not confused
    auto c = std::make_unique<f32<1024, 1024>>();
    CHECK(c->data() != first);
    release_cached_memory();
    CHECK(cached_memory_bytes() == 0);
}

TEST_CASE("storage: a thread keeps the blocks below 1 MiB of a pass that holds many at once") {
    // A forward pass of a small model: results of nine sizes alive together, freed, and the next
    // pass allocates them again: each finds its block (no fresh pages to fault in).
    release_cached_memory();
    constexpr std::size_t sizes[] = {8 << 10,   40 << 10,  100 << 10, 200 << 10, 300 << 10,
                                     400 << 10, 512 << 10, 600 << 10, 1000 << 10};
    std::vector<void*> first;
    for (std::size_t b : sizes)
        first.push_back(detail::allocate_block(b, 64));
    for (std::size_t i = 0; i < first.size(); ++i)
        detail::free_block(first[i], sizes[i], 64);
    std::size_t total = 0;
    for (std::size_t b : sizes)
        total += b;
    CHECK(cached_memory_bytes() == total); // all nine kept
    for (std::size_t i = 0; i < first.size(); ++i) {
        void* p = detail::allocate_block(sizes[i], 64);
        CHECK(p == first[i]);
        detail::free_block(p, sizes[i], 64);
    }
    release_cached_memory();
    CHECK(cached_memory_bytes() == 0);
}

TEST_CASE("tensor_map views user memory") {
    float buf[6] = {1, 2, 3, 4, 5, 6};
    tensor_map<float, 2, 3> m(buf);
    CHECK(m(1, 0) == 4);
    f32<3> v{10, 20, 30};
    m = add(m, v, dims<1>);
    CHECK(buf[0] == 11);
    CHECK(buf[5] == 36);
    tensor_map<const float, 3, 2> c(buf);
    f32<3, 2> t = c * 2.0f;
    CHECK(t(2, 1) == 72);
    CHECK(str(c) == "f32[3,2] {{11, 22}, {33, 14}, {25, 36}}");
}

TEST_CASE("equal compares values exactly") {
    f32<2> a{1, 2}, b{1, 2}, c{1, 3};
    CHECK(equal(a, b));
    CHECK_FALSE(equal(a, c));
    f32<1> n{std::numeric_limits<float>::quiet_NaN()};
    CHECK_FALSE(equal(n, n));
}

namespace {
f32<64, 64> make(float v) { return f32<64, 64>::filled(v); }
} // namespace

TEST_CASE("expressions hold lvalues by reference and rvalues by value") {
    f32<64, 64> a = f32<64, 64>::filled(1.0f);
    auto e = a + make(2.0f); // the temporary is moved into the node: no dangling (ASan checks)
    a(0, 0) = 10;            // the lvalue is referenced: later changes are seen
    f32<64, 64> r = e;
    CHECK(r(0, 0) == 12);
    CHECK(r(63, 63) == 3);
    auto e2 = exp(make(0.0f)) * e; // nodes nest by value too
    f32<64, 64> r2 = e2;
    CHECK(r2(5, 5) == 3);
    static_assert(sizeof(decltype(a + a)) <= 2 * sizeof(void*) + 8, "lvalue operands are held by pointer");
}

TEST_CASE("eval materialises any expression") {
    f32<2, 2> a{{1, 2}, {3, 4}};
    auto t = eval(a * a);
    static_assert(std::is_same_v<decltype(t), f32<2, 2>>);
    CHECK(str(t) == "f32[2,2] {{1, 4}, {9, 16}}");
}

TEST_CASE("eval of a tensor rvalue (an eager op's result) moves it; of an lvalue, copies it") {
    f32<1024, 1024> a; // heap storage
    a(5, 7) = 2;
    const float* block = a.data();
    auto copied = eval(a);
    CHECK(copied.data() != block);
    CHECK(copied(5, 7) == 2);
    CHECK(a(5, 7) == 2);
    auto moved = eval(std::move(a));
    static_assert(std::is_same_v<decltype(moved), f32<1024, 1024>>);
    CHECK(moved.data() == block); // the same block: no copy
    CHECK(moved(5, 7) == 2);
    const f32<1024, 1024> c = moved;
    auto from_const = eval(std::move(c)); // a const rvalue cannot be moved from: copied
    CHECK(from_const.data() != c.data());
    CHECK(from_const(5, 7) == 2);
    // an eager op's result: dot_general returns a tensor
    f32<64, 64> x, y;
    x(0, 0) = 3;
    y(0, 1) = 4;
    auto d = eval(dot(x, y));
    static_assert(std::is_same_v<decltype(d), f32<64, 64>>);
    CHECK(d(0, 1) == 12);
    CHECK(d(0, 0) == 0);
}

TEST_CASE("detail::owner: the owning pointer of xlet's own objects") {
    struct base {
        int* alive;
        explicit base(int* a) : alive(a) { ++*alive; }
        virtual ~base() { --*alive; }
    };
    struct derived final : base {
        int v;
        derived(int* a, int x) : base(a), v(x) {}
    };
    int alive = 0;
    {
        xlet::detail::owner<base> a = xlet::detail::make_owner<derived>(&alive, 7); // converted
        CHECK(alive == 1);
        CHECK(static_cast<derived&>(*a).v == 7);
        xlet::detail::owner<base> b = std::move(a);
        CHECK_FALSE(a);
        CHECK(b);
        CHECK(alive == 1);
        b = xlet::detail::owner<base>(std::make_unique<derived>(&alive, 8)); // from a unique_ptr
        CHECK(alive == 1);                                                   // the first one deleted
        CHECK(static_cast<derived*>(b.get())->v == 8);
        base* raw = b.release();
        CHECK_FALSE(b);
        CHECK(alive == 1);
        b.reset(raw);
        xlet::detail::owner<base> c(nullptr);
        c = std::move(b);
        CHECK(alive == 1);
        c.reset();
        CHECK(alive == 0);
        c = xlet::detail::make_owner<derived>(&alive, 9);
    }
    CHECK(alive == 0); // deleted through the base at the end of its scope
}
