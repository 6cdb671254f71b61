#include "core/conv2d_workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "core/activation_layout.h"
#include "core/conv_weight_layout.h"
#include "core/error.h"
#include "core/family.h"
#include "core/integer_text.h"
#include "core/json_numbers.h"
#include "core/winograd_weights.h"

namespace nee {

const char* to_string(ConvActivation a) {
  switch (a) {
    case ConvActivation::relu: return "relu";
    case ConvActivation::clip: return "clip";
    case ConvActivation::silu: return "silu";
    case ConvActivation::gelu: return "gelu";
    case ConvActivation::hardsigmoid: return "hardsigmoid";
    case ConvActivation::hardswish: return "hardswish";
    default: return "none";
  }
}

ConvActivation conv_activation_from_string(const std::string& name) {
  for (ConvActivation a : {ConvActivation::none, ConvActivation::relu, ConvActivation::clip, ConvActivation::silu,
                           ConvActivation::gelu, ConvActivation::hardsigmoid, ConvActivation::hardswish}) {
    if (name == to_string(a)) return a;
  }
  throw Error("unknown conv2d activation '" + name + "'");
}

namespace {

// A conv2d workload's attributes as made (clip bounds 0 unless it clips) and which of
// the optional inputs it has. The layout attributes are in the key only when set, as
// they were added after keys had been stored.
struct StoredConv2dAttrs final : WorkloadAttrs {
  Conv2dAttrs attrs;
  bool bias = false, residual = false;

  nlohmann::json to_json() const override {
    nlohmann::json j = {{"strides", attrs.strides},
                        {"pads", attrs.pads},
                        {"dilations", attrs.dilations},
                        {"group", attrs.group},
                        {"bias", bias ? 1 : 0},
                        {"residual", residual ? 1 : 0},
                        {"activation", to_string(attrs.activation)},
                        {"clip_min", attrs.clip_min},
                        {"clip_max", attrs.clip_max}};
    if (attrs.weight_block != 0) j["weight_block"] = attrs.weight_block;
    if (attrs.winograd_tile != 0) j["winograd_tile"] = attrs.winograd_tile;
    if (attrs.input_block != 0) j["input_block"] = attrs.input_block;
    if (attrs.output_block != 0) j["output_block"] = attrs.output_block;
    if (attrs.group_width != 0) j["group_width"] = attrs.group_width;
    if (attrs.a_bits != 0) j["a_bits"] = attrs.a_bits;
    if (attrs.requantize_scale != 0) {
      j["requantize"] = {attrs.requantize_scale, attrs.requantize_zero, attrs.requantize_low, attrs.requantize_high};
    }
    if (attrs.frame_taps != 0) {
      j["frame_taps"] = attrs.frame_taps;
      j["frame_stride"] = attrs.frame_stride;
      j["frame_dilation"] = attrs.frame_dilation;
      j["frame_pad"] = attrs.frame_pad;
      j["frames_in"] = attrs.frames_in;
      j["frames_out"] = attrs.frames_out;
    }
    return j;
  }
};

std::shared_ptr<const WorkloadAttrs> conv2d_attrs_from_json(const nlohmann::json& j) {
  auto stored = std::make_shared<StoredConv2dAttrs>();
  Conv2dAttrs& a = stored->attrs;
  const auto fixed = [&j](const char* key, auto& values) {
    const std::vector<int64_t> read = json_ints(j.at(key), key);
    if (read.size() != values.size()) {
      throw Error(fmt::format("conv2d attribute {} holds {} values, not {}", key, read.size(), values.size()));
    }
    std::copy(read.begin(), read.end(), values.begin());
  };
  fixed("strides", a.strides);
  fixed("pads", a.pads);
  fixed("dilations", a.dilations);
  a.group = json_int(j.at("group"), "group");
  a.activation = conv_activation_from_string(j.at("activation").get<std::string>());
  a.clip_min = json_double(j.at("clip_min"), "clip_min");
  a.clip_max = json_double(j.at("clip_max"), "clip_max");
  a.weight_block = json_int_or(j, "weight_block", 0);
  a.input_block = json_int_or(j, "input_block", 0);
  a.output_block = json_int_or(j, "output_block", 0);
  a.winograd_tile = json_int_or(j, "winograd_tile", 0);
  a.frame_taps = json_int_or(j, "frame_taps", 0);
  a.frame_stride = json_int_or(j, "frame_stride", 1);
  a.frame_dilation = json_int_or(j, "frame_dilation", 1);
  a.frame_pad = json_int_or(j, "frame_pad", 0);
  a.frames_in = json_int_or(j, "frames_in", 0);
  a.frames_out = json_int_or(j, "frames_out", 0);
  a.group_width = json_int_or(j, "group_width", 0);
  a.a_bits = json_int_or(j, "a_bits", 0);
  if (j.contains("requantize")) {
    const nlohmann::json& r = j.at("requantize");
    if (!r.is_array() || r.size() != 4) throw Error("conv2d attribute requantize holds [scale, zero, low, high]");
    a.requantize_scale = static_cast<float>(json_double(r[0], "requantize scale"));
    a.requantize_zero = json_int(r[1], "requantize zero");
    a.requantize_low = json_int(r[2], "requantize low");
    a.requantize_high = json_int(r[3], "requantize high");
  }
  stored->bias = json_int(j.at("bias"), "bias") != 0;
  stored->residual = json_int(j.at("residual"), "residual") != 0;
  return stored;
}

Workload make_float_conv2d_workload(const TensorType& x, const TensorType& w, const TensorType* bias,
                                    const TensorType* residual, const Conv2dAttrs& attrs);

}  // namespace

Workload make_conv2d_workload(const TensorType& x, const TensorType& w, const TensorType* bias,
                              const TensorType* residual, const Conv2dAttrs& attrs) {
  if (attrs.a_bits != 0) throw Error("an integer conv2d workload (a_bits) is made by make_integer_conv2d_workload");
  return make_float_conv2d_workload(x, w, bias, residual, attrs);
}

Workload make_integer_conv2d_workload(const TensorType& x, const TensorType& w, const TensorType& a_scale,
                                      const TensorType& a_zero, const TensorType* bias, const TensorType* residual,
                                      const Conv2dAttrs& attrs) {
  if (attrs.a_bits != 8 || attrs.weight_block != kConvWeightBlock || attrs.group != 1 || attrs.winograd_tile != 0 ||
      attrs.frame_taps != 0 || attrs.group_width != 0) {
    throw Error(fmt::format("an integer conv2d has a_bits 8, weight_block {}, group 1, and no Winograd tile, frames or "
                            "merged groups; got a_bits {}, weight_block {}, group {}",
                            kConvWeightBlock, attrs.a_bits, attrs.weight_block, attrs.group));
  }
  if (w.dtype != DType::i8 || w.shape.size() != 4) {
    throw Error("an integer conv2d's weights are i8 [O, C, KH, KW], got " + w.to_string());
  }
  if (a_scale.dtype != DType::f32 || a_scale.elements() != 1 || a_scale.shape.size() > 1) {
    throw Error("an integer conv2d's X scale is one f32, got " + a_scale.to_string());
  }
  if (a_zero.dtype != DType::u8 || a_zero.elements() != 1 || a_zero.shape.size() > 1) {
    throw Error("an integer conv2d's X zero point is one u8, got " + a_zero.to_string());
  }
  const std::vector<int64_t> packed = integer_conv_weight_shape(w.shape);
  if (!integer_conv_sums_fit(w.shape)) {
    throw Error(fmt::format("an integer conv2d sums at most 65536 products an output, weights {} give more",
                            w.to_string()));
  }
  Workload wl = make_float_conv2d_workload(x, TensorType{DType::f32, w.shape}, bias, residual, attrs);
  wl.inputs[1] = TensorType{DType::i8, packed};
  const std::vector<TensorType> operands = {TensorType{DType::f32, integer_conv_scales_shape(w.shape[0])}, a_scale,
                                            a_zero};
  wl.inputs.insert(wl.inputs.begin() + 2, operands.begin(), operands.end());
  return wl;
}

size_t conv2d_bias_input(const Conv2dAttrs& attrs) { return attrs.a_bits != 0 ? 5 : 2; }

DType conv2d_operand_dtype(const Conv2dAttrs& attrs, size_t index) {
  if (attrs.a_bits != 0 && index == 1) return DType::i8;
  if (attrs.a_bits != 0 && index == 4) return DType::u8;
  return DType::f32;
}

namespace {

Workload make_float_conv2d_workload(const TensorType& x, const TensorType& w, const TensorType* bias,
                                    const TensorType* residual, const Conv2dAttrs& attrs) {
  for (const TensorType* t : {&x, &w, bias, residual}) {
    if (t && t->dtype != DType::f32) throw Error("conv2d kernels take f32 tensors, got " + t->to_string());
    if (!t) continue;
    for (int64_t d : t->shape) {
      if (d <= 0) throw Error("conv2d operand " + t->to_string() + " has an empty dimension");
    }
  }
  if (x.shape.size() != 4 || w.shape.size() != 4) {
    throw Error(fmt::format("conv2d needs rank-4 input and weights, got {} and {}", x.to_string(), w.to_string()));
  }
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t o = w.shape[0], kh = w.shape[2], kw = w.shape[3];
  const int64_t g = attrs.group;
  if (g <= 0 || c % g != 0 || o % g != 0) {
    throw Error(fmt::format("conv2d group {} does not divide input channels {} and output channels {}", g, c, o));
  }
  if (w.shape[1] != c / g) {
    throw Error(fmt::format("conv2d weights {} need {} input channels per group (input {}, group {})",
                            w.to_string(), c / g, x.to_string(), g));
  }
  for (int64_t v : attrs.strides) {
    if (v <= 0) throw Error("conv2d strides must be positive");
  }
  for (int64_t v : attrs.dilations) {
    if (v <= 0) throw Error("conv2d dilations must be positive");
  }
  for (int64_t v : attrs.pads) {
    if (v < 0) throw Error("conv2d pads must not be negative");
  }
  const auto out_extent = [](int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0, int64_t p1) {
    const int64_t span = in + p0 + p1 - ((k - 1) * d + 1);
    return span < 0 ? int64_t{0} : span / s + 1;
  };
  const int64_t oh = out_extent(h, kh, attrs.strides[0], attrs.dilations[0], attrs.pads[0], attrs.pads[2]);
  const int64_t ow = out_extent(wd, kw, attrs.strides[1], attrs.dilations[1], attrs.pads[1], attrs.pads[3]);
  if (oh <= 0 || ow <= 0) {
    throw Error(fmt::format("conv2d window {}x{} does not fit the padded input {}", kh, kw, x.to_string()));
  }
  const TensorType out{DType::f32, {n, o, oh, ow}};
  if (bias && bias->shape != std::vector<int64_t>{o}) {
    throw Error(fmt::format("conv2d bias {} must be f32[{}]", bias->to_string(), o));
  }
  if (residual && residual->shape != out.shape) {
    throw Error(fmt::format("conv2d residual {} must have the output's shape {}", residual->to_string(),
                            out.to_string()));
  }
  if (attrs.activation == ConvActivation::clip && attrs.clip_min > attrs.clip_max) {
    throw Error("conv2d clip has min > max");
  }
  if (attrs.requantize_scale != 0 &&
      (!(attrs.requantize_scale > 0) || !std::isfinite(attrs.requantize_scale) ||
       attrs.requantize_low > attrs.requantize_high || attrs.requantize_zero < attrs.requantize_low ||
       attrs.requantize_zero > attrs.requantize_high)) {
    throw Error(fmt::format("conv2d requantize scale {} (zero {}, range [{}, {}]): the scale must be finite and "
                            "positive, the zero point within the range",
                            attrs.requantize_scale, attrs.requantize_zero, attrs.requantize_low,
                            attrs.requantize_high));
  }
  const bool depthwise = g > 1 && g == c && g == o;
  if (attrs.weight_block != 0 &&
      (attrs.weight_block != kConvWeightBlock || (!groups_fill_weight_blocks(c, o, g) && !depthwise))) {
    throw Error(fmt::format("conv2d weight_block {} (group {}): only blocks of {} with group 1, depthwise, or groups "
                            "of whole blocks exist",
                            attrs.weight_block, g, kConvWeightBlock));
  }
  for (int64_t block : {attrs.input_block, attrs.output_block}) {
    if (block != 0 && (block != kActivationBlock || attrs.weight_block != kConvWeightBlock)) {
      throw Error(fmt::format("conv2d activation block {} (weight block {}): only blocks of {} with blocked weights "
                              "exist",
                              block, attrs.weight_block, kActivationBlock));
    }
  }
  if (attrs.input_block != 0 && !can_block_activations(x.shape)) {
    throw Error(fmt::format("conv2d input {} cannot be channel-blocked: channels must be a multiple of {}",
                            x.to_string(), kActivationBlock));
  }
  if (attrs.output_block != 0 && !can_block_activations(out.shape)) {
    throw Error(fmt::format("conv2d output {} cannot be channel-blocked: channels must be a multiple of {}",
                            out.to_string(), kActivationBlock));
  }
  if (attrs.winograd_tile != 0) {
    winograd_transforms(attrs.winograd_tile);  // throws for a tile NEE lacks
    if (attrs.weight_block != kConvWeightBlock || attrs.output_block == 0 || g != 1 || kh != 3 || kw != 3 ||
        attrs.strides != std::array<int64_t, 2>{1, 1} || attrs.dilations != std::array<int64_t, 2>{1, 1}) {
      throw Error(fmt::format("conv2d winograd_tile {} needs a 3x3 window with stride 1, dilation 1, group 1, "
                              "blocked weights and a blocked output (weights {}, group {})",
                              attrs.winograd_tile, w.to_string(), g));
    }
  }
  if (attrs.group_width != 0) {
    const int64_t width = attrs.group_width;
    if (width < 1 || o % g != 0 || o / g != c / g || (c / g) % width != 0) {
      throw Error(fmt::format("conv2d group_width {} does not fit input {}, weights {} and group {}: each group must "
                              "hold as many outputs as inputs, a multiple of the width",
                              width, x.to_string(), w.to_string(), g));
    }
  }
  TensorType frames = x;  // what X holds: the frames the conv reads, or X itself
  if (attrs.frame_taps != 0) {
    const Conv2dAttrs& a = attrs;
    if (a.frame_taps < 0 || a.frame_stride < 1 || a.frame_dilation < 1 || a.frame_pad < 0 || a.frames_in < 1 ||
        a.frames_out < 1 || g != 1 || attrs.winograd_tile != 0) {
      throw Error(fmt::format("conv2d frame taps {} (stride {}, dilation {}, pad {}, {} -> {} frames) do not fit "
                              "input {} and group {}: group 1 and direct sums only",
                              a.frame_taps, a.frame_stride, a.frame_dilation, a.frame_pad, a.frames_in, a.frames_out,
                              x.to_string(), g));
    }
    frames.shape = conv2d_frames_shape(x.shape, a);
    if (attrs.input_block != 0 && !can_block_activations(frames.shape)) {
      throw Error(fmt::format("conv2d frames {} cannot be channel-blocked: channels must be a multiple of {}",
                              frames.to_string(), kActivationBlock));
    }
  }
  Workload wl;
  wl.op = "conv2d";
  auto stored = std::make_shared<StoredConv2dAttrs>();
  stored->attrs = attrs;
  stored->attrs.group = g;
  if (attrs.activation != ConvActivation::clip) stored->attrs.clip_min = stored->attrs.clip_max = 0.0;
  stored->bias = bias != nullptr;
  stored->residual = residual != nullptr;
  wl.attrs = stored;
  wl.inputs = {frames, w};
  if (attrs.weight_block != 0) wl.inputs[1].shape = blocked_weight_shape(w.shape, attrs.weight_block);
  if (attrs.winograd_tile != 0) wl.inputs[1].shape = winograd_weight_shape(w.shape, attrs.winograd_tile);
  if (attrs.input_block != 0) wl.inputs[0].shape = blocked_activation_shape(frames.shape);
  if (bias) wl.inputs.push_back(*bias);
  if (residual) wl.inputs.push_back(*residual);
  wl.output = out;
  if (attrs.output_block != 0) {
    wl.output.shape = blocked_activation_shape(out.shape);
    if (residual) wl.inputs.back().shape = wl.output.shape;
  }
  return wl;
}

}  // namespace

Conv2dAttrs conv2d_attrs(const Workload& w) { return w.attrs_as<StoredConv2dAttrs>().attrs; }
bool conv2d_has_bias(const Workload& w) { return w.attrs_as<StoredConv2dAttrs>().bias; }
bool conv2d_has_residual(const Workload& w) { return w.attrs_as<StoredConv2dAttrs>().residual; }

TensorType conv2d_nchw_output(const Workload& w) {
  if (conv2d_attrs(w).output_block == 0) return w.output;
  return TensorType{DType::f32, unblocked_activation_shape(w.output.shape)};
}

TensorType conv2d_nchw_input(const Workload& w) {
  const Conv2dAttrs a = conv2d_attrs(w);
  TensorType x = w.inputs[0];
  if (a.input_block != 0) x.shape = unblocked_activation_shape(x.shape);
  if (a.frame_taps != 0) x.shape = conv2d_gathered_shape(x.shape, a);
  return x;
}

std::vector<int64_t> conv2d_gathered_shape(const std::vector<int64_t>& frames, const Conv2dAttrs& a) {
  if (frames.size() != 4 || a.frames_in < 1 || frames[0] % a.frames_in != 0) {
    throw Error(fmt::format("conv2d frames [{}] do not hold whole clips of {} frames", fmt::join(frames, ", "),
                            a.frames_in));
  }
  return {frames[0] / a.frames_in * a.frames_out, frames[1] * a.frame_taps, frames[2], frames[3]};
}

std::vector<int64_t> conv2d_frames_shape(const std::vector<int64_t>& gathered, const Conv2dAttrs& a) {
  if (gathered.size() != 4 || a.frames_out < 1 || a.frame_taps < 1 || gathered[0] % a.frames_out != 0 ||
      gathered[1] % a.frame_taps != 0) {
    throw Error(fmt::format("conv2d input [{}] does not hold whole clips of {} frames of {} taps",
                            fmt::join(gathered, ", "), a.frames_out, a.frame_taps));
  }
  return {gathered[0] / a.frames_out * a.frames_in, gathered[1] / a.frame_taps, gathered[2], gathered[3]};
}

std::vector<int64_t> conv2d_oihw_weight_shape(const std::vector<int64_t>& stored, int64_t out_channels,
                                              const Conv2dAttrs& a) {
  if (a.winograd_tile != 0) return winograd_oihw_shape(stored, out_channels, a.winograd_tile);
  if (a.weight_block != 0) return unblocked_weight_shape(stored, out_channels, a.weight_block);
  return stored;
}

void unpack_conv2d_weights(const float* stored, const std::vector<int64_t>& oihw, const Conv2dAttrs& a, float* out) {
  if (a.winograd_tile != 0) {
    unpack_winograd_weights(stored, oihw, a.winograd_tile, out);
  } else if (a.weight_block != 0) {
    unpack_blocked_weights(stored, oihw, a.weight_block, out);
  } else {
    std::copy(stored, stored + oihw[0] * oihw[1] * oihw[2] * oihw[3], out);
  }
}

void zero_weights_between_merged_groups(const std::vector<int64_t>& shape, const Conv2dAttrs& a, float* oihw) {
  if (a.group_width == 0) return;
  const int64_t group_out = shape[0] / a.group, inputs = shape[1], taps = shape[2] * shape[3];
  for (int64_t o = 0; o < shape[0]; ++o) {
    const int64_t own = o % group_out / a.group_width * a.group_width;
    float* row = oihw + o * inputs * taps;
    std::fill(row, row + own * taps, 0.0f);
    std::fill(row + (own + a.group_width) * taps, row + inputs * taps, 0.0f);
  }
}

TensorType conv2d_oihw_weights(const Workload& w) {
  if (conv2d_attrs(w).a_bits != 0) {
    const std::vector<int64_t>& packed = w.inputs[1].shape;
    return TensorType{DType::i8, {conv2d_nchw_output(w).shape[1], conv2d_nchw_input(w).shape[1], packed[2], packed[3]}};
  }
  return TensorType{DType::f32,
                    conv2d_oihw_weight_shape(w.inputs[1].shape, conv2d_nchw_output(w).shape[1], conv2d_attrs(w))};
}

// The same convolution in other layouts: every operand back in ONNX's layout, then
// blocked as `a` says.
static Workload conv2d_relaid(const Workload& w, const Conv2dAttrs& a) {
  const TensorType bias = conv2d_has_bias(w) ? w.inputs[conv2d_bias_input(a)] : TensorType{};
  const TensorType residual = conv2d_nchw_output(w);
  if (a.a_bits != 0) {
    return make_integer_conv2d_workload(conv2d_nchw_input(w), conv2d_oihw_weights(w), w.inputs[3], w.inputs[4],
                                        conv2d_has_bias(w) ? &bias : nullptr,
                                        conv2d_has_residual(w) ? &residual : nullptr, a);
  }
  return make_conv2d_workload(conv2d_nchw_input(w), conv2d_oihw_weights(w), conv2d_has_bias(w) ? &bias : nullptr,
                              conv2d_has_residual(w) ? &residual : nullptr, a);
}

bool conv2d_can_block_weights(const Workload& w) {
  const Conv2dAttrs a = conv2d_attrs(w);
  return a.weight_block == 0 &&
         groups_fill_weight_blocks(conv2d_nchw_input(w).shape[1], conv2d_nchw_output(w).shape[1], a.group);
}

Workload conv2d_with_blocked_weights(const Workload& w) {
  if (!conv2d_can_block_weights(w)) throw Error("conv2d_with_blocked_weights: the conv is grouped or already blocked");
  Conv2dAttrs a = conv2d_attrs(w);
  a.weight_block = kConvWeightBlock;
  return conv2d_relaid(w, a);
}

bool conv2d_is_depthwise(const Workload& w) {
  const int64_t g = conv2d_attrs(w).group;
  return g > 1 && g == conv2d_nchw_input(w).shape[1] && g == conv2d_nchw_output(w).shape[1];
}

bool conv2d_can_block_activations(const Workload& w) {
  const Conv2dAttrs a = conv2d_attrs(w);
  return a.weight_block == kConvWeightBlock &&
         can_block_activations(conv2d_nchw_input(w).shape) && can_block_activations(conv2d_nchw_output(w).shape);
}

Workload conv2d_with_activation_layout(const Workload& w, bool input, bool output) {
  Conv2dAttrs a = conv2d_attrs(w);
  a.input_block = input ? kActivationBlock : 0;
  a.output_block = output ? kActivationBlock : 0;
  return conv2d_relaid(w, a);
}

Workload conv2d_runtime_layout(const Workload& w, bool block_activations, bool winograd) {
  if (conv2d_attrs(w).a_bits != 0) return w;  // made in its runtime layout by quantize_conv_activations
  if (winograd) {
    const Workload direct = conv2d_runtime_layout(w, block_activations);
    const int64_t tile = conv2d_winograd_tile(direct, true);
    return tile ? conv2d_with_winograd(direct, tile) : direct;
  }
  if (block_activations && conv2d_is_depthwise(w) && conv2d_attrs(w).weight_block == 0 &&
      can_block_activations(w.inputs[0].shape)) {
    // Depthwise weights are blocked only together with the activations: a kernel
    // vectorized over channels of NCHW planes would gather.
    Conv2dAttrs a = conv2d_attrs(w);
    a.weight_block = kConvWeightBlock;
    a.input_block = a.output_block = kActivationBlock;
    return conv2d_relaid(w, a);
  }
  // Grouped weights are blocked only where the activations may be (CPU targets), as
  // nee-tune's block_grouped_convs goes with its block_activations.
  const bool block_weights = conv2d_can_block_weights(w) && (conv2d_attrs(w).group == 1 || block_activations);
  const Workload blocked = block_weights ? conv2d_with_blocked_weights(w) : w;
  if (!block_activations || !conv2d_can_block_activations(blocked)) return blocked;
  return conv2d_with_activation_layout(blocked, true, true);
}

bool conv2d_can_use_winograd(const Workload& w) {
  const Conv2dAttrs a = conv2d_attrs(w);
  const std::vector<int64_t> ws = conv2d_oihw_weights(w).shape;
  return a.winograd_tile == 0 && a.a_bits == 0 && a.weight_block == kConvWeightBlock && a.output_block != 0 &&
         a.group == 1 &&
         ws[2] == 3 && ws[3] == 3 &&
         a.strides == std::array<int64_t, 2>{1, 1} && a.dilations == std::array<int64_t, 2>{1, 1};
}

Workload conv2d_with_winograd(const Workload& w, int64_t m) {
  if (!conv2d_can_use_winograd(w)) {
    throw Error("conv2d_with_winograd: the conv is not a 3x3, stride-1, undilated, ungrouped conv with blocked weights "
                "and a blocked output");
  }
  Conv2dAttrs a = conv2d_attrs(w);
  a.winograd_tile = m;
  return conv2d_relaid(w, a);
}

int64_t conv2d_winograd_tile(const Workload& w, bool bound_weights) {
  const Conv2dAttrs a = conv2d_attrs(w);
  if (!conv2d_can_use_winograd(w) || a.input_block == 0) return 0;
  // ResNet's 3x3 convs at their default points (2 threads, cold caches; `nee-tune --op
  // conv2d --trials 1 --cache cold --winograd-tile 0|2|4`), direct / F(2x2) / F(4x4):
  //   64 channels on 56x56 532 / 321 / 255 us, 128 on 28x28 535 / 353 / 241 us,
  //   256 on 14x14 858 / 358 / 441 us, 512 on 7x7 687 / 792 / 1500 us.
  // The transformed weights take alpha^2 / 9 times the bytes of the 3x3 ones (1.8x,
  // 4x) and are read once per call, so they pay where a plane has many tiles to share
  // them; F(4x4) covers 14x14 with 16x16 and 7x7 with 8x8, computing up to 31% more.
  const std::vector<int64_t> out = conv2d_nchw_output(w).shape;
  const int64_t side = std::min(out[2], out[3]);
  const int64_t tile = side >= 28 ? 4 : side >= 14 ? 2 : 0;
  if (tile == 0 || !bound_weights) return tile;
  const std::vector<int64_t> oihw = conv2d_oihw_weights(w).shape;
  const int64_t bytes = static_cast<int64_t>(sizeof(float)) * oihw[0] * oihw[1] * (tile + 2) * (tile + 2);
  return bytes <= kWinogradWeightBound ? tile : 0;
}

int64_t conv2d_reduction_length(const Workload& w) {
  const std::vector<int64_t> ws = conv2d_oihw_weights(w).shape;
  return ws[1] * ws[2] * ws[3];
}

double conv2d_flops(const Workload& w) {
  return 2.0 * static_cast<double>(w.output.elements()) * static_cast<double>(conv2d_reduction_length(w));
}

Workload conv2d_workload_from_shape(const std::string& shape) {
  const std::string usage = "bad conv2d shape '" + shape +
                            "': expected NxCxHxW,OxKHxKW[,sS][,pP][,dD][,gG] with positive sizes";
  const auto non_negative = [&](int64_t v) {
    if (v < 0) throw Error(usage);
    return v;
  };
  const auto number = [&](const std::string& text) {
    const std::optional<int64_t> v = parse_integer(text);
    if (!v) throw Error(usage);
    return non_negative(*v);
  };
  const auto dims = [&](const std::string& text) {
    const std::optional<std::vector<int64_t>> v = parse_integer_list(text);
    if (!v) throw Error(usage);
    for (int64_t d : *v) non_negative(d);
    return *v;
  };
  std::vector<std::string> fields;
  std::stringstream ss(shape);
  std::string field;
  while (std::getline(ss, field, ',')) fields.push_back(field);
  if (fields.size() < 2) throw Error(usage);
  const std::vector<int64_t> x = dims(fields[0]), k = dims(fields[1]);
  if (x.size() != 4 || k.size() != 3) throw Error(usage);
  Conv2dAttrs attrs;
  for (size_t i = 2; i < fields.size(); ++i) {
    if (fields[i].size() < 2) throw Error(usage);
    const int64_t v = number(fields[i].substr(1));
    switch (fields[i][0]) {
      case 's': attrs.strides = {v, v}; break;
      case 'p': attrs.pads = {v, v, v, v}; break;
      case 'd': attrs.dilations = {v, v}; break;
      case 'g': attrs.group = v; break;
      default: throw Error(usage);
    }
  }
  if (attrs.group <= 0 || x[1] % attrs.group != 0) throw Error(usage);
  const TensorType input{DType::f32, x};
  const TensorType weights{DType::f32, {k[0], x[1] / attrs.group, k[1], k[2]}};
  return make_conv2d_workload(input, weights, nullptr, nullptr, attrs);
}

Family conv2d_family() {
  return {FamilyId::conv2d,
          "conv2d",
          conv2d_flops,
          conv2d_reduction_length,
          SpeedUnit::gflops,
          conv2d_workload_from_shape,
          "NxCxHxW,OxKHxKW[,sS][,pP][,dD][,gG] (input, weights, stride, symmetric pad, dilation, group; e.g. "
          "1x64x56x56,64x3x3,s1,p1)",
          {"bias", "residual", "activation", "clip_min", "clip_max"},
          2,
          conv2d_attrs_from_json,
          [](const Workload& w) {
            require_input_count(w, conv2d_bias_input(conv2d_attrs(w)) + (conv2d_has_bias(w) ? 1 : 0) +
                                       (conv2d_has_residual(w) ? 1 : 0));
            if (conv2d_nchw_output(w).shape.size() != 4) {
              throw Error("conv2d output " + w.output.to_string() + " is neither NCHW nor channel-blocked NCHW");
            }
            return conv2d_relaid(w, conv2d_attrs(w));
          }};
}

}  // namespace nee
