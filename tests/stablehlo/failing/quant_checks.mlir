// Checks of quantized values that must fail (CTest stablehlo_failing_quant_checks matches the
// runner's messages): a quantized value is compared by its stored integers, which the messages show.
// expect: expect_eq failed at flat index 1: got 5, expected 6
// expect: expect_eq failed at flat index 0: got -4, expected -2
// expect: expect_eq failed at flat index 2: got 0, expected 1
// expect: 1 passed, 3 failed
module @quant_checks {
  func.func @main() {
    %a = "stablehlo.constant"() {value = dense<[4, 5, 0]> : tensor<3xi8>} : () -> tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    "check.expect_eq_const"(%a) {value = dense<[4, 6, 0]> : tensor<3xi8>} : (tensor<3x!quant.uniform<i8:f32, 0.5:-3>>) -> ()
    // [-0.5, 4, 1.5] / 0.5 - 3 = [-4, 5, 0]
    %x = stablehlo.constant dense<[-0.5, 4.0, 1.5]> : tensor<3xf32>
    %q = stablehlo.uniform_quantize %x : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    %b = "stablehlo.constant"() {value = dense<[-2, 5, 0]> : tensor<3xi8>} : () -> tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    check.expect_eq %q, %b : tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    %c = "stablehlo.constant"() {value = dense<[-4, 5, 1]> : tensor<3xi8>} : () -> tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    stablehlo.custom_call @check.expect_eq(%q, %c) {has_side_effect = true} : (tensor<3x!quant.uniform<i8:f32, 0.5:-3>>, tensor<3x!quant.uniform<i8:f32, 0.5:-3>>) -> ()
    %d = "stablehlo.constant"() {value = dense<[-4, 5, 0]> : tensor<3xi8>} : () -> tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    check.expect_eq %q, %d : tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
    func.return
  }
}
