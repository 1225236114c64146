// xlet-translate: --chlo-legalize-to-stablehlo --stablehlo-refine-shapes
// chlo-legalize-to-stablehlo on a dynamic shape: @dyn takes tensor<?xf32>, so each decomposition
// computes x's shape (get_dimension_size, reshape, concatenate) and broadcasts its constants to it
// with dynamic_broadcast_in_dim, and broadcast_add takes the maximum of the operands' extents.
// The runner calls public functions without arguments, so @refined calls @dyn with a constant
// (tensor<3xf32> as tensor<?xf32>), and refine-shapes refines @dyn from that call and folds the
// shape computations to a static module that xlet translates (the same pipeline through
// --stablehlo-refine-arguments is translate_test's; a first-line flag cannot hold its '<', which
// the build's shell would read as a redirection). Expected values: Python's math (double)
// rounded to f32; the tolerances are those of tests/stablehlo/chlo_legalize.mlir for the same
// functions.
module @chlo_dynamic {
  func.func private @dyn(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<2x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
    %erf = chlo.erf %x : tensor<?xf32> -> tensor<?xf32>
    %lgamma = chlo.lgamma %x : tensor<?xf32> -> tensor<?xf32>
    %c = stablehlo.constant dense<[[10.0], [20.0]]> : tensor<2x1xf32>
    %sum = chlo.broadcast_add %c, %x : (tensor<2x1xf32>, tensor<?xf32>) -> tensor<2x?xf32>
    %two = "chlo.constant_like"(%x) {value = 2.0 : f32} : (tensor<?xf32>) -> tensor<?xf32>
    %pow = chlo.broadcast_power %x, %two : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    %sinh = chlo.sinh %x : tensor<?xf32> -> tensor<?xf32>
    return %erf, %lgamma, %sum, %two, %pow, %sinh : tensor<?xf32>, tensor<?xf32>, tensor<2x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
  }
  func.func public @refined() {
    %x3 = stablehlo.constant dense<[0.5, 3.5, -2.5]> : tensor<3xf32>
    %x = stablehlo.convert %x3 : (tensor<3xf32>) -> tensor<?xf32>
    %r:6 = func.call @dyn(%x) : (tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<2x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
    %erf_ref = stablehlo.constant dense<[0.5204998850822449, 0.9999992847442627, -0.9995930194854736]> : tensor<3xf32>
    check.expect_close %r#0, %erf_ref, max_ulp_difference = 4 : tensor<?xf32>, tensor<3xf32>
    %lgamma_ref = stablehlo.constant dense<[0.5723649263381958, 1.200973629951477, -0.056243717670440674]> : tensor<3xf32>
    check.expect_close %r#1, %lgamma_ref, max_ulp_difference = 20 : tensor<?xf32>, tensor<3xf32>
    check.expect_eq_const %r#2, dense<[[10.5, 13.5, 7.5], [20.5, 23.5, 17.5]]> : tensor<2x3xf32>
    check.expect_eq_const %r#3, dense<2.0> : tensor<3xf32>
    %pow_ref = stablehlo.constant dense<[0.25, 12.25, 6.25]> : tensor<3xf32>
    check.expect_close %r#4, %pow_ref, max_ulp_difference = 1 : tensor<?xf32>, tensor<3xf32>
    %sinh_ref = stablehlo.constant dense<[0.5210952758789062, 16.542627334594727, -6.050204277038574]> : tensor<3xf32>
    check.expect_close %r#5, %sinh_ref, max_ulp_difference = 4 : tensor<?xf32>, tensor<3xf32>
    func.return
  }
}
