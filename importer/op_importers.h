#pragma once
#include "importer/op_importer.h"

namespace nee {

// One import function per operator; each file in ops/ holds an operator family.
std::vector<TensorType> import_matmul(const ImportContext&, Node&);     // ops/matmul.cpp
std::vector<TensorType> import_gemm(const ImportContext&, Node&);
std::vector<TensorType> import_einsum(const ImportContext&, Node&);  // ops/einsum.cpp
std::vector<TensorType> import_recurrent(const ImportContext&, Node&);  // ops/recurrent.cpp: RNN GRU LSTM
std::vector<TensorType> import_quantize_linear(const ImportContext&, Node&);  // ops/quantization.cpp
std::vector<TensorType> import_dequantize_linear(const ImportContext&, Node&);
std::vector<TensorType> import_dynamic_quantize_linear(const ImportContext&, Node&);
std::vector<TensorType> import_matmul_integer(const ImportContext&, Node&);
std::vector<TensorType> import_qlinear_matmul(const ImportContext&, Node&);
std::vector<TensorType> import_binary_arithmetic(const ImportContext&, Node&);  // ops/elementwise.cpp: Add Sub Mul Div
std::vector<TensorType> import_pow(const ImportContext&, Node&);
std::vector<TensorType> import_variadic_arithmetic(const ImportContext&, Node&);  // Min Max Sum Mean
std::vector<TensorType> import_mod(const ImportContext&, Node&);
std::vector<TensorType> import_prelu(const ImportContext&, Node&);
std::vector<TensorType> import_bit_shift(const ImportContext&, Node&);
std::vector<TensorType> import_relu(const ImportContext&, Node&);       // ops/math_unary.cpp
std::vector<TensorType> import_gelu(const ImportContext&, Node&);
std::vector<TensorType> import_float_unary(const ImportContext&, Node&);  // Sigmoid Tanh Sqrt Exp Log Erf Reciprocal HardSwish
std::vector<TensorType> import_neg(const ImportContext&, Node&);
std::vector<TensorType> import_numeric_unary(const ImportContext&, Node&);  // Abs Sign
std::vector<TensorType> import_shrink(const ImportContext&, Node&);
std::vector<TensorType> import_float_test(const ImportContext&, Node&);  // IsInf IsNaN
std::vector<TensorType> import_parametric_activation(const ImportContext&, Node&);  // LeakyRelu HardSigmoid Elu Selu Celu ThresholdedRelu
std::vector<TensorType> import_clip(const ImportContext&, Node&);
std::vector<TensorType> import_comparison(const ImportContext&, Node&);  // ops/logical.cpp: Equal Less Greater (OrEqual)
std::vector<TensorType> import_logical_binary(const ImportContext&, Node&);  // And Or Xor
std::vector<TensorType> import_not(const ImportContext&, Node&);
std::vector<TensorType> import_bitwise(const ImportContext&, Node&);  // BitwiseAnd Or Xor Not
std::vector<TensorType> import_where(const ImportContext&, Node&);
std::vector<TensorType> import_cast(const ImportContext&, Node&);       // ops/cast.cpp
std::vector<TensorType> import_bit_cast(const ImportContext&, Node&);   // ops/cast.cpp
std::vector<TensorType> import_cast_like(const ImportContext&, Node&);
std::vector<TensorType> import_layer_normalization(const ImportContext&, Node&);  // ops/normalization.cpp
std::vector<TensorType> import_rms_normalization(const ImportContext&, Node&);    // ops/normalization.cpp
std::vector<TensorType> import_instance_normalization(const ImportContext&, Node&);
std::vector<TensorType> import_lrn(const ImportContext&, Node&);
std::vector<TensorType> import_mean_variance_normalization(const ImportContext&, Node&);
std::vector<TensorType> import_reduce(const ImportContext&, Node&);     // ops/reduction.cpp: ReduceSum/Mean/Max/Min/Prod/L1/L2/SumSquare/LogSum/LogSumExp
std::vector<TensorType> import_arg_extreme(const ImportContext&, Node&);  // ArgMax ArgMin
std::vector<TensorType> import_cumulative(const ImportContext&, Node&);  // CumSum CumProd
std::vector<TensorType> import_top_k(const ImportContext&, Node&);  // ops/top_k.cpp
std::vector<TensorType> import_loss(const ImportContext&, Node&);  // ops/loss.cpp: NegativeLogLikelihoodLoss SoftmaxCrossEntropyLoss
std::vector<TensorType> import_identity(const ImportContext&, Node&);   // ops/shape.cpp
std::vector<TensorType> import_flatten(const ImportContext&, Node&);
std::vector<TensorType> import_reshape(const ImportContext&, Node&);
std::vector<TensorType> import_transpose(const ImportContext&, Node&);
std::vector<TensorType> import_concat(const ImportContext&, Node&);
std::vector<TensorType> import_squeeze(const ImportContext&, Node&);
std::vector<TensorType> import_unsqueeze(const ImportContext&, Node&);
std::vector<TensorType> import_dropout(const ImportContext&, Node&);
std::vector<TensorType> import_slice(const ImportContext&, Node&);     // ops/data_movement.cpp
std::vector<TensorType> import_gather(const ImportContext&, Node&);
std::vector<TensorType> import_gather_elements(const ImportContext&, Node&);
std::vector<TensorType> import_scatter_elements(const ImportContext&, Node&);  // ops/indexing.cpp: ScatterElements Scatter
std::vector<TensorType> import_scatter_nd(const ImportContext&, Node&);
std::vector<TensorType> import_gather_nd(const ImportContext&, Node&);
std::vector<TensorType> import_one_hot(const ImportContext&, Node&);
std::vector<TensorType> import_compress(const ImportContext&, Node&);
std::vector<TensorType> import_non_zero(const ImportContext&, Node&);
std::vector<TensorType> import_non_max_suppression(const ImportContext&, Node&);  // ops/detection.cpp
std::vector<TensorType> import_grid_sample(const ImportContext&, Node&);  // ops/sampling.cpp
std::vector<TensorType> import_roi_align(const ImportContext&, Node&);
std::vector<TensorType> import_unique(const ImportContext&, Node&);  // ops/unique.cpp
std::vector<TensorType> import_split(const ImportContext&, Node&);
std::vector<TensorType> import_expand(const ImportContext&, Node&);
std::vector<TensorType> import_tile(const ImportContext&, Node&);
std::vector<TensorType> import_pad(const ImportContext&, Node&);
std::vector<TensorType> import_shape(const ImportContext&, Node&);     // ops/shape_query.cpp
std::vector<TensorType> import_size(const ImportContext&, Node&);
std::vector<TensorType> import_trilu(const ImportContext&, Node&);      // ops/matrix_layout.cpp
std::vector<TensorType> import_eye_like(const ImportContext&, Node&);
std::vector<TensorType> import_depth_space(const ImportContext&, Node&);  // DepthToSpace SpaceToDepth
std::vector<TensorType> import_constant_of_shape(const ImportContext&, Node&);
std::vector<TensorType> import_range(const ImportContext&, Node&);
std::vector<TensorType> import_resize(const ImportContext&, Node&);    // ops/resize.cpp
std::vector<TensorType> import_upsample(const ImportContext&, Node&);
std::vector<TensorType> import_softmax(const ImportContext&, Node&);    // ops/softmax.cpp: Softmax LogSoftmax Hardmax
std::vector<TensorType> import_conv(const ImportContext&, Node&);       // ops/conv.cpp
std::vector<TensorType> import_conv_transpose(const ImportContext&, Node&);
std::vector<TensorType> import_conv_integer(const ImportContext&, Node&);
std::vector<TensorType> import_qlinear_conv(const ImportContext&, Node&);
std::vector<TensorType> import_max_pool(const ImportContext&, Node&);   // ops/pool.cpp
std::vector<TensorType> import_average_pool(const ImportContext&, Node&);
std::vector<TensorType> import_global_pool(const ImportContext&, Node&);  // GlobalAveragePool GlobalMaxPool
std::vector<TensorType> import_batch_norm(const ImportContext&, Node&);  // ops/batch_norm.cpp
std::vector<TensorType> import_window(const ImportContext&, Node&);  // ops/signal.cpp: HannWindow HammingWindow BlackmanWindow
std::vector<TensorType> import_dft(const ImportContext&, Node&);
std::vector<TensorType> import_stft(const ImportContext&, Node&);
std::vector<TensorType> import_mel_weight_matrix(const ImportContext&, Node&);
std::vector<TensorType> import_det(const ImportContext&, Node&);  // ops/linear_algebra.cpp
std::vector<TensorType> import_reverse_sequence(const ImportContext&, Node&);  // ops/reverse_sequence.cpp
std::vector<TensorType> import_tf_idf_vectorizer(const ImportContext&, Node&);  // ops/text.cpp
std::vector<TensorType> import_max_unpool(const ImportContext&, Node&);  // ops/unpool.cpp
std::vector<TensorType> import_col2im(const ImportContext&, Node&);  // ops/col2im.cpp
std::vector<TensorType> import_linear_attention(const ImportContext&, Node&);  // ops/linear_attention.cpp
std::vector<TensorType> import_string_normalizer(const ImportContext&, Node&);  // ops/string_normalizer.cpp

}  // namespace nee
