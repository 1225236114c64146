// stablehlo.async_start / stablehlo.async_done (StableHLO 1.15): a body without collectives runs
// as an xlet::async_start task that async_done waits for; a body with collectives runs at
// async_start with the device's context (under `interpreter.run_parallel`), and async_done reads
// its results. Expected values worked out by hand.
module @async attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 1 : i32} {
  // An element-wise body of two operands and two results (a task). Its operand is computed
  // outside, its block arguments are what it reads.
  func.func @pair(%x : tensor<3xf32>, %y : tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>) {
    %one = stablehlo.constant dense<1.0> : tensor<3xf32>
    %x1 = stablehlo.add %x, %one : tensor<3xf32>
    %f = "stablehlo.async_start"(%x1, %y) ({
      ^bb0(%a : tensor<3xf32>, %b : tensor<3xi32>):
        %c = stablehlo.convert %b : (tensor<3xi32>) -> tensor<3xf32>
        %s = stablehlo.multiply %a, %c : tensor<3xf32>
        %t = stablehlo.add %b, %b : tensor<3xi32>
        stablehlo.return %s, %t : tensor<3xf32>, tensor<3xi32>
    }) : (tensor<3xf32>, tensor<3xi32>) -> !stablehlo.future<tensor<3xf32>, tensor<3xi32>>
    // work while the task runs
    %w = stablehlo.subtract %x, %one : tensor<3xf32>
    %r:2 = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<3xf32>, tensor<3xi32>>) -> (tensor<3xf32>, tensor<3xi32>)
    %z = stablehlo.add %r#0, %w : tensor<3xf32>
    return %z, %r#1 : tensor<3xf32>, tensor<3xi32>
  }
  // One result, and a future read by two async_done ops (the body runs at async_start then).
  func.func @twice(%x : tensor<2x2xi32>) -> (tensor<2xi32>, tensor<2x2xi32>, tensor<2x2xi32>) {
    %f = "stablehlo.async_start"(%x) ({
      ^bb0(%a : tensor<2x2xi32>):
        %s = "stablehlo.slice"(%a) <{start_indices = array<i64: 1, 0>, limit_indices = array<i64: 2, 2>, strides = array<i64: 1, 1>}>
            : (tensor<2x2xi32>) -> tensor<1x2xi32>
        %r = stablehlo.reshape %s : (tensor<1x2xi32>) -> tensor<2xi32>
        stablehlo.return %r : tensor<2xi32>
    }) : (tensor<2x2xi32>) -> !stablehlo.future<tensor<2xi32>>
    %g = "stablehlo.async_start"(%x) ({
      ^bb0(%a : tensor<2x2xi32>):
        %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x2xi32>) -> tensor<2x2xi32>
        stablehlo.return %t : tensor<2x2xi32>
    }) : (tensor<2x2xi32>) -> !stablehlo.future<tensor<2x2xi32>>
    %r = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<2xi32>>) -> tensor<2xi32>
    %p = "stablehlo.async_done"(%g) : (!stablehlo.future<tensor<2x2xi32>>) -> tensor<2x2xi32>
    %q = "stablehlo.async_done"(%g) : (!stablehlo.future<tensor<2x2xi32>>) -> tensor<2x2xi32>
    %n = stablehlo.negate %q : tensor<2x2xi32>
    return %r, %p, %n : tensor<2xi32>, tensor<2x2xi32>, tensor<2x2xi32>
  }
  // An asynchronous all_gather in a private function: its caller becomes an SPMD function too.
  func.func private @gather(%x : tensor<2xi64>) -> tensor<4xi64> {
    %f = "stablehlo.async_start"(%x) ({
      ^bb0(%b : tensor<2xi64>):
        %g = "stablehlo.all_gather"(%b) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 2], [3, 1]]> : tensor<2x2xi64>}
            : (tensor<2xi64>) -> tensor<4xi64>
        stablehlo.return %g : tensor<4xi64>
    }) : (tensor<2xi64>) -> !stablehlo.future<tensor<4xi64>>
    %r = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xi64>>) -> tensor<4xi64>
    return %r : tensor<4xi64>
  }
  // An asynchronous all_reduce (upstream's async_done example), a task beside it on the device,
  // work in between, and the gather.
  func.func @reduce_gather(%x : tensor<2xi64>) -> (tensor<2xi64>, tensor<4xi64>) {
    %f = "stablehlo.async_start"(%x) ({
      ^bb0(%b : tensor<2xi64>):
        %r = "stablehlo.all_reduce"(%b) ({
          ^bb0(%p : tensor<i64>, %q : tensor<i64>):
            %s = stablehlo.add %p, %q : tensor<i64>
            stablehlo.return %s : tensor<i64>
        }) {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
        stablehlo.return %r : tensor<2xi64>
    }) : (tensor<2xi64>) -> !stablehlo.future<tensor<2xi64>>
    %e = "stablehlo.async_start"(%x) ({
      ^bb0(%b : tensor<2xi64>):
        %ten = stablehlo.constant dense<10> : tensor<2xi64>
        %t = stablehlo.multiply %b, %ten : tensor<2xi64>
        stablehlo.return %t : tensor<2xi64>
    }) : (tensor<2xi64>) -> !stablehlo.future<tensor<2xi64>>
    %m = stablehlo.multiply %x, %x : tensor<2xi64>
    %g = func.call @gather(%x) : (tensor<2xi64>) -> tensor<4xi64>
    %r = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<2xi64>>) -> tensor<2xi64>
    %te = "stablehlo.async_done"(%e) : (!stablehlo.future<tensor<2xi64>>) -> tensor<2xi64>
    %rm = stablehlo.add %r, %m : tensor<2xi64>
    %s = stablehlo.add %rm, %te : tensor<2xi64>
    return %s, %g : tensor<2xi64>, tensor<4xi64>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[1.5, -2.0, 0.25]> : tensor<3xf32>
    %y = stablehlo.constant dense<[2, 3, -4]> : tensor<3xi32>
    %p:2 = func.call @pair(%x, %y) : (tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>)
    // (x + 1) * y + (x - 1)
    check.expect_eq_const %p#0, dense<[5.5, -6.0, -5.75]> : tensor<3xf32>
    check.expect_eq_const %p#1, dense<[4, 6, -8]> : tensor<3xi32>

    %m = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
    %t:3 = func.call @twice(%m) : (tensor<2x2xi32>) -> (tensor<2xi32>, tensor<2x2xi32>, tensor<2x2xi32>)
    check.expect_eq_const %t#0, dense<[3, 4]> : tensor<2xi32>
    check.expect_eq_const %t#1, dense<[[1, 3], [2, 4]]> : tensor<2x2xi32>
    check.expect_eq_const %t#2, dense<[[-1, -3], [-2, -4]]> : tensor<2x2xi32>

    %v0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %v1 = stablehlo.constant dense<[10, 20]> : tensor<2xi64>
    %v2 = stablehlo.constant dense<[100, 200]> : tensor<2xi64>
    %v3 = stablehlo.constant dense<[1000, 2000]> : tensor<2xi64>
    %r:8 = "interpreter.run_parallel"(%v0, %v1, %v2, %v3) {programs = [[@reduce_gather], [@reduce_gather], [@reduce_gather], [@reduce_gather]]}
        : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
        -> (tensor<2xi64>, tensor<4xi64>, tensor<2xi64>, tensor<4xi64>, tensor<2xi64>, tensor<4xi64>, tensor<2xi64>, tensor<4xi64>)
    // all_reduce over {0, 1} and {2, 3}, plus x * x, plus 10 x
    check.expect_eq_const %r#0, dense<[22, 46]> : tensor<2xi64>
    check.expect_eq_const %r#2, dense<[211, 622]> : tensor<2xi64>
    check.expect_eq_const %r#4, dense<[12100, 44200]> : tensor<2xi64>
    check.expect_eq_const %r#6, dense<[1011100, 4022200]> : tensor<2xi64>
    // all_gather along 0 over {0, 2} and {3, 1}, in the group's order
    check.expect_eq_const %r#1, dense<[1, 2, 100, 200]> : tensor<4xi64>
    check.expect_eq_const %r#5, dense<[1, 2, 100, 200]> : tensor<4xi64>
    check.expect_eq_const %r#3, dense<[1000, 2000, 10, 20]> : tensor<4xi64>
    check.expect_eq_const %r#7, dense<[1000, 2000, 10, 20]> : tensor<4xi64>
    func.return
  }
}
