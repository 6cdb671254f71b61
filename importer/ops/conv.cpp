#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"
#include "runtime/reference/spatial_geometry.h"

namespace nee {

namespace {

// X is N x C x D1..Dn (n = 1..3) and W has the same rank; returns the spatial rank.
size_t check_spatial_operands(const TensorType& x, const TensorType& w) {
  if (x.shape.size() < 3 || x.shape.size() > 5) {
    throw Error(fmt::format("X {} must be N x C x D1 [x D2 [x D3]]", x.to_string()));
  }
  if (w.shape.size() != x.shape.size()) {
    throw Error(fmt::format("W {} must have the rank of X {}", w.to_string(), x.to_string()));
  }
  return x.shape.size() - 2;
}

int64_t read_group(const Node& node) {
  const int64_t group = node.attrs.get_int("group", 1);
  if (group < 1) throw Error(fmt::format("group {} must be positive", group));
  return group;
}

void check_bias(const ImportContext& ctx, const Node& node, int64_t channels) {
  if (node.inputs.size() < 3 || node.inputs[2].empty()) return;
  const TensorType& b = input_type(ctx, node, 2, {DType::f32});
  if (b.shape != std::vector<int64_t>{channels}) {
    throw Error(fmt::format("B {} must be [{}], one value per output channel", b.to_string(), channels));
  }
}

// The attributes every kernel reads, all explicit: auto_pad (and ConvTranspose's
// output_shape) are resolved into pads.
void store_window(Node& node, const WindowGeometry& window, int64_t group) {
  node.attrs.set("kernel_shape", window.kernel);
  node.attrs.set("strides", window.strides);
  node.attrs.set("dilations", window.dilations);
  node.attrs.set("pads", window.onnx_pads());
  node.attrs.set("group", group);
  node.attrs.erase("auto_pad");
}

// The output shape of a convolution of X by W (Conv, ConvInteger, QLinearConv), with the
// window's attributes resolved into `node`.
std::vector<int64_t> conv_output_shape(Node& node, const TensorType& x, const TensorType& w) {
  const size_t rank = check_spatial_operands(x, w);
  const int64_t group = read_group(node);
  const int64_t channels = x.shape[1], out_channels = w.shape[0];
  if (channels % group != 0 || out_channels % group != 0 || w.shape[1] * group != channels) {
    throw Error(fmt::format("X {} and W {} do not fit group {}: X's channels must equal W's dim 1 "
                            "times group, and W's dim 0 must be a multiple of group",
                            x.to_string(), w.to_string(), group));
  }
  const std::vector<int64_t> input(x.shape.begin() + 2, x.shape.end());
  WindowGeometry window = read_window_attributes(node.attrs, rank, {w.shape.begin() + 2, w.shape.end()});
  apply_auto_pad(parse_auto_pad(node.attrs.get_string("auto_pad", "NOTSET")), input, window);

  std::vector<int64_t> shape = {x.shape[0], out_channels};
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = sliding_output_size(input[d], window.kernel[d], window.strides[d],
                                             window.dilations[d], window.pads_begin[d],
                                             window.pads_end[d], false);
    if (size < 1) {
      throw Error(fmt::format("the dilated kernel [{}] does not fit padded input {} along spatial dim {}",
                              fmt::join(window.kernel, ","), x.to_string(), d));
    }
    shape.push_back(size);
  }
  store_window(node, window, group);
  return shape;
}

// A zero point or scale: a scalar, or (for W's) one value per output channel.
void check_quantization_parameter(const ImportContext& ctx, const Node& node, size_t index, DType dtype,
                                  int64_t per_channel, const char* role) {
  if (!has_input(node, index)) return;
  const TensorType& t = input_type(ctx, node, index, {dtype});
  const bool scalar = t.elements() == 1 && t.shape.size() <= 1;
  if (!scalar && !(per_channel > 0 && t.shape == std::vector<int64_t>{per_channel})) {
    throw Error(fmt::format("{} {} must be a scalar{}", role, t.to_string(),
                            per_channel > 0 ? fmt::format(" or [{}], one per output channel", per_channel) : ""));
  }
}

}  // namespace

// Y[n, m] = B[m] + sum over the input channels of m's group of X (padded) correlated with
// W[m]; W is M x C/group x k1..kn.
std::vector<TensorType> import_conv(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 3, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::f32});
  const TensorType& w = input_type(ctx, node, 1, {DType::f32});
  const std::vector<int64_t> shape = conv_output_shape(node, x, w);
  check_bias(ctx, node, w.shape[0]);
  return {TensorType{DType::f32, shape}};
}

// ConvInteger: int32 Y = Conv(X - x_zero_point, W - w_zero_point), X and W 8-bit, the
// zero points of their dtypes (W's per tensor or per output channel); the padding reads
// x_zero_point, so it adds nothing.
std::vector<TensorType> import_conv_integer(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 4, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::u8, DType::i8});
  const TensorType& w = input_type(ctx, node, 1, {DType::u8, DType::i8});
  const std::vector<int64_t> shape = conv_output_shape(node, x, w);
  check_quantization_parameter(ctx, node, 2, x.dtype, 0, "x_zero_point");
  check_quantization_parameter(ctx, node, 3, w.dtype, w.shape[0], "w_zero_point");
  return {TensorType{DType::i32, shape}};
}

// QLinearConv: ConvInteger's int32 sum plus the int32 bias B, scaled by
// x_scale * w_scale / y_scale, rounded half to even, plus y_zero_point, saturated to Y's
// 8-bit dtype. Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
// y_zero_point, B.
std::vector<TensorType> import_qlinear_conv(const ImportContext& ctx, Node& node) {
  expect_arity(node, 8, 9, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::u8, DType::i8});
  const TensorType& w = input_type(ctx, node, 3, {DType::u8, DType::i8});
  const std::vector<int64_t> shape = conv_output_shape(node, x, w);
  const int64_t out_channels = w.shape[0];
  check_quantization_parameter(ctx, node, 1, DType::f32, 0, "x_scale");
  check_quantization_parameter(ctx, node, 2, x.dtype, 0, "x_zero_point");
  check_quantization_parameter(ctx, node, 4, DType::f32, out_channels, "w_scale");
  check_quantization_parameter(ctx, node, 5, w.dtype, out_channels, "w_zero_point");
  check_quantization_parameter(ctx, node, 6, DType::f32, 0, "y_scale");
  const DType y = input_type(ctx, node, 7, {DType::u8, DType::i8}).dtype;
  check_quantization_parameter(ctx, node, 7, y, 0, "y_zero_point");
  if (has_input(node, 8)) {
    const TensorType& b = input_type(ctx, node, 8, {DType::i32});
    if (b.shape != std::vector<int64_t>{out_channels}) {
      throw Error(fmt::format("B {} must be [{}], one value per output channel", b.to_string(), out_channels));
    }
  }
  return {TensorType{y, shape}};
}

// The gradient of Conv with respect to its input: every X[n, c] position scatters
// W[c] (C x M/group x k1..kn) into the output at stride spacing.
std::vector<TensorType> import_conv_transpose(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 3, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::f32});
  const TensorType& w = input_type(ctx, node, 1, {DType::f32});
  const size_t rank = check_spatial_operands(x, w);
  const int64_t group = read_group(node);
  const int64_t channels = x.shape[1], out_channels = w.shape[1] * group;
  if (w.shape[0] != channels || channels % group != 0) {
    throw Error(fmt::format("X {} and W {} do not fit group {}: W's dim 0 must equal X's channels, "
                            "a multiple of group", x.to_string(), w.to_string(), group));
  }
  check_bias(ctx, node, out_channels);
  const std::vector<int64_t> input(x.shape.begin() + 2, x.shape.end());
  WindowGeometry window = read_window_attributes(node.attrs, rank, {w.shape.begin() + 2, w.shape.end()});
  const std::vector<int64_t> output_padding =
      node.attrs.get_ints("output_padding", std::vector<int64_t>(rank, 0));
  if (output_padding.size() != rank) {
    throw Error(fmt::format("output_padding [{}] needs {} values", fmt::join(output_padding, ","), rank));
  }
  for (size_t d = 0; d < rank; ++d) {
    if (output_padding[d] < 0 || output_padding[d] >= std::max(window.strides[d], window.dilations[d])) {
      throw Error(fmt::format("output_padding [{}] must be non-negative and less than the stride or "
                              "the dilation of its dim", fmt::join(output_padding, ",")));
    }
  }

  const AutoPad auto_pad = parse_auto_pad(node.attrs.get_string("auto_pad", "NOTSET"));
  std::vector<int64_t> requested;  // spatial output extents that fix the pads, if any
  if (node.attrs.has("output_shape")) {
    requested = node.attrs.get_ints("output_shape");
    if (requested.size() != rank) {
      throw Error(fmt::format("output_shape [{}] needs {} values, one per spatial dim",
                              fmt::join(requested, ","), rank));
    }
  } else if (auto_pad == AutoPad::same_upper || auto_pad == AutoPad::same_lower) {
    for (size_t d = 0; d < rank; ++d) requested.push_back(input[d] * window.strides[d]);
  }
  if (auto_pad == AutoPad::valid) {
    std::fill(window.pads_begin.begin(), window.pads_begin.end(), 0);
    std::fill(window.pads_end.begin(), window.pads_end.end(), 0);
  }

  std::vector<int64_t> shape = {x.shape[0], out_channels};
  for (size_t d = 0; d < rank; ++d) {
    if (!requested.empty()) {
      transposed_pads_for_output(input[d], window.kernel[d], window.strides[d], window.dilations[d],
                                 output_padding[d], requested[d], auto_pad == AutoPad::same_upper,
                                 window.pads_begin[d], window.pads_end[d]);
      shape.push_back(requested[d]);
    } else {
      shape.push_back(transposed_output_size(input[d], window.kernel[d], window.strides[d],
                                             window.dilations[d], window.pads_begin[d],
                                             window.pads_end[d], output_padding[d]));
    }
    if (shape.back() < 1) {
      throw Error(fmt::format("the output of X {} with these pads has no element along spatial dim {}",
                              x.to_string(), d));
    }
  }
  store_window(node, window, group);
  node.attrs.set("output_padding", output_padding);
  node.attrs.erase("output_shape");
  return {TensorType{DType::f32, shape}};
}

}  // namespace nee
