// The VHLO ops xlet-translate knows, as StableHLO's VHLO dialect defines them (VhloOps.td of
// openxla/stablehlo at version 1.20.0): each versioned op with the first and last StableHLO
// version it exists in and its inherent attributes. The printer writes an op's inherent
// attributes as MLIR properties (`<{...}>`); the VHLO passes take versions and attribute lists
// from here. VHLO is add-only: a change to an op is a new `_vN` op, the old one gets a last version.
#pragma once
#include <compare>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

namespace xlt::vhlo {

struct version {
    int major = 0, minor = 0, patch = 0;
    auto operator<=>(const version&) const = default;
    std::string str() const {
        return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    }
};

inline constexpr version current_version{1, 20, 0}; // stablehlo/dialect/Version.h: getCurrentVersion()
inline constexpr version minimum_version{0, 9, 0};  // getMinimumVersion(): the oldest VHLO

struct op_info {
    std::string_view name;  // vhlo.add_v1
    version since, until;   // inclusive; until == current_version: the op's current version
    std::string_view attrs; // its inherent attributes, space-separated
};

namespace detail {
inline constexpr version cur = current_version;
// One row per op of VhloOps.td; the ops whose version changed have a row per version.
inline constexpr op_info ops[] = {
    {"vhlo.abs_v1", {0, 9, 0}, cur, ""},
    {"vhlo.add_v1", {0, 9, 0}, cur, ""},
    {"vhlo.after_all_v1", {0, 9, 0}, cur, ""},
    {"vhlo.all_gather_v1", {0, 9, 0}, {1, 4, 0}, "all_gather_dim replica_groups channel_id use_global_device_ids"},
    {"vhlo.all_gather_v2", {1, 5, 0}, cur, "all_gather_dim replica_groups channel_id use_global_device_ids"},
    {"vhlo.all_reduce_v1", {0, 9, 0}, {1, 4, 0}, "replica_groups channel_id use_global_device_ids"},
    {"vhlo.all_reduce_v2", {1, 5, 0}, cur, "replica_groups channel_id use_global_device_ids"},
    {"vhlo.all_to_all_v1",
     {0, 9, 0},
     {1, 4, 0},
     "split_dimension concat_dimension split_count replica_groups channel_id"},
    {"vhlo.all_to_all_v2", {1, 5, 0}, cur, "split_dimension concat_dimension split_count replica_groups channel_id"},
    {"vhlo.and_v1", {0, 9, 0}, cur, ""},
    {"vhlo.async_start_v1", {1, 15, 0}, cur, ""},
    {"vhlo.async_done_v1", {1, 15, 0}, cur, ""},
    {"vhlo.atan2_v1", {0, 9, 0}, cur, ""},
    {"vhlo.batch_norm_grad_v1", {0, 9, 0}, cur, "epsilon feature_index"},
    {"vhlo.batch_norm_inference_v1", {0, 9, 0}, cur, "epsilon feature_index"},
    {"vhlo.batch_norm_training_v1", {0, 9, 0}, cur, "epsilon feature_index"},
    {"vhlo.bitcast_convert_v1", {0, 9, 0}, cur, ""},
    {"vhlo.broadcast_in_dim_v1", {0, 9, 0}, cur, "broadcast_dimensions"},
    {"vhlo.broadcast_v1", {0, 9, 0}, cur, "broadcast_sizes"},
    {"vhlo.call_v1", {0, 9, 0}, cur, "callee"},
    {"vhlo.case_v1", {0, 9, 0}, cur, ""},
    {"vhlo.cbrt_v1", {0, 9, 0}, {1, 9, 0}, ""},
    {"vhlo.cbrt_v2", {1, 10, 0}, cur, "result_accuracy"},
    {"vhlo.ceil_v1", {0, 9, 0}, cur, ""},
    {"vhlo.cholesky_v1", {0, 9, 0}, cur, "lower"},
    {"vhlo.clamp_v1", {0, 9, 0}, cur, ""},
    {"vhlo.count_leading_zeros_v1", {0, 9, 0}, cur, ""},
    {"vhlo.collective_broadcast_v1", {0, 16, 0}, {1, 19, 0}, "replica_groups channel_id"},
    {"vhlo.collective_broadcast_v2", {1, 20, 0}, cur, "replica_groups channel_id has_dynamic_root"},
    {"vhlo.collective_reduce_v1", {1, 19, 0}, cur, "replica_groups channel_id use_global_device_ids has_dynamic_root"},
    {"vhlo.collective_permute_v1", {0, 9, 0}, cur, "source_target_pairs channel_id"},
    {"vhlo.compare_v1", {0, 9, 0}, cur, "comparison_direction compare_type"},
    {"vhlo.complex_v1", {0, 9, 0}, cur, ""},
    {"vhlo.composite_v1", {0, 19, 0}, {1, 13, 0}, "name composite_attributes decomposition version"},
    {"vhlo.composite_v2", {1, 14, 0}, cur, "name composite_attributes decomposition version"},
    {"vhlo.concatenate_v1", {0, 9, 0}, cur, "dimension"},
    {"vhlo.constant_v1", {0, 9, 0}, cur, "value"},
    {"vhlo.convert_v1", {0, 9, 0}, cur, ""},
    {"vhlo.convolution_v1",
     {0, 9, 0},
     cur,
     "window_strides padding lhs_dilation rhs_dilation window_reversal input_batch_dimension input_feature_dimension "
     "input_spatial_dimensions kernel_input_feature_dimension kernel_output_feature_dimension "
     "kernel_spatial_dimensions output_batch_dimension output_feature_dimension output_spatial_dimensions "
     "feature_group_count batch_group_count precision_config"},
    {"vhlo.cosine_v1", {0, 9, 0}, {1, 9, 0}, ""},
    {"vhlo.cosine_v2", {1, 10, 0}, cur, "result_accuracy"},
    {"vhlo.create_token_v1", {0, 9, 0}, cur, ""},
    {"vhlo.cross-replica-sum_v1", {0, 9, 0}, cur, "replica_groups"},
    {"vhlo.custom_call_v1",
     {0, 9, 0},
     {1, 17, 0},
     "call_target_name has_side_effect backend_config api_version called_computations operand_layouts "
     "result_layouts output_operand_aliases"},
    {"vhlo.custom_call_v2",
     {1, 18, 0},
     cur,
     "call_target_name has_side_effect backend_config api_version called_computations operand_layouts "
     "result_layouts output_operand_aliases result_tilings"},
    {"vhlo.divide_v1", {0, 9, 0}, cur, ""},
    {"vhlo.dot_general_v1",
     {0, 9, 0},
     {1, 5, 0},
     "lhs_batching_dimensions rhs_batching_dimensions lhs_contracting_dimensions rhs_contracting_dimensions "
     "precision_config"},
    {"vhlo.dot_general_v2",
     {1, 6, 0},
     cur,
     "lhs_batching_dimensions rhs_batching_dimensions lhs_contracting_dimensions rhs_contracting_dimensions "
     "precision_config lhs_precision_type rhs_precision_type accumulation_type lhs_component_count "
     "rhs_component_count num_primitive_operations allow_imprecise_accumulation"},
    {"vhlo.dot_v1", {0, 9, 0}, cur, "precision_config"},
    {"vhlo.dynamic_broadcast_in_dim_v1",
     {0, 9, 0},
     cur,
     "broadcast_dimensions known_expanding_dimensions known_nonexpanding_dimensions"},
    {"vhlo.dynamic_conv_v1",
     {0, 9, 0},
     {0, 19, 0},
     "window_strides padding lhs_dilation rhs_dilation window_reversal input_batch_dimension input_feature_dimension "
     "input_spatial_dimensions kernel_input_feature_dimension kernel_output_feature_dimension "
     "kernel_spatial_dimensions output_batch_dimension output_feature_dimension output_spatial_dimensions "
     "feature_group_count batch_group_count precision_config"},
    {"vhlo.dynamic_conv_v2",
     {0, 20, 0},
     cur,
     "window_strides lhs_dilation rhs_dilation window_reversal input_batch_dimension input_feature_dimension "
     "input_spatial_dimensions kernel_input_feature_dimension kernel_output_feature_dimension "
     "kernel_spatial_dimensions output_batch_dimension output_feature_dimension output_spatial_dimensions "
     "feature_group_count batch_group_count precision_config"},
    {"vhlo.dynamic_gather_v1",
     {0, 9, 0},
     {1, 0, 0},
     "offset_dims collapsed_slice_dims start_index_map index_vector_dim indices_are_sorted"},
    {"vhlo.dynamic_gather_v2",
     {1, 1, 0},
     cur,
     "offset_dims collapsed_slice_dims operand_batching_dims start_indices_batching_dims start_index_map "
     "index_vector_dim indices_are_sorted"},
    {"vhlo.dynamic_iota_v1", {0, 9, 0}, cur, "iota_dimension"},
    {"vhlo.dynamic_pad_v1", {0, 9, 0}, cur, ""},
    {"vhlo.dynamic_reshape_v1", {0, 9, 0}, cur, ""},
    {"vhlo.dynamic_slice_v1", {0, 9, 0}, cur, "slice_sizes"},
    {"vhlo.dynamic_update_slice_v1", {0, 9, 0}, cur, ""},
    {"vhlo.einsum_v1", {0, 9, 0}, cur, "einsum_config"},
    {"vhlo.exponential_minus_one_v1", {0, 9, 0}, {1, 9, 0}, ""},
    {"vhlo.exponential_minus_one_v2", {1, 10, 0}, cur, "result_accuracy"},
    {"vhlo.exponential_v1", {0, 9, 0}, {1, 8, 0}, ""},
    {"vhlo.exponential_v2", {1, 9, 0}, cur, "result_accuracy"},
    {"vhlo.fft_v1", {0, 9, 0}, cur, "fft_type fft_length"},
    {"vhlo.floor_v1", {0, 9, 0}, cur, ""},
    {"vhlo.func_v1", {0, 9, 0}, cur, "sym_name function_type sym_visibility arg_attrs res_attrs"},
    {"vhlo.gather_v1",
     {0, 9, 0},
     {1, 0, 0},
     "offset_dims collapsed_slice_dims start_index_map index_vector_dim slice_sizes indices_are_sorted"},
    {"vhlo.gather_v2",
     {1, 1, 0},
     cur,
     "offset_dims collapsed_slice_dims operand_batching_dims start_indices_batching_dims start_index_map "
     "index_vector_dim slice_sizes indices_are_sorted"},
    {"vhlo.get_dimension_size_v1", {0, 9, 0}, cur, "dimension"},
    {"vhlo.get_tuple_element_v1", {0, 9, 0}, cur, "index"},
    {"vhlo.if_v1", {0, 9, 0}, cur, ""},
    {"vhlo.imag_v1", {0, 9, 0}, cur, ""},
    {"vhlo.infeed_v1", {0, 9, 0}, cur, "infeed_config layout"},
    {"vhlo.iota_v1", {0, 9, 0}, cur, "iota_dimension"},
    {"vhlo.is_finite_v1", {0, 9, 0}, cur, ""},
    {"vhlo.log_plus_one_v1", {0, 9, 0}, {1, 9, 0}, ""},
    {"vhlo.log_plus_one_v2", {1, 10, 0}, cur, "result_accuracy"},
    {"vhlo.logistic_v1", {0, 9, 0}, {1, 9, 0}, ""},
    {"vhlo.logistic_v2", {1, 10, 0}, cur, "result_accuracy"},
    {"vhlo.log_v1", {0, 9, 0}, {1, 9, 0}, ""},
    {"vhlo.log_v2", {1, 10, 0}, cur, "result_accuracy"},
    {"vhlo.map_v1", {0, 9, 0}, cur, "dimensions"},
    {"vhlo.maximum_v1", {0, 9, 0}, cur, ""},
    {"vhlo.minimum_v1", {0, 9, 0}, cur, ""},
    {"vhlo.multiply_v1", {0, 9, 0}, cur, ""},
    {"vhlo.negate_v1", {0, 9, 0}, cur, ""},
    {"vhlo.not_v1", {0, 9, 0}, cur, ""},
    {"vhlo.optimization_barrier_v1", {0, 9, 0}, cur, ""},
    {"vhlo.or_v1", {0, 9, 0}, cur, ""},
    {"vhlo.outfeed_v1", {0, 9, 0}, cur, "outfeed_config"},
    {"vhlo.pad_v1", {0, 9, 0}, cur, "edge_padding_low edge_padding_high interior_padding"},
    {"vhlo.partition_id_v1", {0, 9, 0}, cur, ""},
    {"vhlo.popcnt_v1", {0, 9, 0}, cur, ""},
    {"vhlo.power_v1", {0, 9, 0}, cur, ""},
    {"vhlo.real_dynamic_slice_v1", {0, 9, 0}, cur, ""},
    {"vhlo.real_v1", {0, 9, 0}, cur, ""},
    {"vhlo.recv_v1", {0, 9, 0}, {1, 11, 0}, "channel_id channel_type is_host_transfer"},
    {"vhlo.recv_v2", {1, 12, 0}, cur, "channel_id channel_type is_host_transfer source_target_pairs"},
    {"vhlo.reduce_v1", {0, 9, 0}, cur, "dimensions"},
    {"vhlo.reduce_precision_v1", {0, 9, 0}, cur, "exponent_bits mantissa_bits"},
    {"vhlo.reduce_scatter_v1", {0, 9, 0}, cur, "scatter_dimension replica_groups channel_id use_global_device_ids"},
    {"vhlo.reduce_window_v1",
     {0, 9, 0},
     cur,
     "window_dimensions window_strides base_dilations window_dilations padding"},
    {"vhlo.remainder_v1", {0, 9, 0}, cur, ""},
    {"vhlo.replica_id_v1", {0, 9, 0}, cur, ""},
    {"vhlo.reshape_v1", {0, 9, 0}, cur, ""},
    {"vhlo.return_v1", {0, 9, 0}, cur, ""},
    {"vhlo.reverse_v1", {0, 9, 0}, cur, "dimensions"},
    {"vhlo.rng_bit_generator_v1", {0, 9, 0}, cur, "rng_algorithm"},
    {"vhlo.rng_v1", {0, 9, 0}, cur, "rng_distribution"},
    {"vhlo.round_nearest_even_v1", {0, 9, 0}, cur, ""},
    {"vhlo.round_nearest_afz_v1", {0, 9, 0}, cur, ""},
    {"vhlo.rsqrt_v1", {0, 9, 0}, {1, 9, 0}, ""},
    {"vhlo.rsqrt_v2", {1, 10, 0}, cur, "result_accuracy"},
    {"vhlo.scatter_v1",
     {0, 9, 0},
     {1, 0, 0},
     "update_window_dims inserted_window_dims scatter_dims_to_operand_dims index_vector_dim indices_are_sorted "
     "unique_indices"},
    {"vhlo.scatter_v2",
     {1, 1, 0},
     cur,
     "update_window_dims inserted_window_dims input_batching_dims scatter_indices_batching_dims "
     "scatter_dims_to_operand_dims index_vector_dim indices_are_sorted unique_indices"},
    {"vhlo.select_and_scatter_v1", {0, 9, 0}, cur, "window_dimensions window_strides padding"},
    {"vhlo.select_v1", {0, 9, 0}, cur, ""},
    {"vhlo.send_v1", {0, 9, 0}, {1, 11, 0}, "channel_id channel_type is_host_transfer"},
    {"vhlo.send_v2", {1, 12, 0}, cur, "channel_id channel_type is_host_transfer source_target_pairs"},
    {"vhlo.set_dimension_size_v1", {0, 9, 0}, cur, "dimension"},
    {"vhlo.shift_left_v1", {0, 9, 0}, cur, ""},
    {"vhlo.shift_right_arithmetic_v1", {0, 9, 0}, cur, ""},
    {"vhlo.shift_right_logical_v1", {0, 9, 0}, cur, ""},
    {"vhlo.sign_v1", {0, 9, 0}, cur, ""},
    {"vhlo.sine_v1", {0, 9, 0}, {1, 9, 0}, ""},
    {"vhlo.sine_v2", {1, 10, 0}, cur, "result_accuracy"},
    {"vhlo.slice_v1", {0, 9, 0}, cur, "start_indices limit_indices strides"},
    {"vhlo.sort_v1", {0, 9, 0}, cur, "dimension is_stable"},
    {"vhlo.sqrt_v1", {0, 9, 0}, {1, 9, 0}, ""},
    {"vhlo.sqrt_v2", {1, 10, 0}, cur, "result_accuracy"},
    {"vhlo.subtract_v1", {0, 9, 0}, cur, ""},
    {"vhlo.tan_v1", {1, 4, 0}, {1, 9, 0}, ""},
    {"vhlo.tan_v2", {1, 10, 0}, cur, "result_accuracy"},
    {"vhlo.tanh_v1", {0, 9, 0}, {1, 9, 0}, ""},
    {"vhlo.tanh_v2", {1, 10, 0}, cur, "result_accuracy"},
    {"vhlo.torch_index_select_v1", {0, 9, 0}, cur, "dim batch_dims"},
    {"vhlo.transpose_v1", {0, 9, 0}, cur, "permutation"},
    {"vhlo.triangular_solve_v1", {0, 9, 0}, cur, "left_side lower unit_diagonal transpose_a"},
    {"vhlo.tuple_v1", {0, 9, 0}, cur, ""},
    {"vhlo.unary_einsum_v1", {0, 9, 0}, cur, "einsum_config"},
    {"vhlo.uniform_dequantize_v1", {0, 9, 0}, cur, ""},
    {"vhlo.uniform_quantize_v1", {0, 9, 0}, cur, ""},
    {"vhlo.while_v1", {0, 9, 0}, cur, ""},
    {"vhlo.xor_v1", {0, 9, 0}, cur, ""},
};
} // namespace detail

// The row of a VHLO op (vhlo.add_v1), or nullptr.
inline const op_info* find_op(std::string_view name) {
    for (const op_info& o : detail::ops)
        if (o.name == name) return &o;
    return nullptr;
}

// All rows, for walking the versions of one op.
inline constexpr const op_info* begin_ops() { return std::begin(detail::ops); }
inline constexpr const op_info* end_ops() { return std::end(detail::ops); }

// vhlo.exponential_v2 -> ("vhlo.exponential", 2); n = 0 when the name has no _vN suffix.
inline std::pair<std::string_view, int> split_version(std::string_view name) {
    auto p = name.rfind("_v");
    if (p == std::string_view::npos || p + 2 >= name.size()) return {name, 0};
    int n = 0;
    for (std::size_t i = p + 2; i < name.size(); ++i) {
        char c = name[i];
        if (c < '0' || c > '9' || n > 1000) return {name, 0};
        n = n * 10 + (c - '0');
    }
    return {name.substr(0, p), n};
}

// Whether `attr` is one of the op's inherent attributes (printed in `<{...}>`).
inline bool is_inherent(const op_info& o, std::string_view attr) {
    std::string_view s = o.attrs;
    while (!s.empty()) {
        auto sp = s.find(' ');
        if (s.substr(0, sp) == attr) return true;
        if (sp == std::string_view::npos) break;
        s.remove_prefix(sp + 1);
    }
    return false;
}

} // namespace xlt::vhlo
