#pragma once
#include <cstdint>

namespace nee {

// The narrowest groups nee-tune widens for CPUs (GraphOptions::widen_conv_groups). Measured
// on ResNeXt-50 (Intel Xeon, session 32, `nee-run --profile`, sums of per-node medians):
// from 4, its first stage's grouped convs took 1.15 ms for 0.70 (four times the FLOPs) and
// the 1x1 convs around them 3.57 for 4.33 (blocked on both sides), the model 31.1 ms to
// 31.6 from 8 and 32.6 without.
constexpr int64_t kWidenedGroupMinWidth = 4;
// The most groups GraphOptions::merge_conv_groups merges into one, which multiplies the
// conv's FLOPs by as much: as many as widening groups of 4 to 16 does.
constexpr int64_t kMostMergedGroups = 4;

// Graph rewrites that change which workloads a model has (their keys), so they are
// chosen per bundle: nee-tune extracts a model's workloads with them, the bundle's
// manifest records them, and a session prepares the graph with its bundle's, so every
// key it looks up is one the bundle was built for.
struct GraphOptions {
  // Keep activations channel-blocked between convolutions (passes.h:
  // block_activations); only CPU kernels schedule them.
  bool block_activations = false;
  // Fold batch dims over a shared B into rows (passes.h: fold_matmul_batch).
  bool fold_matmul_batch = true;
  // Run the convs that conv2d_winograd_tile picks as Winograd F(m x m, 3x3) over
  // transformed weights (passes.h: use_winograd); only CPU kernels schedule them.
  bool winograd = false;
  // With block_activations, MaxPool and AveragePool between blocked convs pool the blocked
  // tensor (passes.h: block_activations). A manifest from before it was recorded reads as
  // false, which is how those bundles were built.
  bool block_pools = false;
  // With block_activations, elementwise ops whose other operands are per channel or
  // scalar, and global pools, take blocked tensors too (passes.h: block_activations); a
  // manifest from before it was recorded reads as false.
  bool block_elementwise = false;
  // Grouped convs whose groups are whole blocks of 16 channels get blocked weights, and
  // with block_activations read and write blocked tensors (passes.h: pack_conv_weights);
  // a manifest from before it was recorded reads as false.
  bool block_grouped_convs = false;
  // Constant matmul weights are packed in 16-column panels (passes.h:
  // pack_matmul_weights); only CPU kernels schedule them. A manifest from before it was
  // recorded reads as false.
  bool pack_matmul_weights = false;
  // With pack_matmul_weights, a B whose columns are not a multiple of 16 (a classifier's
  // 1000) packs too, its last panel padded with zeros, which changes the product's
  // workload. A manifest from before it was recorded reads as false.
  bool pad_matmul_panels = false;
  // RMSNorm chains run as NeeLayerNorm with rms 1 (passes.h: fuse_layer_norm), which
  // changes the workloads around them. A manifest from before it was recorded reads as
  // false.
  bool fuse_rms_norms = false;
  // Casts to their input's own type are dropped (passes.h: remove_identity), which lets
  // the nodes around them fuse. A manifest from before it was recorded reads as false.
  bool remove_same_type_casts = false;
  // Scalings of a matmul's operands fold into its alpha (passes.h:
  // fold_matmul_operand_scales), and products read only by column Slices split
  // (split_matmul_columns). Manifests from before they were recorded read as false.
  bool fold_operand_scales = false;
  bool split_matmul_columns = false;
  // Attention's products and softmax run as one kernel (passes.h: fuse_attention); only
  // CPU kernels are scheduled for speed. A manifest from before it was recorded reads as
  // false.
  bool fuse_attention = false;
  // Conv outputs whose channels are not a multiple of 16 are widened to one with zero
  // weights, so they block like the others (passes.h: pad_channels); only CPU kernels
  // schedule blocked activations. A manifest from before it was recorded reads as false.
  bool pad_channels = false;
  // A per-channel gate scaling a conv's input scales the conv's weights instead, where
  // they are the smaller (passes.h: fold_channel_gates). A manifest from before it was
  // recorded reads as false.
  bool fold_channel_gates = false;
  // Grouped convs whose groups have at least this many channels (fewer than 16) run as
  // groups of 16 with zero weights between (passes.h: widen_conv_groups), which
  // block_grouped_convs blocks; 0 widens none. A manifest from before it was recorded
  // reads as 0.
  int64_t widen_conv_groups = 0;
  // Grouped convs whose groups are neither a divisor nor a multiple of 16 channels
  // (RegNet's 24) run with m = lcm(width, 16) / width neighbouring groups merged into one
  // of lcm(width, 16) channels, zero weights between (passes.h: widen_conv_groups), where
  // the groups divide by m and m is at most kMostMergedGroups. A manifest from before it
  // was recorded reads as false.
  bool merge_conv_groups = false;
  // torch's GroupNorm chains and InstanceNormalization run as NeeGroupNorm (passes.h:
  // fuse_group_norm), channel-blocked between blocked convs with block_activations. Both
  // change the workloads around them (the chain's Mul and Add leave its elementwise
  // neighbours; convs beside a blocked norm write blocked tensors). A manifest from before
  // it was recorded reads as false.
  bool fuse_group_norms = false;
  // Zero Pads before convs fold into the convs' padding (passes.h: fold_zero_pads), which
  // changes the convs' workloads. A manifest from before it was recorded reads as false.
  bool fold_pads_into_convs = false;
  // Convs whose outputs only channel Slices and Splits read split into one conv per range
  // (passes.h: split_conv_channels). A manifest from before it was recorded reads as false.
  bool split_conv_channels = false;
  // Elementwise ops between 1-D convs run over the convs' rows (passes.h:
  // elementwise_over_rows). A manifest from before it was recorded reads as false.
  bool elementwise_over_rows = false;
  // With block_activations, Pads of planes between blocked convs pad the blocked tensor
  // (passes.h: block_activations). A manifest from before it was recorded reads as false.
  bool block_pads = false;
  // 1-D ConvTransposes become a Conv and a depth-to-space as 2-D ones do (passes.h:
  // lower_conv_transpose). A manifest from before it was recorded reads as false.
  bool lower_1d_conv_transposes = false;
  // With elementwise_over_rows, group norms between 1-D convs run over the convs' rows too
  // (passes.h: elementwise_over_rows). A manifest from before it was recorded reads as
  // false.
  bool group_norms_over_rows = false;
  // Conv taps that read only padding for every output are dropped (passes.h:
  // drop_padding_taps), which changes the convs' workloads. A manifest from before it was
  // recorded reads as false.
  bool drop_padding_taps = false;
  // With block_activations, Resizes of planes between blocked convs resize the blocked
  // tensor (passes.h: block_activations). A manifest from before it was recorded reads as
  // false.
  bool block_resizes = false;
  // Convs over gathered frames read the frames in place (passes.h: convs_read_frames),
  // which changes their workloads. CPU kernels only. A manifest from before it was
  // recorded reads as false.
  bool convs_read_frames = false;
  // Convs of merged groups keep their groups' width (passes.h: widen_conv_groups; conv2d
  // group_width), which changes their workloads; the blocked CPU kernels then skip the
  // inputs a weight block never weighs. A manifest from before it was recorded reads as
  // false.
  bool record_group_widths = false;
  // ReduceMeans over H and W run as GlobalAveragePools (passes.h: means_as_global_pools),
  // which changes the workloads around them. A manifest from before it was recorded reads
  // as false.
  bool means_as_global_pools = false;
  // With winograd, convs whose transformed weights would exceed kWinogradWeightBound keep
  // direct sums (core/conv2d_workload.h: conv2d_winograd_tile), which changes their
  // workloads. A manifest from before it was recorded reads as false.
  bool winograd_weight_bound = false;
  // With block_activations and block_elementwise, a conv's output that only global pools
  // (and blocked readers) read is written blocked for the pools (passes.h:
  // block_activations), which changes the conv's workload. A manifest from before it was
  // recorded reads as false.
  bool block_global_pool_inputs = false;
  // With pack_matmul_weights, constant weights dequantized from 8- or 4-bit integers at
  // import stay integers in the products that read them (passes.h:
  // quantize_matmul_weights), and MatMulIntegers by constant weights run as such products
  // (integer_products_as_float; ConvIntegers run as Convs), which changes those products'
  // workloads. A manifest from before it was recorded reads as false.
  bool quantize_matmul_weights = false;
  // Activations quantized and dequantized again (QDQ models) run as f32 elementwise ops
  // (passes.h: quantize_pairs_as_elementwise), which changes the workloads around them. A
  // manifest from before it was recorded reads as false.
  bool quantize_pairs_as_elementwise = false;
  // With pack_matmul_weights, products of quantized activations by weights dequantized
  // from 8-bit integers run as integer products (passes.h: quantize_matmul_activations),
  // which changes their workloads. nee-tune sets it where the bundle's CPU has VNNI: a
  // 384x768x768 product of bytes ran 858 GOPS on Zen 4 with vpdpbusd, 200 without it
  // (AVX-512's vpmaddwd), where f32 runs at about 210. A manifest from before it was
  // recorded reads as false.
  bool quantize_matmul_activations = false;
  // Convs of quantized activations by weights dequantized from 8-bit integers run as integer
  // convs (passes.h: quantize_conv_activations), which changes their workloads; nee-tune sets
  // it with quantize_matmul_activations. A manifest from before it was recorded reads as false.
  bool quantize_conv_activations = false;
  // With quantize_pairs_as_elementwise, a pair that alone reads a conv's output runs in the
  // conv's epilogue (passes.h: requantize_conv_outputs), which changes the conv's workload.
  // A manifest from before it was recorded reads as false.
  bool requantize_conv_outputs = false;
  // With quantize_conv_activations, a conv reads a QDQ pair's output, not its x, where
  // something besides such convs reads that output (passes.h: quantize_pairs_as_elementwise):
  // the op that made x then runs with the pair in one kernel, which changes that kernel. A
  // manifest from before it was recorded reads as false.
  bool convs_read_shared_pairs = false;
  // block_activations converts between NCHW and blocked activations of 16k channels by a
  // Transpose between Reshape views (a bundle kernel), not a NeeLayout (a reference kernel),
  // which changes those nodes. A manifest from before it was recorded reads as false.
  bool layouts_as_transposes = false;
  // Chains of Transposes and views run as one Transpose (passes.h: compose_transposes),
  // which changes those nodes. A manifest from before it was recorded reads as false.
  bool compose_transposes = false;
  // Slices that keep every element in order are dropped (passes.h: remove_identity), which
  // changes their readers' inputs and so the layouts chosen around them. A manifest from
  // before it was recorded reads as false.
  bool remove_whole_slices = false;
  // BatchNormalization of f32 matrices [N, C] (LeViT's BatchNorm1d over its tokens) runs as
  // Mul and Add (passes.h: batch_norm_as_mul_add), which changes those nodes. A manifest
  // from before it was recorded reads as false.
  bool batch_norms_of_matrices = false;
  // Products of a transposed X by a constant, transposed back, run as the constant's
  // product from the left (passes.h: fold_transposes_into_products), which changes those
  // nodes. A manifest from before it was recorded reads as false.
  bool fold_transposes_into_products = false;
  // BatchNormalization of a product by a constant folds into it (passes.h:
  // fold_batch_norms_into_products), which changes those nodes. A manifest from before it
  // was recorded reads as false.
  bool fold_batch_norms_into_products = false;
  // A NeeGroupNorm read by an elementwise kernel leaves its affine step to it (passes.h:
  // group_norm_affine_into_elementwise), which changes those nodes. A manifest from before
  // it was recorded reads as false.
  bool group_norm_affine_into_elementwise = false;
  // With fuse_attention, also attention over [B, H, S, D] operands (passes.h:
  // fuse_attention), which changes those nodes. A manifest from before it was recorded
  // reads as false.
  bool fuse_attention_over_heads = false;
  // With fuse_attention_over_heads, attention at batch 1 read through the Transposes of its
  // heads, sequence-major (passes.h: fuse_attention), which changes those nodes. A manifest
  // from before it was recorded reads as false.
  bool attention_through_head_transposes = false;

  bool operator==(const GraphOptions& o) const {
    return block_activations == o.block_activations && fold_matmul_batch == o.fold_matmul_batch &&
           winograd == o.winograd && block_pools == o.block_pools &&
           block_elementwise == o.block_elementwise && block_grouped_convs == o.block_grouped_convs &&
           pack_matmul_weights == o.pack_matmul_weights && fold_operand_scales == o.fold_operand_scales &&
           split_matmul_columns == o.split_matmul_columns && fuse_attention == o.fuse_attention &&
           pad_channels == o.pad_channels && fold_channel_gates == o.fold_channel_gates &&
           widen_conv_groups == o.widen_conv_groups && merge_conv_groups == o.merge_conv_groups &&
           fuse_group_norms == o.fuse_group_norms && fold_pads_into_convs == o.fold_pads_into_convs &&
           split_conv_channels == o.split_conv_channels &&
           elementwise_over_rows == o.elementwise_over_rows && block_pads == o.block_pads &&
           lower_1d_conv_transposes == o.lower_1d_conv_transposes &&
           group_norms_over_rows == o.group_norms_over_rows && drop_padding_taps == o.drop_padding_taps &&
           block_resizes == o.block_resizes && convs_read_frames == o.convs_read_frames &&
           record_group_widths == o.record_group_widths && means_as_global_pools == o.means_as_global_pools &&
           winograd_weight_bound == o.winograd_weight_bound && block_global_pool_inputs == o.block_global_pool_inputs &&
           pad_matmul_panels == o.pad_matmul_panels && fuse_rms_norms == o.fuse_rms_norms &&
           remove_same_type_casts == o.remove_same_type_casts && quantize_matmul_weights == o.quantize_matmul_weights &&
           quantize_pairs_as_elementwise == o.quantize_pairs_as_elementwise &&
           quantize_matmul_activations == o.quantize_matmul_activations &&
           quantize_conv_activations == o.quantize_conv_activations &&
           requantize_conv_outputs == o.requantize_conv_outputs &&
           convs_read_shared_pairs == o.convs_read_shared_pairs &&
           layouts_as_transposes == o.layouts_as_transposes && compose_transposes == o.compose_transposes &&
           remove_whole_slices == o.remove_whole_slices && batch_norms_of_matrices == o.batch_norms_of_matrices &&
           fold_transposes_into_products == o.fold_transposes_into_products &&
           fold_batch_norms_into_products == o.fold_batch_norms_into_products &&
           group_norm_affine_into_elementwise == o.group_norm_affine_into_elementwise &&
           fuse_attention_over_heads == o.fuse_attention_over_heads &&
           attention_through_head_transposes == o.attention_through_head_transposes;
  }
};

}  // namespace nee
