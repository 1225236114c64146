// Bounded dynamic shapes (#stablehlo.bounds) with hand-checked answers, in the pretty and the
// generic forms: set_dimension_size makes a dimension dynamic within its bound; element-wise ops,
// reduce, dynamic_reshape and the checks see only the elements within the run-time sizes. A check
// of a bounded value against a constant is in the generic form: the pretty form gives the operand
// the constant's type (MLIR infers it so), which a bounded value does not have.
module @bounded {
  // A bounded value through func.call: x * k + x.
  func.func private @scale_add(%x: tensor<?x3xf32, #stablehlo.bounds<4, ?>>, %k: tensor<f32>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>> {
    %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %0 = stablehlo.multiply %x, %kb : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<4x3xf32>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>>
    %1 = stablehlo.add %0, %x : tensor<?x3xf32, #stablehlo.bounds<4, ?>>
    return %1 : tensor<?x3xf32, #stablehlo.bounds<4, ?>>
  }
  func.func @elementwise() {
    %v = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
    %two = stablehlo.constant dense<2> : tensor<i32>
    %b = stablehlo.set_dimension_size %v, %two, dim = 0 : (tensor<4x3xf32>, tensor<i32>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>>
    "check.expect_eq_const"(%b) {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> ()
    %ten = stablehlo.constant dense<10.0> : tensor<4x3xf32>
    %s = stablehlo.add %b, %ten : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<4x3xf32>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>>
    "check.expect_eq_const"(%s) {value = dense<[[11.0, 12.0, 13.0], [14.0, 15.0, 16.0]]> : tensor<2x3xf32>} : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> ()
    %m = "stablehlo.multiply"(%s, %b) : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>>
    "check.expect_eq_const"(%m) {value = dense<[[11.0, 24.0, 39.0], [56.0, 75.0, 96.0]]> : tensor<2x3xf32>} : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> ()
    // the size set to the bound, with a static result type (as xlet::to_stablehlo writes padded()):
    // the whole of %s, with the padding its add computed from %b's (the rows of %v past 2)
    %four = stablehlo.constant dense<4> : tensor<i32>
    %whole = stablehlo.set_dimension_size %s, %four, dim = 0 : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<i32>) -> tensor<4x3xf32>
    check.expect_eq_const %whole, dense<[[11.0, 12.0, 13.0], [14.0, 15.0, 16.0], [17.0, 18.0, 19.0], [20.0, 21.0, 22.0]]> : tensor<4x3xf32>
    // a second dynamic dimension (generic form), then its sizes
    %one = stablehlo.constant dense<1> : tensor<i32>
    %bb = "stablehlo.set_dimension_size"(%m, %one) {dimension = 1 : i64} : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<i32>) -> tensor<?x?xf32, #stablehlo.bounds<4, 3>>
    "check.expect_eq_const"(%bb) {value = dense<[[11.0], [56.0]]> : tensor<2x1xf32>} : (tensor<?x?xf32, #stablehlo.bounds<4, 3>>) -> ()
    %rows = stablehlo.get_dimension_size %bb, dim = 0 : (tensor<?x?xf32, #stablehlo.bounds<4, 3>>) -> tensor<i32>
    check.expect_eq_const %rows, dense<2> : tensor<i32>
    %cols = "stablehlo.get_dimension_size"(%bb) {dimension = 1 : i64} : (tensor<?x?xf32, #stablehlo.bounds<4, 3>>) -> tensor<i32>
    check.expect_eq_const %cols, dense<1> : tensor<i32>
    %static = stablehlo.get_dimension_size %v, dim = 0 : (tensor<4x3xf32>) -> tensor<i32>
    check.expect_eq_const %static, dense<4> : tensor<i32>
    func.return
  }
  func.func @compare_select_convert_clamp() {
    %v = stablehlo.constant dense<[1.5, -2.0, 3.0, -4.0, 5.0, 6.0]> : tensor<6xf32>
    %four = stablehlo.constant dense<4> : tensor<i32>
    %b = stablehlo.set_dimension_size %v, %four, dim = 0 : (tensor<6xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<6>>
    %zero = stablehlo.constant dense<0.0> : tensor<6xf32>
    %pos = stablehlo.compare GT, %b, %zero : (tensor<?xf32, #stablehlo.bounds<6>>, tensor<6xf32>) -> tensor<?xi1, #stablehlo.bounds<6>>
    "check.expect_eq_const"(%pos) {value = dense<[true, false, true, false]> : tensor<4xi1>} : (tensor<?xi1, #stablehlo.bounds<6>>) -> ()
    %neg = stablehlo.negate %b : tensor<?xf32, #stablehlo.bounds<6>>
    %abs = stablehlo.select %pos, %b, %neg : tensor<?xi1, #stablehlo.bounds<6>>, tensor<?xf32, #stablehlo.bounds<6>>
    "check.expect_eq_const"(%abs) {value = dense<[1.5, 2.0, 3.0, 4.0]> : tensor<4xf32>} : (tensor<?xf32, #stablehlo.bounds<6>>) -> ()
    %i = stablehlo.convert %abs : (tensor<?xf32, #stablehlo.bounds<6>>) -> tensor<?xi32, #stablehlo.bounds<6>>
    "check.expect_eq_const"(%i) {value = dense<[1, 2, 3, 4]> : tensor<4xi32>} : (tensor<?xi32, #stablehlo.bounds<6>>) -> ()
    %lo = stablehlo.constant dense<2> : tensor<i32>
    %hi = stablehlo.constant dense<3> : tensor<i32>
    %c = "stablehlo.clamp"(%lo, %i, %hi) : (tensor<i32>, tensor<?xi32, #stablehlo.bounds<6>>, tensor<i32>) -> tensor<?xi32, #stablehlo.bounds<6>>
    "check.expect_eq_const"(%c) {value = dense<[2, 2, 3, 3]> : tensor<4xi32>} : (tensor<?xi32, #stablehlo.bounds<6>>) -> ()
    func.return
  }
  func.func @reductions() {
    // the spec's example: the sum of the first 5 of 10
    %v = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]> : tensor<10xf32>
    %five = stablehlo.constant dense<5> : tensor<i32>
    %v5 = stablehlo.set_dimension_size %v, %five, dim = 0 : (tensor<10xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<10>>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %sum = stablehlo.reduce(%v5 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<?xf32, #stablehlo.bounds<10>>, tensor<f32>) -> tensor<f32>
    check.expect_eq_const %sum, dense<15.0> : tensor<f32>
    %m = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
    %three = stablehlo.constant dense<3> : tensor<i32>
    %b = stablehlo.set_dimension_size %m, %three, dim = 0 : (tensor<4x3xf32>, tensor<i32>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>>
    // over the dynamic dimension: the first 3 rows, a static result
    %cols = stablehlo.reduce(%b init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<f32>) -> tensor<3xf32>
    check.expect_eq_const %cols, dense<[12.0, 15.0, 18.0]> : tensor<3xf32>
    // over the static dimension: the dynamic one stays, bounded
    %rows = stablehlo.reduce(%b init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<4>>
    "check.expect_eq_const"(%rows) {value = dense<[6.0, 15.0, 24.0]> : tensor<3xf32>} : (tensor<?xf32, #stablehlo.bounds<4>>) -> ()
    // a body that is no monoid, in the generic form: max of squares, within the 3 rows
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %sq = "stablehlo.reduce"(%b, %ninf) ({
    ^bb0(%acc: tensor<f32>, %x: tensor<f32>):
      %x2 = stablehlo.multiply %x, %x : tensor<f32>
      %mx = stablehlo.maximum %acc, %x2 : tensor<f32>
      "stablehlo.return"(%mx) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0, 1>} : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<f32>) -> tensor<f32>
    check.expect_eq_const %sq, dense<81.0> : tensor<f32>
    // argmax of a bounded value and a static iota: 99 is past the size
    %w = stablehlo.constant dense<[3.0, 9.0, 2.0, 7.0, 99.0, 1.0]> : tensor<6xf32>
    %four = stablehlo.constant dense<4> : tensor<i32>
    %w4 = stablehlo.set_dimension_size %w, %four, dim = 0 : (tensor<6xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<6>>
    %idx = stablehlo.iota dim = 0 : tensor<6xi32>
    %minus1 = stablehlo.constant dense<-1> : tensor<i32>
    %r:2 = stablehlo.reduce(%w4 init: %ninf), (%idx init: %minus1) across dimensions = [0] : (tensor<?xf32, #stablehlo.bounds<6>>, tensor<6xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
     reducer(%a: tensor<f32>, %x: tensor<f32>) (%ai: tensor<i32>, %xi: tensor<i32>) {
      %gt = stablehlo.compare GT, %x, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %mv = stablehlo.select %gt, %x, %a : tensor<i1>, tensor<f32>
      %mi = stablehlo.select %gt, %xi, %ai : tensor<i1>, tensor<i32>
      stablehlo.return %mv, %mi : tensor<f32>, tensor<i32>
    }
    check.expect_eq_const %r#0, dense<9.0> : tensor<f32>
    check.expect_eq_const %r#1, dense<1> : tensor<i32>
    func.return
  }
  func.func @reshape() {
    %m = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
    %two = stablehlo.constant dense<2> : tensor<i32>
    %b = stablehlo.set_dimension_size %m, %two, dim = 0 : (tensor<3x4xf32>, tensor<i32>) -> tensor<?x4xf32, #stablehlo.bounds<3, ?>>
    // the 8 elements within the sizes, as 4 x 2 within the bounds 6 x 2
    %shape = stablehlo.constant dense<[4, 2]> : tensor<2xi32>
    %r = stablehlo.dynamic_reshape %b, %shape : (tensor<?x4xf32, #stablehlo.bounds<3, ?>>, tensor<2xi32>) -> tensor<?x2xf32, #stablehlo.bounds<6, ?>>
    "check.expect_eq_const"(%r) {value = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>} : (tensor<?x2xf32, #stablehlo.bounds<6, ?>>) -> ()
    %n = stablehlo.get_dimension_size %r, dim = 0 : (tensor<?x2xf32, #stablehlo.bounds<6, ?>>) -> tensor<i32>
    check.expect_eq_const %n, dense<4> : tensor<i32>
    // to a static shape of the same count (i64 sizes, generic form)
    %eight = stablehlo.constant dense<8> : tensor<1xi64>
    %flat = "stablehlo.dynamic_reshape"(%b, %eight) : (tensor<?x4xf32, #stablehlo.bounds<3, ?>>, tensor<1xi64>) -> tensor<8xf32>
    check.expect_eq_const %flat, dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
    func.return
  }
  func.func @calls_and_checks() {
    %m = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
    %two = stablehlo.constant dense<2> : tensor<i32>
    %b = stablehlo.set_dimension_size %m, %two, dim = 0 : (tensor<4x3xf32>, tensor<i32>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>>
    %k = stablehlo.constant dense<3.0> : tensor<f32>
    %r = func.call @scale_add(%b, %k) : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<f32>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>>
    // two bounded values of the same sizes: equal within them, whatever their padding
    %e = stablehlo.constant dense<[[4.0, 8.0, 12.0], [16.0, 20.0, 24.0], [0.0, 0.0, 0.0], [-1.0, -1.0, -1.0]]> : tensor<4x3xf32>
    %eb = stablehlo.set_dimension_size %e, %two, dim = 0 : (tensor<4x3xf32>, tensor<i32>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>>
    check.expect_eq %r, %eb : tensor<?x3xf32, #stablehlo.bounds<4, ?>>
    "check.expect_almost_eq_const"(%r) {value = dense<[[4.0, 8.0, 12.0], [16.0, 20.0, 24.0001]]> : tensor<2x3xf32>, tolerance = 1.0e-3 : f64} : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> ()
    %want = stablehlo.constant dense<[[4.0, 8.0, 12.0], [16.0, 20.0, 24.0]]> : tensor<2x3xf32>
    check.expect_close %r, %want, max_ulp_difference = 0 : tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<2x3xf32>
    "check.expect_almost_eq"(%r, %eb) {tolerance = 0.0 : f64} : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> ()
    func.return
  }
}
