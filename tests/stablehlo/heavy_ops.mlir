// Gather / scatter, windows, convolution, FFT, RNG, linear algebra, batch norm, map, composite
// and CHLO helpers, with hand-checked answers (generic forms as JAX prints these ops).
module @heavy_ops {
  func.func @gather_scatter() {
    %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi32>
    %idx = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>
    %g = "stablehlo.gather"(%x, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<3x3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
    check.expect_eq_const %g, dense<[[7, 8, 9], [1, 2, 3]]> : tensor<2x3xi32>
    %ones = stablehlo.constant dense<1> : tensor<3x3xi32>
    %sidx = stablehlo.constant dense<[[0], [2], [0]]> : tensor<3x1xi32>
    %upd = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi32>
    %s = "stablehlo.scatter"(%ones, %sidx, %upd) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %sum = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %sum : tensor<i32>
    }) : (tensor<3x3xi32>, tensor<3x1xi32>, tensor<3x3xi32>) -> tensor<3x3xi32>
    check.expect_eq_const %s, dense<[[9, 11, 13], [1, 1, 1], [5, 6, 7]]> : tensor<3x3xi32>
    // an update computation that replaces: the last update to a row wins (rows 0 twice)
    %r = "stablehlo.scatter"(%ones, %sidx, %upd) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      stablehlo.return %b : tensor<i32>
    }) : (tensor<3x3xi32>, tensor<3x1xi32>, tensor<3x3xi32>) -> tensor<3x3xi32>
    %r2 = stablehlo.slice %r [1:3, 0:3] : (tensor<3x3xi32>) -> tensor<2x3xi32>
    check.expect_eq_const %r2, dense<[[1, 1, 1], [4, 5, 6]]> : tensor<2x3xi32>
    func.return
  }
  func.func @windows() {
    %x = stablehlo.iota dim = 0 : tensor<16xf32>
    %m = stablehlo.reshape %x : (tensor<16xf32>) -> tensor<4x4xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %pool = "stablehlo.reduce_window"(%m, %ninf) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %mx = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %mx : tensor<f32>
    }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<2x2xf32>
    check.expect_eq_const %pool, dense<[[5.0, 7.0], [13.0, 15.0]]> : tensor<2x2xf32>
    %v = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %sum = "stablehlo.reduce_window"(%v, %z) <{window_dimensions = array<i64: 3>, padding = dense<[[1, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %t = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %t : tensor<i32>
    }) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    check.expect_eq_const %sum, dense<[3, 6, 9, 7]> : tensor<4xi32>
    %op = stablehlo.constant dense<[1.0, 5.0, 3.0, 2.0]> : tensor<4xf32>
    %src = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>
    %zf = stablehlo.constant dense<0.0> : tensor<f32>
    %sas = "stablehlo.select_and_scatter"(%op, %src, %zf) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %ge = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %ge : tensor<i1>
    }, {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
    check.expect_eq_const %sas, dense<[0.0, 10.0, 20.0, 0.0]> : tensor<4xf32>
    func.return
  }
  func.func @convolution() {
    %i = stablehlo.iota dim = 0 : tensor<9xf32>
    %one = stablehlo.constant dense<1.0> : tensor<9xf32>
    %i1 = stablehlo.add %i, %one : tensor<9xf32>
    %img = stablehlo.reshape %i1 : (tensor<9xf32>) -> tensor<1x3x3x1xf32>
    %k = stablehlo.constant dense<1.0> : tensor<2x2x1x1xf32>
    %c = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>
    check.expect_eq_const %c, dense<[[[[12.0], [16.0]], [[24.0], [28.0]]]]> : tensor<1x2x2x1xf32>
    // NCHW / OIHW with padding 1 and stride 2, in the generic form
    %nchw = stablehlo.reshape %i1 : (tensor<9xf32>) -> tensor<1x1x3x3xf32>
    %k2 = stablehlo.constant dense<[[[[0.0, 1.0], [1.0, 0.0]]]]> : tensor<1x1x2x2xf32>
    %c2 = "stablehlo.convolution"(%nchw, %k2) {dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, padding = dense<1> : tensor<2x2xi64>, window_strides = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
    check.expect_eq_const %c2, dense<[[[[0.0, 2.0], [4.0, 14.0]]]]> : tensor<1x1x2x2xf32>
    func.return
  }
  func.func @fft_rng_linalg() {
    %x = stablehlo.constant dense<[(1.0, 0.0), (2.0, 0.0), (3.0, 0.0), (4.0, 0.0)]> : tensor<4xcomplex<f32>>
    %f = stablehlo.fft %x, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    check.expect_almost_eq_const %f, dense<[(10.0, 0.0), (-2.0, 2.0), (-2.0, 0.0), (-2.0, -2.0)]> : tensor<4xcomplex<f32>>
    %r = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %rf = stablehlo.fft %r, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
    check.expect_almost_eq_const %rf, dense<[(10.0, 0.0), (-2.0, 2.0), (-2.0, 0.0)]> : tensor<3xcomplex<f32>>
    %back = stablehlo.fft %rf, type = IRFFT, length = [4] : (tensor<3xcomplex<f32>>) -> tensor<4xf32>
    check.expect_almost_eq_const %back, dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %st = stablehlo.constant dense<[42, 0]> : tensor<2xui64>
    %ns, %bits = stablehlo.rng_bit_generator %st, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
    check.expect_eq_const %ns, dense<[42, 2]> : tensor<2xui64>
    %ns2, %bits2 = "stablehlo.rng_bit_generator"(%st) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
    check.expect_eq %bits2, %bits : tensor<2x2xui32>
    %a = stablehlo.constant dense<[[4.0, 2.0], [2.0, 3.0]]> : tensor<2x2xf32>
    %l = stablehlo.cholesky %a, lower = true : tensor<2x2xf32>
    %l10 = stablehlo.slice %l [1:2, 0:2] : (tensor<2x2xf32>) -> tensor<1x2xf32>
    check.expect_almost_eq_const %l10, dense<[[1.0, 1.41421354]]> : tensor<1x2xf32>
    %tri = stablehlo.constant dense<[[2.0, 0.0], [1.0, 1.0]]> : tensor<2x2xf32>
    %b = stablehlo.constant dense<[[2.0], [3.0]]> : tensor<2x1xf32>
    %sol = "stablehlo.triangular_solve"(%tri, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
    check.expect_almost_eq_const %sol, dense<[[1.0], [2.0]]> : tensor<2x1xf32>
    func.return
  }
  func.func private @scale_impl(%x: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.add %x, %x : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
  func.func @batch_norm_map_composite() {
    %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %one = stablehlo.constant dense<1.0> : tensor<2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<2xf32>
    %y, %mean, %var = "stablehlo.batch_norm_training"(%x, %one, %zero) <{epsilon = 0.0 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
    check.expect_almost_eq_const %y, dense<[[-1.0, -1.0], [1.0, 1.0]]> : tensor<2x2xf32>
    check.expect_eq_const %mean, dense<[2.0, 3.0]> : tensor<2xf32>
    check.expect_eq_const %var, dense<[1.0, 1.0]> : tensor<2xf32>
    %inf = "stablehlo.batch_norm_inference"(%x, %one, %zero, %mean, %var) <{epsilon = 0.0 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
    check.expect_almost_eq_const %inf, dense<[[-1.0, -1.0], [1.0, 1.0]]> : tensor<2x2xf32>
    %p = "stablehlo.map"(%x, %x) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.multiply %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    check.expect_eq_const %p, dense<[[1.0, 4.0], [9.0, 16.0]]> : tensor<2x2xf32>
    %v = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %c = stablehlo.composite "my.scale" %v {composite_attributes = {factor = 2 : i64, mode = "fast", exact = true}, decomposition = @scale_impl, version = 1 : i32} : (tensor<3xf32>) -> tensor<3xf32>
    check.expect_eq_const %c, dense<[2.0, 4.0, 6.0]> : tensor<3xf32>
    %w = stablehlo.constant dense<[0x7F800000, 0xFF800000, 1.0, 0x7FC00000]> : tensor<4xf32>
    %ii = chlo.is_inf %w : tensor<4xf32> -> tensor<4xi1>
    check.expect_eq_const %ii, dense<[true, true, false, false]> : tensor<4xi1>
    %pi = chlo.is_pos_inf %w : tensor<4xf32> -> tensor<4xi1>
    check.expect_eq_const %pi, dense<[true, false, false, false]> : tensor<4xi1>
    %rl = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
    %rr = stablehlo.constant dense<[[[1.0], [0.0]], [[0.0], [1.0]]]> : tensor<2x2x1xf32>
    %gs = stablehlo.constant dense<[1, 3]> : tensor<2xi64>
    %rd = "chlo.ragged_dot"(%rl, %rr, %gs) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<4x2xf32>, tensor<2x2x1xf32>, tensor<2xi64>) -> tensor<4x1xf32>
    check.expect_eq_const %rd, dense<[[1.0], [4.0], [6.0], [8.0]]> : tensor<4x1xf32>
    %sq = chlo.square %v : tensor<3xf32> -> tensor<3xf32>
    check.expect_eq_const %sq, dense<[1.0, 4.0, 9.0]> : tensor<3xf32>
    %bc = chlo.broadcast_add %x, %one {broadcast_dimensions = array<i64: 1>} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
    check.expect_eq_const %bc, dense<[[2.0, 3.0], [4.0, 5.0]]> : tensor<2x2xf32>
    %np = chlo.broadcast_multiply %x, %one : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
    check.expect_eq %np, %x : tensor<2x2xf32>
    func.return
  }
  // The legacy rng (xlet's default generator): a >= b gives a everywhere (xlet's documented choice),
  // sigma = 0 gives mu, and U[0, 1) stays in [0, 1).
  func.func @legacy_rng() {
    %shape = stablehlo.constant dense<[4, 8]> : tensor<2xi64>
    %a = stablehlo.constant dense<2.5> : tensor<f32>
    %same = stablehlo.rng %a, %a, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<4x8xf32>
    check.expect_eq_const %same, dense<2.5> : tensor<4x8xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %mu = stablehlo.constant dense<-1.25> : tensor<f32>
    %n = "stablehlo.rng"(%mu, %zero, %shape) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<4x8xf32>
    check.expect_eq_const %n, dense<-1.25> : tensor<4x8xf32>
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %u = stablehlo.rng %zero, %one, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<4x8xf32>
    %lo = stablehlo.reduce(%u init: %one) applies stablehlo.minimum across dimensions = [0, 1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<f32>
    %hi = stablehlo.reduce(%u init: %zero) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<f32>
    %ok_lo = stablehlo.compare GE, %lo, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %ok_hi = stablehlo.compare LT, %hi, %one : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %ok = stablehlo.and %ok_lo, %ok_hi : tensor<i1>
    check.expect_eq_const %ok, dense<true> : tensor<i1>
    %spread = stablehlo.subtract %hi, %lo : tensor<f32>
    %half = stablehlo.constant dense<0.5> : tensor<f32>
    %wide = stablehlo.compare GT, %spread, %half : (tensor<f32>, tensor<f32>) -> tensor<i1>
    check.expect_eq_const %wide, dense<true> : tensor<i1>
    func.return
  }
  // Gather and scatter with batching dims, as compatibility_expander.mlir has them before its pass
  // expands them (the same values expected).
  func.func @batching_dims() {
    %operand = stablehlo.constant dense<[[[[0, 1, 2, 3, 4], [10, 11, 12, 13, 14], [20, 21, 22, 23, 24], [30, 31, 32, 33, 34]], [[100, 101, 102, 103, 104], [110, 111, 112, 113, 114], [120, 121, 122, 123, 124], [130, 131, 132, 133, 134]], [[200, 201, 202, 203, 204], [210, 211, 212, 213, 214], [220, 221, 222, 223, 224], [230, 231, 232, 233, 234]]], [[[1000, 1001, 1002, 1003, 1004], [1010, 1011, 1012, 1013, 1014], [1020, 1021, 1022, 1023, 1024], [1030, 1031, 1032, 1033, 1034]], [[1100, 1101, 1102, 1103, 1104], [1110, 1111, 1112, 1113, 1114], [1120, 1121, 1122, 1123, 1124], [1130, 1131, 1132, 1133, 1134]], [[1200, 1201, 1202, 1203, 1204], [1210, 1211, 1212, 1213, 1214], [1220, 1221, 1222, 1223, 1224], [1230, 1231, 1232, 1233, 1234]]]]> : tensor<2x3x4x5xi32>
    %idx = stablehlo.constant dense<[[[[3], [1], [2]], [[2], [3], [0]]], [[[1], [2], [3]], [[3], [0], [1]]], [[[2], [3], [0]], [[0], [1], [2]]], [[[3], [0], [1]], [[1], [2], [2]]]]> : tensor<4x2x3x1xi32>
    %g = "stablehlo.gather"(%operand, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [3], collapsed_slice_dims = [1], operand_batching_dims = [0, 2], start_indices_batching_dims = [1, 0], start_index_map = [1], index_vector_dim = 3>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1, 5>}> : (tensor<2x3x4x5xi32>, tensor<4x2x3x1xi32>) -> tensor<4x2x3x5xi32>
    check.expect_eq_const %g, dense<[[[[200, 201, 202, 203, 204], [100, 101, 102, 103, 104], [200, 201, 202, 203, 204]], [[1200, 1201, 1202, 1203, 1204], [1200, 1201, 1202, 1203, 1204], [1000, 1001, 1002, 1003, 1004]]], [[[110, 111, 112, 113, 114], [210, 211, 212, 213, 214], [210, 211, 212, 213, 214]], [[1210, 1211, 1212, 1213, 1214], [1010, 1011, 1012, 1013, 1014], [1110, 1111, 1112, 1113, 1114]]], [[[220, 221, 222, 223, 224], [220, 221, 222, 223, 224], [20, 21, 22, 23, 24]], [[1020, 1021, 1022, 1023, 1024], [1120, 1121, 1122, 1123, 1124], [1220, 1221, 1222, 1223, 1224]]], [[[230, 231, 232, 233, 234], [30, 31, 32, 33, 34], [130, 131, 132, 133, 134]], [[1130, 1131, 1132, 1133, 1134], [1230, 1231, 1232, 1233, 1234], [1230, 1231, 1232, 1233, 1234]]]]> : tensor<4x2x3x5xi32>
    %input = stablehlo.constant dense<[[[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23]], [[100, 101, 102, 103], [110, 111, 112, 113], [120, 121, 122, 123]]]> : tensor<2x3x4xi32>
    %sidx = stablehlo.constant dense<[[0, 1], [3, 0], [1, -1], [0, 1]]> : tensor<4x2xi32>
    %upd = stablehlo.constant dense<[[1001, 1002], [2001, 2002], [3001, 3002], [4001, 4002]]> : tensor<4x2xi32>
    %s = "stablehlo.scatter"(%input, %sidx, %upd) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0, 2], scatter_indices_batching_dims = [1, 0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %sum = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %sum : tensor<i32>
    }) : (tensor<2x3x4xi32>, tensor<4x2xi32>, tensor<4x2xi32>) -> tensor<2x3x4xi32>
    check.expect_eq_const %s, dense<[[[1001, 1, 2, 4004], [10, 11, 3013, 13], [20, 21, 22, 23]], [[100, 2103, 102, 103], [1112, 111, 112, 4115], [120, 121, 122, 123]]]> : tensor<2x3x4xi32>
    func.return
  }
  // chlo.scan as xlet::scan (no pass; the same cases as chlo_legalize.mlir's, there as while loops):
  // two inputs and two carries along dimension 1 (a carry init of the slice shape, splat and
  // broadcast constants in the body), a reverse scan with an i1 output, a scan of carries only
  func.func @scans() {
    %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %y = stablehlo.constant dense<[[2, 3, 4], [-1, 5, 2]]> : tensor<2x3xi32>
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
    } : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2xf32>, tensor<2xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2xf32>, tensor<2xi32>)
    check.expect_eq_const %s#0, dense<[[1.0, 2.5, 4.25], [9.0, 9.5, 10.75]]> : tensor<2x3xf32>
    check.expect_eq_const %s#1, dense<[[3, 10, 41], [0, 1, 3]]> : tensor<2x3xi32>
    check.expect_eq_const %s#2, dense<[4.25, 10.75]> : tensor<2xf32>
    check.expect_eq_const %s#3, dense<[41, 3]> : tensor<2xi32>
    %v = stablehlo.constant dense<[1.0, 2.0, 0.5, 3.0, 1.0]> : tensor<5xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %h:3 = chlo.scan(%v) inits (%z) dimension=0 attributes {is_reverse = true} {
    ^bb0(%ve: tensor<f32>, %c: tensor<f32>):
      %two = stablehlo.constant dense<2.0> : tensor<f32>
      %ten = stablehlo.constant dense<10.0> : tensor<f32>
      %c2 = stablehlo.multiply %c, %two : tensor<f32>
      %n = stablehlo.add %c2, %ve : tensor<f32>
      %big = stablehlo.compare GT, %n, %ten : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %big, %n, %n : tensor<i1>, tensor<f32>, tensor<f32>
    } : (tensor<5xf32>, tensor<f32>) -> (tensor<5xi1>, tensor<5xf32>, tensor<f32>)
    check.expect_eq_const %h#0, dense<[true, true, true, false, false]> : tensor<5xi1>
    check.expect_eq_const %h#1, dense<[47.0, 23.0, 10.5, 5.0, 1.0]> : tensor<5xf32>
    check.expect_eq_const %h#2, dense<47.0> : tensor<f32>
    %w = stablehlo.constant dense<[[1, 2], [3, 4], [5, -6]]> : tensor<3x2xi32>
    %w0 = stablehlo.constant dense<[100, 0]> : tensor<2xi32>
    %sum = chlo.scan(%w) inits (%w0) dimension=0 attributes {is_associative = true} {
    ^bb0(%we: tensor<2xi32>, %acc: tensor<2xi32>):
      %t = stablehlo.add %acc, %we : tensor<2xi32>
      stablehlo.return %t : tensor<2xi32>
    } : (tensor<3x2xi32>, tensor<2xi32>) -> tensor<2xi32>
    check.expect_eq_const %sum, dense<[109, 0]> : tensor<2xi32>
    func.return
  }
}
