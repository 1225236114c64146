// xlet-translate also: --stablehlo-legalize-quant-to-math
// dot_general, dot and convolution on quantized operands translated to xlet's quantized
// dot_general / conv_general_dilated (quant/dot.hpp, quant/conv.hpp; issue #26): the runner
// stablehlo_quant_dot runs the module as it is, stablehlo_quant_dot_also after
// --stablehlo-legalize-quant-to-math (the i32 sums and the requantization as integer and f32 ops),
// with the same checks: the pass requantizes as the library does, bit for bit. The expected stored
// integers are computed by tests/stablehlo/quant_dot_ref.py from the spec's formula on exact real
// values (dequantize, sum, quantize with round-half-to-even and clamping) and from xlet's (the exact
// int32 sum times the f32 combined scale M = f32(sa * sb / sr), + zero point, clamped, rounded half
// to even; M = 1 into i32: sum + zero point exactly), which agree on every case here; each case
// has ties, saturation or nonzero zero points. Results are read as their stored integers with
// bitcast_convert.
module @quant_dot {
  // batch dimensions, s8 (0.5, -3) x s8 (0.25) -> s8 (0.5, 5): M = 0.25, so [[28, -16], [780,
  // -260]] and [[-39625, 6125], [374, -202]] give 12, 1, 127 (saturated), -60, -128, 127, and the
  // ties 93.5 + 5 -> 98, -50.5 + 5 -> -46
  func.func @dot_general_batch() {
    %l = stablehlo.constant dense<[[[-3, 1, 5], [127, 127, 127]], [[-128, -128, -128], [0, -1, -5]]]> : tensor<2x2x3xi8>
    %r = stablehlo.constant dense<[[[1, 2], [3, -4], [2, 0]], [[100, -100], [127, 50], [90, 1]]]> : tensor<2x3x2xi8>
    %ql = stablehlo.bitcast_convert %l : (tensor<2x2x3xi8>) -> tensor<2x2x3x!quant.uniform<i8:f32, 0.5:-3>>
    %qr = stablehlo.bitcast_convert %r : (tensor<2x3x2xi8>) -> tensor<2x3x2x!quant.uniform<i8:f32, 0.25>>
    %d = stablehlo.dot_general %ql, %qr, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x2x3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x3x2x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x2x2x!quant.uniform<i8:f32, 0.5:5>>
    %s = stablehlo.bitcast_convert %d : (tensor<2x2x2x!quant.uniform<i8:f32, 0.5:5>>) -> tensor<2x2x2xi8>
    check.expect_eq_const %s, dense<[[[12, 1], [127, -60]], [[-128, 127], [98, -46]]]> : tensor<2x2x2xi8>
    func.return
  }
  // per-axis weights {0.25, 0.125} along dimension 1 into a per-axis i32 result {0.125, 0.125:100}:
  // column 0 has M = 1 (the sum, exactly), column 1 M = 0.5 (22 -> 111, 245 -> 222.5 -> 222)
  func.func @dot_per_axis_i32() {
    %l = stablehlo.constant dense<[[3, 4, 5], [-128, 127, 2]]> : tensor<2x3xi8>
    %r = stablehlo.constant dense<[[1, 1], [2, 3], [-1, 5]]> : tensor<3x2xi8>
    %ql = stablehlo.bitcast_convert %l : (tensor<2x3xi8>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5:2>>
    %qr = stablehlo.bitcast_convert %r : (tensor<3x2xi8>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.25, 0.125}>>
    %d = stablehlo.dot_general %ql, %qr, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:2>>, tensor<3x2x!quant.uniform<i8:f32:1, {0.25, 0.125}>>) -> tensor<2x2x!quant.uniform<i32:f32:1, {0.125, 0.125:100}>>
    %s = stablehlo.bitcast_convert %d : (tensor<2x2x!quant.uniform<i32:f32:1, {0.125, 0.125:100}>>) -> tensor<2x2xi32>
    check.expect_eq_const %s, dense<[[2, 111], [120, 222]]> : tensor<2x2xi32>
    func.return
  }
  // rhs quantized along its batch dimension {0.5, 0.25}, the result along result dimension 0
  // {1.0:-1, 0.25:2}: batch 0 with M = 0.5, batch 1 with M = 1
  func.func @dot_per_axis_batch() {
    %l = stablehlo.constant dense<[[[1, 2], [3, 4]], [[-5, 6], [7, -8]]]> : tensor<2x2x2xi8>
    %r = stablehlo.constant dense<[[[3], [-2]], [[10], [20]]]> : tensor<2x2x1xi8>
    %ql = stablehlo.bitcast_convert %l : (tensor<2x2x2xi8>) -> tensor<2x2x2x!quant.uniform<i8:f32, 1.0:1>>
    %qr = stablehlo.bitcast_convert %r : (tensor<2x2x1xi8>) -> tensor<2x2x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
    %d = stablehlo.dot_general %ql, %qr, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x2x2x!quant.uniform<i8:f32, 1.0:1>>, tensor<2x2x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x2x1x!quant.uniform<i8:f32:0, {1.0:-1, 0.25:2}>>
    %s = stablehlo.bitcast_convert %d : (tensor<2x2x1x!quant.uniform<i8:f32:0, {1.0:-1, 0.25:2}>>) -> tensor<2x2x1xi8>
    check.expect_eq_const %s, dense<[[[-2], [-1]], [[42], [-118]]]> : tensor<2x2x1xi8>
    func.return
  }
  // stablehlo.dot of u8 (0.5, 128) x u8 (0.5) -> u8 (1.0, 10): M = 0.25; 510 -> 137.5 -> 138 (a
  // tie), -507 saturates at 0
  func.func @dot_u8() {
    %l = stablehlo.constant dense<[[128, 130, 255], [0, 129, 127]]> : tensor<2x3xui8>
    %r = stablehlo.constant dense<[[4, 2], [6, 255], [1, 0]]> : tensor<3x2xui8>
    %ql = stablehlo.bitcast_convert %l : (tensor<2x3xui8>) -> tensor<2x3x!quant.uniform<u8:f32, 0.5:128>>
    %qr = stablehlo.bitcast_convert %r : (tensor<3x2xui8>) -> tensor<3x2x!quant.uniform<u8:f32, 0.5>>
    %d = stablehlo.dot %ql, %qr : (tensor<2x3x!quant.uniform<u8:f32, 0.5:128>>, tensor<3x2x!quant.uniform<u8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<u8:f32, 1.0:10>>
    %s = stablehlo.bitcast_convert %d : (tensor<2x2x!quant.uniform<u8:f32, 1.0:10>>) -> tensor<2x2xui8>
    check.expect_eq_const %s, dense<[[45, 138], [0, 10]]> : tensor<2x2xui8>
    func.return
  }
  // hybrid: an f32 lhs times s8 weights per axis {0.5, 0.25}, an f32 result (exact here)
  func.func @hybrid_dot() {
    %x = stablehlo.constant dense<[[1.0, -2.0, 0.5], [0.25, 4.0, -1.0]]> : tensor<2x3xf32>
    %w = stablehlo.constant dense<[[2, -4], [6, 8], [-10, 3]]> : tensor<3x2xi8>
    %qw = stablehlo.bitcast_convert %w : (tensor<3x2xi8>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
    %d = stablehlo.dot_general %x, %qw, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2x2xf32>
    check.expect_eq_const %d, dense<[[-7.5, -4.625], [17.25, 7.0]]> : tensor<2x2xf32>
    func.return
  }
  // NHWC convolution of an s8 image (0.5, zero point 3) padded low by 1 (with its zero point) and
  // a 2x2 kernel of two output features (0.25) into s8 (0.25, -2): M = 0.5; ties (5 -> 0.5, 1 ->
  // -1.5, 3 -> -0.5, 15 -> 5.5, -119 -> -61.5, -5 -> -4.5, -7 -> -5.5) and saturation at both bounds
  func.func @conv_nhwc_pad() {
    %x = stablehlo.constant dense<[[[[3, 5], [1, 7], [127, -128]], [[4, 4], [3, 3], [10, -9]], [[-100, 60], [8, 2], [3, 3]]]]> : tensor<1x3x3x2xi8>
    %k = stablehlo.constant dense<[[[[1, 2], [0, -1]], [[3, 0], [1, 1]]], [[[-2, 1], [4, 0]], [[1, -3], [2, 2]]]]> : tensor<2x2x2x2xi8>
    %qx = stablehlo.bitcast_convert %x : (tensor<1x3x3x2xi8>) -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:3>>
    %qk = stablehlo.bitcast_convert %k : (tensor<2x2x2x2xi8>) -> tensor<2x2x2x2x!quant.uniform<i8:f32, 0.25>>
    %c = stablehlo.convolution(%qx, %qk) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 0], [1, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:3>>, tensor<2x2x2x2x!quant.uniform<i8:f32, 0.25>>) -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:-2>>
    %s = stablehlo.bitcast_convert %c : (tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:-2>>) -> tensor<1x3x3x2xi8>
    check.expect_eq_const %s, dense<[[[[0, 0], [5, 5], [-61, -128]], [[0, -2], [-2, 0], [109, -94]], [[6, 127], [127, -62], [-4, -6]]]]> : tensor<1x3x3x2xi8>
    func.return
  }
  // two feature groups (features 0-1 and 2-3 of the image, output features 0-1 and 2-3), a
  // per-axis kernel {0.5, 0.25, 1.0, 0.5} and result {1.0, 0.5:1, 2.0:-3, 0.25} along the output
  // features, the image's zero point -1, padding high 1 on the second spatial dimension
  func.func @conv_grouped() {
    %x = stablehlo.constant dense<[[[[0, 1, 2, 3], [-1, -2, 4, 5], [6, -7, 8, 9]], [[10, 11, -12, 13], [14, 15, 16, -17], [-1, -1, -1, -1]]]]> : tensor<1x2x3x4xi8>
    %k = stablehlo.constant dense<[[[[1, -1, 2, 0], [2, 3, -1, 1]], [[0, 1, 1, -2], [-3, 2, 0, 4]]]]> : tensor<1x2x2x4xi8>
    %qx = stablehlo.bitcast_convert %x : (tensor<1x2x3x4xi8>) -> tensor<1x2x3x4x!quant.uniform<i8:f32, 1.0:-1>>
    %qk = stablehlo.bitcast_convert %k : (tensor<1x2x2x4xi8>) -> tensor<1x2x2x4x!quant.uniform<i8:f32:3, {0.5, 0.25, 1.0, 0.5}>>
    %c = stablehlo.convolution(%qx, %qk) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x2x3x4x!quant.uniform<i8:f32, 1.0:-1>>, tensor<1x2x2x4x!quant.uniform<i8:f32:3, {0.5, 0.25, 1.0, 0.5}>>) -> tensor<1x2x3x4x!quant.uniform<i8:f32:3, {1.0, 0.5:1, 2.0:-3, 0.25}>>
    %s = stablehlo.bitcast_convert %c : (tensor<1x2x3x4x!quant.uniform<i8:f32:3, {1.0, 0.5:1, 2.0:-3, 0.25}>>) -> tensor<1x2x3x4xi8>
    check.expect_eq_const %s, dense<[[[[4, 2, 0, 36], [8, -3, 4, 56], [-2, -12, 1, 20]], [[-6, 37, -12, -128], [24, 18, 22, -32], [0, 1, -3, 0]]]]> : tensor<1x2x3x4xi8>
    func.return
  }
  // hybrid convolution: an f32 image, s8 kernel per axis {0.5, 0.25}, padding high 1 (exact here)
  func.func @hybrid_conv() {
    %x = stablehlo.constant dense<[[[[1.0], [2.0]], [[-0.5], [4.0]]]]> : tensor<1x2x2x1xf32>
    %k = stablehlo.constant dense<[[[[2, 4]], [[-6, 1]]], [[[8, -2]], [[1, 3]]]]> : tensor<2x2x1x2xi8>
    %qk = stablehlo.bitcast_convert %k : (tensor<2x2x1x2xi8>) -> tensor<2x2x1x2x!quant.uniform<i8:f32:3, {0.5, 0.25}>>
    %c = stablehlo.convolution(%x, %qk) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x2x1xf32>, tensor<2x2x1x2x!quant.uniform<i8:f32:3, {0.5, 0.25}>>) -> tensor<1x2x2x2xf32>
    check.expect_eq_const %c, dense<[[[[-5.0, 4.75], [18.0, 0.0]], [[-12.5, 0.5], [4.0, 4.0]]]]> : tensor<1x2x2x2xf32>
    func.return
  }
}
