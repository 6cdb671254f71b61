// The conv2d kernel, compiled by the Builder into shared libraries (the default schedule
// and two seeded random valid points per shape) and called through HalideKernel, against
// compute_reference at awkward shapes; one CPU and one OpenCL kernel also go through
// nee-measure. All kernels are compiled once, in one parallel build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <tuple>

#include "core/activation_layout.h"
#include "core/conv2d_workload.h"
#include "core/conv_weight_layout.h"
#include "core/error.h"
#include "core/isa_level.h"
#include "core/winograd_weights.h"
#include "runtime/reference/family_reference.h"
#include "schedules/conv2d_blocked_cpu_space.h"
#include "schedules/conv2d_winograd_cpu_space.h"
#include "schedules/cpu_caches.h"
#include "schedules/cpu_vector_isa.h"
#include "schedules/schedule_space.h"
#include "tests/kernels/compiled_kernels.h"
#include "tests/kernels/quantized_operands.h"
#include "tuner/compile/builder.h"
#include "tuner/compile/kernel_compiler.h"
#include "tuner/measure/measurement.h"

namespace nee {
namespace {

namespace fs = std::filesystem;

using test::CompiledKernels;

struct ConvCase {
  std::vector<int64_t> x, w;
  Conv2dAttrs attrs;
  bool bias = false, residual = false;
  bool blocked = false;  // W channel-blocked, as the runtime gives group-1 convs and groups of whole blocks
  // X, and the output and residual, channel-blocked, as the CPU runtime gives convs
  // between convs (needs `blocked`).
  bool input_blocked = false, output_blocked = false;
  int64_t winograd_tile = 0;  // W transformed for Winograd F(m x m, 3x3) (needs output_blocked)
};

Workload workload_of_case(const ConvCase& c) {
  const TensorType x{DType::f32, c.x}, w{DType::f32, c.w};
  const TensorType bias{DType::f32, {c.w[0]}};
  // The residual has the output's shape: build once without it to learn that shape.
  const Workload plain = make_conv2d_workload(x, w, nullptr, nullptr, c.attrs);
  const TensorType residual = plain.output;
  const Workload w_plain =
      make_conv2d_workload(x, w, c.bias ? &bias : nullptr, c.residual ? &residual : nullptr, c.attrs);
  // Depthwise convs block their weights only together with the activations.
  if (c.attrs.group > 1 && c.attrs.group == c.x[1] && c.blocked) return conv2d_runtime_layout(w_plain, true);
  const Workload w_blocked = c.blocked ? conv2d_with_blocked_weights(w_plain) : w_plain;
  if (!c.input_blocked && !c.output_blocked) return w_blocked;
  const Workload relaid = conv2d_with_activation_layout(w_blocked, c.input_blocked, c.output_blocked);
  return c.winograd_tile ? conv2d_with_winograd(relaid, c.winograd_tile) : relaid;
}

std::map<std::string, ConvCase> cases() {
  std::map<std::string, ConvCase> all;
  Conv2dAttrs pad1;
  pad1.pads = {1, 1, 1, 1};
  all["3x3_pad1"] = {{1, 3, 7, 9}, {4, 3, 3, 3}, pad1, true, false};
  Conv2dAttrs stride2 = pad1;
  stride2.strides = {2, 2};
  all["stride2"] = {{1, 3, 7, 9}, {5, 3, 3, 3}, stride2, false, false};
  Conv2dAttrs dilation2;
  dilation2.dilations = {2, 2};
  dilation2.pads = {2, 1, 0, 2};  // asymmetric
  all["dilation2_asymmetric_pads"] = {{1, 4, 9, 11}, {3, 4, 3, 3}, dilation2, true, false};
  Conv2dAttrs depthwise = pad1;
  depthwise.group = 6;
  all["depthwise"] = {{2, 6, 8, 10}, {6, 1, 3, 3}, depthwise, true, false};
  Conv2dAttrs grouped = pad1;
  grouped.group = 2;
  all["group2"] = {{1, 4, 6, 6}, {6, 2, 3, 3}, grouped, false, false};
  all["pointwise"] = {{1, 16, 5, 7}, {8, 16, 1, 1}, Conv2dAttrs{}, true, false};
  Conv2dAttrs relu = pad1;
  relu.activation = ConvActivation::relu;
  all["residual_relu"] = {{1, 3, 7, 9}, {4, 3, 3, 3}, relu, true, true};
  Conv2dAttrs clip = pad1;
  clip.activation = ConvActivation::clip;
  clip.clip_min = -0.3;
  clip.clip_max = 0.4;
  all["clip"] = {{1, 3, 7, 9}, {4, 3, 3, 3}, clip, false, false};
  Conv2dAttrs silu = pad1;
  silu.activation = ConvActivation::silu;
  all["bias_silu"] = {{1, 3, 7, 9}, {4, 3, 3, 3}, silu, true, false};
  Conv2dAttrs gelu = pad1;
  gelu.activation = ConvActivation::gelu;
  all["residual_gelu"] = {{1, 3, 6, 5}, {3, 3, 3, 3}, gelu, false, true};
  // MobileNetV3's epilogues: Hardswish after a blocked 1x1 conv, Hardsigmoid ending the
  // squeeze-and-excitation gate (a 1x1 conv on a 1x1 plane).
  Conv2dAttrs hard_swish;
  hard_swish.activation = ConvActivation::hardswish;
  all["blocked_activations_hardswish"] = {{1, 16, 6, 7}, {32, 16, 1, 1}, hard_swish, true, false, true, true, true};
  Conv2dAttrs hard_sigmoid;
  hard_sigmoid.activation = ConvActivation::hardsigmoid;
  all["gate_hardsigmoid"] = {{1, 24, 1, 1}, {24, 24, 1, 1}, hard_sigmoid, true, false};
  // Channel-blocked weights: 24 and 40 output channels leave padding channels in the
  // last block (random, not zero, in the test's weights: the kernel must ignore them).
  all["blocked_residual_relu"] = {{1, 5, 9, 11}, {24, 5, 3, 3}, relu, true, true, true};
  all["blocked_stride2"] = {{2, 6, 9, 10}, {40, 6, 3, 3}, stride2, true, false, true};
  all["blocked_pointwise"] = {{1, 16, 5, 7}, {32, 16, 1, 1}, Conv2dAttrs{}, false, false, true};
  all["blocked_dilation2_asymmetric_pads"] = {{1, 4, 9, 11}, {16, 4, 3, 3}, dilation2, true, false, true};
  // Convs dilated along H skip the taps outside the input (kernels/conv2d_algorithm.cpp):
  // rate 4 on a 7x9 map with bias, residual and Relu between blocked activations (outer
  // taps read the map for some outputs only); a depthwise one at rate 6 on 5x6, whose
  // outer taps never reach the map; a strided NCHW one at rates 6 and 3.
  Conv2dAttrs atrous = relu;
  atrous.dilations = {4, 4};
  atrous.pads = {4, 4, 4, 4};
  all["blocked_atrous_residual_relu"] = {{1, 32, 7, 9}, {16, 32, 3, 3}, atrous, true, true, true, true, true};
  Conv2dAttrs atrous_depthwise;
  atrous_depthwise.dilations = {6, 6};
  atrous_depthwise.pads = {6, 6, 6, 6};
  atrous_depthwise.group = 16;
  all["blocked_depthwise_atrous_past_the_map"] = {
      {1, 16, 5, 6}, {16, 1, 3, 3}, atrous_depthwise, true, false, true, true, true};
  Conv2dAttrs atrous_stride2;
  atrous_stride2.dilations = {6, 3};
  atrous_stride2.strides = {2, 2};
  atrous_stride2.pads = {6, 3, 6, 3};
  all["atrous_stride2_nchw"] = {{1, 3, 5, 6}, {4, 3, 3, 3}, atrous_stride2, true, false};
  // Frames read in place (frame_taps): S3D's temporal convs, a 1x1 window over 3 taps of
  // stride 2 with a frame of padding at each end of two clips of 5 frames, blocked, with
  // bias, residual and Relu; a 3x3 window over 2 taps padded by a frame at the start, NCHW,
  // whose last output frame's second tap falls past its clip.
  Conv2dAttrs temporal;
  temporal.activation = ConvActivation::relu;
  temporal.frame_taps = 3;
  temporal.frame_stride = 2;
  temporal.frame_pad = 1;
  temporal.frames_in = 5;
  temporal.frames_out = 3;
  all["blocked_frames_in_place"] = {{6, 48, 4, 5}, {32, 48, 1, 1}, temporal, true, true, true, true, true};
  Conv2dAttrs frames_3x3 = pad1;
  frames_3x3.frame_taps = 2;
  frames_3x3.frame_pad = 1;
  frames_3x3.frames_in = 3;
  frames_3x3.frames_out = 4;
  all["frames_in_place_nchw"] = {{4, 6, 5, 6}, {4, 6, 3, 3}, frames_3x3, true, false};
  // Channel-blocked activations: both sides with bias, residual and Relu; the input only
  // (40 output channels stay NCHW) at stride 2 and batch 2; the output only from 3
  // channels (a network's first conv); and a strided pointwise conv.
  all["blocked_activations_residual_relu"] = {{1, 32, 9, 11}, {48, 32, 3, 3}, relu, true, true, true, true, true};
  all["blocked_input_stride2"] = {{2, 16, 9, 10}, {40, 16, 3, 3}, stride2, true, false, true, true, false};
  all["blocked_output_from_rgb"] = {{1, 3, 9, 9}, {16, 3, 3, 3}, pad1, true, false, true, false, true};
  Conv2dAttrs pointwise_stride2;
  pointwise_stride2.strides = {2, 2};
  all["blocked_activations_pointwise_stride2"] = {
      {1, 32, 8, 8}, {64, 32, 1, 1}, pointwise_stride2, false, true, true, true, true};
  // The reduction in chunks of input-channel blocks (ci_chunk, points below): 64 input
  // channels in 4 blocks, 9 columns (no register block width divides them) and 7 rows.
  all["blocked_chunked_residual_relu"] = {{1, 64, 7, 9}, {32, 64, 3, 3}, relu, true, true, true, true, true};
  // A 1x1 conv onto 5 weight blocks (80 channels), which AVX-512 hosts take 5 at a time.
  all["blocked_pointwise_five_blocks"] = {{1, 32, 6, 7}, {80, 32, 1, 1}, relu, true, true, true, true, true};
  // Depthwise over blocked activations, vectorized over channels: 32 channels with bias,
  // residual and Clip, and a stride-2 one at batch 2.
  Conv2dAttrs depthwise32 = clip;
  depthwise32.group = 32;
  all["blocked_depthwise_residual_clip"] = {{1, 32, 9, 11}, {32, 1, 3, 3}, depthwise32, true, true, true, true, true};
  Conv2dAttrs depthwise16_stride2 = stride2;
  depthwise16_stride2.group = 16;
  all["blocked_depthwise_stride2"] = {
      {2, 16, 9, 10}, {16, 1, 3, 3}, depthwise16_stride2, true, false, true, true, true};
  // Groups of whole blocks (ResNeXt's 3x3 convs from its third stage, ShuffleNet's grouped
  // 1x1 convs): 2 groups of 32 channels (two blocks each, chunked in the points below)
  // with bias, residual and Relu; a strided one from NCHW to NCHW at batch 2; a 1x1 one
  // from a blocked input to an NCHW output, 16 input and 32 output channels a group.
  Conv2dAttrs groups2_relu = relu;
  groups2_relu.group = 2;
  all["blocked_groups_residual_relu"] = {{1, 64, 9, 11}, {64, 32, 3, 3}, groups2_relu, true, true, true, true, true};
  Conv2dAttrs groups2_stride2 = stride2;
  groups2_stride2.group = 2;
  all["blocked_groups_nchw_stride2"] = {{2, 32, 9, 10}, {32, 16, 3, 3}, groups2_stride2, true, false, true};
  // Merged groups (group_width): RegNetX's groups of 24 merged in pairs (two groups of
  // 48, three blocks each) with bias, residual and Relu, both sides blocked; groups of 40
  // merged into one group of 80 (five blocks, the middle one reading both halves) at
  // stride 2 from NCHW to NCHW.
  Conv2dAttrs pairs_of_24 = groups2_relu;
  pairs_of_24.group_width = 24;
  all["blocked_merged_groups_of_24"] = {{1, 96, 6, 7}, {96, 48, 3, 3}, pairs_of_24, true, true, true, true, true};
  Conv2dAttrs one_of_80 = stride2;
  one_of_80.group_width = 40;
  all["blocked_merged_groups_of_40_nchw"] = {{1, 80, 9, 10}, {80, 80, 3, 3}, one_of_80, true, false, true};
  Conv2dAttrs groups3;
  groups3.group = 3;
  all["blocked_groups_pointwise_input"] = {{1, 48, 5, 7}, {96, 16, 1, 1}, groups3, true, false, true, true, false};
  // Winograd F(2x2, 3x3) and F(4x4, 3x3): planes that no tile divides (9x11 and 7x7),
  // asymmetric pads, batch 2, and an NCHW input with channels no vector divides.
  ConvCase winograd2 = all["blocked_activations_residual_relu"];
  winograd2.winograd_tile = 2;
  all["winograd2_residual_relu"] = winograd2;
  Conv2dAttrs asymmetric;
  asymmetric.pads = {1, 0, 2, 1};
  asymmetric.activation = ConvActivation::clip;
  asymmetric.clip_min = -0.5;
  asymmetric.clip_max = 0.6;
  all["winograd4_asymmetric_clip"] = {{2, 16, 7, 7}, {48, 16, 3, 3}, asymmetric, true, false, true, true, true, 4};
  all["winograd2_from_nchw"] = {{1, 5, 8, 10}, {32, 5, 3, 3}, pad1, false, true, true, false, true, 2};
  // A QDQ pair in the epilogue (requantize_conv_outputs): after Relu into u8 with a zero
  // point of 3, blocked; into i8 after a Winograd F(2x2) sum.
  Conv2dAttrs requantized = relu;
  requantized.requantize_scale = 0.0125f;
  requantized.requantize_zero = 3;
  requantized.requantize_high = 255;
  all["blocked_requantized_relu"] = {{1, 16, 7, 9}, {32, 16, 3, 3}, requantized, true, true, true, true, true};
  Conv2dAttrs requantized_i8 = pad1;
  requantized_i8.requantize_scale = 0.01f;
  requantized_i8.requantize_low = -128;
  requantized_i8.requantize_high = 127;
  all["winograd2_requantized_i8"] = {{1, 16, 8, 8}, {16, 16, 3, 3}, requantized_i8, true, false, true, true, true, 2};
  return all;
}

// An integer conv (Conv2dAttrs::a_bits) of X `x` by W `w` with bias, a residual and Relu.
Workload integer_workload(const std::vector<int64_t>& x, const std::vector<int64_t>& w, Conv2dAttrs attrs,
                          bool input_blocked, bool output_blocked) {
  attrs.a_bits = 8;
  attrs.weight_block = kConvWeightBlock;
  attrs.activation = ConvActivation::relu;
  attrs.input_block = input_blocked ? kActivationBlock : 0;
  attrs.output_block = output_blocked ? kActivationBlock : 0;
  const TensorType bias{DType::f32, {w[0]}};
  Conv2dAttrs plain_attrs;
  plain_attrs.strides = attrs.strides;
  plain_attrs.pads = attrs.pads;
  plain_attrs.dilations = attrs.dilations;
  const TensorType residual =
      make_conv2d_workload({DType::f32, x}, {DType::f32, w}, nullptr, nullptr, plain_attrs).output;
  return make_integer_conv2d_workload({DType::f32, x}, {DType::i8, w}, {DType::f32, {}}, {DType::u8, {}}, &bias,
                                      &residual, attrs);
}

// Integer convs: both sides blocked at 48 channels; a 1x1 one ending in a QDQ pair into i8;
// from 3 NCHW channels (C rounds up to a
// lane of 4) at stride 2 onto 20 NCHW channels (the last weight block part-filled); 64
// blocked input channels in chunks; dilated with asymmetric pads.
std::map<std::string, Workload> integer_cases() {
  Conv2dAttrs pad1;
  pad1.pads = {1, 1, 1, 1};
  Conv2dAttrs stride2 = pad1;
  stride2.strides = {2, 2};
  Conv2dAttrs dilation2;
  dilation2.dilations = {2, 2};
  dilation2.pads = {2, 1, 0, 2};
  Conv2dAttrs requantized = pad1;
  requantized.requantize_scale = 0.02f;
  requantized.requantize_zero = -5;
  requantized.requantize_low = -128;
  requantized.requantize_high = 127;
  return {{"integer_blocked", integer_workload({1, 32, 9, 11}, {48, 32, 3, 3}, pad1, true, true)},
          {"integer_requantized", integer_workload({1, 16, 6, 7}, {16, 16, 1, 1}, requantized, true, true)},
          {"integer_from_rgb_stride2", integer_workload({1, 3, 9, 10}, {20, 3, 3, 3}, stride2, false, false)},
          {"integer_chunked", integer_workload({1, 64, 7, 9}, {32, 64, 3, 3}, pad1, true, true)},
          {"integer_dilation2", integer_workload({2, 16, 9, 11}, {16, 16, 3, 3}, dilation2, true, false)}};
}

class Conv2dKernel : public test::CompiledKernelsTest<Conv2dKernel> {
 public:
  static constexpr char kWorkDirTag[] = "conv2d";

  static void add_kernels(CompiledKernels& kernels) {
    const Target cpu = host_target(TargetKind::cpu);
    std::mt19937_64 rng(2026);
    for (const auto& [name, c] : cases()) kernels.add_points(name, workload_of_case(c), cpu, 2, rng);
    // Chunked reductions in both reduction orders, both parallel loops and both tile
    // orders, and in a strided 1x1 conv.
    const Workload chunked = workload_of_case(cases().at("blocked_chunked_residual_relu"));
    kernels.add_changed_default("blocked_chunked_residual_relu", "chunk1", chunked, cpu,
                                {{"ci_chunk", 1}, {"px", 4}, {"rows", 4}, {"unroll_kx", 1}});
    kernels.add_changed_default("blocked_chunked_residual_relu", "chunk2_ci_inner", chunked, cpu,
                                {{"ci_chunk", 2}, {"px", 3}, {"oc_blocks", 1}, {"red_order", 1}, {"unroll_kx", 0},
                                 {"parallel", 0}, {"tile_order", 0}, {"rows", 2}});
    // Register blocks of 2 or more weight blocks by 3 columns spill AVX2's 16 registers:
    // the points that take them are checked on AVX-512 hosts.
    const bool wide = CpuVectorIsa::of_target(cpu.halide).wide();
    if (wide) {
      // The whole plane in one row tile, in register blocks of 3 columns that divide its 9.
      kernels.add_changed_default("blocked_chunked_residual_relu", "chunk2_whole_plane", chunked, cpu,
                                  {{"ci_chunk", 2}, {"px", 3}, {"oc_blocks", 2}, {"rows", 7}});
      // A group's two input blocks in chunks of one, each output register block spanning
      // both groups' blocks.
      kernels.add_changed_default("blocked_groups_residual_relu", "chunk1_two_groups",
                                  workload_of_case(cases().at("blocked_groups_residual_relu")), cpu,
                                  {{"ci_chunk", 1}, {"oc_blocks", 4}, {"px", 3}});
      // Merged groups with three weight blocks unrolled per register block (each its own
      // inputs) and the reduction in chunks of one input block.
      kernels.add_changed_default("blocked_merged_groups_of_24", "three_blocks_chunk1",
                                  workload_of_case(cases().at("blocked_merged_groups_of_24")), cpu,
                                  {{"ci_chunk", 1}, {"oc_blocks", 3}, {"px", 3}});
      // Five weight blocks by 5 columns (25 accumulators), in chunks of one input block.
      kernels.add_changed_default("blocked_pointwise_five_blocks", "five_by_five_chunk1",
                                  workload_of_case(cases().at("blocked_pointwise_five_blocks")), cpu,
                                  {{"ci_chunk", 1}, {"oc_blocks", 5}, {"px", 5}});
    }
    // An atrous conv reduced in chunks with the taps outside the channels (red_order 1),
    // its register blocks of 4 columns straddling the edge where the outer taps leave the
    // 9-wide map (at column 5), the tile's last columns past the output.
    kernels.add_changed_default("blocked_atrous_residual_relu", "chunk1_taps_outside",
                                workload_of_case(cases().at("blocked_atrous_residual_relu")), cpu,
                                {{"ci_chunk", 1}, {"red_order", 1}, {"unroll_kx", 0}, {"px", 4}, {"rows", 7}});
    kernels.add_changed_default("blocked_activations_pointwise_stride2", "chunk1_serial_tiles",
                                workload_of_case(cases().at("blocked_activations_pointwise_stride2")), cpu,
                                {{"ci_chunk", 1}, {"parallel", 0}, {"px", 3}});
    // Winograd products stored per register block of tiles, with and without channel tiles
    // in the parallel loop, and 2-row tasks. Three weight blocks by one tile fit AVX2's 16
    // registers as well as AVX-512's 32 (by two tiles they would not on AVX2).
    kernels.add_changed_default("winograd4_asymmetric_clip", "products_per_block", workload_of_case(cases().at("winograd4_asymmetric_clip")), cpu,
                                {{"product_at", 1}, {"px", 1}, {"parallel", 1}, {"oc_blocks", 3}});
    kernels.add_changed_default("winograd2_residual_relu", "products_per_block_rows2", workload_of_case(cases().at("winograd2_residual_relu")), cpu,
                                {{"product_at", 1}, {"px", 4}, {"parallel", 0}, {"rows", 2}});
    // Tasks of 4 tile rows (the last one guarded) for one channel tile each, as the default
    // takes the whole plane where a row's weights pass L2.
    kernels.add_changed_default("winograd2_residual_relu", "channel_tile_rows4", workload_of_case(cases().at("winograd2_residual_relu")), cpu,
                                {{"rows", 4}, {"parallel", 1}});
    // Two tasks of 4 tile rows (the second guarded), as the default takes half the rows
    // where a channel tile does not fit.
    kernels.add_changed_default("winograd2_residual_relu", "two_tasks_rows4", workload_of_case(cases().at("winograd2_residual_relu")), cpu,
                                {{"rows", 4}, {"parallel", 0}});
    // Integer convs at the host's level (dot products of bytes where it has VNNI, f32 sums
    // elsewhere), chunked in both reduction orders, and at avx2 (f32 sums) on every x86 host.
    for (const auto& [name, w] : integer_cases()) kernels.add_points(name, w, cpu, 1, rng);
    kernels.add_changed_default("integer_chunked", "chunk2_channels_inner", integer_cases().at("integer_chunked"), cpu,
                                {{"ci_chunk", 2}, {"red_order", 1}, {"unroll_kx", 0}, {"px", 3}, {"rows", 7}});
    kernels.add_changed_default("integer_chunked", "chunk1", integer_cases().at("integer_chunked"), cpu,
                                {{"ci_chunk", 1}, {"px", 4}, {"rows", 4}});
    if (host_arch() == "x86-64") {
      Target avx2 = cpu;
      avx2.halide = isa_level_named("avx2").halide;
      const Workload w = integer_cases().at("integer_blocked");
      kernels.add("integer_avx2", Candidate{w, avx2, make_schedule_space(w, avx2)->default_config(), "default", 0, {}});
    }
    kernels.add_default("opencl/residual_relu", workload_of_case(cases().at("residual_relu")),
                        host_target(TargetKind::opencl));
    kernels.add_default("opencl/blocked_residual_relu", workload_of_case(cases().at("blocked_residual_relu")),
                        host_target(TargetKind::opencl));
    add_staged_opencl_kernels(kernels);
  }

  // GPU kernels that stage the input window and the weights in shared memory: with bias,
  // residual and Relu over blocked weights; over 2 groups whose output-channel tiles
  // straddle a group boundary; depthwise at stride 2 and batch 2; dilated with
  // asymmetric pads, 4 input channels a slice.
  static void add_staged_opencl_kernels(CompiledKernels& kernels) {
    const Target opencl = host_target(TargetKind::opencl);
    kernels.add_changed_default("opencl/staged", "blocked_residual_relu",
                                workload_of_case(cases().at("blocked_residual_relu")), opencl,
                                {{"threads_x", 4}, {"px_per_thread", 2}, {"threads_y", 4}, {"threads_o", 2},
                                 {"oc_per_thread", 4}, {"tile_c", 1}});
    kernels.add_changed_default("opencl/staged", "group2", workload_of_case(cases().at("group2")), opencl,
                                {{"threads_x", 4}, {"px_per_thread", 1}, {"threads_y", 2}, {"threads_o", 1},
                                 {"oc_per_thread", 4}, {"tile_c", 1}});
    Conv2dAttrs depthwise;
    depthwise.pads = {1, 1, 1, 1};
    depthwise.strides = {2, 2};
    depthwise.group = 6;
    kernels.add_changed_default(
        "opencl/staged", "depthwise_stride2",
        make_conv2d_workload({DType::f32, {2, 6, 8, 10}}, {DType::f32, {6, 1, 3, 3}}, nullptr, nullptr, depthwise),
        opencl,
        {{"threads_x", 4}, {"px_per_thread", 1}, {"threads_y", 2}, {"threads_o", 2}, {"oc_per_thread", 2}, {"tile_c", 1}});
    kernels.add_changed_default("opencl/staged", "dilation2_asymmetric_pads",
                                workload_of_case(cases().at("dilation2_asymmetric_pads")), opencl,
                                {{"threads_x", 8}, {"px_per_thread", 1}, {"threads_y", 2}, {"threads_o", 1},
                                 {"oc_per_thread", 2}, {"tile_c", 4}, {"unroll_kx", 0}});
  }
};

TEST_F(Conv2dKernel, ThreeByThreePad1) { kernels().check_points("3x3_pad1"); }
TEST_F(Conv2dKernel, RequantizingEpilogues) {
  kernels().check_points("blocked_requantized_relu");
  kernels().check_points("winograd2_requantized_i8");
}
TEST_F(Conv2dKernel, IntegerConvs) {
  for (const auto& [name, w] : integer_cases()) kernels().check_points(name);
  if (host_arch() == "x86-64") kernels().check_against_reference("integer_avx2");
}
TEST_F(Conv2dKernel, Stride2) { kernels().check_points("stride2"); }
TEST_F(Conv2dKernel, Dilation2AsymmetricPads) { kernels().check_points("dilation2_asymmetric_pads"); }
TEST_F(Conv2dKernel, Depthwise) { kernels().check_points("depthwise"); }
TEST_F(Conv2dKernel, Group2) { kernels().check_points("group2"); }
TEST_F(Conv2dKernel, Pointwise) { kernels().check_points("pointwise"); }
TEST_F(Conv2dKernel, ResidualRelu) { kernels().check_points("residual_relu"); }
TEST_F(Conv2dKernel, Clip) { kernels().check_points("clip"); }
TEST_F(Conv2dKernel, BiasSilu) { kernels().check_points("bias_silu"); }
TEST_F(Conv2dKernel, ResidualGelu) { kernels().check_points("residual_gelu"); }
TEST_F(Conv2dKernel, BlockedActivationsHardswish) { kernels().check_points("blocked_activations_hardswish"); }
TEST_F(Conv2dKernel, GateHardsigmoid) { kernels().check_points("gate_hardsigmoid"); }
TEST_F(Conv2dKernel, BlockedResidualRelu) { kernels().check_points("blocked_residual_relu"); }
TEST_F(Conv2dKernel, BlockedStride2Batch2) { kernels().check_points("blocked_stride2"); }
TEST_F(Conv2dKernel, BlockedPointwise) { kernels().check_points("blocked_pointwise"); }
TEST_F(Conv2dKernel, BlockedDilation2AsymmetricPads) { kernels().check_points("blocked_dilation2_asymmetric_pads"); }
TEST_F(Conv2dKernel, BlockedAtrousResidualRelu) { kernels().check_points("blocked_atrous_residual_relu"); }
TEST_F(Conv2dKernel, BlockedDepthwiseAtrousPastTheMap) {
  kernels().check_points("blocked_depthwise_atrous_past_the_map");
}
TEST_F(Conv2dKernel, AtrousStride2Nchw) { kernels().check_points("atrous_stride2_nchw"); }

TEST_F(Conv2dKernel, BlockedActivationsBothSides) { kernels().check_points("blocked_activations_residual_relu"); }
TEST_F(Conv2dKernel, BlockedInputOnly) { kernels().check_points("blocked_input_stride2"); }
TEST_F(Conv2dKernel, BlockedOutputOnly) { kernels().check_points("blocked_output_from_rgb"); }
TEST_F(Conv2dKernel, BlockedActivationsPointwiseStride2) {
  kernels().check_points("blocked_activations_pointwise_stride2");
}

TEST_F(Conv2dKernel, BlockedChunkedReduction) { kernels().check_points("blocked_chunked_residual_relu"); }
TEST_F(Conv2dKernel, BlockedPointwiseFiveBlocks) {
  kernels().check_points("blocked_pointwise_five_blocks");
  const int64_t blocks = kernels().get("blocked_pointwise_five_blocks/default").candidate.config.at("oc_blocks");
  EXPECT_EQ(blocks, CpuVectorIsa::of_target(host_target(TargetKind::cpu).halide).wide() ? 5 : 1);
}
TEST_F(Conv2dKernel, BlockedFramesReadInPlace) {
  kernels().check_points("blocked_frames_in_place");
  // X holds the two clips' 5 frames of 16 channels, blocked.
  EXPECT_EQ(kernels().get("blocked_frames_in_place/default").candidate.workload.inputs[0].shape,
            (std::vector<int64_t>{10, 1, 4, 5, 16}));
}
TEST_F(Conv2dKernel, FramesReadInPlaceNchw) { kernels().check_points("frames_in_place_nchw"); }
TEST_F(Conv2dKernel, BlockedGroupsBothSides) { kernels().check_points("blocked_groups_residual_relu"); }
TEST_F(Conv2dKernel, BlockedGroupsNchwStride2) { kernels().check_points("blocked_groups_nchw_stride2"); }
TEST_F(Conv2dKernel, BlockedMergedGroupsOf24) {
  kernels().check_points("blocked_merged_groups_of_24");
  // One weight block per register block, so each block's loop skips the inputs it never weighs.
  EXPECT_EQ(kernels().get("blocked_merged_groups_of_24/default").candidate.config.at("oc_blocks"), 1);
}
TEST_F(Conv2dKernel, BlockedMergedGroupsOf40Nchw) { kernels().check_points("blocked_merged_groups_of_40_nchw"); }
TEST_F(Conv2dKernel, BlockedGroupsPointwiseFromBlockedInput) {
  kernels().check_points("blocked_groups_pointwise_input");
}

TEST_F(Conv2dKernel, ChunksDivideTheInputBlocksAndOlderPointsAreUnchunked) {
  const Workload& w = kernels().get("blocked_chunked_residual_relu/default").candidate.workload;
  const auto space = make_schedule_space(w, host_target(TargetKind::cpu));
  ScheduleConfig c = space->default_config();
  c.knobs["ci_chunk"] = 2;
  EXPECT_EQ(space->check(c), "");
  c.knobs["ci_chunk"] = 4;  // the domain stops at half the 4 blocks
  EXPECT_NE(space->check(c).find("ci_chunk"), std::string::npos) << space->check(c);
  // A point stored before the knob existed is the unchunked point.
  c.knobs.erase("ci_chunk");
  EXPECT_EQ(space->check(c), "");
  EXPECT_EQ(space->complete(c).at("ci_chunk"), 0);
  c.knobs.erase("px");  // knobs that were always there must be given
  EXPECT_NE(space->check(c).find("'px' is missing"), std::string::npos) << space->check(c);
  // Without a blocked input the reduction does not split at blocks: no chunks.
  const Workload nchw_input = kernels().get("blocked_output_from_rgb/default").candidate.workload;
  const auto plain = make_schedule_space(nchw_input, host_target(TargetKind::cpu));
  for (const Knob& k : plain->knobs()) {
    if (k.name == "ci_chunk") {
      EXPECT_EQ(k.values, (std::vector<int64_t>{0}));
    }
  }
}

// The default point of a conv between convs, at ResNet's shapes, on each vector unit.
ScheduleConfig resnet_default(std::vector<int64_t> x, std::vector<int64_t> w, int stride, int pad, CpuVectorIsa isa) {
  Conv2dAttrs attrs;
  attrs.strides = {stride, stride};
  attrs.pads = {pad, pad, pad, pad};
  const Workload workload = workload_of_case({x, w, attrs, true, false, true, true, true});
  return Conv2dBlockedCpuSpace(workload, isa).default_config();
}

std::vector<int64_t> knobs_of(const ScheduleConfig& c) {
  return {c.at("ci_chunk"), c.at("oc_blocks"), c.at("px"), c.at("rows")};
}

// On AVX-512, 1x1 convs onto planes of 14x14 or less, wider windows onto planes of 18x18
// or less and strided 3x3 convs reduce in chunks whose weights take at most 32 KB, where a
// channel tile holds more than 48 KB of weights and at least 4 tiles share the threads;
// others, and every conv on AVX2, do not. Chunked tiles take whole planes of up to 18 rows
// and, for windows wider than 1x1, the register blocks of 3 columns or more that cover the
// width with the fewest; chunked 1x1 convs take the 1x1 register block, in half the rows
// where the tile's accumulator and chunk of weights pass 80 KB.
TEST(Conv2dBlockedDefault, ChunksWhereTheScanFoundChunksFastest) {
  const CpuVectorIsa avx512{16, 32};
  struct Expected {
    std::vector<int64_t> x, w;
    int stride, pad;
    std::vector<int64_t> knobs;  // ci_chunk, oc_blocks, px, rows
  };
  const std::vector<Expected> expected = {
      // ResNet-50's 14x14 1x1 convs: 4 blocks by 5 columns in 7-row tiles (27 KB of
      // accumulator and 32 KB of weights; 54 + 32 KB in 14-row ones); RegNetY-3.2GF's
      // 576-channel one keeps 14 rows (38 KB of accumulator, 12 KB of weights).
      {{1, 1024, 14, 14}, {256, 1024, 1, 1}, 1, 0, {8, 4, 5, 7}},
      {{1, 256, 14, 14}, {1024, 256, 1, 1}, 1, 0, {8, 4, 5, 7}},
      {{1, 512, 28, 28}, {1024, 512, 1, 1}, 2, 0, {8, 4, 5, 7}},
      {{1, 576, 14, 14}, {576, 576, 1, 1}, 1, 0, {4, 3, 7, 14}},
      // Windows onto 7-wide planes, strided or not, take 2 blocks of 7 columns.
      {{1, 512, 14, 14}, {512, 512, 3, 3}, 2, 1, {1, 2, 7, 7}},
      {{1, 128, 56, 56}, {128, 128, 3, 3}, 2, 1, {1, 4, 4, 14}},
      {{1, 256, 14, 14}, {256, 256, 3, 3}, 1, 1, {1, 4, 5, 14}},
      // A DCGAN generator's phase convs onto 9x9 and 17x17, and a 3x3 conv onto 10x10.
      {{1, 256, 8, 8}, {512, 256, 2, 2}, 1, 1, {2, 4, 3, 9}},
      {{1, 128, 16, 16}, {256, 128, 2, 2}, 1, 1, {2, 4, 6, 17}},
      {{1, 256, 10, 10}, {256, 256, 3, 3}, 1, 1, {1, 4, 5, 10}},
      // A stride-1 3x3 conv onto 7x7 takes 2 blocks of 7 columns too, and its chunk of 1.
      {{1, 512, 7, 7}, {512, 512, 3, 3}, 1, 1, {1, 2, 7, 7}},
      {{1, 256, 56, 56}, {64, 256, 1, 1}, 1, 0, {0, 4, 4, 14}},
      {{1, 64, 56, 56}, {64, 64, 3, 3}, 1, 1, {0, 2, 8, 8}},
      // Narrow planes offer fewer columns than the 4 a chunked tile takes elsewhere.
      {{1, 1024, 3, 3}, {256, 1024, 1, 1}, 1, 0, {8, 4, 3, 3}},
  };
  for (const Expected& e : expected) {
    EXPECT_EQ(knobs_of(resnet_default(e.x, e.w, e.stride, e.pad, avx512)), e.knobs) << e.x[1] << "->" << e.w[0];
  }
  // MobileNetV2's narrow 1x1 convs: a tile's weights fit in L1, or too few tiles remain.
  EXPECT_EQ(resnet_default({1, 192, 14, 14}, {64, 192, 1, 1}, 1, 0, avx512).at("ci_chunk"), 0);
  EXPECT_EQ(resnet_default({1, 576, 14, 14}, {96, 576, 1, 1}, 1, 0, avx512).at("ci_chunk"), 0);
  EXPECT_EQ(resnet_default({1, 960, 7, 7}, {320, 960, 1, 1}, 1, 0, avx512).at("ci_chunk"), 4);  // 8 does not divide 60
  EXPECT_EQ(resnet_default({1, 512, 17, 17}, {256, 512, 1, 1}, 1, 0, avx512).at("ci_chunk"), 0);
  const CpuVectorIsa avx2{8, 16};
  EXPECT_EQ(resnet_default({1, 1024, 14, 14}, {256, 1024, 1, 1}, 1, 0, avx2).at("ci_chunk"), 0);
  EXPECT_EQ(resnet_default({1, 512, 14, 14}, {512, 512, 3, 3}, 2, 1, avx2).at("ci_chunk"), 0);
}

// On AVX-512 a 1x1 conv's register block takes the weight blocks (5, 4, 3, 2 or 1 that
// divide the conv's) and columns whose block does the most FMAs per load, up to 2 per
// load, over columns that cover the width with the least waste, in tiles that two threads
// split evenly: MNASNet's 1x1 convs, and ResNet's, which keep theirs.
TEST(Conv2dBlockedDefault, OneByOneBlocksDoTheMostFmasPerLoadInTilesTheThreadsSplitEvenly) {
  const CpuVectorIsa avx512{16, 32};
  struct Expected {
    std::vector<int64_t> x, w;
    std::vector<int64_t> knobs;  // ci_chunk, oc_blocks, px, rows
  };
  const std::vector<Expected> expected = {
      // 3 blocks by 7 columns (21 FMAs a step for 10 loads) over 4 by 4, which wastes a
      // column in 8 on a 7-wide plane, and over 2 by 7 (14 for 9).
      {{1, 192, 7, 7}, {1152, 192, 1, 1}, {0, 3, 7, 7}},
      {{1, 80, 14, 14}, {480, 80, 1, 1}, {0, 3, 7, 14}},
      // 20 blocks in 4s leave 5 tiles, 12 blocks in 4s 3: 5 and 3 blocks a tile instead.
      {{1, 1152, 7, 7}, {320, 1152, 1, 1}, {4, 5, 4, 7}},
      {{1, 1152, 7, 7}, {192, 1152, 1, 1}, {8, 3, 7, 7}},
      // 5 blocks by 5 columns, in rows of 7, since one tile of the plane left a thread idle;
      // 6 blocks by 3 in 4 tiles rather than 2.
      {{1, 480, 14, 14}, {80, 480, 1, 1}, {0, 5, 5, 7}},
      {{1, 480, 14, 14}, {96, 480, 1, 1}, {0, 3, 7, 7}},
      {{1, 384, 14, 14}, {64, 384, 1, 1}, {0, 4, 5, 7}},
      // DenseNet's 512->128 on 7x7: 4 tiles of 2 blocks by 7 over 2 tiles of 4 by 4.
      {{1, 512, 7, 7}, {128, 512, 1, 1}, {16, 2, 7, 7}},
      // ResNet's 4-block register blocks stay.
      {{1, 256, 56, 56}, {64, 256, 1, 1}, {0, 4, 4, 14}},
      {{1, 128, 28, 28}, {512, 128, 1, 1}, {0, 4, 4, 14}},
  };
  for (const Expected& e : expected) {
    EXPECT_EQ(knobs_of(resnet_default(e.x, e.w, 1, 0, avx512)), e.knobs) << e.x[1] << "->" << e.w[0];
  }
}

// The default point of an atrous conv between convs: 2048 -> 256 channels on 28x28 at
// `rate` (DeepLabV3's pyramid), or `in` -> `in` channels.
ScheduleConfig atrous_default(int64_t in, int64_t out, int64_t rate, CpuVectorIsa isa) {
  Conv2dAttrs attrs;
  attrs.dilations = {rate, rate};
  attrs.pads = {rate, rate, rate, rate};
  const Workload workload = workload_of_case({{1, in, 28, 28}, {out, in, 3, 3}, attrs, true, false, true, true, true});
  return Conv2dBlockedCpuSpace(workload, isa).default_config();
}

// Convs of windows wider than 1x1 whose tiles hold over 1 MB of weights reduce in chunks
// on any plane; atrous ones where most of their taps read padding, the tap loops go outside the channels, in register
// blocks of columns that the taps' edges never split.
TEST(Conv2dBlockedDefault, AtrousConvsChunkAndLoopOverTheTapsThatReadTheMap) {
  const CpuVectorIsa avx512{16, 32};
  // ci_chunk, oc_blocks, px, rows, then red_order and unroll_kx.
  const auto knobs = [](const ScheduleConfig& c) {
    std::vector<int64_t> k = knobs_of(c);
    k.push_back(c.at("red_order"));
    k.push_back(c.at("unroll_kx"));
    return k;
  };
  // Rate 12: 51% of the products read the map; its edges at columns 12 and 16.
  EXPECT_EQ(knobs(atrous_default(2048, 256, 12, avx512)), (std::vector<int64_t>{1, 4, 4, 14, 0, 1}));
  // Rate 24: 18%, edges at 4 and 24; rate 18: 31%, edges at 10 and 18, so blocks of 2.
  EXPECT_EQ(knobs(atrous_default(2048, 256, 24, avx512)), (std::vector<int64_t>{1, 4, 4, 14, 1, 0}));
  EXPECT_EQ(knobs(atrous_default(2048, 256, 18, avx512)), (std::vector<int64_t>{1, 4, 2, 14, 1, 0}));
  // ResNet's rate-2 convs in DeepLabV3's last stage: 1.2 MB of weights a tile, chunked,
  // taps innermost; at 256 channels (0.6 MB) unchunked. FCN's undilated 2048->512 head
  // (4.7 MB) chunks too.
  EXPECT_EQ(knobs(atrous_default(512, 512, 2, avx512)), (std::vector<int64_t>{1, 4, 4, 14, 0, 1}));
  EXPECT_EQ(atrous_default(256, 256, 2, avx512).at("ci_chunk"), 0);
  EXPECT_EQ(knobs(atrous_default(2048, 512, 1, avx512)), (std::vector<int64_t>{1, 4, 4, 14, 0, 1}));
  // AVX2 keeps its unchunked defaults.
  const ScheduleConfig avx2 = atrous_default(2048, 256, 24, CpuVectorIsa{8, 16});
  EXPECT_EQ(avx2.at("ci_chunk"), 0);
  EXPECT_EQ(avx2.at("red_order"), 0);
}

// The default of a Winograd conv between convs (3x3, pad 1) on AVX-512.
ScheduleConfig winograd_default(std::vector<int64_t> x, int64_t out_channels, int64_t tile, CpuCaches caches = {}) {
  Conv2dAttrs pad1;
  pad1.pads = {1, 1, 1, 1};
  const Workload w = workload_of_case({x, {out_channels, x[1], 3, 3}, pad1, true, false, true, true, true, tile});
  return Conv2dWinogradCpuSpace(w, CpuVectorIsa{16, 32}, caches).default_config();
}

// Where a task of one tile row would stream more than 2 MB of transformed weights, a
// task takes the whole plane for one channel tile if the channel tile's weights and the
// plane's transformed input fit in 1.4 MB, else half the tile rows (two tasks) as far as
// its transformed input stays within 1 MB; weights within L2 keep one tile row a task.
TEST(Conv2dWinogradDefault, TasksReadWeightsPastL2OncePerChannelTileOrPerHalfThePlane) {
  // ResNet's 256-channel conv on 14x14, F(2x2): 4.2 MB of weights, 0.5 + 0.8 MB a task.
  const ScheduleConfig resnet_14 = winograd_default({1, 256, 14, 14}, 256, 2);
  EXPECT_EQ(resnet_14.at("rows"), 7);
  EXPECT_EQ(resnet_14.at("parallel"), 1);
  // EfficientNetV2-S's 64->256 conv on 28x28, F(4x4): 2.4 MB, 0.3 + 0.5 MB a task.
  const ScheduleConfig expansion_28 = winograd_default({1, 64, 28, 28}, 256, 4);
  EXPECT_EQ(expansion_28.at("rows"), 7);
  EXPECT_EQ(expansion_28.at("parallel"), 1);
  // Past 1.4 MB a channel tile: 128 channels on 28x28 in F(4x4) (0.6 + 0.9 MB), 512 on
  // 14x14 (1.0 + 1.6 MB), 256 on 28x28 (1.2 + 1.8 MB): 4 of the 7 tile rows a task.
  for (const ScheduleConfig& c :
       {winograd_default({1, 128, 28, 28}, 128, 4), winograd_default({1, 512, 14, 14}, 512, 2),
        winograd_default({1, 256, 28, 28}, 256, 4)}) {
    EXPECT_EQ(c.at("rows"), 4);
    EXPECT_EQ(c.at("parallel"), 0);
  }
  // 128 channels on 112x112: a tile row's transformed input is 0.5 MB, so 2 rows a task.
  EXPECT_EQ(winograd_default({1, 128, 112, 112}, 128, 4).at("rows"), 2);
  // Weights within L2: 64 channels on 56x56 (0.6 MB).
  const ScheduleConfig resnet_56 = winograd_default({1, 64, 56, 56}, 64, 4);
  EXPECT_EQ(resnet_56.at("rows"), 1);
  EXPECT_EQ(resnet_56.at("parallel"), 0);
}

// A core with AMD Zen 4's 1 MB of L2 halves the Winograd task bounds (the defaults' L2 is
// 2 MB): ResNet's 256-channel conv on 14x14 (4.2 MB of weights; 0.5 + 0.8 MB a channel
// tile, past 0.7 MB) takes half the tile rows a task instead of the whole plane per
// channel tile, as EfficientNetV2-S's 64->256 one on 28x28 (0.3 + 0.5 MB) does. Weights
// under 2 MB stream a tile row a task on either core: GoogLeNet's 64->192 conv on 56x56
// (1.8 MB) and ResNet's 64-channel one (0.6 MB). The blocked conv's L1-sized bounds take
// no caches: ResNet-50's 1024->256 1x1 conv reduces in chunks of 8 input blocks (32 KB of
// weights) and EfficientNet-B0's 672->112 one on 14x14 (43 KB a tile) unchunked. Sizes a
// device does not report stay the measured machine's.
TEST(Conv2dDefaults, WinogradTasksScaleWithTheCoresL2) {
  const CpuCaches zen4{1024 * 1024};
  for (const auto& [x, out, tile] : std::vector<std::tuple<std::vector<int64_t>, int64_t, int64_t>>{
           {{1, 256, 14, 14}, 256, 2}, {{1, 64, 28, 28}, 256, 4}}) {
    const ScheduleConfig measured = winograd_default(x, out, tile);
    EXPECT_EQ(measured.at("rows"), 7);
    EXPECT_EQ(measured.at("parallel"), 1);
    const ScheduleConfig scaled = winograd_default(x, out, tile, zen4);
    EXPECT_EQ(scaled.at("rows"), 4) << x[1] << "->" << out;
    EXPECT_EQ(scaled.at("parallel"), 0) << x[1] << "->" << out;
  }
  for (const ScheduleConfig& streamed :
       {winograd_default({1, 64, 56, 56}, 192, 4, zen4), winograd_default({1, 64, 56, 56}, 64, 4, zen4)}) {
    EXPECT_EQ(streamed.at("rows"), 1);
    EXPECT_EQ(streamed.at("parallel"), 0);
  }
  const CpuVectorIsa avx512{16, 32};
  EXPECT_EQ(knobs_of(resnet_default({1, 1024, 14, 14}, {256, 1024, 1, 1}, 1, 0, avx512)),
            (std::vector<int64_t>{8, 4, 5, 7}));
  EXPECT_EQ(resnet_default({1, 672, 14, 14}, {112, 672, 1, 1}, 1, 0, avx512).at("ci_chunk"), 0);
  DeviceFingerprint device;
  EXPECT_EQ(CpuCaches::of_device(device).l2_bytes, CpuCaches::kMeasuredL2Bytes);
  device.l2_bytes = 1024 * 1024;
  EXPECT_EQ(CpuCaches::of_device(device).l2_bytes, 1024 * 1024);
}

TEST_F(Conv2dKernel, Winograd2x2ResidualRelu) { kernels().check_points("winograd2_residual_relu"); }
TEST_F(Conv2dKernel, Winograd4x4AsymmetricPadsClipBatch2) { kernels().check_points("winograd4_asymmetric_clip"); }
TEST_F(Conv2dKernel, Winograd2x2FromNchw) { kernels().check_points("winograd2_from_nchw"); }
TEST_F(Conv2dKernel, BlockedDepthwiseResidualClip) { kernels().check_points("blocked_depthwise_residual_clip"); }
TEST_F(Conv2dKernel, BlockedDepthwiseStride2Batch2) { kernels().check_points("blocked_depthwise_stride2"); }

TEST_F(Conv2dKernel, BlockedActivationKernelsTakeBlockedBuffers) {
  const Workload& w = kernels().get("blocked_activations_residual_relu/default").candidate.workload;
  EXPECT_EQ(w.inputs[0].shape, (std::vector<int64_t>{1, 2, 9, 11, 16}));
  EXPECT_EQ(w.inputs.back().shape, (std::vector<int64_t>{1, 3, 9, 11, 16}));  // the residual
  EXPECT_EQ(w.output.shape, (std::vector<int64_t>{1, 3, 9, 11, 16}));
  EXPECT_EQ(make_schedule_space(w, host_target(TargetKind::cpu))->name(), "conv2d-blocked-cpu");
  EXPECT_THROW(make_schedule_space(w, host_target(TargetKind::opencl)), Error);
}

TEST_F(Conv2dKernel, BlockedWeightsUseTheChannelBlockedSpace) {
  const Workload& w = kernels().get("blocked_stride2/default").candidate.workload;
  EXPECT_EQ(w.inputs[1].shape, (std::vector<int64_t>{3, 6, 3, 3, 16}));
  EXPECT_EQ(make_schedule_space(w, host_target(TargetKind::cpu))->name(), "conv2d-blocked-cpu");
}

TEST_F(Conv2dKernel, OutputShapes) {
  EXPECT_EQ(kernels().get("stride2/default").candidate.workload.output.shape, (std::vector<int64_t>{1, 5, 4, 5}));
  EXPECT_EQ(kernels().get("dilation2_asymmetric_pads/default").candidate.workload.output.shape,
            (std::vector<int64_t>{1, 3, 7, 10}));
}

TEST_F(Conv2dKernel, CpuKernelVerifiedByNeeMeasure) {
  const MeasureResult r = kernels().measure("residual_relu/default");
  EXPECT_EQ(to_string(r.status), "ok") << r.error;
  EXPECT_GT(r.median_us, 0);
}

// OpenCL runs only in a process without libHalide: nee-measure, through LocalRunner.
TEST_F(Conv2dKernel, OpenClKernelVerifiedByNeeMeasure) {
  for (const char* name : {"opencl/residual_relu", "opencl/blocked_residual_relu"}) {
    const MeasureResult r = kernels().measure(name);
    EXPECT_EQ(to_string(r.status), "ok") << name << ": " << r.error;
    EXPECT_LT(r.max_abs_error, 1e-3) << name;
  }
}

TEST_F(Conv2dKernel, OpenClStagedKernelsVerifiedByNeeMeasure) {
  for (const char* name : {"opencl/staged/blocked_residual_relu", "opencl/staged/group2",
                           "opencl/staged/depthwise_stride2", "opencl/staged/dilation2_asymmetric_pads"}) {
    EXPECT_GT(kernels().get(name).candidate.config.at("tile_c"), 0) << name << " reads from global memory";
    const MeasureResult r = kernels().measure(name);
    EXPECT_EQ(to_string(r.status), "ok") << name << ": " << r.error;
    EXPECT_LT(r.max_abs_error, 1e-3) << name;
  }
}

// The GPU space stages by default where a block's tile fits the plane, in slices as deep
// as shared memory holds, and in tiles small enough to fill the GPU: ResNet-50's 56x56
// 3x3 conv in 32-pixel rows, 16 channels a slice (32 would take 52 KiB); its 7x7 ones in
// 4-pixel rows by 2 rows, 32 channels a slice; its 1x1 conv over 1024 channels of 14x14
// in tiles of 8 x 2 pixels (224 blocks; 8 x 4 pixels by 32 channels made 64); the RGB
// stem all 3 channels a slice; a depthwise conv one channel a slice. The CUDA object of
// the first builds.
TEST(Conv2dGpuSpace, DefaultsStageAndBuildForCuda) {
  const Workload wide = conv2d_workload_from_shape("1x64x56x56,64x3x3,s1,p1");
  const ScheduleConfig w = make_schedule_space(wide, TargetKind::cuda)->default_config();
  EXPECT_EQ(w.at("tile_c"), 16);
  EXPECT_EQ(w.at("threads_x") * w.at("px_per_thread"), 32);
  const ScheduleConfig narrow =
      make_schedule_space(conv2d_workload_from_shape("1x512x7x7,512x3x3,s1,p1"), TargetKind::cuda)->default_config();
  EXPECT_EQ(narrow.at("threads_x") * narrow.at("px_per_thread"), 4);
  EXPECT_EQ(narrow.at("threads_y"), 2);
  EXPECT_EQ(narrow.at("tile_c"), 32);
  const ScheduleConfig deep =
      make_schedule_space(conv2d_workload_from_shape("1x1024x14x14,256x1x1"), TargetKind::cuda)->default_config();
  EXPECT_EQ(deep.at("threads_x") * deep.at("px_per_thread"), 8);
  EXPECT_EQ(deep.at("threads_y"), 2);
  EXPECT_EQ(deep.at("tile_c"), 32);
  const ScheduleConfig stem =
      make_schedule_space(conv2d_workload_from_shape("1x3x224x224,64x7x7,s2,p3"), TargetKind::cuda)->default_config();
  EXPECT_EQ(stem.at("tile_c"), 3);
  const ScheduleConfig depthwise = make_schedule_space(conv2d_workload_from_shape("1x96x28x28,96x3x3,s2,p1,g96"),
                                                       TargetKind::cuda)->default_config();
  EXPECT_EQ(depthwise.at("tile_c"), 1);

  // A grouped conv stages a box of input channels from the first group its tile touches
  // to the last: 32 groups of 4 channels, a tile of 64 output channels and slices of one
  // channel stage 65 channels (87 KiB with the accumulators), not 17.
  const auto grouped = make_schedule_space(conv2d_workload_from_shape("1x128x56x56,128x3x3,s1,p1,g32"), TargetKind::cuda);
  ScheduleConfig wide_tile = grouped->default_config();
  wide_tile.knobs = {{"threads_x", 8}, {"px_per_thread", 4}, {"threads_y", 4}, {"threads_o", 16},
                     {"oc_per_thread", 4}, {"tile_c", 1}, {"unroll_kx", 1}};
  EXPECT_NE(grouped->check(wide_tile).find("48 KiB of shared memory"), std::string::npos) << grouped->check(wide_tile);

  const tuner_test::TempDir dir("conv2d-cuda");
  const std::string object = dir.file("kernel.o");
  const Target cuda = host_target(TargetKind::cuda);
  ASSERT_NO_THROW(compile_kernel_object(wide, cuda, w, Builder::symbol_for(wide, cuda), object));
  EXPECT_GT(fs::file_size(object), 1000u);
}

TEST(Conv2dWorkload, ValidatesShapesAndParsesTheCommandLine) {
  Conv2dAttrs a;
  EXPECT_THROW(make_conv2d_workload({DType::f32, {1, 3, 5, 5}}, {DType::f32, {4, 2, 3, 3}}, nullptr, nullptr, a),
               Error);
  const TensorType bad_bias{DType::f32, {3}};
  EXPECT_THROW(make_conv2d_workload({DType::f32, {1, 3, 5, 5}}, {DType::f32, {4, 3, 3, 3}}, &bad_bias, nullptr, a),
               Error);
  EXPECT_THROW(make_conv2d_workload({DType::f32, {1, 3, 2, 2}}, {DType::f32, {4, 3, 3, 3}}, nullptr, nullptr, a),
               Error);
  const Workload w = conv2d_workload_from_shape("1x64x56x56,64x3x3,s1,p1");
  EXPECT_EQ(w.output.shape, (std::vector<int64_t>{1, 64, 56, 56}));
  EXPECT_DOUBLE_EQ(w.flops(), 2.0 * 64 * 56 * 56 * 64 * 9);
  EXPECT_EQ(w.key(), Workload::from_json(w.to_json()).key());
  EXPECT_EQ(conv2d_workload_from_shape("1x32x8x8,32x3x3,s2,p1,g32").inputs[1].shape,
            (std::vector<int64_t>{32, 1, 3, 3}));
  EXPECT_THROW(conv2d_workload_from_shape("1x64x56x56,64x3x3,q1"), Error);
}

TEST(Conv2dWorkload, ChannelBlockedWeights) {
  const Workload plain = conv2d_workload_from_shape("1x5x9x9,20x3x3,p1");
  ASSERT_TRUE(conv2d_can_block_weights(plain));
  const Workload blocked = conv2d_with_blocked_weights(plain);
  EXPECT_EQ(blocked.inputs[1].shape, (std::vector<int64_t>{2, 5, 3, 3, 16}));
  EXPECT_EQ(conv2d_oihw_weights(blocked).shape, plain.inputs[1].shape);
  EXPECT_NE(blocked.key(), plain.key());
  EXPECT_EQ(plain.key().find("weight_block"), std::string::npos);  // older keys unchanged
  EXPECT_DOUBLE_EQ(blocked.flops(), plain.flops());
  EXPECT_FALSE(conv2d_can_block_weights(blocked));
  EXPECT_EQ(conv2d_runtime_layout(plain, true).key(), blocked.key());  // 5 channels stay NCHW
  const Workload depthwise = conv2d_workload_from_shape("1x8x9x9,8x3x3,p1,g8");
  EXPECT_EQ(conv2d_runtime_layout(depthwise, true).key(), depthwise.key());
  EXPECT_THROW(conv2d_with_blocked_weights(depthwise), Error);

  // Every OIHW element lands at [o / 16, c, ky, kx, o % 16] and comes back; the padding
  // channels 20..31 are zero.
  const std::vector<int64_t> oihw = {20, 5, 3, 3};
  std::vector<float> w(20 * 45), packed(2 * 45 * 16, -1.0f), back(w.size());
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i) + 0.5f;
  pack_blocked_weights(w.data(), oihw, 16, packed.data());
  EXPECT_EQ(packed[((1 * 5 + 2) * 9 + 1 * 3 + 2) * 16 + 1], w[((17 * 5 + 2) * 3 + 1) * 3 + 2]);
  for (int64_t o = 20; o < 32; ++o) EXPECT_EQ(packed[(1 * 45 + 44) * 16 + o % 16], 0.0f);
  unpack_blocked_weights(packed.data(), oihw, 16, back.data());
  EXPECT_EQ(back, w);
  EXPECT_THROW(unblocked_weight_shape({2, 5, 3, 3, 16}, 40, 16), Error);
}

TEST(Conv2dWorkload, WinogradWeights) {
  const Workload plain = conv2d_workload_from_shape("1x32x14x14,48x3x3,p1");
  const Workload blocked = conv2d_runtime_layout(plain, true);
  ASSERT_TRUE(conv2d_can_use_winograd(blocked));
  // The runtime's tiles: 4 on planes of 28 or more, 2 from 14, direct below.
  const auto runtime_tile = [](const std::string& shape, bool bound_weights) {
    return conv2d_winograd_tile(conv2d_runtime_layout(conv2d_workload_from_shape(shape), true), bound_weights);
  };
  EXPECT_EQ(conv2d_winograd_tile(blocked, true), 2);
  EXPECT_EQ(runtime_tile("1x32x28x30,48x3x3,p1", true), 4);
  EXPECT_EQ(runtime_tile("1x32x13x28,48x3x3,p1", true), 0);
  // FCN's 2048->512 conv would transform its weights into 151 MB: direct sums, unless the
  // bound is off (a bundle from before it); 1024 input channels (75 MB) keep F(4x4).
  EXPECT_EQ(runtime_tile("1x2048x28x28,512x3x3,p1", true), 0);
  EXPECT_EQ(runtime_tile("1x2048x28x28,512x3x3,p1", false), 4);
  EXPECT_EQ(runtime_tile("1x1024x28x28,512x3x3,p1", true), 4);
  const Workload f4 = conv2d_with_winograd(blocked, 4);
  EXPECT_EQ(f4.inputs[1].shape, (std::vector<int64_t>{3, 36, 32, 16}));
  EXPECT_EQ(conv2d_oihw_weights(f4).shape, plain.inputs[1].shape);
  EXPECT_EQ(conv2d_runtime_layout(plain, true, true).key(), conv2d_with_winograd(blocked, 2).key());
  EXPECT_EQ(blocked.key().find("winograd"), std::string::npos);  // older keys unchanged
  EXPECT_EQ(f4.key(), Workload::from_json(f4.to_json()).key());
  EXPECT_DOUBLE_EQ(f4.flops(), plain.flops());  // counted as the direct sums it replaces
  EXPECT_EQ(conv2d_reduction_length(f4), 32 * 9);
  // Refusals: tiles NEE lacks, transformed twice, stride 2, 1x1 windows, unblocked weights.
  EXPECT_THROW(conv2d_with_winograd(blocked, 3), Error);
  EXPECT_THROW(conv2d_with_winograd(f4, 2), Error);
  EXPECT_FALSE(conv2d_can_use_winograd(conv2d_runtime_layout(conv2d_workload_from_shape("1x32x9x9,48x3x3,s2"), true)));
  EXPECT_FALSE(conv2d_can_use_winograd(conv2d_runtime_layout(conv2d_workload_from_shape("1x32x9x9,48x1x1"), true)));
  EXPECT_THROW(conv2d_with_winograd(plain, 2), Error);
  EXPECT_FALSE(conv2d_can_use_winograd(conv2d_with_activation_layout(blocked, true, false)));  // NCHW output
  // The runtime keeps NCHW-input convs direct (their transform would gather).
  EXPECT_EQ(conv2d_winograd_tile(conv2d_with_activation_layout(blocked, false, true), true), 0);
  EXPECT_THROW(winograd_oihw_shape({3, 16, 32, 16}, 48, 4), Error);

  // G g G^T comes back through the left inverse, and the padding channels are zero.
  const std::vector<int64_t> oihw = {20, 3, 3, 3};
  std::vector<float> filters(20 * 27), back(filters.size());
  for (size_t i = 0; i < filters.size(); ++i) filters[i] = std::sin(static_cast<float>(i));
  for (int64_t m : {2, 4}) {
    const std::vector<int64_t> shape = winograd_weight_shape(oihw, m);
    std::vector<float> packed(static_cast<size_t>(shape[0] * shape[1] * shape[2] * shape[3]), -1.0f);
    pack_winograd_weights(filters.data(), oihw, m, packed.data());
    unpack_winograd_weights(packed.data(), oihw, m, back.data());
    for (size_t i = 0; i < filters.size(); ++i) EXPECT_NEAR(back[i], filters[i], 1e-5) << m << " " << i;
    // Output channel 19 is [1, e, c, 3]; channel 20 is padding.
    EXPECT_NE(packed[((1 * shape[1] + 0) * 3 + 0) * 16 + 3], 0.0f);
    EXPECT_EQ(packed[((1 * shape[1] + 0) * 3 + 0) * 16 + 4], 0.0f);
  }
}

TEST(Conv2dWorkload, ChannelBlockedActivations) {
  const Workload plain = conv2d_workload_from_shape("1x32x9x9,48x3x3,p1");
  const Workload weights_only = conv2d_runtime_layout(plain, false);
  EXPECT_EQ(weights_only.key(), conv2d_with_blocked_weights(plain).key());
  ASSERT_TRUE(conv2d_can_block_activations(weights_only));
  const Workload blocked = conv2d_runtime_layout(plain, true);
  EXPECT_EQ(blocked.key(), conv2d_with_activation_layout(weights_only, true, true).key());
  EXPECT_EQ(blocked.inputs[0].shape, (std::vector<int64_t>{1, 2, 9, 9, 16}));
  EXPECT_EQ(blocked.output.shape, (std::vector<int64_t>{1, 3, 9, 9, 16}));
  EXPECT_EQ(conv2d_nchw_input(blocked).shape, plain.inputs[0].shape);
  EXPECT_EQ(conv2d_nchw_output(blocked).shape, plain.output.shape);
  EXPECT_DOUBLE_EQ(blocked.flops(), plain.flops());
  EXPECT_EQ(blocked.key(), Workload::from_json(blocked.to_json()).key());
  EXPECT_EQ(weights_only.key().find("input_block"), std::string::npos);  // older keys unchanged
  // Back to NCHW on one side only, and refusals: plain weights, channels not a multiple
  // of 16, groups.
  EXPECT_EQ(conv2d_with_activation_layout(blocked, false, true).inputs[0].shape, plain.inputs[0].shape);
  EXPECT_THROW(conv2d_with_activation_layout(plain, true, true), Error);
  EXPECT_THROW(conv2d_with_activation_layout(conv2d_runtime_layout(conv2d_workload_from_shape("1x24x9x9,48x3x3"), true),
                                             true, false),
               Error);
  EXPECT_FALSE(conv2d_can_block_activations(conv2d_workload_from_shape("1x32x9x9,32x3x3,g2")));
  // Depthwise: weights and activations blocked together, on the CPU only.
  const Workload depthwise = conv2d_workload_from_shape("1x32x9x9,32x3x3,p1,g32");
  const Workload depthwise_blocked = conv2d_runtime_layout(depthwise, true);
  EXPECT_EQ(depthwise_blocked.inputs[1].shape, (std::vector<int64_t>{2, 1, 3, 3, 16}));
  EXPECT_EQ(depthwise_blocked.inputs[0].shape, (std::vector<int64_t>{1, 2, 9, 9, 16}));
  EXPECT_EQ(depthwise_blocked.output.shape, (std::vector<int64_t>{1, 2, 9, 9, 16}));
  EXPECT_DOUBLE_EQ(depthwise_blocked.flops(), depthwise.flops());
  EXPECT_EQ(conv2d_runtime_layout(depthwise, false).key(), depthwise.key());
  EXPECT_THROW(conv2d_with_blocked_weights(depthwise), Error);

  // Every NCHW element lands at [n, c / 16, h, w, c % 16] and comes back.
  const std::vector<int64_t> nchw = {2, 32, 3, 5};
  std::vector<float> x(2 * 32 * 15), packed(x.size(), -1.0f), back(x.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) + 0.5f;
  pack_blocked_activations(x.data(), nchw, packed.data());
  EXPECT_EQ(packed[(((1 * 2 + 1) * 3 + 2) * 5 + 4) * 16 + 7], x[((1 * 32 + 23) * 3 + 2) * 5 + 4]);
  unpack_blocked_activations(packed.data(), nchw, back.data());
  EXPECT_EQ(back, x);
  EXPECT_THROW(blocked_activation_shape({1, 24, 3, 3}), Error);
  EXPECT_THROW(unblocked_activation_shape({1, 2, 3, 3, 8}), Error);
}

// A conv that reads frames in place holds the frames as X and shows the gathered X to the
// spaces; its key says so, and keys without frames stay as they were.
TEST(Conv2dWorkload, FramesReadInPlace) {
  Conv2dAttrs a;
  a.frame_taps = 3;
  a.frame_stride = 2;
  a.frame_pad = 1;
  a.frames_in = 5;
  a.frames_out = 3;
  const TensorType gathered{DType::f32, {6, 48, 4, 5}}, weights{DType::f32, {32, 48, 1, 1}};
  const Workload w = conv2d_runtime_layout(make_conv2d_workload(gathered, weights, nullptr, nullptr, a), true);
  EXPECT_EQ(w.inputs[0].shape, (std::vector<int64_t>{10, 1, 4, 5, 16}));  // two clips of 5 frames, blocked
  EXPECT_EQ(conv2d_nchw_input(w).shape, gathered.shape);
  EXPECT_EQ(w.output.shape, (std::vector<int64_t>{6, 2, 4, 5, 16}));
  const Workload back = Workload::from_json(w.to_json());
  EXPECT_EQ(back.key(), w.key());
  EXPECT_EQ(conv2d_attrs(back).frames_in, 5);
  EXPECT_EQ(conv2d_attrs(back).frame_stride, 2);
  EXPECT_NE(w.key().find("frame_taps"), std::string::npos);
  EXPECT_EQ(make_conv2d_workload(gathered, weights, nullptr, nullptr, Conv2dAttrs{}).key().find("frame"),
            std::string::npos);
  // Refused: taps that do not divide X's channels, output frames that do not divide its
  // batch, groups.
  Conv2dAttrs odd_taps = a;
  odd_taps.frame_taps = 5;
  EXPECT_THROW(make_conv2d_workload(gathered, weights, nullptr, nullptr, odd_taps), Error);
  Conv2dAttrs odd_frames = a;
  odd_frames.frames_out = 4;
  EXPECT_THROW(make_conv2d_workload(gathered, weights, nullptr, nullptr, odd_frames), Error);
  Conv2dAttrs grouped = a;
  grouped.group = 2;
  EXPECT_THROW(make_conv2d_workload(gathered, TensorType{DType::f32, {32, 24, 1, 1}}, nullptr, nullptr, grouped),
               Error);
}

// A conv of merged groups keeps their width in its key (only when set), and its random
// weights are zero between the groups.
TEST(Conv2dWorkload, MergedGroupWidth) {
  Conv2dAttrs a;
  a.group = 2;
  a.group_width = 24;
  const TensorType x{DType::f32, {1, 96, 6, 7}}, weights{DType::f32, {96, 48, 3, 3}};
  const Workload w = conv2d_runtime_layout(make_conv2d_workload(x, weights, nullptr, nullptr, a), true);
  EXPECT_EQ(w.inputs[1].shape, (std::vector<int64_t>{6, 48, 3, 3, 16}));
  const Workload back = Workload::from_json(w.to_json());
  EXPECT_EQ(back.key(), w.key());
  EXPECT_EQ(conv2d_attrs(back).group_width, 24);
  Conv2dAttrs plain = a;
  plain.group_width = 0;
  EXPECT_EQ(make_conv2d_workload(x, weights, nullptr, nullptr, plain).key().find("group_width"), std::string::npos);
  std::mt19937_64 rng(7);
  const std::vector<Tensor> inputs = random_inputs(w, rng);
  std::vector<float> oihw(96 * 48 * 9);
  unpack_conv2d_weights(inputs[1].data_as<float>(), {96, 48, 3, 3}, conv2d_attrs(w), oihw.data());
  int64_t nonzero_own = 0;
  for (int64_t o = 0; o < 96; ++o) {
    for (int64_t c = 0; c < 48; ++c) {
      const bool own = c / 24 == o % 48 / 24;
      for (int64_t tap = 0; tap < 9; ++tap) {
        const float v = oihw[(o * 48 + c) * 9 + tap];
        if (!own) {
          ASSERT_EQ(v, 0.0f) << o << " " << c;
        }
        nonzero_own += own && v != 0.0f;
      }
    }
  }
  EXPECT_GT(nonzero_own, 96 * 24 * 9 * 9 / 10);
  // Refused: a width that does not divide the groups, groups with more outputs than inputs.
  Conv2dAttrs odd = a;
  odd.group_width = 20;
  EXPECT_THROW(make_conv2d_workload(x, weights, nullptr, nullptr, odd), Error);
  EXPECT_THROW(make_conv2d_workload(x, TensorType{DType::f32, {192, 48, 3, 3}}, nullptr, nullptr, a), Error);
}

TEST(Conv2dWorkload, IntegerConvs) {
  const Workload w = integer_cases().at("integer_from_rgb_stride2");
  EXPECT_NE(w.key().find(R"("a_bits":8)"), std::string::npos) << w.key();
  EXPECT_NE(w.key().find("i8[2,1,3,3,16,4],f32[2,2,16],f32[],u8[],f32[20]"), std::string::npos) << w.key();
  EXPECT_EQ(Workload::from_json(w.to_json()).key(), w.key());
  EXPECT_EQ(conv2d_bias_input(conv2d_attrs(w)), 5u);
  EXPECT_EQ(conv2d_oihw_weights(w).shape, (std::vector<int64_t>{20, 3, 3, 3}));
  EXPECT_EQ(w.output.shape, (std::vector<int64_t>{1, 20, 5, 5}));
  Conv2dAttrs a = conv2d_attrs(w);
  const TensorType x{DType::f32, {1, 3, 9, 10}}, weights{DType::i8, {20, 3, 3, 3}};
  const TensorType scale{DType::f32, {}}, zero{DType::u8, {}};
  EXPECT_NO_THROW(make_integer_conv2d_workload(x, weights, scale, zero, nullptr, nullptr, a));
  // The weights are i8, the zero point one u8; group 1 only; at most 65536 products a sum.
  EXPECT_THROW(make_integer_conv2d_workload(x, {DType::u8, {20, 3, 3, 3}}, scale, zero, nullptr, nullptr, a), Error);
  EXPECT_THROW(make_integer_conv2d_workload(x, weights, scale, {DType::u8, {2}}, nullptr, nullptr, a), Error);
  EXPECT_THROW(make_integer_conv2d_workload({DType::f32, {1, 8192, 9, 10}}, {DType::i8, {16, 8192, 3, 3}}, scale, zero,
                                            nullptr, nullptr, a),
               Error);
  EXPECT_THROW(make_conv2d_workload(x, {DType::f32, {20, 3, 3, 3}}, nullptr, nullptr, a), Error);
  a.group = 3;
  EXPECT_THROW(make_integer_conv2d_workload(x, {DType::i8, {21, 1, 3, 3}}, scale, zero, nullptr, nullptr, a), Error);
}

TEST(Conv2dWorkload, RequantizingEpilogue) {
  Conv2dAttrs a;
  a.requantize_scale = 0.0125f;
  a.requantize_zero = 3;
  a.requantize_high = 255;
  const TensorType x{DType::f32, {1, 4, 6, 6}}, weights{DType::f32, {8, 4, 3, 3}};
  const Workload w = make_conv2d_workload(x, weights, nullptr, nullptr, a);
  EXPECT_NE(w.key().find(R"("requantize":[0.012500000186264515,3,0,255])"), std::string::npos) << w.key();
  EXPECT_EQ(Workload::from_json(w.to_json()).key(), w.key());
  EXPECT_EQ(conv2d_attrs(Workload::from_json(w.to_json())).requantize_scale, 0.0125f);
  // The zero point lies in the range; the scale is finite and positive.
  a.requantize_zero = 256;
  EXPECT_THROW(make_conv2d_workload(x, weights, nullptr, nullptr, a), Error);
  a.requantize_zero = 3;
  a.requantize_scale = -1.0f;
  EXPECT_THROW(make_conv2d_workload(x, weights, nullptr, nullptr, a), Error);
}

// The reference of an integer conv against the f32 conv of X's bytes less its zero point by
// the weights' integers times their multipliers, as loops written here read them, with the
// workload's bias, residual and Relu.
TEST(Conv2dWorkload, IntegerReferenceIsThePlainConv) {
  const Workload integer = integer_cases().at("integer_from_rgb_stride2");
  Conv2dAttrs plain_attrs = conv2d_attrs(integer);
  plain_attrs.a_bits = plain_attrs.weight_block = 0;
  const TensorType bias{DType::f32, {20}}, residual = integer.output;
  const Workload plain = make_conv2d_workload({DType::f32, {1, 3, 9, 10}}, {DType::f32, {20, 3, 3, 3}}, &bias,
                                              &residual, plain_attrs);
  std::mt19937_64 rng(20);
  std::vector<Tensor> in = random_inputs(integer, rng);
  // X in [-1, 1] spans 200 steps either side of a zero point of 100: both ends saturate.
  in[3].data_as<float>()[0] = 1.0f / 200;
  in[4].data_as<uint8_t>()[0] = 100;
  const float scale = in[3].data_as<float>()[0];
  const int zero = in[4].data_as<uint8_t>()[0];
  Tensor x(plain.inputs[0]), w(plain.inputs[1]);
  const int64_t saturated = test::quantize_centred(in[0], scale, zero, x);
  EXPECT_GT(saturated, 0);
  EXPECT_LT(saturated, x.elements());
  for (int64_t o = 0; o < 20; ++o) {
    for (int64_t c = 0; c < 3; ++c) {
      for (int64_t t = 0; t < 9; ++t) {
        const int8_t q = in[1].data_as<int8_t>()[((o / 16 * 9 + t) * 16 + o % 16) * 4 + c];
        w.data_as<float>()[(o * 3 + c) * 9 + t] = static_cast<float>(q) * in[2].data_as<float>()[o / 16 * 32 + o % 16];
      }
    }
  }
  Tensor from_integers(integer.output), from_plain(plain.output);
  compute_reference(integer, {&in[0], &in[1], &in[2], &in[3], &in[4], &in[5], &in[6]}, from_integers);
  compute_reference(plain, {&x, &w, &in[5], &in[6]}, from_plain);
  test::expect_near_peak(from_integers, from_plain, 1e-5);
}

}  // namespace
}  // namespace nee
