#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "core/workload.h"

namespace nee {

// The conv2d family: ONNX Conv over NCHW f32 tensors with 2-D windows, with an optional
// fused epilogue applied in this order: bias (per output channel), a residual tensor of
// the output's shape added, then an activation.
// out = act(conv(X, W) + bias + residual); silu is x * sigmoid(x), gelu the Erf-based
// x * 0.5 * (1 + erf(x / sqrt(2))), hardsigmoid max(0, min(1, x / 6 + 0.5)) and hardswish
// x * hardsigmoid(x) (core/activations.h).
enum class ConvActivation { none, relu, clip, silu, gelu, hardsigmoid, hardswish };

// The attribute text ("none", "relu", "clip", "silu", "gelu", "hardsigmoid", "hardswish");
// an unknown name throws
// nee::Error naming it.
const char* to_string(ConvActivation a);
ConvActivation conv_activation_from_string(const std::string& name);

struct Conv2dAttrs {
  std::array<int64_t, 2> strides{1, 1};       // H, W
  std::array<int64_t, 4> pads{0, 0, 0, 0};    // top, left, bottom, right
  std::array<int64_t, 2> dilations{1, 1};     // H, W
  int64_t group = 1;
  ConvActivation activation = ConvActivation::none;
  double clip_min = 0.0, clip_max = 0.0;      // used when activation is clip
  // 0: W is [O, C/group, KH, KW]; kConvWeightBlock: W is channel-blocked
  // (core/conv_weight_layout.h), group 1 or depthwise (group = C = O) only. The key holds
  // "weight_block" only when set.
  int64_t weight_block = 0;
  // 0: X (input_block), and the output and residual (output_block), are NCHW;
  // kActivationBlock: channel-blocked (core/activation_layout.h). With blocked weights
  // only, and only channel counts that are multiples of 16. The key holds each only when
  // set.
  int64_t input_block = 0, output_block = 0;
  // 0: direct sums; 2 or 4: Winograd F(m x m, 3 x 3) (core/winograd_weights.h), W held
  // transformed. 3x3 windows with stride and dilation 1, group 1 and blocked weights
  // (weight_block 16) only. The key holds "winograd_tile" only when set.
  int64_t winograd_tile = 0;
  // 0, or the temporal taps KT of a 3-D conv run over frames that reads its frames in
  // place: X holds the clips' frames [N * frames_in, C, H, W] (channel-blocked with
  // input_block), and the conv reads input channel k * C + c of output frame t of clip b
  // from frame b * frames_in + t * frame_stride + k * frame_dilation - frame_pad, zero
  // outside the clip, which is the conv of X's frames as NeeFrameGather gathers them:
  // [N * frames_out, KT * C, H, W], without the copy. Group 1 and direct sums only. The
  // key holds them only when frame_taps is set.
  int64_t frame_taps = 0, frame_stride = 1, frame_dilation = 1, frame_pad = 0, frames_in = 0, frames_out = 0;
  // 0, or the width w of the groups each group of this conv merges (widen_conv_groups):
  // output channel o of a group of C/group = O/group channels, a multiple of w, weighs
  // only the w inputs [o' / w * w, o' / w * w + w) of it (o' = o % (O/group)); its other
  // weights are zero. Kernels over blocked weights skip the inputs that none of a
  // weight block's 16 channels weighs. The key holds it only when set.
  int64_t group_width = 0;
  // 0, or 8: an integer conv (passes.h: quantize_conv_activations). The kernel quantizes X
  // to u8 as QuantizeLinear does, q = saturate(round(x / a_scale) + a_zero), pads it with
  // a_zero, and sums q * w in i32 over weights held as signed bytes (core/conv_weight_layout.h:
  // integer_conv_weight_shape); out = (sum - a_zero * weight_sum) * multiplier per output
  // channel, then the epilogue. Operands X, W (i8), the multipliers and weight sums ([O/16, 2,
  // 16] f32), a_scale (f32) and a_zero (u8) of one element each, then bias and residual.
  // Group 1 with weight_block 16, direct sums, no frames or merged groups. The key holds it
  // only when set.
  int64_t a_bits = 0;
  // 0, or the scale of a QDQ pair the epilogue ends with (passes.h: requantize_conv_outputs):
  // out = (clamp(round(out / scale) + zero, low, high) - zero) * scale, QuantizeLinear and
  // DequantizeLinear of one scale and zero point into the integer range [low, high], in their
  // f32 steps. The key holds them only when set.
  float requantize_scale = 0;
  int64_t requantize_zero = 0, requantize_low = 0, requantize_high = 0;
};

// Inputs: X [N,C,H,W], W [O, C/group, KH, KW], optional bias [O], optional residual
// (the output's shape). Validates every shape and computes the output's; throws
// nee::Error naming the mismatch. Every operand is given in ONNX's layout; with
// attrs.weight_block, input_block or output_block set, the workload holds the blocked
// shapes of W, X, or the output and residual. With frame_taps, X is given as gathered
// and the workload holds the frames it reads.
Workload make_conv2d_workload(const TensorType& x, const TensorType& w, const TensorType* bias,
                              const TensorType* residual, const Conv2dAttrs& attrs);
// The same as an integer conv (attrs.a_bits): W the [O, C, KH, KW] i8 type, which the
// workload holds packed, with its multipliers and weight sums; throws nee::Error where the
// operands or attributes do not fit one, or where its sums could leave i32 or its weight
// sums f32's integers (C * KH * KW over 65536).
Workload make_integer_conv2d_workload(const TensorType& x, const TensorType& w, const TensorType& a_scale,
                                      const TensorType& a_zero, const TensorType* bias, const TensorType* residual,
                                      const Conv2dAttrs& attrs);
// The input index of the bias (2, or 5 in an integer conv), the residual next to it; and the
// dtype of operand `index`: i8 weights and a u8 zero point in an integer conv, else f32.
size_t conv2d_bias_input(const Conv2dAttrs& attrs);
DType conv2d_operand_dtype(const Conv2dAttrs& attrs, size_t index);
Conv2dAttrs conv2d_attrs(const Workload& w);
bool conv2d_has_bias(const Workload& w);
bool conv2d_has_residual(const Workload& w);
// W as a conv with attributes `a` stores it (OIHW, channel-blocked or Winograd-
// transformed) and the output channel count -> [O, C/group, KH, KW]; throws nee::Error
// where the stored shape does not fit. And W's values back in that layout.
std::vector<int64_t> conv2d_oihw_weight_shape(const std::vector<int64_t>& stored, int64_t out_channels,
                                              const Conv2dAttrs& a);
void unpack_conv2d_weights(const float* stored, const std::vector<int64_t>& oihw, const Conv2dAttrs& a, float* out);
// Zeroes the weights [O, C/group, KH, KW] of `oihw` that a conv's group_width says are
// zero; nothing without one.
void zero_weights_between_merged_groups(const std::vector<int64_t>& shape, const Conv2dAttrs& a, float* oihw);
// W's type in ONNX's [O, C/group, KH, KW] layout, X's and the output's (and residual's)
// in NCHW, whichever layout the workload uses.
TensorType conv2d_oihw_weights(const Workload& w);
TensorType conv2d_nchw_input(const Workload& w);
// A conv that reads frames in place (frame_taps): X as gathered, [N * frames_out, KT * C,
// H, W], from the frames' NCHW shape [N * frames_in, C, H, W], and the frames' shape from
// X's; each throws nee::Error where the shape does not hold whole clips and taps.
std::vector<int64_t> conv2d_gathered_shape(const std::vector<int64_t>& frames, const Conv2dAttrs& a);
std::vector<int64_t> conv2d_frames_shape(const std::vector<int64_t>& gathered, const Conv2dAttrs& a);
TensorType conv2d_nchw_output(const Workload& w);
// Whether W may be channel-blocked (groups_fill_weight_blocks, not blocked yet), and the
// same convolution with blocked W (throws nee::Error when it may not).
bool conv2d_can_block_weights(const Workload& w);
Workload conv2d_with_blocked_weights(const Workload& w);
// group = C = O > 1: one KHxKW window per channel.
bool conv2d_is_depthwise(const Workload& w);
// Whether X and the output may be channel-blocked (blocked weights, which only group 1,
// groups of whole blocks and depthwise convs have; channel counts multiples of 16), and
// the same convolution with X blocked where `input` and the output (and residual) blocked
// where `output` (throws nee::Error when it may not).
bool conv2d_can_block_activations(const Workload& w);
Workload conv2d_with_activation_layout(const Workload& w, bool input, bool output);
// The form NEE's runtime runs a convolution with constant weights in between other
// convolutions: blocked weights where they may be (grouped ones only with
// `block_activations`), with `block_activations` (CPU targets) blocked activations on
// both sides where they may be, with `winograd` (CPU
// targets) transformed weights where conv2d_winograd_tile picks a tile, else unchanged.
// nee-tune --op and nee-bench tune and time this form.
Workload conv2d_runtime_layout(const Workload& w, bool block_activations, bool winograd = false);
// The Winograd tile the runtime gives a conv in its runtime layout when Winograd is on
// (GraphOptions::winograd), 0 for direct sums; with `bound_weights`
// (GraphOptions::winograd_weight_bound) none where the transformed weights would take
// over kWinogradWeightBound bytes.
int64_t conv2d_winograd_tile(const Workload& w, bool bound_weights);
// FCN-ResNet50's 2048->512 3x3 conv on 28x28 (`nee-tune --op conv2d --shape
// 1x2048x28x28,512x3x3,p1 --trials 1`, 2 threads): F(4x4), 151 MB of transformed weights,
// 47.0 ms at its default point and 38.8 after 20 trials; direct sums in chunks 34.3 ms.
// At 1024 input channels (75 MB) F(4x4) still won, 13.1 against 17.3 ms, and at 512
// (38 MB) 5.3 against 8.5.
inline constexpr int64_t kWinogradWeightBound = int64_t{96} << 20;
// Whether the conv may run as Winograd F(m x m, 3x3): a 3x3 window, stride and dilation
// 1, group 1, weights blocked (not yet transformed), a channel-blocked output (the
// Winograd kernels store 16 channels of a tile per vector). The same conv with W
// transformed for tile m (throws nee::Error when it may not).
bool conv2d_can_use_winograd(const Workload& w);
Workload conv2d_with_winograd(const Workload& w, int64_t m);
// C/group * KH * KW: the length of each output's dot product.
int64_t conv2d_reduction_length(const Workload& w);
double conv2d_flops(const Workload& w);

// Parses the command line's "NxCxHxW,OxKHxKW[,sS][,pP][,dD][,gG]" (stride, symmetric pad,
// dilation, group; defaults 1, 0, 1, 1) into a conv2d workload without bias or epilogue.
Workload conv2d_workload_from_shape(const std::string& shape);

}  // namespace nee
