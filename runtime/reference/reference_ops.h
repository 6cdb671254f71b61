#pragma once
#include "runtime/reference/reference_kernel.h"

namespace nee {

// Factories of the reference kernels, one per op; each file holds an op family.
ReferenceFn make_reference_add(const Graph&, const Node&);      // elementwise_binary.cpp
ReferenceFn make_reference_sub(const Graph&, const Node&);
ReferenceFn make_reference_mul(const Graph&, const Node&);
ReferenceFn make_reference_div(const Graph&, const Node&);
ReferenceFn make_reference_pow(const Graph&, const Node&);
ReferenceFn make_reference_min(const Graph&, const Node&);
ReferenceFn make_reference_max(const Graph&, const Node&);
ReferenceFn make_reference_sum(const Graph&, const Node&);
ReferenceFn make_reference_relu(const Graph&, const Node&);     // elementwise_unary.cpp
ReferenceFn make_reference_sigmoid(const Graph&, const Node&);
ReferenceFn make_reference_tanh(const Graph&, const Node&);
ReferenceFn make_reference_sqrt(const Graph&, const Node&);
ReferenceFn make_reference_exp(const Graph&, const Node&);
ReferenceFn make_reference_log(const Graph&, const Node&);
ReferenceFn make_reference_erf(const Graph&, const Node&);
ReferenceFn make_reference_reciprocal(const Graph&, const Node&);
ReferenceFn make_reference_neg(const Graph&, const Node&);
ReferenceFn make_reference_abs(const Graph&, const Node&);
ReferenceFn make_reference_leaky_relu(const Graph&, const Node&);
ReferenceFn make_reference_hard_sigmoid(const Graph&, const Node&);
ReferenceFn make_reference_hard_swish(const Graph&, const Node&);
ReferenceFn make_reference_clip(const Graph&, const Node&);
ReferenceFn make_reference_sign(const Graph&, const Node&);
ReferenceFn make_reference_shrink(const Graph&, const Node&);
// float_math.cpp: trigonometric, hyperbolic, rounding and smooth activations on f32
// (one factory, the function chosen by the node's op), IsInf and IsNaN.
ReferenceFn make_reference_float_math(const Graph&, const Node&);
ReferenceFn make_reference_is_inf(const Graph&, const Node&);
ReferenceFn make_reference_is_nan(const Graph&, const Node&);
ReferenceFn make_reference_mod(const Graph&, const Node&);  // elementwise_binary.cpp
ReferenceFn make_reference_prelu(const Graph&, const Node&);
ReferenceFn make_reference_bit_shift(const Graph&, const Node&);
ReferenceFn make_reference_mean(const Graph&, const Node&);
ReferenceFn make_reference_equal(const Graph&, const Node&);    // logical.cpp
ReferenceFn make_reference_less(const Graph&, const Node&);
ReferenceFn make_reference_less_or_equal(const Graph&, const Node&);
ReferenceFn make_reference_greater(const Graph&, const Node&);
ReferenceFn make_reference_greater_or_equal(const Graph&, const Node&);
ReferenceFn make_reference_and(const Graph&, const Node&);
ReferenceFn make_reference_or(const Graph&, const Node&);
ReferenceFn make_reference_xor(const Graph&, const Node&);
ReferenceFn make_reference_not(const Graph&, const Node&);
ReferenceFn make_reference_bitwise(const Graph&, const Node&);  // BitwiseAnd Or Xor Not
ReferenceFn make_reference_where(const Graph&, const Node&);
ReferenceFn make_reference_cast(const Graph&, const Node&);     // cast.cpp
ReferenceFn make_reference_bit_cast(const Graph&, const Node&);  // cast.cpp
ReferenceFn make_reference_log_softmax(const Graph&, const Node&);  // softmax.cpp
ReferenceFn make_reference_layer_normalization(const Graph&, const Node&);  // normalization.cpp
ReferenceFn make_reference_instance_normalization(const Graph&, const Node&);
ReferenceFn make_reference_mean_variance_normalization(const Graph&, const Node&);
ReferenceFn make_reference_lrn(const Graph&, const Node&);
ReferenceFn make_reference_reduce_sum(const Graph&, const Node&);  // reduction.cpp
ReferenceFn make_reference_reduce_mean(const Graph&, const Node&);
ReferenceFn make_reference_reduce_max(const Graph&, const Node&);
ReferenceFn make_reference_reduce_min(const Graph&, const Node&);
ReferenceFn make_reference_reduce_prod(const Graph&, const Node&);
ReferenceFn make_reference_reduce_l1(const Graph&, const Node&);
ReferenceFn make_reference_reduce_l2(const Graph&, const Node&);
ReferenceFn make_reference_reduce_sum_square(const Graph&, const Node&);
ReferenceFn make_reference_reduce_log_sum(const Graph&, const Node&);
ReferenceFn make_reference_reduce_log_sum_exp(const Graph&, const Node&);
ReferenceFn make_reference_argmax(const Graph&, const Node&);
ReferenceFn make_reference_argmin(const Graph&, const Node&);
ReferenceFn make_reference_cumulative(const Graph&, const Node&);  // CumSum CumProd
ReferenceFn make_reference_einsum(const Graph&, const Node&);  // einsum.cpp
ReferenceFn make_reference_recurrent(const Graph&, const Node&);  // recurrent.cpp: RNN GRU LSTM
ReferenceFn make_reference_lowered_recurrence(const Graph&, const Node&);  // recurrent.cpp: NeeRecurrence
ReferenceFn make_reference_quantize_linear(const Graph&, const Node&);  // quantization.cpp
ReferenceFn make_reference_dequantize_linear(const Graph&, const Node&);
ReferenceFn make_reference_dynamic_quantize_linear(const Graph&, const Node&);
ReferenceFn make_reference_matmul_integer(const Graph&, const Node&);
ReferenceFn make_reference_qlinear_matmul(const Graph&, const Node&);
ReferenceFn make_reference_top_k(const Graph&, const Node&);  // top_k.cpp
ReferenceFn make_reference_negative_log_likelihood_loss(const Graph&, const Node&);  // loss.cpp
ReferenceFn make_reference_softmax_cross_entropy_loss(const Graph&, const Node&);
ReferenceFn make_reference_matmul(const Graph&, const Node&);   // matmul.cpp
ReferenceFn make_reference_gemm(const Graph&, const Node&);
ReferenceFn make_reference_nee_matmul(const Graph&, const Node&);
ReferenceFn make_reference_nee_attention(const Graph&, const Node&);
ReferenceFn make_reference_view(const Graph&, const Node&);     // view.cpp: Reshape, Flatten, Identity
ReferenceFn make_reference_softmax(const Graph&, const Node&);  // softmax.cpp
ReferenceFn make_reference_hardmax(const Graph&, const Node&);
ReferenceFn make_reference_transpose(const Graph&, const Node&);  // transpose.cpp
ReferenceFn make_reference_concat(const Graph&, const Node&);   // concat.cpp
ReferenceFn make_reference_dropout(const Graph&, const Node&);  // view.cpp (also Squeeze, Unsqueeze)
ReferenceFn make_reference_slice(const Graph&, const Node&);    // slice.cpp
ReferenceFn make_reference_gather(const Graph&, const Node&);   // gather.cpp
ReferenceFn make_reference_gather_elements(const Graph&, const Node&);
ReferenceFn make_reference_scatter_elements(const Graph&, const Node&);  // indexing.cpp: ScatterElements Scatter
ReferenceFn make_reference_scatter_nd(const Graph&, const Node&);
ReferenceFn make_reference_gather_nd(const Graph&, const Node&);
ReferenceFn make_reference_one_hot(const Graph&, const Node&);
ReferenceFn make_reference_compress(const Graph&, const Node&);
ReferenceFn make_reference_non_zero(const Graph&, const Node&);
int64_t count_nonzero(const Tensor& data);  // NonZero's output length, for the importer
ReferenceFn make_reference_non_max_suppression(const Graph&, const Node&);  // non_max_suppression.cpp
ReferenceFn make_reference_grid_sample(const Graph&, const Node&);  // grid_sample.cpp
ReferenceFn make_reference_roi_align(const Graph&, const Node&);    // roi_align.cpp
ReferenceFn make_reference_unique(const Graph&, const Node&);       // unique.cpp
ReferenceFn make_reference_split(const Graph&, const Node&);    // split.cpp
ReferenceFn make_reference_expand(const Graph&, const Node&);   // expand_tile.cpp
ReferenceFn make_reference_tile(const Graph&, const Node&);
ReferenceFn make_reference_pad(const Graph&, const Node&);      // pad.cpp
ReferenceFn make_reference_shape(const Graph&, const Node&);    // shape_query.cpp
ReferenceFn make_reference_size(const Graph&, const Node&);
ReferenceFn make_reference_trilu(const Graph&, const Node&);     // matrix_layout.cpp
ReferenceFn make_reference_eye_like(const Graph&, const Node&);
ReferenceFn make_reference_depth_space(const Graph&, const Node&);  // DepthToSpace SpaceToDepth
ReferenceFn make_reference_constant_of_shape(const Graph&, const Node&);
ReferenceFn make_reference_range(const Graph&, const Node&);
ReferenceFn make_reference_resize(const Graph&, const Node&);   // resize.cpp
ReferenceFn make_reference_conv(const Graph&, const Node&);     // conv.cpp
// Conv's arithmetic over f32 N x C x spatial X, W and an optional bias (in[2]), shared
// by Conv, NeeConv and the conv2d family's reference.
struct Window3d;
ReferenceFn conv_kernel(const Window3d& window, int64_t batch, int64_t channels, int64_t out_channels,
                        int64_t group);
ReferenceFn make_reference_nee_conv(const Graph&, const Node&);  // nee_conv.cpp
ReferenceFn make_reference_nee_layout(const Graph&, const Node&);   // activation_layout.cpp
ReferenceFn make_reference_nee_frame_gather(const Graph&, const Node&);  // frame_gather.cpp
ReferenceFn make_reference_nee_group_norm(const Graph&, const Node&);    // group_norm.cpp
ReferenceFn make_reference_nee_group_norm_affine(const Graph&, const Node&);  // group_norm.cpp
ReferenceFn make_reference_nee_elementwise(const Graph&, const Node&);  // nee_elementwise.cpp
ReferenceFn make_reference_conv_transpose(const Graph&, const Node&);  // conv_transpose.cpp
ReferenceFn make_reference_conv_integer(const Graph&, const Node&);    // quantized_conv.cpp
// An integer NeeConv's sums (Conv2dAttrs::a_bits) as its kernel makes them, from f32 NCHW X
// and in[1..4] (the packed i8 weights, their multipliers and weight sums, X's scale and zero
// point): exact sums of bytes, the padding reading the zero point, less the zero point times
// the weight sum as in[2] holds it, times the multiplier; f32 NCHW, before the bias.
ReferenceFn integer_conv_kernel(const Window3d& window, int64_t batch, int64_t channels, int64_t out_channels);
ReferenceFn make_reference_qlinear_conv(const Graph&, const Node&);
ReferenceFn make_reference_max_pool(const Graph&, const Node&);  // pool.cpp
ReferenceFn make_reference_average_pool(const Graph&, const Node&);
ReferenceFn make_reference_global_average_pool(const Graph&, const Node&);
ReferenceFn make_reference_global_max_pool(const Graph&, const Node&);
ReferenceFn make_reference_batch_norm(const Graph&, const Node&);  // batch_norm.cpp
ReferenceFn make_reference_batch_norm_training(const Graph&, const Node&);  // batch_norm_training.cpp
ReferenceFn make_reference_window(const Graph&, const Node&);  // signal.cpp: HannWindow HammingWindow BlackmanWindow
ReferenceFn make_reference_dft(const Graph&, const Node&);
ReferenceFn make_reference_stft(const Graph&, const Node&);
ReferenceFn make_reference_mel_weight_matrix(const Graph&, const Node&);
ReferenceFn make_reference_det(const Graph&, const Node&);  // determinant.cpp
ReferenceFn make_reference_reverse_sequence(const Graph&, const Node&);  // reverse_sequence.cpp
ReferenceFn make_reference_tf_idf_vectorizer(const Graph&, const Node&);  // tf_idf_vectorizer.cpp
ReferenceFn make_reference_max_unpool(const Graph&, const Node&);  // max_unpool.cpp
ReferenceFn make_reference_col2im(const Graph&, const Node&);  // col2im.cpp
ReferenceFn make_reference_linear_attention(const Graph&, const Node&);  // linear_attention.cpp
ReferenceFn make_reference_string_normalizer(const Graph&, const Node&);  // string_normalizer.cpp

}  // namespace nee
