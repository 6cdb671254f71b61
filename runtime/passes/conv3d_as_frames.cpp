#include <algorithm>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// [N, C, T, H, W] <-> [N, T, C, H, W]; the permutation is its own inverse.
const std::vector<int64_t> kSwapChannelsAndTime = {0, 2, 1, 3, 4};

// The value whose Transpose (0, 2, 1, 3, 4) `value` is, or "" where it is not one.
std::string frames_major_source(const Graph& graph, const std::string& value) {
  const Node* producer = graph.producer(value);
  if (!producer || producer->op != "Transpose" || producer->attrs.get_ints("perm", {}) != kSwapChannelsAndTime) {
    return "";
  }
  return producer->inputs[0];
}

// A Transpose (0, 2, 1, 3, 4) of `from` into the existing value `to`.
Node swap_channels_and_time(const std::string& from, const std::string& to) {
  Node node;
  node.op = "Transpose";
  node.name = to;
  node.inputs = {from};
  node.outputs = {to};
  node.attrs.set("perm", kSwapChannelsAndTime);
  return node;
}

// W [M, C/G, KT, KH, KW] -> [M, KT * C/G, KH, KW], the input channels of each output in
// NeeFrameGather's order: tap-major.
Tensor frame_weights(const Tensor& w) {
  const std::vector<int64_t>& s = w.shape();
  const int64_t outputs = s[0], channels = s[1], taps = s[2], plane = s[3] * s[4];
  Tensor out(DType::f32, {outputs, taps * channels, s[3], s[4]});
  const float* in = w.data_as<float>();
  float* o = out.data_as<float>();
  for (int64_t m = 0; m < outputs; ++m) {
    for (int64_t k = 0; k < taps; ++k) {
      for (int64_t c = 0; c < channels; ++c) {
        std::copy_n(in + ((m * channels + c) * taps + k) * plane, plane, o + ((m * taps + k) * channels + c) * plane);
      }
    }
  }
  return out;
}

// The frames of X as a 2-D conv's input [N * T', KT * C, H, W]: a view where X is the
// Transpose of a frames-major value and each output frame reads one input frame, else a
// NeeFrameGather.
std::string gather_frames(Graph& graph, const Node& conv, int64_t frames) {
  const std::vector<int64_t> x = graph.type_of(conv.inputs[0]).shape;
  const std::vector<int64_t> kernel = conv.attrs.get_ints("kernel_shape"), strides = conv.attrs.get_ints("strides");
  const std::vector<int64_t> pads = conv.attrs.get_ints("pads");
  const std::string gathered = unique_value_name(graph, conv.name + ".frames");
  const std::vector<int64_t> shape = {x[0] * frames, kernel[0] * x[1], x[3], x[4]};
  std::string source = frames_major_source(graph, conv.inputs[0]);
  const bool frames_major = !source.empty();
  if (frames_major && kernel[0] == 1 && strides[0] == 1 && pads[0] == 0 && pads[3] == 0) {
    graph.add_node(reshape_view(graph, source, gathered, shape));
    return gathered;
  }
  if (!frames_major) source = conv.inputs[0];
  graph.add_value(gathered, TensorType{DType::f32, shape});
  Node gather;
  gather.op = "NeeFrameGather";
  gather.name = gathered;
  gather.inputs = {source};
  gather.outputs = {gathered};
  gather.attrs.set("kernel", kernel[0]);
  gather.attrs.set("stride", strides[0]);
  gather.attrs.set("dilation", conv.attrs.get_ints("dilations")[0]);
  gather.attrs.set("pad_begin", pads[0]);
  gather.attrs.set("group", conv.attrs.get_int("group", 1));
  gather.attrs.set("frames_major", int64_t{frames_major ? 1 : 0});
  graph.add_node(std::move(gather));
  return gathered;
}

// The residual R [N, M, T', H', W'] as the frames [N * T', M, H', W'].
std::string residual_frames(Graph& graph, const std::string& residual) {
  std::string source = frames_major_source(graph, residual);
  if (source.empty()) {
    const TensorType& r = graph.type_of(residual);
    source = unique_value_name(graph, residual + ".frames_major");
    graph.add_value(source, TensorType{r.dtype, {r.shape[0], r.shape[2], r.shape[1], r.shape[3], r.shape[4]}});
    graph.add_node(swap_channels_and_time(residual, source));
  }
  const std::vector<int64_t> s = graph.type_of(source).shape;
  const std::string frames = unique_value_name(graph, residual + ".frames");
  graph.add_node(reshape_view(graph, source, frames, {s[0] * s[1], s[2], s[3], s[4]}));
  return frames;
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
  // In graph order, so a conv's input made by an earlier one's Transpose is read frames-major.
  for (size_t i : convs) {
    Node conv = graph.nodes()[i];
    const std::vector<int64_t> y = graph.type_of(conv.outputs[0]).shape;
    const int64_t batch = y[0], frames = y[2];
    const std::vector<int64_t> kernel = conv.attrs.get_ints("kernel_shape"), strides = conv.attrs.get_ints("strides");
    const std::vector<int64_t> dilations = conv.attrs.get_ints("dilations"), pads = conv.attrs.get_ints("pads");
    conv.inputs[0] = gather_frames(graph, conv, frames);
    const std::string weights = unique_value_name(graph, conv.name + ".frame_weights");
    graph.add_constant(weights, frame_weights(*f32_constant(graph, conv.inputs[1])));
    conv.inputs[1] = weights;
    if (conv.attrs.get_int("residual")) {
      std::string& residual = conv.inputs[conv.attrs.get_int("bias") ? 3 : 2];
      residual = residual_frames(graph, residual);
    }
    conv.attrs.set("kernel_shape", std::vector<int64_t>{kernel[1], kernel[2]});
    conv.attrs.set("strides", std::vector<int64_t>{strides[1], strides[2]});
    conv.attrs.set("dilations", std::vector<int64_t>{dilations[1], dilations[2]});
    conv.attrs.set("pads", std::vector<int64_t>{pads[1], pads[2], pads[4], pads[5]});
    const std::string result = conv.outputs[0];
    const std::string flat = unique_value_name(graph, result + ".frames");
    graph.add_value(flat, TensorType{DType::f32, {batch * frames, y[1], y[3], y[4]}});
    conv.outputs[0] = flat;
    const std::string frames_major = unique_value_name(graph, result + ".frames_major");
    graph.add_node(reshape_view(graph, flat, frames_major, {batch, frames, y[1], y[3], y[4]}));
    graph.add_node(swap_channels_and_time(frames_major, result));
    graph.nodes()[i] = std::move(conv);
  }
  drop_unread_copies(graph);
  graph.sort_topologically();
}

}  // namespace nee
