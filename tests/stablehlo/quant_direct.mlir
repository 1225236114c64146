// Quantized modules that the C++ emitter translates to xlet's quantized types and ops (issue #26)
// but --stablehlo-legalize-quant-to-math does not take, or takes with other values (quant_ops.mlir
// runs on both paths): checks of quantized values, which compare their stored integers; i4, u4 and
// i32 storage, bf16 and f64 expressed types; reverse, broadcast, dynamic_update_slice and control
// flow of quantized values, which upstream's pass has no pattern for; an add of operands of another
// scale than the result's; a convolution whose kernel has nonzero zero points. Expected values
// computed by hand from the spec's formulas, each step in the expressed type (the convolution's by
// tests/stablehlo/quant_dot_ref.py).
module @quant_direct {
  // check.expect_eq(_const) of quantized values: their stored integers
  func.func @checks() {
    %a = "stablehlo.constant"() {value = dense<[-10, 3, 0]> : tensor<3xi8>} : () -> tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    "check.expect_eq_const"(%a) {value = dense<[-10, 3, 0]> : tensor<3xi8>} : (tensor<3x!quant.uniform<i8:f32, 0.5:-3>>) -> ()
    %b = "stablehlo.constant"() {value = dense<7> : tensor<3xi8>} : () -> tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    // a splat constant: [-3.5, 3, 1.5] + 5 = [1.5, 8, 6.5]
    %c = stablehlo.add %a, %b : tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    %e = "stablehlo.constant"() {value = dense<[0, 13, 10]> : tensor<3xi8>} : () -> tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    check.expect_eq %c, %e : tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    stablehlo.custom_call @check.expect_eq(%c, %e) {has_side_effect = true} : (tensor<3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<3x!quant.uniform<i8:f32, 0.5:-3>>) -> ()
    %eq = stablehlo.custom_call @check.eq(%c, %e) : (tensor<3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<3x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<i1>
    check.expect_eq_const %eq, dense<true> : tensor<i1>
    // rank 0
    %s = "stablehlo.constant"() {value = dense<-128> : tensor<i8>} : () -> tensor<!quant.uniform<i8:f32, 0.5:-3>>
    "check.expect_eq_const"(%s) {value = dense<-128> : tensor<i8>} : (tensor<!quant.uniform<i8:f32, 0.5:-3>>) -> ()
    func.return
  }
  // i4 (-8..7), u4 (0..15) and i32 storage (f32's 2^31 clamped back to 2^31 - 1)
  func.func @storage_types() {
    %x = stablehlo.constant dense<[3.0, 4.0, -3.5, -4.0, 0.25]> : tensor<5xf32>
    %q4 = stablehlo.uniform_quantize %x : (tensor<5xf32>) -> tensor<5x!quant.uniform<i4:f32, 0.5:-1>>
    "check.expect_eq_const"(%q4) {value = dense<[5, 7, -8, -8, 0]> : tensor<5xi4>} : (tensor<5x!quant.uniform<i4:f32, 0.5:-1>>) -> ()
    %d4 = stablehlo.uniform_dequantize %q4 : (tensor<5x!quant.uniform<i4:f32, 0.5:-1>>) -> tensor<5xf32>
    check.expect_eq_const %d4, dense<[3.0, 4.0, -3.5, -3.5, 0.5]> : tensor<5xf32>
    %y = stablehlo.constant dense<[-1.0, -1.0625, 0.9375, 1.0, 0.0625]> : tensor<5xf32>
    %u4 = stablehlo.uniform_quantize %y : (tensor<5xf32>) -> tensor<5x!quant.uniform<u4:f32, 0.125:8>>
    "check.expect_eq_const"(%u4) {value = dense<[0, 0, 15, 15, 8]> : tensor<5xui4>} : (tensor<5x!quant.uniform<u4:f32, 0.125:8>>) -> ()
    %z = stablehlo.constant dense<[1.0e10, -1.0e10, 2.5, -2.5]> : tensor<4xf32>
    %q32 = stablehlo.uniform_quantize %z : (tensor<4xf32>) -> tensor<4x!quant.uniform<i32:f32, 1.0>>
    %s32 = stablehlo.bitcast_convert %q32 : (tensor<4x!quant.uniform<i32:f32, 1.0>>) -> tensor<4xi32>
    check.expect_eq_const %s32, dense<[2147483647, -2147483648, 2, -2]> : tensor<4xi32>
    func.return
  }
  // bf16 (scale 0.1 is 0.10009765625 in bf16; every step rounded to bf16) and f64 expressed types
  func.func @expressed_types() {
    %x = stablehlo.constant dense<[1.0, -0.5]> : tensor<2xbf16>
    // 1 / 0.10009765625 = 9.99 -> 10 (bf16) + 3; -0.5 / 0.10009765625 = -4.995 -> -5 (bf16) + 3
    %q = stablehlo.uniform_quantize %x : (tensor<2xbf16>) -> tensor<2x!quant.uniform<i8:bf16, 0.1:3>>
    "check.expect_eq_const"(%q) {value = dense<[13, -2]> : tensor<2xi8>} : (tensor<2x!quant.uniform<i8:bf16, 0.1:3>>) -> ()
    // 10 * 0.10009765625 = 1.0009765625 -> 1.0 (bf16); -5 * 0.10009765625 -> -0.5
    %d = stablehlo.uniform_dequantize %q : (tensor<2x!quant.uniform<i8:bf16, 0.1:3>>) -> tensor<2xbf16>
    check.expect_eq_const %d, dense<[1.0, -0.5]> : tensor<2xbf16>
    %y = stablehlo.constant dense<[1.0, -1.125]> : tensor<2xf64>
    %r = stablehlo.uniform_quantize %y : (tensor<2xf64>) -> tensor<2x!quant.uniform<i32:f64, 0.25:-5>>
    "check.expect_eq_const"(%r) {value = dense<[-1, -10]> : tensor<2xi32>} : (tensor<2x!quant.uniform<i32:f64, 0.25:-5>>) -> ()
    func.return
  }
  // add with operands of another scale than the result's (0.5 -> 1.0, zero point -128): the
  // spec's dequantize, add, quantize rounds once: 2.5 + 0.5 = 3 -> -125, 63.5 + 63.5 = 127 -> -1.
  // --stablehlo-legalize-quant-to-math requantizes each operand first, as upstream's integer form
  // does, rounding twice: -126 and 0 there (quant_math.mlir @add_ties has the same operands).
  func.func @add_scales() {
    %l = "stablehlo.constant"() {value = dense<[3, 5, -3, -5, 127, -128]> : tensor<6xi8>} : () -> tensor<6x!quant.uniform<i8:f32, 0.5>>
    %r = "stablehlo.constant"() {value = dense<[1, 1, 1, 1, 127, -128]> : tensor<6xi8>} : () -> tensor<6x!quant.uniform<i8:f32, 0.5>>
    %sum = stablehlo.add %l, %r : (tensor<6x!quant.uniform<i8:f32, 0.5>>, tensor<6x!quant.uniform<i8:f32, 0.5>>) -> tensor<6x!quant.uniform<i8:f32, 1.0:-128>>
    "check.expect_eq_const"(%sum) {value = dense<[-126, -125, -128, -128, -1, -128]> : tensor<6xi8>} : (tensor<6x!quant.uniform<i8:f32, 1.0:-128>>) -> ()
    func.return
  }
  // unary ops: of the operand's type, and of another (abs to 0.25); is_finite: true
  func.func @unary() {
    %a = "stablehlo.constant"() {value = dense<[-10, 3, 0]> : tensor<3xi8>} : () -> tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    // sign of [-3.5, 3, 1.5] = [-1, 1, 1], quantized with 0.5 and -3
    %sg = stablehlo.sign %a : tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    "check.expect_eq_const"(%sg) {value = dense<[-5, -1, -1]> : tensor<3xi8>} : (tensor<3x!quant.uniform<i8:f32, 0.5:-3>>) -> ()
    %ab = stablehlo.abs %a : (tensor<3x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<3x!quant.uniform<i8:f32, 0.25>>
    "check.expect_eq_const"(%ab) {value = dense<[14, 12, 6]> : tensor<3xi8>} : (tensor<3x!quant.uniform<i8:f32, 0.25>>) -> ()
    %f = stablehlo.is_finite %a : (tensor<3x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<3xi1>
    check.expect_eq_const %f, dense<true> : tensor<3xi1>
    func.return
  }
  // data movement upstream's pass has no pattern for, and quantized values through if and while
  func.func @moves_and_control() {
    %m = "stablehlo.constant"() {value = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>} : () -> tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
    %rv = stablehlo.reverse %m, dims = [1] : tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
    "check.expect_eq_const"(%rv) {value = dense<[[3, 2, 1], [6, 5, 4]]> : tensor<2x3xi8>} : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>) -> ()
    %bc = "stablehlo.broadcast"(%m) {broadcast_sizes = array<i64: 2>} : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2x2x3x!quant.uniform<i8:f32, 0.5:-3>>
    "check.expect_eq_const"(%bc) {value = dense<[[[1, 2, 3], [4, 5, 6]], [[1, 2, 3], [4, 5, 6]]]> : tensor<2x2x3xi8>} : (tensor<2x2x3x!quant.uniform<i8:f32, 0.5:-3>>) -> ()
    %u = "stablehlo.constant"() {value = dense<[[-1, -2]]> : tensor<1x2xi8>} : () -> tensor<1x2x!quant.uniform<i8:f32, 0.5:-3>>
    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %i1 = stablehlo.constant dense<1> : tensor<i32>
    %du = stablehlo.dynamic_update_slice %m, %u, %i0, %i1 : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<i32>, tensor<i32>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
    "check.expect_eq_const"(%du) {value = dense<[[1, -1, -2], [4, 5, 6]]> : tensor<2x3xi8>} : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>) -> ()
    %t = stablehlo.constant dense<false> : tensor<i1>
    %br = "stablehlo.if"(%t) ({
      stablehlo.return %m : tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
    }, {
      stablehlo.return %rv : tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
    }) : (tensor<i1>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
    check.expect_eq %br, %rv : tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
    // twice: m + m (1 + 1 + 3 = 5 ...), then that + m
    %k = stablehlo.constant dense<0> : tensor<i32>
    %w:2 = stablehlo.while(%it = %k, %acc = %m) : tensor<i32>, tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
      cond {
      %two = stablehlo.constant dense<2> : tensor<i32>
      %lt = stablehlo.compare LT, %it, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %next = stablehlo.add %it, %one : tensor<i32>
      %sum = stablehlo.add %acc, %m : tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
      stablehlo.return %next, %sum : tensor<i32>, tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
    }
    "check.expect_eq_const"(%w#1) {value = dense<[[9, 12, 15], [18, 21, 24]]> : tensor<2x3xi8>} : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>) -> ()
    func.return
  }
  // a convolution whose per-axis kernel has nonzero zero points {0.5:3, 0.25:-4} (the pass sends it
  // through dequantize / quantize): NHWC, image (0.5, 1), result (0.5, 1); M = 0.5 and 0.25, ties
  // 0.5 + 1 -> 2 and -64.5 + 1 -> -64, -130.5 + 1 saturated (tests/stablehlo/quant_dot_ref.py)
  func.func @conv_kernel_zero_points() {
    %x = stablehlo.constant dense<[[[[1, 3], [5, -1]], [[0, 2], [127, -128]]]]> : tensor<1x2x2x2xi8>
    %k = stablehlo.constant dense<[[[[4, -4], [6, -2]]]]> : tensor<1x1x2x2xi8>
    %qx = stablehlo.bitcast_convert %x : (tensor<1x2x2x2xi8>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.5:1>>
    %qk = stablehlo.bitcast_convert %k : (tensor<1x1x2x2xi8>) -> tensor<1x1x2x2x!quant.uniform<i8:f32:3, {0.5:3, 0.25:-4}>>
    %c = stablehlo.convolution(%qx, %qk) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x2x2x!quant.uniform<i8:f32, 0.5:1>>, tensor<1x1x2x2x!quant.uniform<i8:f32:3, {0.5:3, 0.25:-4}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.5:1>>
    %s = stablehlo.bitcast_convert %c : (tensor<1x2x2x2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x2x2x2xi8>
    check.expect_eq_const %s, dense<[[[[4, 2], [0, 0]], [[2, 2], [-128, -64]]]]> : tensor<1x2x2x2xi8>
    func.return
  }
}
