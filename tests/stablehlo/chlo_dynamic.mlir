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
// functions. @ragged and @scans do the same for ragged_dot and scan (exact values). Each
// check.expect_eq_const is written with the refined (static) type: a dense literal of a dynamic
// type is not MLIR (mlir-opt rejects it in the stablehlo_mlir_opt test).
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
  // ragged_dot on dynamic shapes (the numbers of tests/stablehlo/chlo_legalize.mlir's
  // @ragged_dot_modes): mode 1 with a dynamic lhs and rhs (a dynamic_iota of the ragged dimension,
  // rhs's groups by real_dynamic_slice and dynamic_reshape), mode 2 with a dynamic lhs (each
  // group's dot_general dynamic_reshape'd to [1, ...]), mode 3, and per-batch group sizes of a
  // dynamic batch (real_dynamic_slice of group_sizes); @ragged calls it with the static shapes.
  func.func private @dyn_ragged(%l: tensor<?x2xf32>, %r: tensor<3x2x?xf32>, %g: tensor<3xi64>, %l2: tensor<?x?xi32>, %r2: tensor<?x3xi32>, %g2: tensor<2xi64>, %l3: tensor<?x2x2xf32>, %r3: tensor<?x2x1xf32>, %g3: tensor<2xi32>, %lb: tensor<?x3x2xf32>, %rb: tensor<2x?x2x1xf32>, %gb: tensor<?x2xi32>) -> (tensor<?x?xf32>, tensor<2x?x3xi32>, tensor<?x2x1xf32>, tensor<?x3x1xf32>) {
    %m1 = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, precision_config = [#chlo<precision HIGHEST>, #chlo<precision DEFAULT>]} : (tensor<?x2xf32>, tensor<3x2x?xf32>, tensor<3xi64>) -> tensor<?x?xf32>
    %m2 = "chlo.ragged_dot"(%l2, %r2, %g2) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = []>} : (tensor<?x?xi32>, tensor<?x3xi32>, tensor<2xi64>) -> tensor<2x?x3xi32>
    %m3 = "chlo.ragged_dot"(%l3, %r3, %g3) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = []>} : (tensor<?x2x2xf32>, tensor<?x2x1xf32>, tensor<2xi32>) -> tensor<?x2x1xf32>
    %mb = "chlo.ragged_dot"(%lb, %rb, %gb) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>} : (tensor<?x3x2xf32>, tensor<2x?x2x1xf32>, tensor<?x2xi32>) -> tensor<?x3x1xf32>
    return %m1, %m2, %m3, %mb : tensor<?x?xf32>, tensor<2x?x3xi32>, tensor<?x2x1xf32>, tensor<?x3x1xf32>
  }
  func.func public @ragged() {
    %l = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [9.0, 10.0]]> : tensor<5x2xf32>
    %r = stablehlo.constant dense<[[[1.0, 0.0], [0.0, 1.0]], [[2.0, 1.0], [0.0, -1.0]], [[0.0, 3.0], [1.0, 1.0]]]> : tensor<3x2x2xf32>
    %g = stablehlo.constant dense<[0, 3, 1]> : tensor<3xi64>
    %l2 = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi32>
    %r2 = stablehlo.constant dense<[[1, 0, 2], [0, 1, 1], [1, 1, 0], [2, 0, 1]]> : tensor<4x3xi32>
    %g2 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %l3 = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]], [[9.0, 10.0], [11.0, 12.0]]]> : tensor<3x2x2xf32>
    %r3 = stablehlo.constant dense<[[[1.0], [1.0]], [[2.0], [0.0]], [[0.0], [-1.0]]]> : tensor<3x2x1xf32>
    %g3 = stablehlo.constant dense<[2, 1]> : tensor<2xi32>
    %lb = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]]> : tensor<2x3x2xf32>
    %rb = stablehlo.constant dense<[[[[1.0], [0.0]], [[0.0], [1.0]]], [[[1.0], [1.0]], [[2.0], [-1.0]]]]> : tensor<2x2x2x1xf32>
    %gb = stablehlo.constant dense<[[1, 2], [3, 0]]> : tensor<2x2xi32>
    %dl = stablehlo.convert %l : (tensor<5x2xf32>) -> tensor<?x2xf32>
    %dr = stablehlo.convert %r : (tensor<3x2x2xf32>) -> tensor<3x2x?xf32>
    %dl2 = stablehlo.convert %l2 : (tensor<2x4xi32>) -> tensor<?x?xi32>
    %dr2 = stablehlo.convert %r2 : (tensor<4x3xi32>) -> tensor<?x3xi32>
    %dl3 = stablehlo.convert %l3 : (tensor<3x2x2xf32>) -> tensor<?x2x2xf32>
    %dr3 = stablehlo.convert %r3 : (tensor<3x2x1xf32>) -> tensor<?x2x1xf32>
    %dlb = stablehlo.convert %lb : (tensor<2x3x2xf32>) -> tensor<?x3x2xf32>
    %drb = stablehlo.convert %rb : (tensor<2x2x2x1xf32>) -> tensor<2x?x2x1xf32>
    %dgb = stablehlo.convert %gb : (tensor<2x2xi32>) -> tensor<?x2xi32>
    %m:4 = func.call @dyn_ragged(%dl, %dr, %g, %dl2, %dr2, %g2, %dl3, %dr3, %g3, %dlb, %drb, %dgb) : (tensor<?x2xf32>, tensor<3x2x?xf32>, tensor<3xi64>, tensor<?x?xi32>, tensor<?x3xi32>, tensor<2xi64>, tensor<?x2x2xf32>, tensor<?x2x1xf32>, tensor<2xi32>, tensor<?x3x2xf32>, tensor<2x?x2x1xf32>, tensor<?x2xi32>) -> (tensor<?x?xf32>, tensor<2x?x3xi32>, tensor<?x2x1xf32>, tensor<?x3x1xf32>)
    check.expect_eq_const %m#0, dense<[[2.0, -1.0], [6.0, -1.0], [10.0, -1.0], [8.0, 29.0], [0.0, 0.0]]> : tensor<5x2xf32>
    check.expect_eq_const %m#1, dense<[[[1, 0, 2], [5, 0, 10]], [[3, 5, 2], [7, 13, 6]]]> : tensor<2x2x3xi32>
    check.expect_eq_const %m#2, dense<[[[3.0], [7.0]], [[10.0], [14.0]], [[-10.0], [-12.0]]]> : tensor<3x2x1xf32>
    check.expect_eq_const %m#3, dense<[[[1.0], [7.0], [11.0]], [[8.0], [10.0], [12.0]]]> : tensor<2x3x1xf32>
    func.return
  }
  // scan on dynamic shapes: along a dynamic dimension (two inputs, two carries: the numbers of
  // chlo_legalize.mlir's @scans, its outputs zeroed by dynamic_broadcast_in_dim), a reverse scan
  // of a tensor<?x?xf32> with a tensor<?xf32> carry (real_dynamic_slice of each row, which
  // stablehlo-refine-shapes makes a dynamic_slice at the loop counter again; out0 = row > carry,
  // out1 = carry = 2 carry + row: Python), and a scan of carries only over tensor<?x2xi32>.
  func.func private @dyn_scans(%x: tensor<2x?xf32>, %y: tensor<2x?xi32>, %v: tensor<?x?xf32>, %c: tensor<?xf32>, %w: tensor<?x2xi32>) -> (tensor<2x?xf32>, tensor<2x?xi32>, tensor<2xf32>, tensor<2xi32>, tensor<?x?xi1>, tensor<?x?xf32>, tensor<?xf32>, tensor<2xi32>) {
    %c0 = stablehlo.constant dense<[0.0, 10.0]> : tensor<2xf32>
    %c1 = stablehlo.constant dense<1> : tensor<2xi32>
    %s:4 = chlo.scan(%x, %y) inits (%c0, %c1) dimension=1 {
    ^bb0(%xe: tensor<2xf32>, %ye: tensor<2xi32>, %a: tensor<2xf32>, %p: tensor<2xi32>):
      %half = stablehlo.constant dense<0.5> : tensor<2xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %ones = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %ah = stablehlo.multiply %a, %half : tensor<2xf32>
      %a2 = stablehlo.add %xe, %ah : tensor<2xf32>
      %yp = stablehlo.multiply %ye, %p : tensor<2xi32>
      %p2 = stablehlo.add %yp, %ones : tensor<2xi32>
      stablehlo.return %a2, %p2, %a2, %p2 : tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi32>
    } : (tensor<2x?xf32>, tensor<2x?xi32>, tensor<2xf32>, tensor<2xi32>) -> (tensor<2x?xf32>, tensor<2x?xi32>, tensor<2xf32>, tensor<2xi32>)
    %h:3 = chlo.scan(%v) inits (%c) dimension=0 attributes {is_reverse = true} {
    ^bb0(%ve: tensor<?xf32>, %cc: tensor<?xf32>):
      %c2 = stablehlo.add %cc, %cc : tensor<?xf32>
      %n = stablehlo.add %c2, %ve : tensor<?xf32>
      %big = stablehlo.compare GT, %ve, %cc : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xi1>
      stablehlo.return %big, %n, %n : tensor<?xi1>, tensor<?xf32>, tensor<?xf32>
    } : (tensor<?x?xf32>, tensor<?xf32>) -> (tensor<?x?xi1>, tensor<?x?xf32>, tensor<?xf32>)
    %w0 = stablehlo.constant dense<[100, 0]> : tensor<2xi32>
    %sum = chlo.scan(%w) inits (%w0) dimension=0 {
    ^bb0(%we: tensor<2xi32>, %acc: tensor<2xi32>):
      %t = stablehlo.add %acc, %we : tensor<2xi32>
      stablehlo.return %t : tensor<2xi32>
    } : (tensor<?x2xi32>, tensor<2xi32>) -> tensor<2xi32>
    return %s#0, %s#1, %s#2, %s#3, %h#0, %h#1, %h#2, %sum : tensor<2x?xf32>, tensor<2x?xi32>, tensor<2xf32>, tensor<2xi32>, tensor<?x?xi1>, tensor<?x?xf32>, tensor<?xf32>, tensor<2xi32>
  }
  func.func public @scans() {
    %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %y = stablehlo.constant dense<[[2, 3, 4], [-1, 5, 2]]> : tensor<2x3xi32>
    %v = stablehlo.constant dense<[[1.0, 2.0], [0.5, -3.0], [4.0, 1.0]]> : tensor<3x2xf32>
    %c = stablehlo.constant dense<[1.0, 0.0]> : tensor<2xf32>
    %w = stablehlo.constant dense<[[1, 2], [3, 4], [5, -6]]> : tensor<3x2xi32>
    %dx = stablehlo.convert %x : (tensor<2x3xf32>) -> tensor<2x?xf32>
    %dy = stablehlo.convert %y : (tensor<2x3xi32>) -> tensor<2x?xi32>
    %dv = stablehlo.convert %v : (tensor<3x2xf32>) -> tensor<?x?xf32>
    %dc = stablehlo.convert %c : (tensor<2xf32>) -> tensor<?xf32>
    %dw = stablehlo.convert %w : (tensor<3x2xi32>) -> tensor<?x2xi32>
    %s:8 = func.call @dyn_scans(%dx, %dy, %dv, %dc, %dw) : (tensor<2x?xf32>, tensor<2x?xi32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x2xi32>) -> (tensor<2x?xf32>, tensor<2x?xi32>, tensor<2xf32>, tensor<2xi32>, tensor<?x?xi1>, tensor<?x?xf32>, tensor<?xf32>, tensor<2xi32>)
    check.expect_eq_const %s#0, dense<[[1.0, 2.5, 4.25], [9.0, 9.5, 10.75]]> : tensor<2x3xf32>
    check.expect_eq_const %s#1, dense<[[3, 10, 41], [0, 1, 3]]> : tensor<2x3xi32>
    check.expect_eq_const %s#2, dense<[4.25, 10.75]> : tensor<2xf32>
    check.expect_eq_const %s#3, dense<[41, 3]> : tensor<2xi32>
    check.expect_eq_const %s#4, dense<[[false, true], [false, false], [true, true]]> : tensor<3x2xi1>
    check.expect_eq_const %s#5, dense<[[26.0, 0.0], [12.5, -1.0], [6.0, 1.0]]> : tensor<3x2xf32>
    check.expect_eq_const %s#6, dense<[26.0, 0.0]> : tensor<2xf32>
    check.expect_eq_const %s#7, dense<[109, 0]> : tensor<2xi32>
    func.return
  }
}
