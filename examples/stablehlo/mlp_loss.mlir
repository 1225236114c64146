// The loss of examples/mlp_model.hpp (x f32[B,784] -> dense 512 + relu -> dense 10 -> mean softmax
// cross-entropy against integer labels), as jax.export prints it with a symbolic batch size B:
// shapes built from get_dimension_size, a private function taking B as a global constant.
// Translate it for a batch of 256:
//   xlet-translate --stablehlo-refine-arguments='types=tensor<256x784xf32>,tensor<784x512xf32>,tensor<512xf32>,tensor<512x10xf32>,tensor<10xf32>,tensor<256xi32>' --stablehlo-refine-shapes mlp_loss.mlir -o mlp_loss.hpp
module @jit_loss attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x784xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<784x512xf32> {mhlo.layout_mode = "default"}, %arg2: tensor<512xf32> {mhlo.layout_mode = "default"}, %arg3: tensor<512x10xf32> {mhlo.layout_mode = "default"}, %arg4: tensor<10xf32> {mhlo.layout_mode = "default"}, %arg5: tensor<?xi32> {mhlo.layout_mode = "default"}) -> (tensor<f32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x784xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %2 = call @_wrapped_jax_export_main(%1, %arg0, %arg1, %arg2, %arg3, %arg4, %arg5) : (tensor<i64>, tensor<?x784xf32>, tensor<784x512xf32>, tensor<512xf32>, tensor<512x10xf32>, tensor<10xf32>, tensor<?xi32>) -> tensor<f32>
    return %2 : tensor<f32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i64> {jax.global_constant = "B"}, %arg1: tensor<?x784xf32>, %arg2: tensor<784x512xf32>, %arg3: tensor<512xf32>, %arg4: tensor<512x10xf32>, %arg5: tensor<10xf32>, %arg6: tensor<?xi32>) -> tensor<f32> {
    %0 = stablehlo.dot_general %arg1, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<?x784xf32>, tensor<784x512xf32>) -> tensor<?x512xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
    %c = stablehlo.constant dense<512> : tensor<1xi64>
    %2 = stablehlo.concatenate %1, %c, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %3 = stablehlo.dynamic_broadcast_in_dim %arg3, %2, dims = [1] : (tensor<512xf32>, tensor<2xi64>) -> tensor<?x512xf32>
    %4 = stablehlo.add %0, %3 : tensor<?x512xf32>
    %5 = call @relu(%arg0, %4) : (tensor<i64>, tensor<?x512xf32>) -> tensor<?x512xf32>
    %6 = stablehlo.dot_general %5, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<?x512xf32>, tensor<512x10xf32>) -> tensor<?x10xf32>
    %c_0 = stablehlo.constant dense<10> : tensor<1xi64>
    %7 = stablehlo.concatenate %1, %c_0, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %8 = stablehlo.dynamic_broadcast_in_dim %arg5, %7, dims = [1] : (tensor<10xf32>, tensor<2xi64>) -> tensor<?x10xf32>
    %9 = stablehlo.add %6, %8 : tensor<?x10xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<?x10xf32>, tensor<f32>) -> tensor<?xf32>
    %11 = stablehlo.dynamic_broadcast_in_dim %10, %7, dims = [0] : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x10xf32>
    %12 = stablehlo.subtract %9, %11 : tensor<?x10xf32>
    %13 = stablehlo.exponential %12 : tensor<?x10xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.reduce(%13 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<?x10xf32>, tensor<f32>) -> tensor<?xf32>
    %15 = stablehlo.log %14 : tensor<?xf32>
    %16 = stablehlo.add %15, %10 : tensor<?xf32>
    %17 = stablehlo.dynamic_iota %7, dim = 1 : (tensor<2xi64>) -> tensor<?x10xi32>
    %18 = stablehlo.dynamic_broadcast_in_dim %arg6, %7, dims = [0] : (tensor<?xi32>, tensor<2xi64>) -> tensor<?x10xi32>
    %19 = stablehlo.compare  EQ, %17, %18,  SIGNED : (tensor<?x10xi32>, tensor<?x10xi32>) -> tensor<?x10xi1>
    %20 = stablehlo.dynamic_broadcast_in_dim %cst_1, %7, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x10xf32>
    %21 = stablehlo.select %19, %9, %20 : tensor<?x10xi1>, tensor<?x10xf32>
    %22 = stablehlo.reduce(%21 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<?x10xf32>, tensor<f32>) -> tensor<?xf32>
    %23 = stablehlo.subtract %16, %22 : tensor<?xf32>
    %24 = stablehlo.reduce(%23 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<?xf32>, tensor<f32>) -> tensor<f32>
    %25 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<f32>
    %26 = stablehlo.divide %24, %25 : tensor<f32>
    return %26 : tensor<f32>
  }
  func.func private @relu(%arg0: tensor<i64> {jax.global_constant = "B"}, %arg1: tensor<?x512xf32>) -> tensor<?x512xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
    %c = stablehlo.constant dense<512> : tensor<1xi64>
    %1 = stablehlo.concatenate %0, %c, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %2 = stablehlo.dynamic_broadcast_in_dim %cst, %1, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x512xf32>
    %3 = stablehlo.maximum %arg1, %2 : tensor<?x512xf32>
    return %3 : tensor<?x512xf32>
  }
}
