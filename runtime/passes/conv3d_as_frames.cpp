#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// A Transpose (0, 2, 1, 3, 4) of `from` into the existing value `to`: [N, C, T, H, W] <->
// [N, T, C, H, W].
Node swap_channels_and_time(const std::string& from, const std::string& to) {
  Node node;
  node.op = "Transpose";
  node.name = to;
  node.inputs = {from};
  node.outputs = {to};
  node.attrs.set("perm", std::vector<int64_t>{0, 2, 1, 3, 4});
  return node;
}

// W [M, C/G, KT, KH, KW] -> [outputs, KT * channels, KH, KW] (outputs >= M, channels >=
// C/G), the input channels of each output in NeeFrameGather's order, tap-major; the
// weights of outputs from M and of input channels from C/G on are zero.
Tensor frame_weights(const Tensor& w, int64_t outputs, int64_t channels) {
  const std::vector<int64_t>& s = w.shape();
  const int64_t taps = s[2], plane = s[3] * s[4];
  Tensor out(DType::f32, {outputs, taps * channels, s[3], s[4]});
  const float* in = w.data_as<float>();
  float* o = out.data_as<float>();
  std::fill_n(o, out.elements(), 0.0f);
  for (int64_t m = 0; m < s[0]; ++m) {
    for (int64_t k = 0; k < taps; ++k) {
      for (int64_t c = 0; c < s[1]; ++c) {
        std::copy_n(in + ((m * s[1] + c) * taps + k) * plane, plane, o + ((m * taps + k) * channels + c) * plane);
      }
    }
  }
  return out;
}

Tensor zero_extended(const Tensor& v, int64_t elements) {
  Tensor out(DType::f32, {elements});
  std::fill_n(out.data_as<float>(), elements, 0.0f);
  std::copy_n(v.data_as<float>(), v.elements(), out.data_as<float>());
  return out;
}

// Whether `conv` may write its M channels widened to the next multiple of 16, zeros
// through zero weights and bias (then its activation), so that its frames block: M is
// not such a multiple, it has one group and no residual, and every reader of its result
// is a 3-D conv of one group taking it as X only, whose weights for the extra channels this
// pass makes zero. R(2+1)D-18's convs of 45, 230, 460 and 921 channels wrote NCHW at
// 100-125 GFLOP/s.
bool widens_output(const Graph& graph, const Node& conv) {
  const int64_t channels = graph.type_of(conv.outputs[0]).shape[1];
  if (channels % 16 == 0 || conv.attrs.get_int("group", 1) != 1 || conv.attrs.get_int("residual") ||
      graph.is_output(conv.outputs[0])) {
    return false;
  }
  const std::vector<const Node*> readers = graph.consumers(conv.outputs[0]);
  return !readers.empty() && std::all_of(readers.begin(), readers.end(), [&](const Node* reader) {
    return reader->op == "NeeConv" && reader->attrs.get_int("group", 1) == 1 && reader->inputs[0] == conv.outputs[0] &&
           std::count(reader->inputs.begin(), reader->inputs.end(), conv.outputs[0]) == 1 &&
           graph.type_of(reader->inputs[0]).shape.size() == 5;
  });
}

// The 2-D conv's input [N * T', KT * C, H, W] for `conv`, whose X is [N, C, T, H, W]:
// the frames an earlier conv wrote (`frames`, or "" where X is not such a conv's output;
// C is theirs, widened or not)
// themselves where each output frame reads one input frame, else a NeeFrameGather of them
// or of X.
std::string gather_frames(Graph& graph, const Node& conv, const std::string& frames, int64_t output_frames) {
  const std::vector<int64_t> x = graph.type_of(conv.inputs[0]).shape;
  const std::vector<int64_t> kernel = conv.attrs.get_ints("kernel_shape"), strides = conv.attrs.get_ints("strides");
  const std::vector<int64_t> pads = conv.attrs.get_ints("pads");
  if (!frames.empty() && kernel[0] == 1 && strides[0] == 1 && pads[0] == 0 && pads[3] == 0) return frames;
  const std::string gathered = unique_value_name(graph, conv.name + ".frames");
  const int64_t channels = frames.empty() ? x[1] : graph.type_of(frames).shape[1];
  graph.add_value(gathered, TensorType{DType::f32, {x[0] * output_frames, kernel[0] * channels, x[3], x[4]}});
  Node gather;
  gather.op = "NeeFrameGather";
  gather.name = gathered;
  gather.inputs = {frames.empty() ? conv.inputs[0] : frames};
  gather.outputs = {gathered};
  gather.attrs.set("kernel", kernel[0]);
  gather.attrs.set("stride", strides[0]);
  gather.attrs.set("dilation", conv.attrs.get_ints("dilations")[0]);
  gather.attrs.set("pad_begin", pads[0]);
  gather.attrs.set("group", conv.attrs.get_int("group", 1));
  if (!frames.empty()) gather.attrs.set("input_frames", x[2]);
  graph.add_node(std::move(gather));
  return gathered;
}

// The residual R [N, M, T', H', W'] as frames [N * T', M, H', W']: an earlier conv's own,
// or R's Transpose viewed so.
std::string residual_frames(Graph& graph, const std::string& residual, const std::string& frames) {
  if (!frames.empty()) return frames;
  const TensorType& r = graph.type_of(residual);
  const std::string frames_major = unique_value_name(graph, residual + ".frames_major");
  graph.add_value(frames_major, TensorType{r.dtype, {r.shape[0], r.shape[2], r.shape[1], r.shape[3], r.shape[4]}});
  graph.add_node(swap_channels_and_time(residual, frames_major));
  const std::string viewed = unique_value_name(graph, residual + ".frames");
  const std::vector<int64_t> shape = {r.shape[0] * r.shape[2], r.shape[1], r.shape[3], r.shape[4]};
  graph.add_node(reshape_view(graph, frames_major, viewed, shape));
  return viewed;
}

// Drops the Transposes and Reshapes that nothing reads any more.
void drop_unread_copies(Graph& graph) {
  auto& nodes = graph.nodes();
  for (size_t i = nodes.size(); i-- > 0;) {
    const std::string& out = nodes[i].outputs[0];
    if ((nodes[i].op == "Transpose" || nodes[i].op == "Reshape") && graph.consumers(out).empty() &&
        !graph.is_output(out)) {
      nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

}  // namespace

void conv3d_as_frames(Graph& graph) {
  std::vector<size_t> convs;
  for (size_t i = 0; i < graph.nodes().size(); ++i) {
    const Node& node = graph.nodes()[i];
    if (node.op == "NeeConv" && graph.type_of(node.inputs[0]).shape.size() == 5) convs.push_back(i);
  }
  if (convs.empty()) return;
  // Per lowered conv's result, its frames: in graph order, a conv reading an earlier one's
  // result reads those.
  std::map<std::string, std::string> frames_of;
  std::vector<std::string> widened;  // results that only lowered convs read, as frames
  const auto frames_of_value = [&](const std::string& value) {
    const auto it = frames_of.find(value);
    return it == frames_of.end() ? std::string() : it->second;
  };
  for (size_t i : convs) {
    Node conv = graph.nodes()[i];
    const std::vector<int64_t> y = graph.type_of(conv.outputs[0]).shape;
    const int64_t batch = y[0], frames = y[2];
    const std::vector<int64_t> kernel = conv.attrs.get_ints("kernel_shape"), strides = conv.attrs.get_ints("strides");
    const std::vector<int64_t> dilations = conv.attrs.get_ints("dilations"), pads = conv.attrs.get_ints("pads");
    const std::string x_frames = frames_of_value(conv.inputs[0]);
    const Tensor w = *f32_constant(graph, conv.inputs[1]);
    const bool widen = widens_output(graph, conv);
    const int64_t outputs = widen ? (y[1] + 15) / 16 * 16 : y[1];
    // Frames widened by widens_output have more channels than X (the conv has one group).
    const int64_t channels = w.shape()[1] + (x_frames.empty() ? 0 : graph.type_of(x_frames).shape[1] -
                                                                      graph.type_of(conv.inputs[0]).shape[1]);
    conv.inputs[0] = gather_frames(graph, conv, x_frames, frames);
    const std::string weights = unique_value_name(graph, conv.name + ".frame_weights");
    graph.add_constant(weights, frame_weights(w, outputs, channels));
    conv.inputs[1] = weights;
    if (widen && conv.attrs.get_int("bias")) {
      const std::string bias = unique_value_name(graph, conv.name + ".widened_bias");
      graph.add_constant(bias, zero_extended(*f32_constant(graph, conv.inputs[2]), outputs));
      conv.inputs[2] = bias;
    }
    if (conv.attrs.get_int("residual")) {
      std::string& residual = conv.inputs[conv.attrs.get_int("bias") ? 3 : 2];
      residual = residual_frames(graph, residual, frames_of_value(residual));
    }
    conv.attrs.set("kernel_shape", std::vector<int64_t>{kernel[1], kernel[2]});
    conv.attrs.set("strides", std::vector<int64_t>{strides[1], strides[2]});
    conv.attrs.set("dilations", std::vector<int64_t>{dilations[1], dilations[2]});
    conv.attrs.set("pads", std::vector<int64_t>{pads[1], pads[2], pads[4], pads[5]});
    const std::string result = conv.outputs[0];
    const std::string flat = unique_value_name(graph, result + ".frames");
    graph.add_value(flat, TensorType{DType::f32, {batch * frames, outputs, y[3], y[4]}});
    conv.outputs[0] = flat;
    frames_of[result] = flat;
    graph.nodes()[i] = std::move(conv);
    if (widen) {  // only lowered convs read it
      widened.push_back(result);
      continue;
    }
    // The result in ONNX's layout, for readers other than lowered convs.
    const std::string frames_major = unique_value_name(graph, result + ".frames_major");
    graph.add_node(reshape_view(graph, flat, frames_major, {batch, frames, y[1], y[3], y[4]}));
    graph.add_node(swap_channels_and_time(frames_major, result));
  }
  for (const std::string& result : widened) graph.remove_value(result);
  drop_unread_copies(graph);
  graph.sort_topologically();
}

}  // namespace nee
