#include "runtime/passes/passes.h"

namespace nee {

void optimize_graph(Graph& graph, const GraphOptions& options) {
  remove_identity(graph, options.remove_same_type_casts, options.remove_whole_slices);
  if (options.quantize_pairs_as_elementwise) {
    quantize_pairs_as_elementwise(graph, options.pack_matmul_weights && options.quantize_matmul_activations,
                                  options.quantize_conv_activations, options.convs_read_shared_pairs);
  }
  // Before the conv and matmul fusions, which take the Convs and MatMuls it makes.
  if (options.quantize_matmul_weights) integer_products_as_float(graph);
  fold_zero_pads(graph, options.fold_pads_into_convs);
  if (options.means_as_global_pools) means_as_global_pools(graph);
  transpose_as_reshape(graph);
  if (options.compose_transposes) lower_depth_space(graph);
  lower_conv_transpose(graph, options.lower_1d_conv_transposes);
  if (options.drop_padding_taps) drop_padding_taps(graph);
  fuse_conv(graph);
  lower_1d_to_rows(graph);
  lower_3d_to_frames(graph);
  if (options.split_conv_channels) split_conv_channels(graph);
  lower_recurrent(graph);
  einsum_as_matmul(graph);
  fuse_gemm(graph);
  convert_matmul(graph);
  fold_matmul_scale(graph);
  fuse_matmul_add(graph);
  fold_matmul_scale(graph);
  fuse_matmul_relu(graph);
  fuse_matmul_gelu(graph);
  // After the bias, scale and activation fusions, whose NeeMatMul it takes.
  if (options.fold_transposes_into_products) fold_transposes_into_products(graph);
  // After the bias fusion, whose bias it scales; before batch_norm_as_mul_add.
  if (options.fold_batch_norms_into_products) fold_batch_norms_into_products(graph);
  // Before fuse_elementwise, which would otherwise take the chain's Sub, Pow, Sqrt and Div.
  fuse_layer_norm(graph, options.fuse_rms_norms);
  if (options.fuse_group_norms) fuse_group_norm(graph);
  // After the GELU and layer-norm fusions: GELU's closing Mul by 0.5 feeds the next matmul.
  if (options.fold_operand_scales) fold_matmul_operand_scales(graph);
  if (options.block_elementwise) batch_norm_as_mul_add(graph, options.batch_norms_of_matrices);
  // Before fuse_elementwise, which would fuse the pair's steps into one kernel.
  if (options.requantize_conv_outputs) requantize_conv_outputs(graph);
  fuse_elementwise(graph);
  if (options.elementwise_over_rows) elementwise_over_rows(graph, options.group_norms_over_rows);
  if (options.split_matmul_columns) split_matmul_columns(graph);
  if (options.fold_matmul_batch) fold_matmul_batch(graph);
  if (options.fuse_attention) {
    fuse_attention(graph, options.fuse_attention_over_heads, options.attention_through_head_transposes);
  }
  if (options.pad_channels) pad_channels(graph);
  if (options.widen_conv_groups || options.merge_conv_groups) {
    widen_conv_groups(graph, options.widen_conv_groups, options.merge_conv_groups, options.record_group_widths);
  }
  if (options.quantize_conv_activations) quantize_conv_activations(graph);
  pack_conv_weights(graph, options.block_grouped_convs);
  if (options.pack_matmul_weights && options.quantize_matmul_activations) quantize_matmul_activations(graph);
  if (options.pack_matmul_weights && options.quantize_matmul_weights) quantize_matmul_weights(graph);
  if (options.pack_matmul_weights) pack_matmul_weights(graph, options.pad_matmul_panels);
  if (options.fold_channel_gates) fold_channel_gates(graph);
  if (options.block_activations) block_activations(graph, options);
  if (options.compose_transposes) compose_transposes(graph);
  // After the layouts are chosen, whose NeeGroupNorm and NeeElementwise it takes as they are.
  if (options.group_norm_affine_into_elementwise) group_norm_affine_into_elementwise(graph);
  if (options.winograd) use_winograd(graph, options.winograd_weight_bound);
  if (options.convs_read_frames) convs_read_frames(graph);
  graph.forget_origins();
}

}  // namespace nee
