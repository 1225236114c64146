// xlet-translate also: --stablehlo-legalize-quant-to-math
// The ops the spec computes on quantized operands in float only (batch_norm_inference / training /
// grad, cholesky, triangular_solve: dequantize -> float op -> quantize; quant/float_ops.hpp): run
// as they are (xlet's quantized forms of the ops, result types named where they differ from the
// operand's) and, as stablehlo_quant_float_ops_also, after --stablehlo-legalize-quant-to-math
// (dequantize and quantize in integer and f32 arithmetic around the float op): the same checks on
// both paths. Every real value is dyadic and var + epsilon is 1, so the float ops are exact; the
// expected stored integers are worked by hand in tests/quant/quant_float_ops_test.cpp (the same
// cases), ties rounded half to even.
module @quant_float_ops {
  func.func @batch_norm_inference() {
    %x = "stablehlo.constant"() {value = dense<[[7, -1], [8, 5], [103, -97]]> : tensor<3x2xi8>} : () -> tensor<3x2x!quant.uniform<i8:f32, 0.25:3>>
    %s = "stablehlo.constant"() {value = dense<[3, 1]> : tensor<2xi8>} : () -> tensor<2x!quant.uniform<i8:f32, 0.5:-1>>
    %o = "stablehlo.constant"() {value = dense<[0, -1]> : tensor<2xi8>} : () -> tensor<2x!quant.uniform<i8:f32, 0.5:-1>>
    %m = "stablehlo.constant"() {value = dense<[1, -3]> : tensor<2xi8>} : () -> tensor<2x!quant.uniform<i8:f32, 0.5:-1>>
    %v = "stablehlo.constant"() {value = dense<[0, 0]> : tensor<2xi8>} : () -> tensor<2x!quant.uniform<i8:f32, 0.5:-1>>
    %y = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) <{epsilon = 0.5 : f32, feature_index = 1 : i64}> : (tensor<3x2x!quant.uniform<i8:f32, 0.25:3>>, tensor<2x!quant.uniform<i8:f32, 0.5:-1>>, tensor<2x!quant.uniform<i8:f32, 0.5:-1>>, tensor<2x!quant.uniform<i8:f32, 0.5:-1>>, tensor<2x!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<3x2x!quant.uniform<i8:f32, 1.0>>
    %ys = stablehlo.bitcast_convert %y : (tensor<3x2x!quant.uniform<i8:f32, 1.0>>) -> tensor<3x2xi8>
    check.expect_eq_const %ys, dense<[[0, 0], [1, 2], [48, -24]]> : tensor<3x2xi8>
    func.return
  }
  func.func @batch_norm_training() {
    %x = "stablehlo.constant"() {value = dense<[[5, -7], [9, -3], [5, -7], [9, -3]]> : tensor<4x2xi8>} : () -> tensor<4x2x!quant.uniform<i8:f32, 0.25:3>>
    %s = "stablehlo.constant"() {value = dense<[2, 6]> : tensor<2xi8>} : () -> tensor<2x!quant.uniform<i8:f32, 0.5>>
    %o = "stablehlo.constant"() {value = dense<[0, 1]> : tensor<2xi8>} : () -> tensor<2x!quant.uniform<i8:f32, 0.5>>
    %y, %m, %v = "stablehlo.batch_norm_training"(%x, %s, %o) <{epsilon = 0.75 : f32, feature_index = 1 : i64}> : (tensor<4x2x!quant.uniform<i8:f32, 0.25:3>>, tensor<2x!quant.uniform<i8:f32, 0.5>>, tensor<2x!quant.uniform<i8:f32, 0.5>>) -> (tensor<4x2x!quant.uniform<i8:f32, 0.25>>, tensor<2x!quant.uniform<i8:f32, 0.125:1>>, tensor<2x!quant.uniform<i8:f32, 0.0625:-2>>)
    %ys = stablehlo.bitcast_convert %y : (tensor<4x2x!quant.uniform<i8:f32, 0.25>>) -> tensor<4x2xi8>
    check.expect_eq_const %ys, dense<[[-2, -4], [2, 8], [-2, -4], [2, 8]]> : tensor<4x2xi8>
    %ms = stablehlo.bitcast_convert %m : (tensor<2x!quant.uniform<i8:f32, 0.125:1>>) -> tensor<2xi8>
    check.expect_eq_const %ms, dense<[9, -15]> : tensor<2xi8>
    %vs = stablehlo.bitcast_convert %v : (tensor<2x!quant.uniform<i8:f32, 0.0625:-2>>) -> tensor<2xi8>
    check.expect_eq_const %vs, dense<[2, 2]> : tensor<2xi8>
    func.return
  }
  func.func @batch_norm_grad() {
    %x = "stablehlo.constant"() {value = dense<[[5], [9], [5], [9]]> : tensor<4x1xi8>} : () -> tensor<4x1x!quant.uniform<i8:f32, 0.25:3>>
    %g = "stablehlo.constant"() {value = dense<[[7], [3], [3], [3]]> : tensor<4x1xi8>} : () -> tensor<4x1x!quant.uniform<i8:f32, 0.25:3>>
    %s = "stablehlo.constant"() {value = dense<[7]> : tensor<1xi8>} : () -> tensor<1x!quant.uniform<i8:f32, 0.25:3>>
    %v = "stablehlo.constant"() {value = dense<[4]> : tensor<1xi8>} : () -> tensor<1x!quant.uniform<i8:f32, 0.25:3>>
    %gx, %gs, %go = "stablehlo.batch_norm_grad"(%x, %s, %s, %v, %g) <{epsilon = 0.75 : f32, feature_index = 1 : i64}> : (tensor<4x1x!quant.uniform<i8:f32, 0.25:3>>, tensor<1x!quant.uniform<i8:f32, 0.25:3>>, tensor<1x!quant.uniform<i8:f32, 0.25:3>>, tensor<1x!quant.uniform<i8:f32, 0.25:3>>, tensor<4x1x!quant.uniform<i8:f32, 0.25:3>>) -> (tensor<4x1x!quant.uniform<i8:f32, 0.0625>>, tensor<1x!quant.uniform<i8:f32, 0.5>>, tensor<1x!quant.uniform<i8:f32, 1.0:10>>)
    %gxs = stablehlo.bitcast_convert %gx : (tensor<4x1x!quant.uniform<i8:f32, 0.0625>>) -> tensor<4x1xi8>
    check.expect_eq_const %gxs, dense<[[11], [-3], [-5], [-3]]> : tensor<4x1xi8>
    %gss = stablehlo.bitcast_convert %gs : (tensor<1x!quant.uniform<i8:f32, 0.5>>) -> tensor<1xi8>
    check.expect_eq_const %gss, dense<[-1]> : tensor<1xi8>
    %gos = stablehlo.bitcast_convert %go : (tensor<1x!quant.uniform<i8:f32, 1.0:10>>) -> tensor<1xi8>
    check.expect_eq_const %gos, dense<[11]> : tensor<1xi8>
    func.return
  }
  func.func @cholesky_triangular_solve() {
    %a = "stablehlo.constant"() {value = dense<[[8, 4], [4, 10]]> : tensor<2x2xi8>} : () -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
    %l = stablehlo.cholesky %a, lower = true : (tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.25:5>>
    %ls = stablehlo.bitcast_convert %l : (tensor<2x2x!quant.uniform<i8:f32, 0.25:5>>) -> tensor<2x2xi8>
    check.expect_eq_const %ls, dense<[[13, 5], [9, 13]]> : tensor<2x2xi8>
    %t = "stablehlo.constant"() {value = dense<[[4, 100], [2, 8]]> : tensor<2x2xi8>} : () -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
    %b = "stablehlo.constant"() {value = dense<[[5], [17]]> : tensor<2x1xi8>} : () -> tensor<2x1x!quant.uniform<i8:f32, 0.25:-3>>
    %x = "stablehlo.triangular_solve"(%t, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x2x!quant.uniform<i8:f32, 0.5>>, tensor<2x1x!quant.uniform<i8:f32, 0.25:-3>>) -> tensor<2x1x!quant.uniform<i8:f32, 0.125>>
    %xs = stablehlo.bitcast_convert %x : (tensor<2x1x!quant.uniform<i8:f32, 0.125>>) -> tensor<2x1xi8>
    check.expect_eq_const %xs, dense<[[8], [8]]> : tensor<2x1xi8>
    func.return
  }
}
