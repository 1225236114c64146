// Checks of bounded values that must fail (CTest stablehlo_failing_bounded_checks matches the runner's
// messages): sizes other than the expected extents, and an element within the sizes that differs.
// Padding is no part of a value: the last check, of two values that differ only there, passes.
// And a static result type of set_dimension_size whose size is not the extent throws.
// expect: expect_eq failed: got sizes \[3\], expected \[4\]
// expect: expect_eq failed at index \[2\]: got 3, expected 5
// expect: @static_result threw: xlet::set_dimension_size: size 3 of dimension 0 is not the extent 4 of the static result type
// expect: 1 passed, 3 failed
module @bounded_checks {
  func.func @main() {
    %v = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %three = stablehlo.constant dense<3> : tensor<i32>
    %b = stablehlo.set_dimension_size %v, %three, dim = 0 : (tensor<4xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<4>>
    "check.expect_eq_const"(%b) {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : (tensor<?xf32, #stablehlo.bounds<4>>) -> ()
    "check.expect_eq_const"(%b) {value = dense<[1.0, 2.0, 5.0]> : tensor<3xf32>} : (tensor<?xf32, #stablehlo.bounds<4>>) -> ()
    %w = stablehlo.constant dense<[1.0, 2.0, 3.0, 9.0]> : tensor<4xf32>
    %wb = stablehlo.set_dimension_size %w, %three, dim = 0 : (tensor<4xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<4>>
    check.expect_eq %b, %wb : tensor<?xf32, #stablehlo.bounds<4>>
    func.return
  }
  // A static result type of set_dimension_size says the size is the extent: 3 is not 4.
  func.func @static_result() -> tensor<4xf32> {
    %v = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %three = stablehlo.constant dense<3> : tensor<i32>
    %s = stablehlo.set_dimension_size %v, %three, dim = 0 : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
    func.return %s : tensor<4xf32>
  }
}
