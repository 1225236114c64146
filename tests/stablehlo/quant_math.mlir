// xlet-translate: --stablehlo-legalize-quant-to-math
// stablehlo-legalize-quant-to-math: quantized ops become integer and f32 arithmetic on their
// storage types, which the C++ emitter translates. The expected values were computed by hand from
// StableHLO's formulas (q = clamp(round_nearest_even(x / scale + zero_point)) to the storage range,
// x = (q - zero_point) * scale), the f32 roundings of the merged scales checked in Python:
// ties rounded to even (0.25 / 0.5 - 3 = -2.5 -> -2), saturation at the storage bounds (a
// storage range narrower than i8's, u8's [0, 255]), zero points at the bounds (127, 255, -128).
// A quantized value is read back as its integers with bitcast_convert (kept as an i8 -> i8 one).
module @quant_math {
  // f32 -> i8 (0.5, zero point -3): ties to even, both bounds
  func.func @quantize_i8() {
    %x = stablehlo.constant dense<[0.0, 0.25, 0.75, -0.25, 1.25, 100.0, -100.0, 63.0, -62.75, 65.25]> : tensor<10xf32>
    %q = stablehlo.uniform_quantize %x : (tensor<10xf32>) -> tensor<10x!quant.uniform<i8:f32, 0.5:-3>>
    %s = stablehlo.bitcast_convert %q : (tensor<10x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<10xi8>
    check.expect_eq_const %s, dense<[-3, -2, -2, -4, 0, 127, -128, 123, -128, 127]> : tensor<10xi8>
    func.return
  }
  // unsigned storage, its zero point at either bound; i8 with zero point 127; a storage range -127:127
  func.func @quantize_bounds() {
    %x = stablehlo.constant dense<[-1.0, 0.0, 1.0, 3.0, 5.0, 509.0, 511.0, 1000.0]> : tensor<8xf32>
    %q = stablehlo.uniform_quantize %x : (tensor<8xf32>) -> tensor<8x!quant.uniform<u8:f32, 2.0>>
    %s = stablehlo.bitcast_convert %q : (tensor<8x!quant.uniform<u8:f32, 2.0>>) -> tensor<8xui8>
    check.expect_eq_const %s, dense<[0, 0, 0, 2, 2, 254, 255, 255]> : tensor<8xui8>
    %y = stablehlo.constant dense<[0.0, -63.75, -64.0, -0.125, 1.0]> : tensor<5xf32>
    %qy = stablehlo.uniform_quantize %y : (tensor<5xf32>) -> tensor<5x!quant.uniform<ui8:f32, 0.25:255>>
    %sy = stablehlo.bitcast_convert %qy : (tensor<5x!quant.uniform<ui8:f32, 0.25:255>>) -> tensor<5xui8>
    check.expect_eq_const %sy, dense<[255, 0, 0, 254, 255]> : tensor<5xui8>
    %z = stablehlo.constant dense<[0.0, 1.0, -255.0, -255.5, -254.5, -10.5]> : tensor<6xf32>
    %qz = stablehlo.uniform_quantize %z : (tensor<6xf32>) -> tensor<6x!quant.uniform<i8:f32, 1.0:127>>
    %sz = stablehlo.bitcast_convert %qz : (tensor<6x!quant.uniform<i8:f32, 1.0:127>>) -> tensor<6xi8>
    check.expect_eq_const %sz, dense<[127, 127, -128, -128, -128, 116]> : tensor<6xi8>
    %w = stablehlo.constant dense<[-200.0, -127.5, 200.0, 0.5]> : tensor<4xf32>
    %qw = stablehlo.uniform_quantize %w : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8<-127:127>:f32, 1.0>>
    %sw = stablehlo.bitcast_convert %qw : (tensor<4x!quant.uniform<i8<-127:127>:f32, 1.0>>) -> tensor<4xi8>
    check.expect_eq_const %sw, dense<[-127, -127, 127, 0]> : tensor<4xi8>
    func.return
  }
  // (q - zero_point) * scale, signed and unsigned
  func.func @dequantize() {
    %s = stablehlo.constant dense<[-128, -3, 0, 127]> : tensor<4xi8>
    %q = stablehlo.bitcast_convert %s : (tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
    %x = stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<4xf32>
    check.expect_eq_const %x, dense<[-62.5, 0.0, 1.5, 65.0]> : tensor<4xf32>
    %u = stablehlo.constant dense<[0, 255, 200]> : tensor<3xui8>
    %qu = stablehlo.bitcast_convert %u : (tensor<3xui8>) -> tensor<3x!quant.uniform<u8:f32, 2.0:255>>
    %xu = stablehlo.uniform_dequantize %qu : (tensor<3x!quant.uniform<u8:f32, 2.0:255>>) -> tensor<3xf32>
    check.expect_eq_const %xu, dense<[-510.0, 0.0, -110.0]> : tensor<3xf32>
    func.return
  }
  // uniform_quantize of a quantized value: q * 2 - 7, saturated
  func.func @requantize() {
    %s = stablehlo.constant dense<[3, 10, 70, -128]> : tensor<4xi8>
    %q = stablehlo.bitcast_convert %s : (tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 1.0:3>>
    %r = stablehlo.uniform_quantize %q : (tensor<4x!quant.uniform<i8:f32, 1.0:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-1>>
    %t = stablehlo.bitcast_convert %r : (tensor<4x!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<4xi8>
    check.expect_eq_const %t, dense<[-1, 13, 127, -128]> : tensor<4xi8>
    func.return
  }
  // the seed's add (scales 1, 2 -> 3, zero points 0, 1 -> 2), called with quantized arguments
  func.func private @add(%arg0: tensor<7x!quant.uniform<i8:f32,1.0:0>>, %arg1: tensor<7x!quant.uniform<i8:f32,2.0:1>>) -> tensor<7x!quant.uniform<i8:f32,3.0:2>> {
    %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<7x!quant.uniform<i8:f32,1.0:0>>, tensor<7x!quant.uniform<i8:f32,2.0:1>>) -> tensor<7x!quant.uniform<i8:f32,3.0:2>>
    func.return %0 : tensor<7x!quant.uniform<i8:f32,3.0:2>>
  }
  func.func @add_seed() {
    %l = stablehlo.constant dense<[0, 3, 127, -128, 1, 4, -7]> : tensor<7xi8>
    %r = stablehlo.constant dense<[1, 4, 127, -128, 2, -1, 9]> : tensor<7xi8>
    %ql = stablehlo.bitcast_convert %l : (tensor<7xi8>) -> tensor<7x!quant.uniform<i8:f32,1.0:0>>
    %qr = stablehlo.bitcast_convert %r : (tensor<7xi8>) -> tensor<7x!quant.uniform<i8:f32,2.0:1>>
    %sum = func.call @add(%ql, %qr) : (tensor<7x!quant.uniform<i8:f32,1.0:0>>, tensor<7x!quant.uniform<i8:f32,2.0:1>>) -> tensor<7x!quant.uniform<i8:f32,3.0:2>>
    %s = stablehlo.bitcast_convert %sum : (tensor<7x!quant.uniform<i8:f32,3.0:2>>) -> tensor<7xi8>
    // 127 + 2 * 126 = 379 is 126.33 * 3: 128 saturates to 127
    check.expect_eq_const %s, dense<[2, 5, 127, -127, 3, 2, 5]> : tensor<7xi8>
    func.return
  }
  // add with each operand requantized to a zero point of -128: its ties to even, then the sum
  // saturating at -128
  func.func @add_ties() {
    %l = stablehlo.constant dense<[3, 5, -3, -5, 127, -128]> : tensor<6xi8>
    %r = stablehlo.constant dense<[1, 1, 1, 1, 127, -128]> : tensor<6xi8>
    %ql = stablehlo.bitcast_convert %l : (tensor<6xi8>) -> tensor<6x!quant.uniform<i8:f32, 0.5>>
    %qr = stablehlo.bitcast_convert %r : (tensor<6xi8>) -> tensor<6x!quant.uniform<i8:f32, 0.5>>
    %sum = stablehlo.add %ql, %qr : (tensor<6x!quant.uniform<i8:f32, 0.5>>, tensor<6x!quant.uniform<i8:f32, 0.5>>) -> tensor<6x!quant.uniform<i8:f32, 1.0:-128>>
    %s = stablehlo.bitcast_convert %sum : (tensor<6x!quant.uniform<i8:f32, 1.0:-128>>) -> tensor<6xi8>
    check.expect_eq_const %s, dense<[-126, -126, -128, -128, 0, -128]> : tensor<6xi8>
    func.return
  }
  // element-wise ops without a pattern of their own: dequantize, the f32 op, quantize
  func.func @elementwise() {
    %a = stablehlo.constant dense<[2, -4, 30, 127]> : tensor<4xi8>
    %b = stablehlo.constant dense<[3, 5, -30, 127]> : tensor<4xi8>
    %qa = stablehlo.bitcast_convert %a : (tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
    %qb = stablehlo.bitcast_convert %b : (tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
    %m = stablehlo.multiply %qa, %qb : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 1.0>>
    %sm = stablehlo.bitcast_convert %m : (tensor<4x!quant.uniform<i8:f32, 1.0>>) -> tensor<4xi8>
    check.expect_eq_const %sm, dense<[2, -5, -128, 127]> : tensor<4xi8>
    %c = stablehlo.constant dense<[-128, -3, 10, -4]> : tensor<4xi8>
    %qc = stablehlo.bitcast_convert %c : (tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
    %abs = stablehlo.abs %qc : tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
    %sa = stablehlo.bitcast_convert %abs : (tensor<4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<4xi8>
    check.expect_eq_const %sa, dense<[122, -3, 10, -2]> : tensor<4xi8>
    // max of one type: the integers' max; reshape and transpose move the integers
    %mx = stablehlo.maximum %qa, %qb : tensor<4x!quant.uniform<i8:f32, 0.5>>
    %rs = stablehlo.reshape %mx : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
    %tr = stablehlo.transpose %rs, dims = [1, 0] : (tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
    %st = stablehlo.bitcast_convert %tr : (tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2xi8>
    check.expect_eq_const %st, dense<[[3, 30], [5, 127]]> : tensor<2x2xi8>
    func.return
  }
  // per-axis (dimension 0: scales 0.5, 0.25, zero points 1, -2) quantize and dequantize
  func.func @per_axis() {
    %x = stablehlo.constant dense<[[1.0, -1.25, 70.0], [1.0, -1.25, 0.125]]> : tensor<2x3xf32>
    %q = stablehlo.uniform_quantize %x : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32:0, {0.5:1, 0.25:-2}>>
    %s = stablehlo.bitcast_convert %q : (tensor<2x3x!quant.uniform<i8:f32:0, {0.5:1, 0.25:-2}>>) -> tensor<2x3xi8>
    check.expect_eq_const %s, dense<[[3, -2, 127], [2, -7, -2]]> : tensor<2x3xi8>
    %c = stablehlo.constant dense<[[1, 0, -128], [1, 0, 127]]> : tensor<2x3xi8>
    %qc = stablehlo.bitcast_convert %c : (tensor<2x3xi8>) -> tensor<2x3x!quant.uniform<i8:f32:0, {0.5:1, 0.25:-2}>>
    %d = stablehlo.uniform_dequantize %qc : (tensor<2x3x!quant.uniform<i8:f32:0, {0.5:1, 0.25:-2}>>) -> tensor<2x3xf32>
    check.expect_eq_const %d, dense<[[0.0, -0.5, -64.5], [0.75, 0.5, 32.25]]> : tensor<2x3xf32>
    // requantized per axis along dimension 1: scales 1, 2 -> 0.5, 1 and zero points 0, 1 -> 0, -1
    %p = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
    %qp = stablehlo.bitcast_convert %p : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32:1, {1.0, 2.0:1}>>
    %rp = stablehlo.uniform_quantize %qp : (tensor<2x2x!quant.uniform<i8:f32:1, {1.0, 2.0:1}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 1.0:-1}>>
    %sp = stablehlo.bitcast_convert %rp : (tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 1.0:-1}>>) -> tensor<2x2xi8>
    check.expect_eq_const %sp, dense<[[2, 1], [6, 5]]> : tensor<2x2xi8>
    func.return
  }
  // dot_general of quantized operands: dot(l - 1, r - 2) exactly (combined scale 1, i32 storage:
  // acc + zero point); with a combined scale of 0.25, [[19, 22], [43, 50]] * 0.25 = [[4.75, 5.5],
  // [10.75, 12.5]] rounded half to even (upstream truncates: [[4, 5], [10, 12]])
  func.func @dot() {
    %l = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
    %r = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi8>
    %ql = stablehlo.bitcast_convert %l : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32, 1.0:1>>
    %qr = stablehlo.bitcast_convert %r : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32, 1.0:2>>
    %d = stablehlo.dot_general %ql, %qr, contracting_dims = [1] x [0] : (tensor<2x2x!quant.uniform<i8:f32, 1.0:1>>, tensor<2x2x!quant.uniform<i8:f32, 1.0:2>>) -> tensor<2x2x!quant.uniform<i32:f32, 1.0>>
    %s = stablehlo.bitcast_convert %d : (tensor<2x2x!quant.uniform<i32:f32, 1.0>>) -> tensor<2x2xi32>
    check.expect_eq_const %s, dense<[[5, 6], [21, 26]]> : tensor<2x2xi32>
    %hl = stablehlo.bitcast_convert %l : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
    %hr = stablehlo.bitcast_convert %r : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
    %e = stablehlo.dot_general %hl, %hr, contracting_dims = [1] x [0] : (tensor<2x2x!quant.uniform<i8:f32, 0.5>>, tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i32:f32, 1.0>>
    %se = stablehlo.bitcast_convert %e : (tensor<2x2x!quant.uniform<i32:f32, 1.0>>) -> tensor<2x2xi32>
    check.expect_eq_const %se, dense<[[5, 6], [11, 12]]> : tensor<2x2xi32>
    // hybrid: f32 lhs, quantized weights (0.5, zero point 1) dequantized: [1, 2] . [1, 2] = 5
    %x = stablehlo.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
    %w = stablehlo.constant dense<[[3], [5]]> : tensor<2x1xi8>
    %qw = stablehlo.bitcast_convert %w : (tensor<2x1xi8>) -> tensor<2x1x!quant.uniform<i8:f32, 0.5:1>>
    %h = stablehlo.dot_general %x, %qw, contracting_dims = [1] x [0] : (tensor<1x2xf32>, tensor<2x1x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x1xf32>
    check.expect_eq_const %h, dense<[[5.0]]> : tensor<1x1xf32>
    func.return
  }
  // convolution (NHWC) of a lhs with zero point 2, padded (low 1, high 0) with its zero point:
  // the real values [[0, 1, 2], [3, 4, 5], [6, 7, 8]] padded with 0s, correlated with [[1, 0], [0, 1]]
  func.func @convolution() {
    %l = stablehlo.constant dense<[[[[2], [3], [4]], [[5], [6], [7]], [[8], [9], [10]]]]> : tensor<1x3x3x1xi8>
    %k = stablehlo.constant dense<[[[[1]], [[0]]], [[[0]], [[1]]]]> : tensor<2x2x1x1xi8>
    %ql = stablehlo.bitcast_convert %l : (tensor<1x3x3x1xi8>) -> tensor<1x3x3x1x!quant.uniform<i8:f32, 1.0:2>>
    %qk = stablehlo.bitcast_convert %k : (tensor<2x2x1x1xi8>) -> tensor<2x2x1x1x!quant.uniform<i8:f32, 1.0>>
    %c = stablehlo.convolution(%ql, %qk) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 0], [1, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1x!quant.uniform<i8:f32, 1.0:2>>, tensor<2x2x1x1x!quant.uniform<i8:f32, 1.0>>) -> tensor<1x3x3x1x!quant.uniform<i32:f32, 1.0>>
    %s = stablehlo.bitcast_convert %c : (tensor<1x3x3x1x!quant.uniform<i32:f32, 1.0>>) -> tensor<1x3x3x1xi32>
    check.expect_eq_const %s, dense<[[[[0], [1], [2]], [[3], [4], [6]], [[6], [10], [12]]]]> : tensor<1x3x3x1xi32>
    func.return
  }
  // requantized to i8 (0.5 * 0.5 / 1, zero point 3): l + 1 = [[101, -99], [128, 128]] times r =
  // [[20000, 100], [0, 12800]], * 0.25 + 3 = [[5003, 28], [3, 3203]], saturated at 127
  func.func @dot_requantize() {
    %l = stablehlo.constant dense<[[100, -100], [127, 127]]> : tensor<2x2xi8>
    %r = stablehlo.constant dense<[[100, 50], [-100, 50]]> : tensor<2x2xi8>
    %ql = stablehlo.bitcast_convert %l : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5:-1>>
    %qr = stablehlo.bitcast_convert %r : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
    %d = stablehlo.dot_general %ql, %qr, contracting_dims = [1] x [0] : (tensor<2x2x!quant.uniform<i8:f32, 0.5:-1>>, tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i8:f32, 1.0:3>>
    %s = stablehlo.bitcast_convert %d : (tensor<2x2x!quant.uniform<i8:f32, 1.0:3>>) -> tensor<2x2xi8>
    check.expect_eq_const %s, dense<[[127, 28], [3, 127]]> : tensor<2x2xi8>
    func.return
  }
  // per-axis weights (scales 0.5, 0.25 along dimension 1): the sums [[7, -6], [15, -10]] times
  // [0.5, 0.25] = [[3.5, -1.5], [7.5, -2.5]] (ties to even); a per-axis i8 result {1.0:1, 0.5:-1}
  // (combined scales 0.5, 0.5): [[4.5, -4], [8.5, -6]]; a per-axis i32 result {0.5:10, 0.1:-10}
  // (combined scales 1, f32(0.25 / f32(0.1)) = 2.5): column 0 exact (+ 10), column 1 * 2.5 - 10
  func.func @dot_per_axis() {
    %l = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
    %l2 = stablehlo.constant dense<[[3, 4], [5, 6]]> : tensor<2x2xi8>
    %r = stablehlo.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi8>
    %ql = stablehlo.bitcast_convert %l : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32, 1.0>>
    %ql2 = stablehlo.bitcast_convert %l2 : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32, 1.0:2>>
    %qr = stablehlo.bitcast_convert %r : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
    %a = stablehlo.dot_general %ql, %qr, contracting_dims = [1] x [0] : (tensor<2x2x!quant.uniform<i8:f32, 1.0>>, tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i8:f32, 1.0>>
    %sa = stablehlo.bitcast_convert %a : (tensor<2x2x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x2xi8>
    check.expect_eq_const %sa, dense<[[4, -2], [8, -2]]> : tensor<2x2xi8>
    %b = stablehlo.dot_general %ql, %qr, contracting_dims = [1] x [0] : (tensor<2x2x!quant.uniform<i8:f32, 1.0>>, tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {1.0:1, 0.5:-1}>>
    %sb = stablehlo.bitcast_convert %b : (tensor<2x2x!quant.uniform<i8:f32:1, {1.0:1, 0.5:-1}>>) -> tensor<2x2xi8>
    check.expect_eq_const %sb, dense<[[4, -4], [8, -6]]> : tensor<2x2xi8>
    %c = stablehlo.dot_general %ql2, %qr, contracting_dims = [1] x [0] : (tensor<2x2x!quant.uniform<i8:f32, 1.0:2>>, tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i32:f32:1, {0.5:10, 0.1:-10}>>
    %sc = stablehlo.bitcast_convert %c : (tensor<2x2x!quant.uniform<i32:f32:1, {0.5:10, 0.1:-10}>>) -> tensor<2x2xi32>
    check.expect_eq_const %sc, dense<[[17, -25], [25, -35]]> : tensor<2x2xi32>
    func.return
  }
  // a per-axis kernel (NHWC, scales 0.5 and 0.25 on its two output features, no longer one ratio):
  // [1, 2, 3, 4] * 2 * 0.5 and * -3 * 0.25 = [-0.75, -1.5, -2.25, -3] rounded half to even
  func.func @convolution_per_axis() {
    %l = stablehlo.constant dense<[[[[1], [2]], [[3], [4]]]]> : tensor<1x2x2x1xi8>
    %k = stablehlo.constant dense<[[[[2, -3]]]]> : tensor<1x1x1x2xi8>
    %ql = stablehlo.bitcast_convert %l : (tensor<1x2x2x1xi8>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>>
    %qk = stablehlo.bitcast_convert %k : (tensor<1x1x1x2xi8>) -> tensor<1x1x1x2x!quant.uniform<i8:f32:3, {0.5, 0.25}>>
    %c = stablehlo.convolution(%ql, %qk) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>>, tensor<1x1x1x2x!quant.uniform<i8:f32:3, {0.5, 0.25}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 1.0>>
    %s = stablehlo.bitcast_convert %c : (tensor<1x2x2x2x!quant.uniform<i8:f32, 1.0>>) -> tensor<1x2x2x2xi8>
    check.expect_eq_const %s, dense<[[[[1, -1], [2, -2]], [[3, -2], [4, -3]]]]> : tensor<1x2x2x2xi8>
    func.return
  }
  // xlet's own quantized dot_general gives these integers for these operands (tests/quant/
  // quant_dot_test.cpp, "the module pass's cases"): the pass and the library agree bit for bit
  func.func @dot_library_bits() {
    %l = stablehlo.constant dense<[[-72, 68, -23, 118, 122, 118, -106], [53, -6, -123, 124, 31, -78, 74], [105, -54, 14, -110, 72, 66, -51], [33, -27, 45, -53, 10, 100, 94]]> : tensor<4x7xi8>
    %r = stablehlo.constant dense<[[-116, 85, -15, 81, 15], [-81, -35, -48, 49, -51], [108, -108, -121, -124, -97], [-94, -69, -109, 36, 111], [-68, 90, 119, 93, -90], [49, -116, 15, -8, -120], [46, 121, 97, 42, 46]]> : tensor<7x5xi8>
    %ql = stablehlo.bitcast_convert %l : (tensor<4x7xi8>) -> tensor<4x7x!quant.uniform<i8:f32, 0.05:-5>>
    %qr = stablehlo.bitcast_convert %r : (tensor<7x5xi8>) -> tensor<7x5x!quant.uniform<i8:f32:1, {0.01, 0.003, 0.02, 0.007, 0.05}>>
    %a = stablehlo.dot_general %ql, %qr, contracting_dims = [1] x [0] : (tensor<4x7x!quant.uniform<i8:f32, 0.05:-5>>, tensor<7x5x!quant.uniform<i8:f32:1, {0.01, 0.003, 0.02, 0.007, 0.05}>>) -> tensor<4x5x!quant.uniform<i8:f32:1, {0.1:3, 0.05:-7, 0.3, 0.02:100, 0.9:-128}>>
    %sa = stablehlo.bitcast_convert %a : (tensor<4x5x!quant.uniform<i8:f32:1, {0.1:3, 0.05:-7, 0.3, 0.02:100, 0.9:-128}>>) -> tensor<4x5xi8>
    check.expect_eq_const %sa, dense<[[-92, -97, -22, 127, -128], [-128, 83, 34, 127, -28], [-1, 21, 52, 127, -128], [83, 2, 42, 79, -128]]> : tensor<4x5xi8>
    %b = stablehlo.dot_general %ql, %qr, contracting_dims = [1] x [0] : (tensor<4x7x!quant.uniform<i8:f32, 0.05:-5>>, tensor<7x5x!quant.uniform<i8:f32:1, {0.01, 0.003, 0.02, 0.007, 0.05}>>) -> tensor<4x5x!quant.uniform<u8:f32, 0.25:128>>
    %sb = stablehlo.bitcast_convert %b : (tensor<4x5x!quant.uniform<u8:f32, 0.25:128>>) -> tensor<4x5xui8>
    check.expect_eq_const %sb, dense<[[90, 110, 102, 144, 0], [60, 146, 169, 172, 255], [127, 134, 190, 135, 0], [160, 130, 179, 126, 0]]> : tensor<4x5xui8>
    func.return
  }
}
