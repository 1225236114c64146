// xlet-translate: --chlo-legalize-to-stablehlo
// CHLO ops that xlet has no op of its own for, through chlo-legalize-to-stablehlo's decompositions,
// and the broadcasting ops made explicit. Expected values: Python's math (double) rounded to f32;
// the decompositions are checked within a few ULP of them.
module @chlo_legalize {
  func.func @math() {
    %x_sinh = stablehlo.constant dense<[0.5, -0.25, 9.999999747378752e-05, 0.0]> : tensor<4xf32>
    %sinh = chlo.sinh %x_sinh : tensor<4xf32> -> tensor<4xf32>
    %sinh_ref = stablehlo.constant dense<[0.5210952758789062, -0.25261232256889343, 9.999999747378752e-05, 0.0]> : tensor<4xf32>
    check.expect_close %sinh, %sinh_ref, max_ulp_difference = 4 : tensor<4xf32>, tensor<4xf32>
    %x_cosh = stablehlo.constant dense<[0.5, -0.25, 9.999999747378752e-05, 0.0]> : tensor<4xf32>
    %cosh = chlo.cosh %x_cosh : tensor<4xf32> -> tensor<4xf32>
    %cosh_ref = stablehlo.constant dense<[1.1276259422302246, 1.0314130783081055, 1.0, 1.0]> : tensor<4xf32>
    check.expect_close %cosh, %cosh_ref, max_ulp_difference = 4 : tensor<4xf32>, tensor<4xf32>
    %x_asin = stablehlo.constant dense<[0.5, -0.25, 9.999999747378752e-05, 0.0]> : tensor<4xf32>
    %asin = chlo.asin %x_asin : tensor<4xf32> -> tensor<4xf32>
    %asin_ref = stablehlo.constant dense<[0.5235987901687622, -0.252680242061615, 9.999999747378752e-05, 0.0]> : tensor<4xf32>
    check.expect_close %asin, %asin_ref, max_ulp_difference = 4 : tensor<4xf32>, tensor<4xf32>
    %x_acos = stablehlo.constant dense<[0.5, -0.25, 9.999999747378752e-05, 0.0]> : tensor<4xf32>
    %acos = chlo.acos %x_acos : tensor<4xf32> -> tensor<4xf32>
    %acos_ref = stablehlo.constant dense<[1.0471975803375244, 1.8234765529632568, 1.5706963539123535, 1.5707963705062866]> : tensor<4xf32>
    check.expect_close %acos, %acos_ref, max_ulp_difference = 4 : tensor<4xf32>, tensor<4xf32>
    %x_atan = stablehlo.constant dense<[0.5, -0.25, 9.999999747378752e-05, 0.0]> : tensor<4xf32>
    %atan = chlo.atan %x_atan : tensor<4xf32> -> tensor<4xf32>
    %atan_ref = stablehlo.constant dense<[0.46364760398864746, -0.244978666305542, 9.999999747378752e-05, 0.0]> : tensor<4xf32>
    check.expect_close %atan, %atan_ref, max_ulp_difference = 4 : tensor<4xf32>, tensor<4xf32>
    %x_atanh = stablehlo.constant dense<[0.5, -0.25, 9.999999747378752e-05, 0.0]> : tensor<4xf32>
    %atanh = chlo.atanh %x_atanh : tensor<4xf32> -> tensor<4xf32>
    %atanh_ref = stablehlo.constant dense<[0.5493061542510986, -0.2554128170013428, 9.999999747378752e-05, 0.0]> : tensor<4xf32>
    check.expect_close %atanh, %atanh_ref, max_ulp_difference = 4 : tensor<4xf32>, tensor<4xf32>
    %x_asinh = stablehlo.constant dense<[0.5, -0.25, 9.999999747378752e-05, 0.0]> : tensor<4xf32>
    %asinh = chlo.asinh %x_asinh : tensor<4xf32> -> tensor<4xf32>
    %asinh_ref = stablehlo.constant dense<[0.4812118113040924, -0.24746645987033844, 9.999999747378752e-05, 0.0]> : tensor<4xf32>
    check.expect_close %asinh, %asinh_ref, max_ulp_difference = 4 : tensor<4xf32>, tensor<4xf32>
    %x_acosh = stablehlo.constant dense<[1.0, 2.0, 10.0, 1.5]> : tensor<4xf32>
    %acosh = chlo.acosh %x_acosh : tensor<4xf32> -> tensor<4xf32>
    %acosh_ref = stablehlo.constant dense<[0.0, 1.316957950592041, 2.993222951889038, 0.9624236226081848]> : tensor<4xf32>
    check.expect_close %acosh, %acosh_ref, max_ulp_difference = 4 : tensor<4xf32>, tensor<4xf32>
    func.return
  }
  func.func @broadcasting_and_top_k() {
    %m = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %v = stablehlo.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
    %s = stablehlo.constant dense<2.0> : tensor<f32>
    %a = chlo.broadcast_add %m, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    check.expect_eq_const %a, dense<[[11.0, 22.0, 33.0], [14.0, 25.0, 36.0]]> : tensor<2x3xf32>
    %c = stablehlo.constant dense<[100.0, 200.0]> : tensor<2xf32>
    %b = chlo.broadcast_multiply %m, %c {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
    check.expect_eq_const %b, dense<[[100.0, 200.0, 300.0], [800.0, 1000.0, 1200.0]]> : tensor<2x3xf32>
    %d = chlo.broadcast_subtract %s, %m : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    check.expect_eq_const %d, dense<[[1.0, 0.0, -1.0], [-2.0, -3.0, -4.0]]> : tensor<2x3xf32>
    %lt = chlo.broadcast_compare %m, %s {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
    check.expect_eq_const %lt, dense<[[true, false, false], [false, false, false]]> : tensor<2x3xi1>
    %k:2 = chlo.top_k(%m, k = 2) : tensor<2x3xf32> -> (tensor<2x2xf32>, tensor<2x2xi32>)
    check.expect_eq_const %k#0, dense<[[3.0, 2.0], [6.0, 5.0]]> : tensor<2x2xf32>
    check.expect_eq_const %k#1, dense<[[2, 1], [2, 1]]> : tensor<2x2xi32>
    %w = stablehlo.constant dense<[0x7F800000, 0xFF800000, 1.0, 0x7FC00000]> : tensor<4xf32>
    %ni = chlo.is_neg_inf %w : tensor<4xf32> -> tensor<4xi1>
    check.expect_eq_const %ni, dense<[false, true, false, false]> : tensor<4xi1>
    %z = stablehlo.constant dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>
    %cj = chlo.conj %z : tensor<1xcomplex<f32>> -> tensor<1xcomplex<f32>>
    check.expect_eq_const %cj, dense<[(1.0, -2.0)]> : tensor<1xcomplex<f32>>
    func.return
  }
  func.func @libm_functions() {
    // the CHLO functions the C library has, through xlet::map (chlo-legalize keeps them)
    %x = stablehlo.constant dense<[0.5, 3.0, -2.5, 10.0]> : tensor<4xf32>
    %lg = chlo.lgamma %x : tensor<4xf32> -> tensor<4xf32>
    %lg_ref = stablehlo.constant dense<[0.5723649263381958, 0.6931471824645996, -0.056243717670440674, 12.801827430725098]> : tensor<4xf32>
    check.expect_close %lg, %lg_ref, max_ulp_difference = 4 : tensor<4xf32>, tensor<4xf32>
    %y = stablehlo.constant dense<[0.5, -1.0, 2.0, 0.0]> : tensor<4xf32>
    %ec = chlo.erfc %y : tensor<4xf32> -> tensor<4xf32>
    %ec_ref = stablehlo.constant dense<[0.4795001149177551, 1.8427008390426636, 0.004677734803408384, 1.0]> : tensor<4xf32>
    check.expect_close %ec, %ec_ref, max_ulp_difference = 4 : tensor<4xf32>, tensor<4xf32>
    %z = stablehlo.constant dense<[1.0, -1.0, 0.25, 5.0]> : tensor<4xf32>
    %be = chlo.bessel_i1e %z : tensor<4xf32> -> tensor<4xf32>
    %be_ref = stablehlo.constant dense<[0.207910418510437, -0.207910418510437, 0.09811262786388397, 0.16397227346897125]> : tensor<4xf32>
    check.expect_close %be, %be_ref, max_ulp_difference = 4 : tensor<4xf32>, tensor<4xf32>
    %a = stablehlo.constant dense<[1.0, 0.0, 1.0, -0.0]> : tensor<4xf32>
    %b = stablehlo.constant dense<[2.0, -1.0, 0.0, 1.0]> : tensor<4xf32>
    %na = chlo.next_after %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    check.expect_eq_const %na, dense<[0x3F800001, 0x80000001, 0x3F7FFFFF, 0x00000001]> : tensor<4xf32>
    func.return
  }
}
