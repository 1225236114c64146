// xlet-translate also: --stablehlo-legalize-quant-to-math
// Quantized ops translated to xlet's quantized types and ops (issue #26): the runner stablehlo_quant_ops
// runs this module as it is (quant::uniform, uniform_quantize, add ... on the stored integers), and
// stablehlo_quant_ops_also runs it after --stablehlo-legalize-quant-to-math (integer and f32
// arithmetic on the storage types): the same checks hold on both paths, bit for bit. Every value
// here is one where the two agree: the library computes the spec's dequantize -> op -> quantize
// with one rounding; the pass requantizes each operand of an add with different scales to the
// result's first (rounding twice), so such adds differ on ties (quant_direct.mlir @add_scales) and
// are left out here. The expected values are computed by hand from the spec's formulas
// (q = clamp(round_nearest_even(x / scale + zero_point), storage_min, storage_max),
// x = (q - zero_point) * scale, each step in f32); results are read as their stored integers with
// bitcast_convert.
module @quant_ops {
  // f32 -> i8 (0.5, zero point -3): ties to even, saturation at both bounds, after the clamp
  func.func @quantize_i8() {
    %x = stablehlo.constant dense<[0.25, 0.75, -0.25, 1.25, -1.75, 100.0, -100.0, 65.0, 65.25, -62.5, -62.75]> : tensor<11xf32>
    %q = stablehlo.uniform_quantize %x : (tensor<11xf32>) -> tensor<11x!quant.uniform<i8:f32, 0.5:-3>>
    %s = stablehlo.bitcast_convert %q : (tensor<11x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<11xi8>
    check.expect_eq_const %s, dense<[-2, -2, -4, 0, -6, 127, -128, 127, 127, -128, -128]> : tensor<11xi8>
    // a storage range narrower than i8's
    %y = stablehlo.constant dense<[-200.0, -64.0, -63.5, 63.75, 0.25]> : tensor<5xf32>
    %r = stablehlo.uniform_quantize %y : (tensor<5xf32>) -> tensor<5x!quant.uniform<i8<-127:127>:f32, 0.5>>
    %sr = stablehlo.bitcast_convert %r : (tensor<5x!quant.uniform<i8<-127:127>:f32, 0.5>>) -> tensor<5xi8>
    check.expect_eq_const %sr, dense<[-127, -127, -127, 127, 0]> : tensor<5xi8>
    func.return
  }
  // unsigned and 16-bit storage: u8 (0.25, zero point 10), u16 (0.5, 32768), i16 (0.125, -300)
  func.func @quantize_storage_types() {
    %x = stablehlo.constant dense<[-2.5, -2.625, 0.0, 0.125, 0.375, 61.25, 61.375, 100.0]> : tensor<8xf32>
    %q = stablehlo.uniform_quantize %x : (tensor<8xf32>) -> tensor<8x!quant.uniform<u8:f32, 0.25:10>>
    %s = stablehlo.bitcast_convert %q : (tensor<8x!quant.uniform<u8:f32, 0.25:10>>) -> tensor<8xui8>
    check.expect_eq_const %s, dense<[0, 0, 10, 10, 12, 255, 255, 255]> : tensor<8xui8>
    %y = stablehlo.constant dense<[-16384.0, -16384.5, 0.25, 16383.5, 16384.0]> : tensor<5xf32>
    %u = stablehlo.uniform_quantize %y : (tensor<5xf32>) -> tensor<5x!quant.uniform<u16:f32, 0.5:32768>>
    %su = stablehlo.bitcast_convert %u : (tensor<5x!quant.uniform<u16:f32, 0.5:32768>>) -> tensor<5xui16>
    check.expect_eq_const %su, dense<[0, 0, 32768, 65535, 65535]> : tensor<5xui16>
    %z = stablehlo.constant dense<[4133.375, 4133.4375, -4058.5, -4058.5625, 0.0625]> : tensor<5xf32>
    %i = stablehlo.uniform_quantize %z : (tensor<5xf32>) -> tensor<5x!quant.uniform<i16:f32, 0.125:-300>>
    %si = stablehlo.bitcast_convert %i : (tensor<5x!quant.uniform<i16:f32, 0.125:-300>>) -> tensor<5xi16>
    check.expect_eq_const %si, dense<[32767, 32767, -32768, -32768, -300]> : tensor<5xi16>
    func.return
  }
  // (q - zero_point) * scale of quantized constants (their stored integers), i8, u8, i16, u16
  func.func @dequantize() {
    %q = "stablehlo.constant"() {value = dense<[-128, -3, 0, 127]> : tensor<4xi8>} : () -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
    %x = stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<4xf32>
    check.expect_eq_const %x, dense<[-62.5, 0.0, 1.5, 65.0]> : tensor<4xf32>
    %u = "stablehlo.constant"() {value = dense<[0, 255, 200]> : tensor<3xui8>} : () -> tensor<3x!quant.uniform<u8:f32, 2.0:255>>
    %xu = stablehlo.uniform_dequantize %u : (tensor<3x!quant.uniform<u8:f32, 2.0:255>>) -> tensor<3xf32>
    check.expect_eq_const %xu, dense<[-510.0, 0.0, -110.0]> : tensor<3xf32>
    %i = "stablehlo.constant"() {value = dense<[32767, -32768, -300, 1]> : tensor<4xi16>} : () -> tensor<4x!quant.uniform<i16:f32, 0.125:-300>>
    %xi = stablehlo.uniform_dequantize %i : (tensor<4x!quant.uniform<i16:f32, 0.125:-300>>) -> tensor<4xf32>
    check.expect_eq_const %xi, dense<[4133.375, -4058.5, 0.0, 37.625]> : tensor<4xf32>
    %w = "stablehlo.constant"() {value = dense<[0, 65535, 32769]> : tensor<3xui16>} : () -> tensor<3x!quant.uniform<u16:f32, 0.5:32768>>
    %xw = stablehlo.uniform_dequantize %w : (tensor<3x!quant.uniform<u16:f32, 0.5:32768>>) -> tensor<3xf32>
    check.expect_eq_const %xw, dense<[-16384.0, 16383.5, 0.5]> : tensor<3xf32>
    func.return
  }
  // uniform_quantize of quantized values: i8 (0.5, 2) -> u8 (0.25, 128) saturating at both bounds;
  // scale 1 -> 2, ties to even; StableHLO's interpreter example (per axis)
  func.func @requantize() {
    %a = "stablehlo.constant"() {value = dense<[2, 3, -128, 127, 66]> : tensor<5xi8>} : () -> tensor<5x!quant.uniform<i8:f32, 0.5:2>>
    %b = stablehlo.uniform_quantize %a : (tensor<5x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<5x!quant.uniform<u8:f32, 0.25:128>>
    %sb = stablehlo.bitcast_convert %b : (tensor<5x!quant.uniform<u8:f32, 0.25:128>>) -> tensor<5xui8>
    check.expect_eq_const %sb, dense<[128, 130, 0, 255, 255]> : tensor<5xui8>
    %c = "stablehlo.constant"() {value = dense<[1, 3, -1, -3, 5, 127, -128]> : tensor<7xi8>} : () -> tensor<7x!quant.uniform<i8:f32, 1.0>>
    %d = stablehlo.uniform_quantize %c : (tensor<7x!quant.uniform<i8:f32, 1.0>>) -> tensor<7x!quant.uniform<i8:f32, 2.0>>
    %sd = stablehlo.bitcast_convert %d : (tensor<7x!quant.uniform<i8:f32, 2.0>>) -> tensor<7xi8>
    check.expect_eq_const %sd, dense<[0, 2, 0, -2, 2, 64, -64]> : tensor<7xi8>
    %p = "stablehlo.constant"() {value = dense<[10, 10]> : tensor<2xi8>} : () -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>
    %r = stablehlo.uniform_quantize %p : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>) -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>
    %sr = stablehlo.bitcast_convert %r : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>) -> tensor<2xi8>
    check.expect_eq_const %sr, dense<[20, 45]> : tensor<2xi8>
    func.return
  }
  // element-wise ops of a (0.5: [2, -3, 1.5, 20]) and b (0.5: [1.5, 1.5, 1.5, 10])
  func.func @elementwise() {
    %a = "stablehlo.constant"() {value = dense<[4, -6, 3, 40]> : tensor<4xi8>} : () -> tensor<4x!quant.uniform<i8:f32, 0.5>>
    %b = "stablehlo.constant"() {value = dense<[3, 3, 3, 20]> : tensor<4xi8>} : () -> tensor<4x!quant.uniform<i8:f32, 0.5>>
    // add of one type: [3.5, -1.5, 3, 30]
    %add = stablehlo.add %a, %b : tensor<4x!quant.uniform<i8:f32, 0.5>>
    %s0 = stablehlo.bitcast_convert %add : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xi8>
    check.expect_eq_const %s0, dense<[7, -3, 6, 60]> : tensor<4xi8>
    // multiply to (1.0, zero point 1): [3, -4.5, 2.25, 200] + 1, ties to even, saturated
    %mul = stablehlo.multiply %a, %b : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:1>>
    %s1 = stablehlo.bitcast_convert %mul : (tensor<4x!quant.uniform<i8:f32, 1.0:1>>) -> tensor<4xi8>
    check.expect_eq_const %s1, dense<[4, -4, 3, 127]> : tensor<4xi8>
    // subtract to (0.25, zero point -10): [0.5, -4.5, 0, 10]
    %sub = stablehlo.subtract %a, %b : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.25:-10>>
    %s2 = stablehlo.bitcast_convert %sub : (tensor<4x!quant.uniform<i8:f32, 0.25:-10>>) -> tensor<4xi8>
    check.expect_eq_const %s2, dense<[-8, -28, -10, 30]> : tensor<4xi8>
    // divide to 0.125: [1.33333337 (f32), -2, 1, 2] / 0.125 = [10.666667 -> 11, -16, 8, 16]
    %div = stablehlo.divide %a, %b : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.125>>
    %s3 = stablehlo.bitcast_convert %div : (tensor<4x!quant.uniform<i8:f32, 0.125>>) -> tensor<4xi8>
    check.expect_eq_const %s3, dense<[11, -16, 8, 16]> : tensor<4xi8>
    // maximum, minimum and negate of one type: the stored integers'
    %max = stablehlo.maximum %a, %b : tensor<4x!quant.uniform<i8:f32, 0.5>>
    %s4 = stablehlo.bitcast_convert %max : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xi8>
    check.expect_eq_const %s4, dense<[4, 3, 3, 40]> : tensor<4xi8>
    %min = stablehlo.minimum %a, %b : tensor<4x!quant.uniform<i8:f32, 0.5>>
    %s5 = stablehlo.bitcast_convert %min : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xi8>
    check.expect_eq_const %s5, dense<[3, -6, 3, 20]> : tensor<4xi8>
    %neg = stablehlo.negate %a : tensor<4x!quant.uniform<i8:f32, 0.5>>
    %s6 = stablehlo.bitcast_convert %neg : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xi8>
    check.expect_eq_const %s6, dense<[-4, 6, -3, -40]> : tensor<4xi8>
    // add with a zero point of -3, saturating: [61.5, -48.5, 1.5] + [6.5, -13.5, 0] = [68, -62, 1.5]
    %p = "stablehlo.constant"() {value = dense<[120, -100, 0]> : tensor<3xi8>} : () -> tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    %r = "stablehlo.constant"() {value = dense<[10, -30, -3]> : tensor<3xi8>} : () -> tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    %pr = stablehlo.add %p, %r : tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    %s7 = stablehlo.bitcast_convert %pr : (tensor<3x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<3xi8>
    check.expect_eq_const %s7, dense<[127, -127, 0]> : tensor<3xi8>
    func.return
  }
  // compare (on the dequantized values, of two scales), select of one type, clamp by scalars
  func.func @select_compare_clamp() {
    %a = "stablehlo.constant"() {value = dense<[4, -6, 3, 40]> : tensor<4xi8>} : () -> tensor<4x!quant.uniform<i8:f32, 0.5>>
    %b = "stablehlo.constant"() {value = dense<[3, 3, 3, 20]> : tensor<4xi8>} : () -> tensor<4x!quant.uniform<i8:f32, 0.5>>
    // c: [2, -2.5, 1, 27.5] against a: [2, -3, 1.5, 20]
    %c = "stablehlo.constant"() {value = dense<[-2, -20, -6, 100]> : tensor<4xi8>} : () -> tensor<4x!quant.uniform<i8:f32, 0.25:-10>>
    %gt = stablehlo.compare GT, %a, %c, FLOAT : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4x!quant.uniform<i8:f32, 0.25:-10>>) -> tensor<4xi1>
    check.expect_eq_const %gt, dense<[false, false, true, false]> : tensor<4xi1>
    %ge = stablehlo.compare GE, %a, %c : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4x!quant.uniform<i8:f32, 0.25:-10>>) -> tensor<4xi1>
    check.expect_eq_const %ge, dense<[true, false, true, false]> : tensor<4xi1>
    %sel = stablehlo.select %ge, %a, %b : tensor<4xi1>, tensor<4x!quant.uniform<i8:f32, 0.5>>
    %s0 = stablehlo.bitcast_convert %sel : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xi8>
    check.expect_eq_const %s0, dense<[4, 3, 3, 20]> : tensor<4xi8>
    // clamp to [-1.0, 5.0]: [2, -1, 1.5, 5]
    %lo = "stablehlo.constant"() {value = dense<-2> : tensor<i8>} : () -> tensor<!quant.uniform<i8:f32, 0.5>>
    %hi = "stablehlo.constant"() {value = dense<10> : tensor<i8>} : () -> tensor<!quant.uniform<i8:f32, 0.5>>
    %cl = stablehlo.clamp %lo, %a, %hi : (tensor<!quant.uniform<i8:f32, 0.5>>, tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
    %s1 = stablehlo.bitcast_convert %cl : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xi8>
    check.expect_eq_const %s1, dense<[4, -2, 3, 10]> : tensor<4xi8>
    func.return
  }
  // per-axis types: quantize along dimension 1, dequantize along dimension 0, a transpose moving
  // the quantization dimension (1 -> 0), an add of one per-axis type
  func.func @per_axis() {
    %x = stablehlo.constant dense<[[1.0, -1.25, 70.0], [0.25, 0.125, -0.5]]> : tensor<2x3xf32>
    %q = stablehlo.uniform_quantize %x : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32:1, {0.5:1, 0.25:-2, 1.0}>>
    %s = stablehlo.bitcast_convert %q : (tensor<2x3x!quant.uniform<i8:f32:1, {0.5:1, 0.25:-2, 1.0}>>) -> tensor<2x3xi8>
    check.expect_eq_const %s, dense<[[3, -7, 70], [2, -2, 0]]> : tensor<2x3xi8>
    %t = stablehlo.transpose %q, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32:1, {0.5:1, 0.25:-2, 1.0}>>) -> tensor<3x2x!quant.uniform<i8:f32:0, {0.5:1, 0.25:-2, 1.0}>>
    %dt = stablehlo.uniform_dequantize %t : (tensor<3x2x!quant.uniform<i8:f32:0, {0.5:1, 0.25:-2, 1.0}>>) -> tensor<3x2xf32>
    check.expect_eq_const %dt, dense<[[1.0, 0.5], [-1.25, 0.0], [70.0, 0.0]]> : tensor<3x2xf32>
    %c = "stablehlo.constant"() {value = dense<[[3, -1, 127], [-2, 6, -128]]> : tensor<2x3xi8>} : () -> tensor<2x3x!quant.uniform<i8:f32:0, {0.5:1, 0.25:-2}>>
    %d = stablehlo.uniform_dequantize %c : (tensor<2x3x!quant.uniform<i8:f32:0, {0.5:1, 0.25:-2}>>) -> tensor<2x3xf32>
    check.expect_eq_const %d, dense<[[1.0, -1.0, 63.0], [0.0, 2.0, -31.5]]> : tensor<2x3xf32>
    // column 0: x + y; column 1 (zero point -1): x + y + 1
    %l = "stablehlo.constant"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>} : () -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25:-1}>>
    %r = "stablehlo.constant"() {value = dense<[[-1, 5], [7, -1]]> : tensor<2x2xi8>} : () -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25:-1}>>
    %sum = stablehlo.add %l, %r : tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25:-1}>>
    %ss = stablehlo.bitcast_convert %sum : (tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25:-1}>>) -> tensor<2x2xi8>
    check.expect_eq_const %ss, dense<[[0, 8], [10, 4]]> : tensor<2x2xi8>
    func.return
  }
  // data movement of the stored integers of m = [[1, 2, 3], [4, 5, 6]]
  func.func @layout() {
    %m = "stablehlo.constant"() {value = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>} : () -> tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
    %rs = stablehlo.reshape %m : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<3x2x!quant.uniform<i8:f32, 0.5:-3>>
    %s0 = stablehlo.bitcast_convert %rs : (tensor<3x2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<3x2xi8>
    check.expect_eq_const %s0, dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
    %tr = stablehlo.transpose %m, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<3x2x!quant.uniform<i8:f32, 0.5:-3>>
    %s1 = stablehlo.bitcast_convert %tr : (tensor<3x2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<3x2xi8>
    check.expect_eq_const %s1, dense<[[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi8>
    %sl = stablehlo.slice %m [0:2, 1:3] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5:-3>>
    %s2 = stablehlo.bitcast_convert %sl : (tensor<2x2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2x2xi8>
    check.expect_eq_const %s2, dense<[[2, 3], [5, 6]]> : tensor<2x2xi8>
    %cc = stablehlo.concatenate %m, %sl, dim = 1 : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2x5x!quant.uniform<i8:f32, 0.5:-3>>
    %s3 = stablehlo.bitcast_convert %cc : (tensor<2x5x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2x5xi8>
    check.expect_eq_const %s3, dense<[[1, 2, 3, 2, 3], [4, 5, 6, 5, 6]]> : tensor<2x5xi8>
    // padded with the zero point (a rank-0 quantized constant)
    %z = "stablehlo.constant"() {value = dense<-3> : tensor<i8>} : () -> tensor<!quant.uniform<i8:f32, 0.5:-3>>
    %pd = stablehlo.pad %m, %z, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<3x4x!quant.uniform<i8:f32, 0.5:-3>>
    %s4 = stablehlo.bitcast_convert %pd : (tensor<3x4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<3x4xi8>
    check.expect_eq_const %s4, dense<[[-3, 1, 2, 3], [-3, 4, 5, 6], [-3, -3, -3, -3]]> : tensor<3x4xi8>
    %v = "stablehlo.constant"() {value = dense<[7, 8, 9]> : tensor<3xi8>} : () -> tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    %bc = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<3x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
    %s5 = stablehlo.bitcast_convert %bc : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2x3xi8>
    check.expect_eq_const %s5, dense<[[7, 8, 9], [7, 8, 9]]> : tensor<2x3xi8>
    // start (1, 5) clamped to (1, 1)
    %i1 = stablehlo.constant dense<1> : tensor<i32>
    %i5 = stablehlo.constant dense<5> : tensor<i32>
    %ds = stablehlo.dynamic_slice %m, %i1, %i5, sizes = [1, 2] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<i32>, tensor<i32>) -> tensor<1x2x!quant.uniform<i8:f32, 0.5:-3>>
    %s6 = stablehlo.bitcast_convert %ds : (tensor<1x2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x2xi8>
    check.expect_eq_const %s6, dense<[[5, 6]]> : tensor<1x2xi8>
    %idx = stablehlo.constant dense<[[1], [0]]> : tensor<2x1xi32>
    %g = "stablehlo.gather"(%m, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>} : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x1xi32>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
    %s7 = stablehlo.bitcast_convert %g : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2x3xi8>
    check.expect_eq_const %s7, dense<[[4, 5, 6], [1, 2, 3]]> : tensor<2x3xi8>
    func.return
  }
  // quantized arguments and results through func.call
  func.func private @requantize_to_quarter(%q: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.25>> {
    %r = stablehlo.uniform_quantize %q : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.25>>
    func.return %r : tensor<4x!quant.uniform<i8:f32, 0.25>>
  }
  func.func private @sum_and_real(%q: tensor<4x!quant.uniform<i8:f32, 0.5>>, %p: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4xf32>) {
    %s = stablehlo.add %q, %p : tensor<4x!quant.uniform<i8:f32, 0.5>>
    %x = stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xf32>
    func.return %s, %x : tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4xf32>
  }
  func.func @calls() {
    %a = "stablehlo.constant"() {value = dense<[4, -6, 3, 40]> : tensor<4xi8>} : () -> tensor<4x!quant.uniform<i8:f32, 0.5>>
    %b = "stablehlo.constant"() {value = dense<3> : tensor<4xi8>} : () -> tensor<4x!quant.uniform<i8:f32, 0.5>>
    %r = func.call @requantize_to_quarter(%a) : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.25>>
    %sr = stablehlo.bitcast_convert %r : (tensor<4x!quant.uniform<i8:f32, 0.25>>) -> tensor<4xi8>
    check.expect_eq_const %sr, dense<[8, -12, 6, 80]> : tensor<4xi8>
    %s:2 = func.call @sum_and_real(%a, %b) : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4x!quant.uniform<i8:f32, 0.5>>) -> (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4xf32>)
    %ss = stablehlo.bitcast_convert %s#0 : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xi8>
    check.expect_eq_const %ss, dense<[7, -3, 6, 43]> : tensor<4xi8>
    check.expect_eq_const %s#1, dense<[2.0, -3.0, 1.5, 20.0]> : tensor<4xf32>
    func.return
  }
}
