// xlet-translate: --stablehlo-compatibility-expander=target=1.0.0
// stablehlo-compatibility-expander for StableHLO 1.0.0: gather and scatter with batching dims
// (1.1.0) become ones without (an iota per batching dim concatenated to the indices), tan (1.4.0)
// becomes sine / cosine, complex tan (tan a + i tanh b) / (1 - i tan a tanh b). The expected
// values were computed in Python (loops over the spec's formulas; cmath / math for tan); the same
// gather and scatter, not expanded, are checked against the same values in heavy_ops.mlir
// (@batching_dims).
module @compatibility_expander {
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
  func.func @tan() {
    %z_f32 = stablehlo.constant dense<[(0.5, 0.25), (-1.0, 2.0), (0.0, 0.0), (1.5, -0.5), (3.0, 0.00100000005), (-0.25, -20.0)]> : tensor<6xcomplex<f32>>
    %tz_f32 = stablehlo.tan %z_f32 : tensor<6xcomplex<f32>>
    check.expect_almost_eq_const %tz_f32, dense<[(0.504500687, 0.312420696), (-0.0338128246, 1.01479363), (0.0, 0.0), (0.255149215, -2.12479901), (-0.1425464, 0.00102031918), (-4.07353902e-18, -1.0)]> : tensor<6xcomplex<f32>>, tolerance = 1.0e-6
    %x_f32 = stablehlo.constant dense<[0.5, -1.0, 0.0, 1.5, 3.0, -0.25]> : tensor<6xf32>
    %tx_f32 = stablehlo.tan %x_f32 : tensor<6xf32>
    %want_f32 = stablehlo.constant dense<[0.546302497, -1.55740774, 0.0, 14.1014204, -0.142546549, -0.255341917]> : tensor<6xf32>
    check.expect_close %tx_f32, %want_f32, max_ulp_difference = 2 : tensor<6xf32>, tensor<6xf32>
    %z_f64 = stablehlo.constant dense<[(0.5, 0.25), (-1.0, 2.0), (0.0, 0.0), (1.5, -0.5), (3.0, 0.001), (-0.25, -20.0)]> : tensor<6xcomplex<f64>>
    %tz_f64 = stablehlo.tan %z_f64 : tensor<6xcomplex<f64>>
    check.expect_almost_eq_const %tz_f64, dense<[(0.504500702698564, 0.31242069250258875), (-0.0338128260798967, 1.0147936161466335), (0.0, 0.0), (0.2551492218136518, -2.124799127742997), (-0.14254639763135776, 0.0010203191561036788), (-4.073539054049255e-18, -1.0)]> : tensor<6xcomplex<f64>>, tolerance = 1.0e-14
    %x_f64 = stablehlo.constant dense<[0.5, -1.0, 0.0, 1.5, 3.0, -0.25]> : tensor<6xf64>
    %tx_f64 = stablehlo.tan %x_f64 : tensor<6xf64>
    %want_f64 = stablehlo.constant dense<[0.5463024898437905, -1.5574077246549023, 0.0, 14.101419947171719, -0.1425465430742778, -0.25534192122103627]> : tensor<6xf64>
    check.expect_close %tx_f64, %want_f64, max_ulp_difference = 2 : tensor<6xf64>, tensor<6xf64>
    func.return
  }
}
