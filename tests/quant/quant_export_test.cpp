// to_stablehlo of quantized programs (issue #26): quantized element types spelled as MLIR prints
// them, uniform_quantize / uniform_dequantize and every quantized op one op on quantized types,
// layout ops on quantized operands (per-axis types with their dimension moved), quantized
// constants; each module read back by xlet-translate's parser and printed again by its printer
// (which prints quantized types as MLIR does) to the same text. The values of such modules after
// xlet-translate's passes: tests/passes/quant_passes_test.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <xlet/stablehlo/export.hpp>

#include "quant_common.hpp"

#include <string>

#include "parser.hpp"
#include "printer.hpp"

namespace {

using quant::scale;
using quant::scales;
using quant::zero_points;

using QA = quant::uniform<std::int8_t, float, scale(0.5), -3>;
using QN = quant::uniform<std::int8_t, float, scale(0.02), 0, -127, 127>;
using QU = quant::uniform<std::uint8_t, float, scale(34.0), 16>;
using QH = quant::uniform<std::int16_t, half, scale(0.001), -300>;
using Q4 = quant::uniform<quant::i4, bfloat16, scale(0.5), -1>;
using PA = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.1, 0.2), zero_points(2, -1)>;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The module as xlet-translate reads and prints it again: the same text (the tool names the module
// as it was named, prints every op in the generic form and types as MLIR does).
void reads_back(const std::string& text) {
    auto r = xlt::parse_module(text, "export.mlir");
    REQUIRE(r.errors.empty());
    CHECK(xlt::print_module(r.mod) == text);
}

} // namespace

TEST_CASE("quantized element types: as MLIR prints them, and as xlet-translate reads and prints them") {
    CHECK(trace::type_of<tensor<QA, 4>>() == "tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>");
    CHECK(trace::type_of<tensor<QN, 2, 3>>() == "tensor<2x3x!quant.uniform<i8<-127:127>:f32, 2.000000e-02>>");
    CHECK(trace::type_of<tensor<QU, 16, 16>>() == "tensor<16x16x!quant.uniform<u8:f32, 3.400000e+01:16>>");
    CHECK(trace::type_of<tensor<QH, 2>>() == "tensor<2x!quant.uniform<i16:f16, 1.000000e-03:-300>>");
    CHECK(trace::type_of<tensor<Q4, 2>>() == "tensor<2x!quant.uniform<i4:bf16, 5.000000e-01:-1>>");
    CHECK(trace::type_of<tensor<PA, 3, 2>>() ==
          "tensor<3x2x!quant.uniform<i8:f32:1, {1.000000e-01:2,2.000000e-01:-1}>>");
    CHECK(trace::type_of<tensor<QA>>() == "tensor<!quant.uniform<i8:f32, 5.000000e-01:-3>>");
    // the tool's printer (MLIR's) spells each the same
    for (const std::string& t :
         {trace::type_of<tensor<QA, 4>>(), trace::type_of<tensor<QN, 2, 3>>(), trace::type_of<tensor<QU, 16, 16>>(),
          trace::type_of<tensor<QH, 2>>(), trace::type_of<tensor<Q4, 2>>(), trace::type_of<tensor<PA, 3, 2>>()}) {
        CAPTURE(t);
        xlt::type parsed;
        std::string why;
        REQUIRE(xlt::parse_type(t, parsed, why));
        CHECK(xlt::type_str(parsed) == t);
    }
}

TEST_CASE("uniform_quantize, uniform_dequantize and a quantized op: one op each, on quantized types") {
    tensor<QA, 4> a{}, b{};
    f32<4> x{};
    const std::string m = to_stablehlo(add(a, uniform_quantize<QA>(x)) * b);
    CHECK(m == "module @xlet {\n"
               "  func.func @main(%arg0: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>, %arg1: tensor<4xf32>, "
               "%arg2: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> (tensor<4x!quant.uniform<i8:f32, "
               "5.000000e-01:-3>>) {\n"
               "    %0 = \"stablehlo.uniform_quantize\"(%arg1) : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, "
               "5.000000e-01:-3>>\n"
               "    %1 = \"stablehlo.add\"(%arg0, %0) : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>, "
               "tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4x!quant.uniform<i8:f32, "
               "5.000000e-01:-3>>\n"
               "    %2 = \"stablehlo.multiply\"(%1, %arg2) : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>, "
               "tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4x!quant.uniform<i8:f32, "
               "5.000000e-01:-3>>\n"
               "    \"func.return\"(%2) : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> ()\n"
               "  }\n"
               "}\n");
    reads_back(m);
    // dequantize; requantization (uniform_quantize of a quantized operand) is one op too
    const std::string d = to_stablehlo(uniform_dequantize(uniform_quantize<QN>(a)));
    CHECK(has(d, "%0 = \"stablehlo.uniform_quantize\"(%arg0) : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) "
                 "-> tensor<4x!quant.uniform<i8<-127:127>:f32, 2.000000e-02>>\n"));
    CHECK(has(d, "%1 = \"stablehlo.uniform_dequantize\"(%0) : (tensor<4x!quant.uniform<i8<-127:127>:f32, "
                 "2.000000e-02>>) -> tensor<4xf32>\n"));
    reads_back(d);
    // unary ops keep the type; a comparison compares the dequantized values (FLOAT); select
    const std::string c = to_stablehlo(select(abs(a) < b, exp(a), b));
    CHECK(has(c, "\"stablehlo.abs\"(%arg0) : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> "
                 "tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>"));
    CHECK(has(c, "\"stablehlo.compare\"(%0, %arg1) {comparison_direction = #stablehlo<comparison_direction LT>, "
                 "compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<4x!quant.uniform<i8:f32, "
                 "5.000000e-01:-3>>, tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4xi1>"));
    CHECK(has(c, "\"stablehlo.exponential\"(%arg0)"));
    CHECK(has(c, "\"stablehlo.select\"(%1, %2, %arg1) : (tensor<4xi1>, tensor<4x!quant.uniform<i8:f32, "
                 "5.000000e-01:-3>>, tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> "
                 "tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>"));
    reads_back(c);
    // unsigned storage, a per-axis result of add, f16 / bf16 expressed types, i4
    tensor<QU, 3> u{};
    CHECK(has(to_stablehlo(u + u), "\"stablehlo.add\"(%arg0, %arg0) : (tensor<3x!quant.uniform<u8:f32, "
                                   "3.400000e+01:16>>, tensor<3x!quant.uniform<u8:f32, 3.400000e+01:16>>)"));
    tensor<PA, 3, 2> p{};
    const std::string pa = to_stablehlo(add<PA>(p, uniform_quantize<PA>(uniform_dequantize(p) * 2.0f)));
    CHECK(has(pa, "\"stablehlo.uniform_dequantize\"(%arg0) : (tensor<3x2x!quant.uniform<i8:f32:1, "
                  "{1.000000e-01:2,2.000000e-01:-1}>>) -> tensor<3x2xf32>"));
    CHECK(has(pa, "\"stablehlo.add\"(%arg0, %4) : (tensor<3x2x!quant.uniform<i8:f32:1, "
                  "{1.000000e-01:2,2.000000e-01:-1}>>, tensor<3x2x!quant.uniform<i8:f32:1, "
                  "{1.000000e-01:2,2.000000e-01:-1}>>) -> tensor<3x2x!quant.uniform<i8:f32:1, "
                  "{1.000000e-01:2,2.000000e-01:-1}>>"));
    reads_back(pa);
    tensor<QH, 2> h{};
    tensor<Q4, 2> q4{};
    const std::string hq = to_stablehlo(
        [](const tensor<QH, 2>& x, const tensor<Q4, 2>& y) { return std::make_tuple(sqrt(x), uniform_dequantize(y)); },
        h, q4);
    CHECK(has(hq, "\"stablehlo.sqrt\"(%arg0) : (tensor<2x!quant.uniform<i16:f16, 1.000000e-03:-300>>) -> "
                  "tensor<2x!quant.uniform<i16:f16, 1.000000e-03:-300>>"));
    CHECK(has(hq, "\"stablehlo.uniform_dequantize\"(%arg1) : (tensor<2x!quant.uniform<i4:bf16, 5.000000e-01:-1>>) "
                  "-> tensor<2xbf16>"));
    reads_back(hq);
}

TEST_CASE("layout ops on quantized operands: one op each; a per-axis type's dimension moves with them") {
    tensor<PA, 3, 2> p{};
    // transpose: the quantization dimension 1 becomes 0
    const std::string t = to_stablehlo(transpose(p, dims<1, 0>));
    CHECK(has(t,
              "\"stablehlo.transpose\"(%arg0) {permutation = array<i64: 1, 0>} : (tensor<3x2x!quant.uniform<i8:f32:1, "
              "{1.000000e-01:2,2.000000e-01:-1}>>) -> tensor<2x3x!quant.uniform<i8:f32:0, "
              "{1.000000e-01:2,2.000000e-01:-1}>>"));
    reads_back(t);
    // broadcast_in_dim with the dimensions out of order: a transpose (axis 1 -> 0), then the
    // broadcast (axis 0 stays 0)
    const std::string b = to_stablehlo(broadcast_in_dim(p, sizes<2, 5, 3>, dims<2, 0>));
    CHECK(has(b, "-> tensor<2x3x!quant.uniform<i8:f32:0, {1.000000e-01:2,2.000000e-01:-1}>>\n"));
    CHECK(has(b, "\"stablehlo.broadcast_in_dim\"(%0) {broadcast_dimensions = array<i64: 0, 2>} : "
                 "(tensor<2x3x!quant.uniform<i8:f32:0, {1.000000e-01:2,2.000000e-01:-1}>>) -> "
                 "tensor<2x5x3x!quant.uniform<i8:f32:0, {1.000000e-01:2,2.000000e-01:-1}>>"));
    reads_back(b);
    // ... to a new leading dimension: the axis moves by one
    CHECK(has(to_stablehlo(broadcast_in_dim(p, sizes<4, 3, 2>, dims<1, 2>)),
              "-> tensor<4x3x2x!quant.uniform<i8:f32:2, {1.000000e-01:2,2.000000e-01:-1}>>"));
    // a size-1 quantization dimension stretched has no export (its reshape would drop it)
    using P1 = quant::uniform_per_axis<std::int8_t, float, 0, scales(0.5), zero_points(1)>;
    tensor<P1, 1> p1{};
    CHECK_THROWS_WITH(to_stablehlo(broadcast_in_dim(p1, sizes<3, 4>, dims<0>)),
                      doctest::Contains("a per-axis quantized dimension of size 1 broadcast to a larger one"));
    // per-tensor: reshape, slice, rev, pad (its value a quantized constant), concatenate
    tensor<QA, 4> a{};
    const std::string l = to_stablehlo(
        [](const tensor<QA, 4>& x) {
            auto r = eval(rev(slice(reshape(x, sizes<2, 2>), sizes<0, 0>, sizes<2, 1>), dims<0>)); // 2x1
            return eval(concatenate<0>(pad<padding_config<1>{{1}, {0}, {0}}>(reshape(r, sizes<2>), QA{5}), x));
        },
        a);
    CHECK(has(l, "\"stablehlo.reshape\"(%arg0) : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> "
                 "tensor<2x2x!quant.uniform<i8:f32, 5.000000e-01:-3>>"));
    CHECK(has(l, "\"stablehlo.reverse\"("));
    CHECK(has(l, "\"stablehlo.slice\"("));
    CHECK(has(l, "\"stablehlo.constant\"() {value = dense<5> : tensor<i8>} : () -> "
                 "tensor<!quant.uniform<i8:f32, 5.000000e-01:-3>>"));
    CHECK(has(l, "\"stablehlo.pad\"("));
    CHECK(has(l, "\"stablehlo.concatenate\"("));
    CHECK(has(l, "-> tensor<7x!quant.uniform<i8:f32, 5.000000e-01:-3>>"));
    reads_back(l);
}

TEST_CASE("quantized constants: the stored integers as the storage type's value, the quantized result type") {
    tensor<QU, 3> u{};
    const std::string m = to_stablehlo(
        [](const tensor<QU, 3>& x) {
            tensor<QU, 3> w{200, 0, 255}, z{7, 7, 7};
            tensor<QN, 2> n{-127, 127};
            return std::make_tuple(eval(x + w), eval(x + z), n);
        },
        u);
    CHECK(has(m, "\"stablehlo.constant\"() {value = dense<[200, 0, 255]> : tensor<3xui8>} : () -> "
                 "tensor<3x!quant.uniform<u8:f32, 3.400000e+01:16>>"));
    CHECK(has(m, "\"stablehlo.constant\"() {value = dense<7> : tensor<3xui8>} : () -> "
                 "tensor<3x!quant.uniform<u8:f32, 3.400000e+01:16>>"));
    CHECK(has(m, "\"stablehlo.constant\"() {value = dense<[-127, 127]> : tensor<2xi8>} : () -> "
                 "tensor<2x!quant.uniform<i8<-127:127>:f32, 2.000000e-02>>"));
    reads_back(m);
    // MLIR 15's spelling (the integer lists of the ops) keeps the quantized types
    stablehlo_options o;
    o.mlir_compat = 15;
    tensor<PA, 3, 2> p{};
    CHECK(has(to_stablehlo(transpose(p, dims<1, 0>), o), "{permutation = dense<[1, 0]> : tensor<2xi64>} : "
                                                         "(tensor<3x2x!quant.uniform<i8:f32:1, "));
}
