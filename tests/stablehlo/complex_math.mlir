// xlet-translate: --stablehlo-complex-math-expander
// Complex exp, log and sqrt rewritten into real arithmetic by stablehlo-complex-math-expander,
// against their textbook values (branch cuts as the spec: log's angle is atan2(im, re); sqrt takes
// the sign of the imaginary part, -0 included).
module @complex_math {
  func.func @expanded() {
    %z = stablehlo.constant dense<[(3.0, 4.0), (-4.0, 0.0), (-4.0, -0.0), (-3.0, -4.0), (0.0, 0.0), (1.0, 0.0)]> : tensor<6xcomplex<f32>>
    %s = stablehlo.sqrt %z : tensor<6xcomplex<f32>>
    check.expect_eq_const %s, dense<[(2.0, 1.0), (0.0, 2.0), (0.0, -2.0), (1.0, -2.0), (0.0, 0.0), (1.0, 0.0)]> : tensor<6xcomplex<f32>>
    %w = stablehlo.constant dense<[(3.0, 4.0), (-1.0, 0.0), (1.0, 0.0)]> : tensor<3xcomplex<f32>>
    %l = stablehlo.log %w : tensor<3xcomplex<f32>>
    check.expect_almost_eq_const %l, dense<[(1.60943794, 0.927295208), (0.0, 3.14159274), (0.0, 0.0)]> : tensor<3xcomplex<f32>>, tolerance = 1.0e-6
    %e = stablehlo.constant dense<[(0.0, 3.14159274), (1.0, 0.0), (0.0, 0.0)]> : tensor<3xcomplex<f32>>
    %x = stablehlo.exponential %e : tensor<3xcomplex<f32>>
    check.expect_almost_eq_const %x, dense<[(-1.0, 0.0), (2.71828175, 0.0), (1.0, 0.0)]> : tensor<3xcomplex<f32>>, tolerance = 1.0e-6
    func.return
  }
}
