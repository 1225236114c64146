// Layout ops of StableHLO with hand-checked answers, in the pretty and the generic forms.
module @layout {
  func.func @broadcast_reshape_transpose() {
    %v = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
    %b = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<3xi32>) -> tensor<2x3xi32>
    check.expect_eq_const %b, dense<[[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
    %operand = stablehlo.constant dense<[[1], [2], [3]]> : tensor<3x1xi64>
    %g = "stablehlo.broadcast_in_dim"(%operand) {
      broadcast_dimensions = array<i64: 0, 2>
    } : (tensor<3x1xi64>) -> tensor<3x2x2xi64>
    check.expect_eq_const %g, dense<[[[1, 1], [1, 1]], [[2, 2], [2, 2]], [[3, 3], [3, 3]]]> : tensor<3x2x2xi64>
    %old = stablehlo.broadcast %v, sizes = [2] : (tensor<3xi32>) -> tensor<2x3xi32>
    check.expect_eq_const %old, dense<[[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
    %m = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
    %r = stablehlo.reshape %m : (tensor<2x3xi32>) -> tensor<3x2xi32>
    check.expect_eq_const %r, dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
    %t = stablehlo.transpose %m, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
    check.expect_eq_const %t, dense<[[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
    %rev = stablehlo.reverse %m, dims = [1] : tensor<2x3xi32>
    check.expect_eq_const %rev, dense<[[3, 2, 1], [6, 5, 4]]> : tensor<2x3xi32>
    %gt = "stablehlo.transpose"(%m) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xi32>) -> tensor<3x2xi32>
    %sum = stablehlo.add %t, %gt : tensor<3x2xi32>
    check.expect_eq_const %sum, dense<[[2, 8], [4, 10], [6, 12]]> : tensor<3x2xi32>
    func.return
  }
  func.func @slice_concat_pad() {
    %operand = stablehlo.constant dense<[[0, 0, 1, 0, 0, 1], [0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 1]]> : tensor<3x6xi64>
    %s = stablehlo.slice %operand [0:3:2, 2:6:3] : (tensor<3x6xi64>) -> tensor<2x2xi64>
    check.expect_eq_const %s, dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>
    %g = "stablehlo.slice"(%operand) {
      start_indices = array<i64: 1, 0>, limit_indices = array<i64: 3, 2>, strides = array<i64: 1, 1>
    } : (tensor<3x6xi64>) -> tensor<2x2xi64>
    check.expect_eq_const %g, dense<[[0, 0], [0, 0]]> : tensor<2x2xi64>
    %a = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
    %b = stablehlo.constant dense<[[5, 6]]> : tensor<1x2xi32>
    %c = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x2xi32>, tensor<1x2xi32>) -> tensor<3x2xi32>
    check.expect_eq_const %c, dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %p = stablehlo.pad %a, %zero, low = [0, 1], high = [1, 0], interior = [1, 0] : (tensor<2x2xi32>, tensor<i32>) -> tensor<4x3xi32>
    check.expect_eq_const %p, dense<[[0, 1, 2], [0, 0, 0], [0, 3, 4], [0, 0, 0]]> : tensor<4x3xi32>
    %five = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
    %nine = stablehlo.constant dense<9.0> : tensor<f32>
    %neg = stablehlo.pad %five, %nine, low = [-1], high = [-2], interior = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<2xf32>
    check.expect_eq_const %neg, dense<[2.0, 3.0]> : tensor<2xf32>
    func.return
  }
  func.func @iota_and_dynamic_slices() {
    %i = stablehlo.iota dim = 1 : tensor<2x3xi32>
    check.expect_eq_const %i, dense<[[0, 1, 2], [0, 1, 2]]> : tensor<2x3xi32>
    %f = stablehlo.iota dim = 0 : tensor<3xf32>
    check.expect_eq_const %f, dense<[0.0, 1.0, 2.0]> : tensor<3xf32>
    %x = stablehlo.iota dim = 0 : tensor<10xi32>
    %start = stablehlo.constant dense<8> : tensor<i64>
    %ds = stablehlo.dynamic_slice %x, %start, sizes = [3] : (tensor<10xi32>, tensor<i64>) -> tensor<3xi32>
    check.expect_eq_const %ds, dense<[7, 8, 9]> : tensor<3xi32>
    %upd = stablehlo.constant dense<[-1, -2]> : tensor<2xi32>
    %neg = stablehlo.constant dense<-5> : tensor<i32>
    %dus = stablehlo.dynamic_update_slice %x, %upd, %neg : (tensor<10xi32>, tensor<2xi32>, tensor<i32>) -> tensor<10xi32>
    check.expect_eq_const %dus, dense<[-1, -2, 2, 3, 4, 5, 6, 7, 8, 9]> : tensor<10xi32>
    %m = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xf32>
    %r = stablehlo.constant dense<1> : tensor<ui32>
    %c = stablehlo.constant dense<5> : tensor<ui32>
    %g = "stablehlo.dynamic_slice"(%m, %r, %c) <{slice_sizes = array<i64: 2, 2>}> : (tensor<3x3xf32>, tensor<ui32>, tensor<ui32>) -> tensor<2x2xf32>
    check.expect_eq_const %g, dense<[[5.0, 6.0], [8.0, 9.0]]> : tensor<2x2xf32>
    func.return
  }
}
