// Element-wise ops of StableHLO with hand-checked answers (pretty form). Each function runs its
// check.* assertions when translated with `xlet-translate --emit runner`.
module @elementwise {
  func.func @rounding_and_sign() {
    %x = stablehlo.constant dense<[-2.5, -0.0, 0.5, 2.5]> : tensor<4xf32>
    %abs = stablehlo.abs %x : tensor<4xf32>
    check.expect_eq_const %abs, dense<[2.5, 0.0, 0.5, 2.5]> : tensor<4xf32>
    %ceil = stablehlo.ceil %x : tensor<4xf32>
    check.expect_eq_const %ceil, dense<[-2.0, -0.0, 1.0, 3.0]> : tensor<4xf32>
    %floor = stablehlo.floor %x : tensor<4xf32>
    check.expect_eq_const %floor, dense<[-3.0, -0.0, 0.0, 2.0]> : tensor<4xf32>
    %even = stablehlo.round_nearest_even %x : tensor<4xf32>
    check.expect_eq_const %even, dense<[-2.0, -0.0, 0.0, 2.0]> : tensor<4xf32>
    %afz = stablehlo.round_nearest_afz %x : tensor<4xf32>
    check.expect_eq_const %afz, dense<[-3.0, -0.0, 1.0, 3.0]> : tensor<4xf32>
    %neg = stablehlo.negate %x : tensor<4xf32>
    check.expect_eq_const %neg, dense<[2.5, 0.0, -0.5, -2.5]> : tensor<4xf32>
    %sign = stablehlo.sign %x : tensor<4xf32>
    check.expect_eq_const %sign, dense<[-1.0, -0.0, 1.0, 1.0]> : tensor<4xf32>
    func.return
  }
  func.func @transcendentals() {
    %x = stablehlo.constant dense<[0.0, 1.0, 4.0, 0.25]> : tensor<4xf32>
    %sqrt = stablehlo.sqrt %x : tensor<4xf32>
    check.expect_eq_const %sqrt, dense<[0.0, 1.0, 2.0, 0.5]> : tensor<4xf32>
    %exp = stablehlo.exponential %x : tensor<4xf32>
    check.expect_almost_eq_const %exp, dense<[1.0, 2.71828175, 54.5981483, 1.28402543]> : tensor<4xf32>, tolerance = 1.0e-5
    %log = stablehlo.log %x : tensor<4xf32>
    check.expect_almost_eq_const %log, dense<[0xFF800000, 0.0, 1.38629436, -1.38629436]> : tensor<4xf32>
    %t = stablehlo.tanh %x : tensor<4xf32>
    check.expect_almost_eq_const %t, dense<[0.0, 0.761594176, 0.999329329, 0.244918659]> : tensor<4xf32>
    %l = stablehlo.logistic %x : tensor<4xf32>
    check.expect_almost_eq_const %l, dense<[0.5, 0.731058598, 0.982013762, 0.562176526]> : tensor<4xf32>
    %r = stablehlo.rsqrt %x : tensor<4xf32>
    check.expect_eq_const %r, dense<[0x7F800000, 1.0, 0.5, 2.0]> : tensor<4xf32>
    %e = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
    check.expect_almost_eq_const %e, dense<[0.0, 0.842700779, 1.0, 0.276326394]> : tensor<4xf32>
    %p = stablehlo.power %x, %x : tensor<4xf32>
    check.expect_almost_eq_const %p, dense<[1.0, 1.0, 256.0, 0.707106769]> : tensor<4xf32>
    %one = stablehlo.constant dense<1.0> : tensor<4xf32>
    %c = stablehlo.cosine %x : tensor<4xf32>
    %s = stablehlo.sine %x : tensor<4xf32>
    %cc = stablehlo.multiply %c, %c : tensor<4xf32>
    %ss = stablehlo.multiply %s, %s : tensor<4xf32>
    %sum = stablehlo.add %cc, %ss : tensor<4xf32>
    check.expect_close %sum, %one, max_ulp_difference = 2 : tensor<4xf32>, tensor<4xf32>
    func.return
  }
  func.func @integer_arithmetic() {
    %a = stablehlo.constant dense<[7, -7, 7, -7]> : tensor<4xi32>
    %b = stablehlo.constant dense<[2, 2, -2, -2]> : tensor<4xi32>
    %q = stablehlo.divide %a, %b : tensor<4xi32>
    check.expect_eq_const %q, dense<[3, -3, -3, 3]> : tensor<4xi32>
    %r = stablehlo.remainder %a, %b : tensor<4xi32>
    check.expect_eq_const %r, dense<[1, -1, 1, -1]> : tensor<4xi32>
    %mx = stablehlo.maximum %a, %b : tensor<4xi32>
    check.expect_eq_const %mx, dense<[7, 2, 7, -2]> : tensor<4xi32>
    %mn = stablehlo.minimum %a, %b : tensor<4xi32>
    check.expect_eq_const %mn, dense<[2, -7, -2, -7]> : tensor<4xi32>
    %ones = stablehlo.constant dense<1> : tensor<3xi32>
    %amounts = stablehlo.constant dense<[3, 31, 32]> : tensor<3xi32>
    %shl = stablehlo.shift_left %ones, %amounts : tensor<3xi32>
    check.expect_eq_const %shl, dense<[8, -2147483648, 0]> : tensor<3xi32>
    %m8 = stablehlo.constant dense<[-8, -8, 16]> : tensor<3xi32>
    %sh = stablehlo.constant dense<[1, 40, 2]> : tensor<3xi32>
    %sra = stablehlo.shift_right_arithmetic %m8, %sh : tensor<3xi32>
    check.expect_eq_const %sra, dense<[-4, -1, 4]> : tensor<3xi32>
    %bits = stablehlo.constant dense<[0, 7, -1]> : tensor<3xi32>
    %pc = stablehlo.popcnt %bits : tensor<3xi32>
    check.expect_eq_const %pc, dense<[0, 3, 32]> : tensor<3xi32>
    %clz = stablehlo.count_leading_zeros %bits : tensor<3xi32>
    check.expect_eq_const %clz, dense<[32, 29, 0]> : tensor<3xi32>
    %u = stablehlo.constant dense<[4294967295, 8]> : tensor<2xui32>
    %one_u = stablehlo.constant dense<1> : tensor<2xui32>
    %srl = stablehlo.shift_right_logical %u, %one_u : tensor<2xui32>
    check.expect_eq_const %srl, dense<[2147483647, 4]> : tensor<2xui32>
    %wrap = stablehlo.add %u, %one_u : tensor<2xui32>
    check.expect_eq_const %wrap, dense<[0, 9]> : tensor<2xui32>
    func.return
  }
  func.func @logic_and_compare() {
    %p = stablehlo.constant dense<[true, true, false, false]> : tensor<4xi1>
    %q = stablehlo.constant dense<[true, false, true, false]> : tensor<4xi1>
    %and = stablehlo.and %p, %q : tensor<4xi1>
    check.expect_eq_const %and, dense<[true, false, false, false]> : tensor<4xi1>
    %or = stablehlo.or %p, %q : tensor<4xi1>
    check.expect_eq_const %or, dense<[true, true, true, false]> : tensor<4xi1>
    %xor = stablehlo.xor %p, %q : tensor<4xi1>
    check.expect_eq_const %xor, dense<[false, true, true, false]> : tensor<4xi1>
    %not = stablehlo.not %p : tensor<4xi1>
    check.expect_eq_const %not, dense<[false, false, true, true]> : tensor<4xi1>
    %i = stablehlo.constant dense<[12, -1]> : tensor<2xi8>
    %j = stablehlo.constant dense<[10, 85]> : tensor<2xi8>
    %iand = stablehlo.and %i, %j : tensor<2xi8>
    check.expect_eq_const %iand, dense<[8, 85]> : tensor<2xi8>
    %inot = stablehlo.not %i : tensor<2xi8>
    check.expect_eq_const %inot, dense<[-13, 0]> : tensor<2xi8>
    %x = stablehlo.constant dense<[-0.0, 0x7FC00000, 1.0, 2.0]> : tensor<4xf32>
    %y = stablehlo.constant dense<[0.0, 0x7FC00000, 2.0, 2.0]> : tensor<4xf32>
    %lt = stablehlo.compare LT, %x, %y, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    check.expect_eq_const %lt, dense<[false, false, true, false]> : tensor<4xi1>
    %tlt = stablehlo.compare LT, %x, %y, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    check.expect_eq_const %tlt, dense<[true, false, true, false]> : tensor<4xi1>
    %teq = stablehlo.compare EQ, %x, %y, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    check.expect_eq_const %teq, dense<[false, true, false, true]> : tensor<4xi1>
    %ne = stablehlo.compare NE, %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    check.expect_eq_const %ne, dense<[false, true, true, false]> : tensor<4xi1>
    %sel = stablehlo.select %lt, %x, %y : tensor<4xi1>, tensor<4xf32>
    check.expect_eq_const %sel, dense<[0.0, 0x7FC00000, 1.0, 2.0]> : tensor<4xf32>
    %t = stablehlo.constant dense<true> : tensor<i1>
    %sel2 = stablehlo.select %t, %x, %y : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    check.expect_eq_const %sel2, dense<[-0.0, 0x7FC00000, 1.0, 2.0]> : tensor<4xf32>
    %lo = stablehlo.constant dense<0.5> : tensor<f32>
    %hi = stablehlo.constant dense<1.5> : tensor<f32>
    %z = stablehlo.constant dense<[0.0, 1.0, 2.0]> : tensor<3xf32>
    %cl = stablehlo.clamp %lo, %z, %hi : (tensor<f32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    check.expect_eq_const %cl, dense<[0.5, 1.0, 1.5]> : tensor<3xf32>
    func.return
  }
  func.func @conversions() {
    %x = stablehlo.constant dense<[-2.5, 2.75, 1.0, 0.0]> : tensor<4xf32>
    %i = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xi32>
    check.expect_eq_const %i, dense<[-2, 2, 1, 0]> : tensor<4xi32>
    %p = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xi1>
    check.expect_eq_const %p, dense<[true, true, true, false]> : tensor<4xi1>
    %b = stablehlo.constant dense<[1.0, 1.00390625, 1.01171875, 3.0e+38]> : tensor<4xf32>
    %bf = stablehlo.convert %b : (tensor<4xf32>) -> tensor<4xbf16>
    check.expect_eq_const %bf, dense<[1.0, 1.0, 1.015625, 0x7F62]> : tensor<4xbf16>
    %h = stablehlo.convert %b : (tensor<4xf32>) -> tensor<4xf16>
    check.expect_eq_const %h, dense<[1.0, 1.00390625, 1.01171875, 0x7C00]> : tensor<4xf16>
    %bits = stablehlo.bitcast_convert %x : (tensor<4xf32>) -> tensor<4xi32>
    check.expect_eq_const %bits, dense<[-1071644672, 1076887552, 1065353216, 0]> : tensor<4xi32>
    %r = stablehlo.constant dense<[1.00048828125, 1.00146484375]> : tensor<2xf32>
    %rp = stablehlo.reduce_precision %r, format = e5m10 : tensor<2xf32>
    check.expect_eq_const %rp, dense<[1.0, 1.001953125]> : tensor<2xf32>
    // StableHLO: no mantissa bits left, a NaN becomes an infinity of its sign (xlet's op keeps NaN)
    %nan = stablehlo.constant dense<[0x7FC00000, 0xFFC00001, 4.0, 0xFF800000]> : tensor<4xf32>
    %rp0 = stablehlo.reduce_precision %nan, format = e5m0 : tensor<4xf32>
    check.expect_eq_const %rp0, dense<[0x7F800000, 0xFF800000, 4.0, 0xFF800000]> : tensor<4xf32>
    %re = stablehlo.constant dense<[3.0, 1.0]> : tensor<2xf32>
    %im = stablehlo.constant dense<[4.0, -1.0]> : tensor<2xf32>
    %z = stablehlo.complex %re, %im : tensor<2xcomplex<f32>>
    %za = stablehlo.abs %z : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
    check.expect_almost_eq_const %za, dense<[5.0, 1.41421354]> : tensor<2xf32>
    %zr = stablehlo.real %z : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
    check.expect_eq_const %zr, dense<[3.0, 1.0]> : tensor<2xf32>
    %zi = stablehlo.imag %z : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
    check.expect_eq_const %zi, dense<[4.0, -1.0]> : tensor<2xf32>
    %w = stablehlo.constant dense<[(3.0, 5.0), (0.5, 9.0)]> : tensor<2xcomplex<f32>>
    %zmax = stablehlo.maximum %z, %w : tensor<2xcomplex<f32>>
    check.expect_eq_const %zmax, dense<[(3.0, 5.0), (1.0, -1.0)]> : tensor<2xcomplex<f32>>
    %zmin = stablehlo.minimum %z, %w : tensor<2xcomplex<f32>>
    check.expect_eq_const %zmin, dense<[(3.0, 4.0), (0.5, 9.0)]> : tensor<2xcomplex<f32>>
    %zz = stablehlo.multiply %z, %z : tensor<2xcomplex<f32>>
    check.expect_eq_const %zz, dense<[(-7.0, 24.0), (0.0, -2.0)]> : tensor<2xcomplex<f32>>
    func.return
  }
  // Where StableHLO defines more than XLA's op, spelled out by the emitter: the bits of an i1
  // tensor (element k of the last dimension is bit k, least significant first), complex to i1
  // (the imaginary part ignored), complex cbrt (|z|^(1/3) cis(arg z / 3)).
  func.func @stablehlo_only() {
    %b = stablehlo.constant dense<[[true, false, true, true, false, false, false, true], [false, false, false, false, false, false, false, true]]> : tensor<2x8xi1>
    %w = stablehlo.bitcast_convert %b : (tensor<2x8xi1>) -> tensor<2xi8>
    check.expect_eq_const %w, dense<[-115, -128]> : tensor<2xi8>
    %h = stablehlo.constant dense<1.0> : tensor<f16>
    %hb = stablehlo.bitcast_convert %h : (tensor<f16>) -> tensor<16xi1>
    check.expect_eq_const %hb, dense<[false, false, false, false, false, false, false, false, false, false, true, true, true, true, false, false]> : tensor<16xi1>
    %hh = stablehlo.bitcast_convert %hb : (tensor<16xi1>) -> tensor<f16>
    check.expect_eq_const %hh, dense<1.0> : tensor<f16>
    %z = stablehlo.constant dense<[(0.0, 1.0), (-2.0, 0.0), (0.0, 0.0)]> : tensor<3xcomplex<f32>>
    %p = stablehlo.convert %z : (tensor<3xcomplex<f32>>) -> tensor<3xi1>
    check.expect_eq_const %p, dense<[false, true, false]> : tensor<3xi1>
    %c = stablehlo.constant dense<[(-8.0, 0.0), (0.0, 27.0)]> : tensor<2xcomplex<f64>>
    %r = stablehlo.cbrt %c : tensor<2xcomplex<f64>>
    check.expect_almost_eq_const %r, dense<[(1.0, 1.7320508075688772), (2.598076211353316, 1.5)]> : tensor<2xcomplex<f64>>
    func.return
  }
}
