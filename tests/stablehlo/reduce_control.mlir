// Reductions, sort, control flow and calls, with hand-checked answers.
module @reduce_control attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @reductions() {
    %x = stablehlo.constant dense<[[1.0, -2.0, 3.5], [4.0, 0.5, -6.0]]> : tensor<2x3xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %rows = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    check.expect_eq_const %rows, dense<[2.5, -1.5]> : tensor<2xf32>
    %cols = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    check.expect_eq_const %cols, dense<[4.0, 0.5, 3.5]> : tensor<3xf32>
    // a body that is no monoid: sum of squares, written with the `reducer` syntax
    %sq = stablehlo.reduce(%x init: %zero) across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
     reducer(%acc: tensor<f32>, %e: tensor<f32>)  {
      %0 = stablehlo.multiply %e, %e : tensor<f32>
      %1 = stablehlo.add %acc, %0 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }
    check.expect_eq_const %sq, dense<69.5> : tensor<f32>
    // argmax along dimension 1: a variadic reduce in the generic form
    %idx = stablehlo.iota dim = 1 : tensor<2x3xi32>
    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %best:2 = "stablehlo.reduce"(%x, %idx, %ninf, %i0) ({
    ^bb0(%m: tensor<f32>, %mi: tensor<i32>, %v: tensor<f32>, %vi: tensor<i32>):
      %gt = stablehlo.compare GT, %v, %m, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %nm = stablehlo.select %gt, %v, %m : tensor<i1>, tensor<f32>
      %ni = stablehlo.select %gt, %vi, %mi : tensor<i1>, tensor<i32>
      stablehlo.return %nm, %ni : tensor<f32>, tensor<i32>
    }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
    check.expect_eq_const %best#0, dense<[3.5, 4.0]> : tensor<2xf32>
    check.expect_eq_const %best#1, dense<[2, 0]> : tensor<2xi32>
    %p = stablehlo.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
    %t = stablehlo.constant dense<true> : tensor<i1>
    %all = stablehlo.reduce(%p init: %t) applies stablehlo.and across dimensions = [1] : (tensor<2x2xi1>, tensor<i1>) -> tensor<2xi1>
    check.expect_eq_const %all, dense<[false, true]> : tensor<2xi1>
    func.return
  }
  func.func @sorting() {
    %k = stablehlo.constant dense<[3.0, -1.0, 0x7FC00000, -0.0, 0.0, 2.0]> : tensor<6xf32>
    %v = stablehlo.iota dim = 0 : tensor<6xi32>
    %s:2 = "stablehlo.sort"(%k, %v) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
      %lt = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) : (tensor<6xf32>, tensor<6xi32>) -> (tensor<6xf32>, tensor<6xi32>)
    check.expect_eq_const %s#0, dense<[-1.0, -0.0, 0.0, 2.0, 3.0, 0x7FC00000]> : tensor<6xf32>
    check.expect_eq_const %s#1, dense<[1, 3, 4, 5, 0, 2]> : tensor<6xi32>
    %m = stablehlo.constant dense<[[1, 5, 3], [9, 7, 8]]> : tensor<2x3xi32>
    %desc = "stablehlo.sort"(%m) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %gt = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %gt : tensor<i1>
    }) {dimension = 1 : i64} : (tensor<2x3xi32>) -> tensor<2x3xi32>
    check.expect_eq_const %desc, dense<[[5, 3, 1], [9, 8, 7]]> : tensor<2x3xi32>
    // a comparator of its own: by absolute value, IEEE compare
    %f = stablehlo.constant dense<[-3.0, 1.0, -2.0]> : tensor<3xf32>
    %byabs = "stablehlo.sort"(%f) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %aa = stablehlo.abs %a : tensor<f32>
      %ab = stablehlo.abs %b : tensor<f32>
      %lt = stablehlo.compare LT, %aa, %ab, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) {dimension = 0 : i64, is_stable = true} : (tensor<3xf32>) -> tensor<3xf32>
    check.expect_eq_const %byabs, dense<[1.0, -2.0, -3.0]> : tensor<3xf32>
    %top:2 = chlo.top_k(%f, k = 2) : tensor<3xf32> -> (tensor<2xf32>, tensor<2xi32>)
    check.expect_eq_const %top#0, dense<[1.0, -2.0]> : tensor<2xf32>
    check.expect_eq_const %top#1, dense<[1, 2]> : tensor<2xi32>
    func.return
  }
  func.func private @scale_and_shift(%x: tensor<3xf32>, %s: tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>) {
    %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %m = stablehlo.multiply %x, %b : tensor<3xf32>
    %a = stablehlo.add %x, %b : tensor<3xf32>
    return %m, %a : tensor<3xf32>, tensor<3xf32>
  }
  func.func @control_flow() {
    %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %two = stablehlo.constant dense<2.0> : tensor<f32>
    %r:2 = call @scale_and_shift(%x, %two) : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>)
    check.expect_eq_const %r#0, dense<[2.0, 4.0, 6.0]> : tensor<3xf32>
    check.expect_eq_const %r#1, dense<[3.0, 4.0, 5.0]> : tensor<3xf32>
    %g:2 = "func.call"(%x, %two) {callee = @scale_and_shift} : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>)
    check.expect_eq %g#0, %r#0 : tensor<3xf32>
    check.expect_almost_eq %g#1, %r#1, tolerance = 0.001 : tensor<3xf32>
    // double x until its first element exceeds 100
    %hundred = stablehlo.constant dense<100.0> : tensor<f32>
    %n0 = stablehlo.constant dense<0> : tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %w:2 = stablehlo.while(%i = %n0, %v = %x) : tensor<i32>, tensor<3xf32>
    cond {
      %first = stablehlo.slice %v [0:1] : (tensor<3xf32>) -> tensor<1xf32>
      %f = stablehlo.reshape %first : (tensor<1xf32>) -> tensor<f32>
      %c = stablehlo.compare LE, %f, %hundred : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %ni = stablehlo.add %i, %one : tensor<i32>
      %b = stablehlo.broadcast_in_dim %two, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %nv = stablehlo.multiply %v, %b : tensor<3xf32>
      stablehlo.return %ni, %nv : tensor<i32>, tensor<3xf32>
    }
    check.expect_eq_const %w#0, dense<7> : tensor<i32>
    check.expect_eq_const %w#1, dense<[128.0, 256.0, 384.0]> : tensor<3xf32>
    %pred = stablehlo.compare GT, %w#0, %one : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %sel = "stablehlo.if"(%pred) ({
      %neg = stablehlo.negate %x : tensor<3xf32>
      stablehlo.return %neg : tensor<3xf32>
    }, {
      stablehlo.return %x : tensor<3xf32>
    }) : (tensor<i1>) -> tensor<3xf32>
    check.expect_eq_const %sel, dense<[-1.0, -2.0, -3.0]> : tensor<3xf32>
    %idx = stablehlo.constant dense<1> : tensor<i32>
    %c = "stablehlo.case"(%idx) ({
      stablehlo.return %x : tensor<3xf32>
    }, {
      %d = stablehlo.add %x, %x : tensor<3xf32>
      stablehlo.return %d : tensor<3xf32>
    }, {
      stablehlo.return %x : tensor<3xf32>
    }) : (tensor<i32>) -> tensor<3xf32>
    check.expect_eq_const %c, dense<[2.0, 4.0, 6.0]> : tensor<3xf32>
    %tup = stablehlo.tuple %x, %idx : tuple<tensor<3xf32>, tensor<i32>>
    %e = stablehlo.get_tuple_element %tup[1] : (tuple<tensor<3xf32>, tensor<i32>>) -> tensor<i32>
    check.expect_eq_const %e, dense<1> : tensor<i32>
    %ob:2 = stablehlo.optimization_barrier %x, %idx : tensor<3xf32>, tensor<i32>
    check.expect_eq %ob#0, %x : tensor<3xf32>
    func.return
  }
}
