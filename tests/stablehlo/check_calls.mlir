// The checks of StableHLO's JAX-generated test data (stablehlo/testdata), which its interpreter runs
// as custom calls: @check.expect_eq (exact), @check.expect_almost_eq (within 0.001),
// @check.expect_close (within 3 ULP) and @check.eq (exact on integers and pred, within 1e-4
// otherwise), which also returns whether the values were equal. In the form JAX prints them.
module @jit_checks attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2x3xf32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = call @inputs() : () -> tensor<2x3xf32>
    %1 = call @expected() : () -> tensor<2x3xf32>
    %2 = stablehlo.abs %0 : tensor<2x3xf32>
    stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
    // 1.0 and 1.0000004 (3 ULP apart): close; 2.0 and 2.0009: almost equal
    %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %n = stablehlo.constant dense<[1.00000036, 2.0009]> : tensor<2xf32>
    stablehlo.custom_call @check.expect_almost_eq(%c, %n) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    %i = stablehlo.constant dense<[3, -4]> : tensor<2xi32>
    %j = stablehlo.abs %i : tensor<2xi32>
    %k = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
    stablehlo.custom_call @check.expect_eq(%j, %k) {has_side_effect = true} : (tensor<2xi32>, tensor<2xi32>) -> ()
    // check.eq: the answer as a pred, here true (2.00005 is within 1e-4 of 2.0)
    %h = stablehlo.constant dense<[1.0, 2.00005]> : tensor<2xf32>
    %e = stablehlo.custom_call @check.eq(%c, %h) : (tensor<2xf32>, tensor<2xf32>) -> tensor<i1>
    check.expect_eq_const %e, dense<true> : tensor<i1>
    %ei = stablehlo.custom_call @check.eq(%j, %k) : (tensor<2xi32>, tensor<2xi32>) -> tensor<i1>
    check.expect_eq_const %ei, dense<true> : tensor<i1>
    return %2 : tensor<2x3xf32>
  }
  func.func private @inputs() -> (tensor<2x3xf32> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<[[-1.5, 0.0, 2.25], [3.0, -0.5, -8.0]]> : tensor<2x3xf32>
    return %cst : tensor<2x3xf32>
  }
  func.func private @expected() -> (tensor<2x3xf32> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<[[1.5, 0.0, 2.25], [3.0, 0.5, 8.0]]> : tensor<2x3xf32>
    return %cst : tensor<2x3xf32>
  }
}
