// Signal processing of opset 17: the cosine-sum windows (HannWindow, HammingWindow,
// BlackmanWindow), DFT, STFT and MelWeightMatrix. Every input that decides an output's
// shape (a window's size, DFT's dft_length, STFT's frame_step and frame_length,
// MelWeightMatrix's num_mel_bins and dft_length) is read as a constant and stored as an
// attribute, so the kernels read no shape from their inputs.
#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"
#include "runtime/onnx_tensor.h"

namespace nee {

namespace {

// A one-element int32 or int64 constant input (a scalar in every model seen; [1] too).
int64_t constant_scalar(const ImportContext& ctx, const Node& node, size_t index, const std::string& role) {
  input_type(ctx, node, index, {DType::i32, DType::i64});
  const std::vector<int64_t> values = *constant_ints(ctx, node, index, role);
  if (values.size() != 1) throw Error(fmt::format("{} must hold one value, got {}", role, values.size()));
  return values[0];
}

// A 0/1 attribute, stored explicitly.
bool store_flag(Node& node, const std::string& name, int64_t fallback) {
  const int64_t value = node.attrs.get_int(name, fallback);
  if (value != 0 && value != 1) throw Error(fmt::format("{} is {}; it must be 0 or 1", name, value));
  node.attrs.set(name, value);
  return value == 1;
}

// output_datatype (default FLOAT): the kernels write f32 or f64.
DType output_datatype(Node& node) {
  const int64_t code = node.attrs.get_int("output_datatype", onnx::TensorProto::FLOAT);
  const DType dtype = dtype_from_onnx(static_cast<int32_t>(code), "attribute output_datatype");
  if (dtype != DType::f32 && dtype != DType::f64) {
    throw Error(fmt::format("output_datatype {} is not supported (FLOAT or DOUBLE)", to_string(dtype)));
  }
  node.attrs.set("output_datatype", code);
  return dtype;
}

}  // namespace

// HannWindow, HammingWindow and BlackmanWindow: a constant size >= 1 (stored as the
// attribute `size`, the input dropped), periodic (default 1) and output_datatype.
std::vector<TensorType> import_window(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const int64_t size = constant_scalar(ctx, node, 0, "size");
  if (size < 1) throw Error(fmt::format("size is {}; a window needs at least one sample", size));
  store_flag(node, "periodic", 1);
  const DType dtype = output_datatype(node);
  node.attrs.set("size", size);
  node.inputs.clear();
  return {TensorType{dtype, {size}}};
}

// DFT (opset 17): input [batch, n1, ..., nk, 1 or 2] (real or complex), transformed
// along `axis` (default 1; from opset 20 the constant input 2, default -2; any dim but
// the last) over dft_length points (default the
// axis' extent; a constant, zero-padding or truncating the signal). Output: the same
// dims with `axis` of dft_length, or dft_length / 2 + 1 when onesided, and a last dim of
// 2. An inverse onesided DFT (IRFFT) reads the first bins of a Hermitian spectrum and
// writes the real signal [..., dft_length (default 2 (bins - 1)), ..., 1]. axis, inverse,
// onesided and dft_length are stored; the dft_length input is dropped.
std::vector<TensorType> import_dft(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, ctx.opset >= 20 ? 3 : 2, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::f32, DType::f64});
  const size_t rank = x.shape.size();
  if (rank < 3 || (x.shape.back() != 1 && x.shape.back() != 2)) {
    throw Error(fmt::format("input {} must be [batch, signal dims..., 1 or 2]", x.to_string()));
  }
  // Opset 20 moved the axis to the optional constant input 2, its default the last signal
  // dim (-2).
  const int64_t axis = ctx.opset >= 20
                           ? normalize_axis(has_input(node, 2) ? constant_scalar(ctx, node, 2, "axis") : -2, rank, "axis")
                           : normalize_axis(node.attrs.get_int("axis", 1), rank, "axis");
  if (axis == static_cast<int64_t>(rank) - 1) {
    throw Error("axis names the last dim, which holds real and imaginary parts");
  }
  const bool inverse = store_flag(node, "inverse", 0);
  const bool onesided = store_flag(node, "onesided", 0);
  const bool real_output = onesided && inverse;
  if (onesided && !inverse && x.shape.back() == 2) {
    throw Error("onesided output needs a real input ([..., 1]), got a complex one");
  }
  if (real_output && x.shape.back() != 2) {
    throw Error("an inverse onesided DFT (IRFFT) needs a complex input ([..., 2]), got a real one");
  }
  const int64_t length = has_input(node, 1)  ? constant_scalar(ctx, node, 1, "dft_length")
                         : real_output       ? 2 * (x.shape[axis] - 1)
                                             : x.shape[axis];
  if (length < 1) throw Error(fmt::format("dft_length is {}; it must be positive", length));
  node.attrs.set("axis", axis);
  node.attrs.set("dft_length", length);
  node.inputs.resize(1);
  TensorType out = x;
  out.shape[axis] = onesided && !inverse ? length / 2 + 1 : length;
  out.shape.back() = real_output ? 1 : 2;
  return {out};
}

// STFT (opset 17): signal [batch, length, 1 or 2], a constant frame_step, an optional
// window [frame_length] of the signal's dtype and an optional constant frame_length
// (one of the two must give it). Output [batch, frames, bins, 2] with frames =
// (length - frame_length) / frame_step + 1 and bins = frame_length / 2 + 1 when onesided
// (default 1, real signals only), frame_length otherwise. frame_step, frame_length and
// onesided are stored; the inputs become {signal} or {signal, window}.
std::vector<TensorType> import_stft(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 4, 1);
  const TensorType& signal = input_type(ctx, node, 0, {DType::f32, DType::f64});
  if (signal.shape.size() != 3 || (signal.shape[2] != 1 && signal.shape[2] != 2)) {
    throw Error(fmt::format("signal {} must be [batch, length, 1 or 2]", signal.to_string()));
  }
  const int64_t step = constant_scalar(ctx, node, 1, "frame_step");
  if (step < 1) throw Error(fmt::format("frame_step is {}; it must be positive", step));
  const bool has_window = has_input(node, 2);
  int64_t frame_length = 0;
  if (has_window) {
    const TensorType& window = input_type(ctx, node, 2, {signal.dtype});
    if (window.shape.size() != 1) throw Error(fmt::format("window {} must be 1-D", window.to_string()));
    frame_length = window.shape[0];
  }
  if (has_input(node, 3)) {
    const int64_t given = constant_scalar(ctx, node, 3, "frame_length");
    if (has_window && given != frame_length) {
      throw Error(fmt::format("frame_length is {} but the window holds {} samples", given, frame_length));
    }
    frame_length = given;
  } else if (!has_window) {
    throw Error("STFT needs a window or a frame_length");
  }
  if (frame_length < 1 || frame_length > signal.shape[1]) {
    throw Error(fmt::format("frame_length is {}; it must lie in [1, {}] (the signal's length)", frame_length,
                            signal.shape[1]));
  }
  const bool onesided = store_flag(node, "onesided", 1);
  if (onesided && signal.shape[2] == 2) {
    throw Error("onesided output needs a real signal ([..., 1]), got a complex one");
  }
  node.attrs.set("frame_step", step);
  node.attrs.set("frame_length", frame_length);
  const std::string window_name = has_window ? node.inputs[2] : "";
  node.inputs.resize(1);
  if (has_window) node.inputs.push_back(window_name);
  const int64_t frames = (signal.shape[1] - frame_length) / step + 1;
  return {TensorType{signal.dtype, {signal.shape[0], frames, onesided ? frame_length / 2 + 1 : frame_length, 2}}};
}

// MelWeightMatrix (opset 17): constant num_mel_bins and dft_length decide the output
// [dft_length / 2 + 1, num_mel_bins] of output_datatype; sample_rate (int32 or int64)
// and the two edge frequencies (float) are read by the kernel, which checks them.
std::vector<TensorType> import_mel_weight_matrix(const ImportContext& ctx, Node& node) {
  expect_arity(node, 5, 5, 1);
  const int64_t mel_bins = constant_scalar(ctx, node, 0, "num_mel_bins");
  const int64_t dft_length = constant_scalar(ctx, node, 1, "dft_length");
  if (mel_bins < 1 || dft_length < 1) {
    throw Error(fmt::format("num_mel_bins ({}) and dft_length ({}) must be positive", mel_bins, dft_length));
  }
  input_type(ctx, node, 2, {DType::i32, DType::i64});
  input_type(ctx, node, 3, {DType::f32, DType::f64});
  input_type(ctx, node, 4, {DType::f32, DType::f64});
  for (size_t i = 2; i < 5; ++i) {
    if (ctx.graph.type_of(node.inputs[i]).elements() != 1) {
      throw Error(fmt::format("input {} ('{}') must hold one value", i, node.inputs[i]));
    }
  }
  const DType dtype = output_datatype(node);
  node.attrs.set("num_mel_bins", mel_bins);
  node.attrs.set("dft_length", dft_length);
  return {TensorType{dtype, {dft_length / 2 + 1, mel_bins}}};
}

}  // namespace nee
