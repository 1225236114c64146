// The custom-call checks of stablehlo/testdata must fail past their tolerances (CTest
// stablehlo_failing_check_calls matches the runner's messages): 4 ULP is not close, 0.002 is not
// almost equal, and @check.eq both fails and returns false (which the last check confirms).
// expect: check_calls.mlir:12:[0-9]+: expect_close failed at flat index 0: got 1, expected 1.00000048
// expect: check_calls.mlir:13:[0-9]+: expect_almost_eq failed at flat index 1: got 2, expected 2.00200009
// expect: check_calls.mlir:15:[0-9]+: expect_almost_eq failed at flat index 0: got 1, expected 1.00020003
// expect: 1 passed, 3 failed
module @failing_checks {
  func.func @main() {
    %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %n = stablehlo.constant dense<[1.00000048, 2.002]> : tensor<2xf32>
    stablehlo.custom_call @check.expect_close(%c, %n) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    stablehlo.custom_call @check.expect_almost_eq(%c, %n) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    %h = stablehlo.constant dense<[1.0002, 2.0]> : tensor<2xf32>
    %e = stablehlo.custom_call @check.eq(%c, %h) : (tensor<2xf32>, tensor<2xf32>) -> tensor<i1>
    check.expect_eq_const %e, dense<false> : tensor<i1>
    func.return
  }
}
