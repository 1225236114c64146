// Collectives, replica_id / partition_id and send / recv imported onto xlet::replica_pool: each
// `interpreter.run_parallel` (the StableHLO interpreter's test driver: programs[replica][partition])
// runs its programs as the devices of a pool. Expected values worked out by hand from the spec's
// process groups (cross_replica, cross_replica_and_partition, flattened_ids, cross_partition).
module @collectives attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 1 : i32} {
  // cross_replica (no channel): the sum over replicas 0..3 split into groups {0, 1} and {2, 3}.
  func.func @sum_pairs(%x : tensor<3xi64>) -> tensor<3xi64> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %s = stablehlo.add %a, %b : tensor<i64>
        stablehlo.return %s : tensor<i64>
    }) {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<3xi64>) -> tensor<3xi64>
    return %r : tensor<3xi64>
  }
  // A computation that is no single op (a lambda), and two operands reduced at once.
  func.func @max_and_sum(%x : tensor<2xf32>, %y : tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>) {
    %m = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %s = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    %p:2 = "stablehlo.all_reduce"(%x, %y) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %s = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>} : (tensor<2xf32>, tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>)
    %c = stablehlo.convert %p#0 : (tensor<2xf32>) -> tensor<2xi32>
    %q = stablehlo.add %p#1, %c : tensor<2xi32>
    return %m, %q : tensor<2xf32>, tensor<2xi32>
  }
  // all_gather along dimension 1, reduce_scatter along 0, all_to_all: replicas {0, 1} only.
  func.func @gather_scatter(%x : tensor<2x2xi32>) -> (tensor<2x4xi32>, tensor<1x2xi32>, tensor<2x2xi32>) {
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
        : (tensor<2x2xi32>) -> tensor<2x4xi32>
    %s = "stablehlo.reduce_scatter"(%x) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %t = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %t : tensor<i32>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi32>) -> tensor<1x2xi32>
    %a = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64,
        replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi32>) -> tensor<1x4xi32>
    %ar = stablehlo.reshape %a : (tensor<1x4xi32>) -> tensor<2x2xi32>
    return %g, %s, %ar : tensor<2x4xi32>, tensor<1x2xi32>, tensor<2x2xi32>
  }
  // collective_permute (a device no pair targets gets zeros), collective_broadcast from the first
  // device of each group, replica_id, and a collective inside a while body through a call.
  func.func private @shift(%x : tensor<2xi64>) -> tensor<2xi64> {
    %y = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}
        : (tensor<2xi64>) -> tensor<2xi64>
    return %y : tensor<2xi64>
  }
  func.func @move(%x : tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<ui32>, tensor<2xi64>) {
    %p = func.call @shift(%x) : (tensor<2xi64>) -> tensor<2xi64>
    %b = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[3, 2, 1, 0]]> : tensor<1x4xi64>}
        : (tensor<2xi64>) -> tensor<2xi64>
    %id = stablehlo.replica_id : tensor<ui32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %w:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<2xi64>
      cond {
        %three = stablehlo.constant dense<3> : tensor<i32>
        %lt = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %j = stablehlo.add %i, %one : tensor<i32>
        %s = func.call @shift(%v) : (tensor<2xi64>) -> tensor<2xi64>
        %t = stablehlo.add %s, %v : tensor<2xi64>
        stablehlo.return %j, %t : tensor<i32>, tensor<2xi64>
      }
    return %p, %b, %id, %w#1 : tensor<2xi64>, tensor<2xi64>, tensor<ui32>, tensor<2xi64>
  }
  // collective_broadcast with has_dynamic_root (StableHLO 1.20): operand k from member roots[k] of
  // each group.
  func.func @roots(%x : tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>) {
    %ten = stablehlo.constant dense<10> : tensor<2xi64>
    %y = stablehlo.multiply %x, %ten : tensor<2xi64>
    %r = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
    %b:2 = "stablehlo.collective_broadcast"(%x, %y, %r) {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, has_dynamic_root}
        : (tensor<2xi64>, tensor<2xi64>, tensor<2xi32>) -> (tensor<2xi64>, tensor<2xi64>)
    return %b#0, %b#1 : tensor<2xi64>, tensor<2xi64>
  }
  // 2 replicas x 2 partitions: the process groups of a channel.
  func.func @modes(%x : tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<ui32>, tensor<ui32>, tensor<2xi64>) {
    // cross_replica_and_partition: replicas {0, 1} with every partition of theirs
    %a = "stablehlo.all_reduce"(%x) ({
      ^bb0(%p: tensor<i64>, %q: tensor<i64>):
        %s = stablehlo.add %p, %q : tensor<i64>
        stablehlo.return %s : tensor<i64>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>}
        : (tensor<2xi64>) -> tensor<2xi64>
    // flattened_ids: device ids {0, 3} and {1, 2}
    %b = "stablehlo.all_reduce"(%x) ({
      ^bb0(%p: tensor<i64>, %q: tensor<i64>):
        %s = stablehlo.add %p, %q : tensor<i64>
        stablehlo.return %s : tensor<i64>
    }) {replica_groups = dense<[[0, 3], [1, 2]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 0>,
        use_global_device_ids} : (tensor<2xi64>) -> tensor<2xi64>
    // cross_partition (a channel): partitions 0 -> 1 within each replica
    %c = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 3, type = 0>} : (tensor<2xi64>) -> tensor<2xi64>
    %r = stablehlo.replica_id : tensor<ui32>
    %p = stablehlo.partition_id : tensor<ui32>
    // cross_replica_and_partition with one replica per group: the partitions of each replica
    %d = "stablehlo.all_reduce"(%x) ({
      ^bb0(%p0: tensor<i64>, %q0: tensor<i64>):
        %s = stablehlo.add %p0, %q0 : tensor<i64>
        stablehlo.return %s : tensor<i64>
    }) {replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>, channel_handle = #stablehlo.channel_handle<handle = 4, type = 0>}
        : (tensor<2xi64>) -> tensor<2xi64>
    return %a, %b, %c, %r, %p, %d : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<ui32>, tensor<ui32>, tensor<2xi64>
  }
  // send / recv between devices (source_target_pairs, StableHLO 1.12): 0 sends to 1, 1 to 0.
  func.func @ring(%x : tensor<2xf32>, %t : !stablehlo.token) -> (tensor<2xf32>, !stablehlo.token) {
    %s = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>,
        is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}
        : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
    %r:2 = "stablehlo.recv"(%s) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>,
        is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}
        : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    return %r#0, %r#1 : tensor<2xf32>, !stablehlo.token
  }
  // ragged_all_to_all (the custom_call JAX writes: StableHLO has no op of its own): rows
  // input[input_offsets[j] : + send_sizes[j]] go to device j, at its output_offsets[j] (offsets in
  // the receiver's output).
  func.func @ragged(%in : tensor<4xi32>, %out : tensor<4xi32>, %io : tensor<2xi64>, %ss : tensor<2xi64>,
                    %oo : tensor<2xi64>, %rs : tensor<2xi64>) -> tensor<4xi32> {
    %r = "stablehlo.custom_call"(%in, %out, %io, %ss, %oo, %rs) {call_target_name = "ragged_all_to_all", api_version = 4 : i32,
        backend_config = {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}}
        : (tensor<4xi32>, tensor<4xi32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4xi32>
    return %r : tensor<4xi32>
  }
  // infeed / outfeed: the module's host queues (run_parallel's infeed = [...] fills the first;
  // translated_models_test drains the second).
  func.func @feeds(%t : !stablehlo.token) -> (tensor<2xi32>, tensor<i32>, !stablehlo.token) {
    %a:2 = "stablehlo.infeed"(%t) {infeed_config = ""} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
    %b:3 = "stablehlo.infeed"(%a#1) : (!stablehlo.token) -> (tensor<2xi32>, tensor<i32>, !stablehlo.token)
    %s = stablehlo.add %a#0, %b#0 : tensor<2xi32>
    %o = "stablehlo.outfeed"(%s, %b#1, %b#2) {outfeed_config = ""} : (tensor<2xi32>, tensor<i32>, !stablehlo.token) -> !stablehlo.token
    %o2 = "stablehlo.outfeed"(%a#0, %o) : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
    return %s, %b#1, %o2 : tensor<2xi32>, tensor<i32>, !stablehlo.token
  }
  func.func @item0() -> tensor<2xi32> {
    %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    return %c : tensor<2xi32>
  }
  func.func @item1() -> (tensor<2xi32>, tensor<i32>) {
    %c = stablehlo.constant dense<[10, 20]> : tensor<2xi32>
    %d = stablehlo.constant dense<7> : tensor<i32>
    return %c, %d : tensor<2xi32>, tensor<i32>
  }
  func.func @main() {
    %i0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
    %i1 = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi64>
    %i2 = stablehlo.constant dense<[100, 200, 300]> : tensor<3xi64>
    %i3 = stablehlo.constant dense<[1000, 2000, 3000]> : tensor<3xi64>
    %s:4 = "interpreter.run_parallel"(%i0, %i1, %i2, %i3) {programs = [[@sum_pairs], [@sum_pairs], [@sum_pairs], [@sum_pairs]]}
        : (tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> (tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>)
    check.expect_eq_const %s#0, dense<[11, 22, 33]> : tensor<3xi64>
    check.expect_eq_const %s#1, dense<[11, 22, 33]> : tensor<3xi64>
    check.expect_eq_const %s#2, dense<[1100, 2200, 3300]> : tensor<3xi64>
    check.expect_eq_const %s#3, dense<[1100, 2200, 3300]> : tensor<3xi64>

    %f0 = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
    %f1 = stablehlo.constant dense<[0.5, 7.0]> : tensor<2xf32>
    %f2 = stablehlo.constant dense<[3.0, -1.0]> : tensor<2xf32>
    %f3 = stablehlo.constant dense<[-4.0, 2.0]> : tensor<2xf32>
    %n0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    %n1 = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
    %n2 = stablehlo.constant dense<[5, 6]> : tensor<2xi32>
    %n3 = stablehlo.constant dense<[7, 8]> : tensor<2xi32>
    %m:8 = "interpreter.run_parallel"(%f0, %n0, %f1, %n1, %f2, %n2, %f3, %n3) {programs = [[@max_and_sum], [@max_and_sum], [@max_and_sum], [@max_and_sum]]}
        : (tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi32>)
        -> (tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi32>)
    check.expect_eq_const %m#0, dense<[3.0, 7.0]> : tensor<2xf32>
    check.expect_eq_const %m#6, dense<[3.0, 7.0]> : tensor<2xf32>
    // groups {0, 2}, {1, 3}: i32 sums plus the f32 sums converted
    check.expect_eq_const %m#1, dense<[10, 5]> : tensor<2xi32>
    check.expect_eq_const %m#3, dense<[7, 21]> : tensor<2xi32>
    check.expect_eq_const %m#5, dense<[10, 5]> : tensor<2xi32>
    check.expect_eq_const %m#7, dense<[7, 21]> : tensor<2xi32>

    %g0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
    %g1 = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
    %g:6 = "interpreter.run_parallel"(%g0, %g1) {programs = [[@gather_scatter], [@gather_scatter]]}
        : (tensor<2x2xi32>, tensor<2x2xi32>) -> (tensor<2x4xi32>, tensor<1x2xi32>, tensor<2x2xi32>, tensor<2x4xi32>, tensor<1x2xi32>, tensor<2x2xi32>)
    check.expect_eq_const %g#0, dense<[[1, 2, 5, 6], [3, 4, 7, 8]]> : tensor<2x4xi32>
    check.expect_eq_const %g#3, dense<[[1, 2, 5, 6], [3, 4, 7, 8]]> : tensor<2x4xi32>
    check.expect_eq_const %g#1, dense<[[6, 8]]> : tensor<1x2xi32>
    check.expect_eq_const %g#4, dense<[[10, 12]]> : tensor<1x2xi32>
    // all_to_all: device d keeps row d of every device's operand, concatenated along dimension 1
    check.expect_eq_const %g#2, dense<[[1, 2], [5, 6]]> : tensor<2x2xi32>
    check.expect_eq_const %g#5, dense<[[3, 4], [7, 8]]> : tensor<2x2xi32>

    %v0 = stablehlo.constant dense<[1, -1]> : tensor<2xi64>
    %v1 = stablehlo.constant dense<[2, -2]> : tensor<2xi64>
    %v2 = stablehlo.constant dense<[3, -3]> : tensor<2xi64>
    %v3 = stablehlo.constant dense<[4, -4]> : tensor<2xi64>
    %rt:8 = "interpreter.run_parallel"(%v0, %v1, %v2, %v3) {programs = [[@roots], [@roots], [@roots], [@roots]]}
        : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
        -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
    check.expect_eq_const %rt#0, dense<[2, -2]> : tensor<2xi64>
    check.expect_eq_const %rt#1, dense<[10, -10]> : tensor<2xi64>
    check.expect_eq_const %rt#2, dense<[2, -2]> : tensor<2xi64>
    check.expect_eq_const %rt#3, dense<[10, -10]> : tensor<2xi64>
    check.expect_eq_const %rt#4, dense<[4, -4]> : tensor<2xi64>
    check.expect_eq_const %rt#7, dense<[30, -30]> : tensor<2xi64>
    %p:16 = "interpreter.run_parallel"(%v0, %v1, %v2, %v3) {programs = [[@move], [@move], [@move], [@move]]}
        : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
        -> (tensor<2xi64>, tensor<2xi64>, tensor<ui32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<ui32>, tensor<2xi64>,
            tensor<2xi64>, tensor<2xi64>, tensor<ui32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<ui32>, tensor<2xi64>)
    check.expect_eq_const %p#0, dense<[0, 0]> : tensor<2xi64>
    check.expect_eq_const %p#4, dense<[1, -1]> : tensor<2xi64>
    check.expect_eq_const %p#12, dense<[3, -3]> : tensor<2xi64>
    check.expect_eq_const %p#1, dense<[4, -4]> : tensor<2xi64>
    check.expect_eq_const %p#9, dense<[4, -4]> : tensor<2xi64>
    check.expect_eq_const %p#2, dense<0> : tensor<ui32>
    check.expect_eq_const %p#14, dense<3> : tensor<ui32>
    // v <- v + shift(v), three times: device 0 keeps v0; device 1: v1 + 3 v0 = 5; device 3: v3 + 3 v2 + 3 v1 + v0 = 20
    check.expect_eq_const %p#3, dense<[1, -1]> : tensor<2xi64>
    check.expect_eq_const %p#7, dense<[5, -5]> : tensor<2xi64>
    check.expect_eq_const %p#15, dense<[20, -20]> : tensor<2xi64>

    %w:24 = "interpreter.run_parallel"(%v0, %v1, %v2, %v3) {programs = [[@modes, @modes], [@modes, @modes]]}
        : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
        -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<ui32>, tensor<ui32>, tensor<2xi64>,
            tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<ui32>, tensor<ui32>, tensor<2xi64>,
            tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<ui32>, tensor<ui32>, tensor<2xi64>,
            tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<ui32>, tensor<ui32>, tensor<2xi64>)
    // device d = replica * 2 + partition holds v_d. cross_replica_and_partition: the group of
    // replicas {0, 1} takes all their partitions, so all four devices
    check.expect_eq_const %w#0, dense<[10, -10]> : tensor<2xi64>
    check.expect_eq_const %w#6, dense<[10, -10]> : tensor<2xi64>
    check.expect_eq_const %w#12, dense<[10, -10]> : tensor<2xi64>
    check.expect_eq_const %w#18, dense<[10, -10]> : tensor<2xi64>
    // flattened_ids {0, 3}, {1, 2}:
    check.expect_eq_const %w#1, dense<[5, -5]> : tensor<2xi64>
    check.expect_eq_const %w#7, dense<[5, -5]> : tensor<2xi64>
    check.expect_eq_const %w#19, dense<[5, -5]> : tensor<2xi64>
    // cross_partition permute 0 -> 1 in each replica:
    check.expect_eq_const %w#2, dense<[0, 0]> : tensor<2xi64>
    check.expect_eq_const %w#8, dense<[1, -1]> : tensor<2xi64>
    check.expect_eq_const %w#20, dense<[3, -3]> : tensor<2xi64>
    check.expect_eq_const %w#15, dense<1> : tensor<ui32>
    check.expect_eq_const %w#16, dense<0> : tensor<ui32>
    check.expect_eq_const %w#22, dense<1> : tensor<ui32>
    // one replica per group: {d0, d1} and {d2, d3}
    check.expect_eq_const %w#5, dense<[3, -3]> : tensor<2xi64>
    check.expect_eq_const %w#11, dense<[3, -3]> : tensor<2xi64>
    check.expect_eq_const %w#17, dense<[7, -7]> : tensor<2xi64>
    check.expect_eq_const %w#23, dense<[7, -7]> : tensor<2xi64>

    %t = stablehlo.after_all : !stablehlo.token
    %r:4 = "interpreter.run_parallel"(%f0, %t, %f1, %t) {programs = [[@ring], [@ring]]}
        : (tensor<2xf32>, !stablehlo.token, tensor<2xf32>, !stablehlo.token) -> (tensor<2xf32>, !stablehlo.token, tensor<2xf32>, !stablehlo.token)
    check.expect_eq_const %r#0, dense<[0.5, 7.0]> : tensor<2xf32>
    check.expect_eq_const %r#2, dense<[1.5, -2.0]> : tensor<2xf32>

    %ri0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
    %ri1 = stablehlo.constant dense<[5, 6, 7, 8]> : tensor<4xi32>
    %ro = stablehlo.constant dense<-1> : tensor<4xi32>
    %io0 = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
    %ss0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %oo0 = stablehlo.constant dense<[0, 0]> : tensor<2xi64>
    %rs0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %io1 = stablehlo.constant dense<[0, 2]> : tensor<2xi64>
    %ss1 = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
    %oo1 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %rs1 = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
    %rg:2 = "interpreter.run_parallel"(%ri0, %ro, %io0, %ss0, %oo0, %rs0, %ri1, %ro, %io1, %ss1, %oo1, %rs1) {programs = [[@ragged], [@ragged]]}
        : (tensor<4xi32>, tensor<4xi32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>,
           tensor<4xi32>, tensor<4xi32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<4xi32>, tensor<4xi32>)
    // device 0 keeps [1] at 0 and gets [5, 6] at 1; device 1 gets [2, 3] at 0 and keeps [7, 8] at 2
    check.expect_eq_const %rg#0, dense<[1, 5, 6, -1]> : tensor<4xi32>
    check.expect_eq_const %rg#1, dense<[2, 3, 7, 8]> : tensor<4xi32>

    %q:3 = "interpreter.run_parallel"(%t) {infeed = [@item0, @item1], programs = [[@feeds]]}
        : (!stablehlo.token) -> (tensor<2xi32>, tensor<i32>, !stablehlo.token)
    check.expect_eq_const %q#0, dense<[11, 22]> : tensor<2xi32>
    check.expect_eq_const %q#1, dense<7> : tensor<i32>
    func.return
  }
}
