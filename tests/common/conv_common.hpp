// Shared by the convolution tests (tests/conv/conv_diff_test.cpp, tests/quant/quant_dot_test.cpp):
// a conv_config as the reference evaluator's conv_desc (tests/reference/reference_conv.hpp), its
// spatial dimension lists resolved as conv_dims defaults them (the library's own resolution).
#pragma once
#include <xlet/xlet.hpp>

#include "reference/reference_conv.hpp"

namespace ct {

template<xlet::conv_config C, class L, class R>
xlet_ref::conv_desc ref_desc() {
    using Rules = xlet::detail::conv_rules<C, L, R, void>;
    xlet_ref::conv_desc d;
    auto list = [](const xlet::dim_list& l) {
        xlet_ref::dims_t v;
        for (std::size_t i = 0; i < l.size(); ++i)
            v.push_back(l[i]);
        return v;
    };
    d.window_strides = list(C.window_strides);
    d.padding_low = list(C.padding_low);
    d.padding_high = list(C.padding_high);
    d.lhs_dilation = list(C.lhs_dilation);
    d.rhs_dilation = list(C.rhs_dilation);
    for (std::size_t i = 0; i < C.window_reversal.size(); ++i)
        d.window_reversal.push_back(C.window_reversal[i] == 1);
    const auto& D = C.dimension_numbers;
    d.input_batch_dimension = D.input_batch_dimension;
    d.input_feature_dimension = D.input_feature_dimension;
    d.input_spatial_dimensions = list(Rules::in.sp);
    d.kernel_input_feature_dimension = D.kernel_input_feature_dimension;
    d.kernel_output_feature_dimension = D.kernel_output_feature_dimension;
    d.kernel_spatial_dimensions = list(Rules::ker.sp);
    d.output_batch_dimension = D.output_batch_dimension;
    d.output_feature_dimension = D.output_feature_dimension;
    d.output_spatial_dimensions = list(Rules::out.sp);
    d.feature_group_count = C.feature_group_count;
    d.batch_group_count = C.batch_group_count;
    return d;
}

} // namespace ct
