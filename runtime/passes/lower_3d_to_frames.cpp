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
  Node node = single_output_node("Transpose", {from}, to);
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
// 100-130 GFLOP/s.
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

// A one-output node of `op` reading `inputs`, writing the new value `output` of `type`.
Node new_node(Graph& graph, const std::string& op, const std::vector<std::string>& inputs, const std::string& output,
              const TensorType& type) {
  graph.add_value(output, type);
  return single_output_node(op, inputs, output);
}

// The lowering walks the 3-D convs, pools and channel concatenations in graph order and
// remembers, per 5-D value [N, C, T, H, W] it lowered, its frames [N * T, C, H, W]
// (widened to more channels where widens_output says): a later op reads those instead of
// the value, which each lowered op also writes in ONNX's layout (frames viewed as
// [N, T, C, H, W], then a Transpose (0, 2, 1, 3, 4)) until nothing reads it so.
class FramesLowering {
 public:
  explicit FramesLowering(Graph& graph) : graph_(graph) {}

  void conv(size_t i);
  void pool(size_t i);
  void concat(size_t i);
  // Erases the nodes lowered into others and the copies nothing reads.
  void finish();

 private:
  std::string frames_of(const std::string& value) const {
    const auto it = frames_.find(value);
    return it == frames_.end() ? std::string() : it->second;
  }
  std::string gather(const Node& conv, int64_t output_frames);
  std::string residual_frames(const std::string& residual);
  // `frames` hold `result` (of ONNX shape y): remembered, and written in ONNX's layout.
  void publish(const std::string& result, const std::string& frames, const std::vector<int64_t>& y);

  Graph& graph_;
  std::map<std::string, std::string> frames_;
  std::vector<std::string> widened_;  // results that only lowered convs read, as frames
  std::vector<size_t> replaced_;      // nodes lowered into new ones
  std::vector<Node> added_;
};

// The 2-D conv's input [N * T', KT * C, H, W] for `conv`, whose X is [N, C, T, H, W]:
// X's frames themselves where each output frame reads one input frame, else a
// NeeFrameGather of X's frames (C theirs, widened or not) or of X.
std::string FramesLowering::gather(const Node& conv, int64_t output_frames) {
  const std::vector<int64_t> x = graph_.type_of(conv.inputs[0]).shape;
  const std::vector<int64_t> kernel = conv.attrs.get_ints("kernel_shape"), strides = conv.attrs.get_ints("strides");
  const std::vector<int64_t> pads = conv.attrs.get_ints("pads");
  const std::string frames = frames_of(conv.inputs[0]);
  if (!frames.empty() && kernel[0] == 1 && strides[0] == 1 && pads[0] == 0 && pads[3] == 0) return frames;
  const int64_t channels = frames.empty() ? x[1] : graph_.type_of(frames).shape[1];
  const std::string gathered = unique_value_name(graph_, conv.name + ".frames");
  Node node = new_node(graph_, "NeeFrameGather", {frames.empty() ? conv.inputs[0] : frames}, gathered,
                       TensorType{DType::f32, {x[0] * output_frames, kernel[0] * channels, x[3], x[4]}});
  node.attrs.set("kernel", kernel[0]);
  node.attrs.set("stride", strides[0]);
  node.attrs.set("dilation", conv.attrs.get_ints("dilations")[0]);
  node.attrs.set("pad_begin", pads[0]);
  node.attrs.set("group", conv.attrs.get_int("group", 1));
  if (!frames.empty()) node.attrs.set("input_frames", x[2]);
  added_.push_back(std::move(node));
  return gathered;
}

// The residual R [N, M, T', H', W'] as frames [N * T', M, H', W']: a lowered op's own, or
// R's Transpose viewed so.
std::string FramesLowering::residual_frames(const std::string& residual) {
  const std::string frames = frames_of(residual);
  if (!frames.empty()) return frames;
  const TensorType r = graph_.type_of(residual);
  const std::string frames_major = unique_value_name(graph_, residual + ".frames_major");
  graph_.add_value(frames_major, TensorType{r.dtype, {r.shape[0], r.shape[2], r.shape[1], r.shape[3], r.shape[4]}});
  added_.push_back(swap_channels_and_time(residual, frames_major));
  const std::string viewed = unique_value_name(graph_, residual + ".frames");
  added_.push_back(
      reshape_view(graph_, frames_major, viewed, {r.shape[0] * r.shape[2], r.shape[1], r.shape[3], r.shape[4]}));
  return viewed;
}

void FramesLowering::publish(const std::string& result, const std::string& frames, const std::vector<int64_t>& y) {
  frames_[result] = frames;
  const std::string frames_major = unique_value_name(graph_, result + ".frames_major");
  added_.push_back(reshape_view(graph_, frames, frames_major, {y[0], y[2], y[1], y[3], y[4]}));
  added_.push_back(swap_channels_and_time(frames_major, result));
}

void FramesLowering::conv(size_t i) {
  Node conv = graph_.nodes()[i];
  const std::vector<int64_t> y = graph_.type_of(conv.outputs[0]).shape;
  const int64_t batch = y[0], frames = y[2];
  const std::vector<int64_t> kernel = conv.attrs.get_ints("kernel_shape"), strides = conv.attrs.get_ints("strides");
  const std::vector<int64_t> dilations = conv.attrs.get_ints("dilations"), pads = conv.attrs.get_ints("pads");
  const std::string x_frames = frames_of(conv.inputs[0]);
  const Tensor w = *f32_constant(graph_, conv.inputs[1]);
  const bool widen = widens_output(graph_, conv);
  const int64_t outputs = widen ? (y[1] + 15) / 16 * 16 : y[1];
  // Frames widened by widens_output have more channels than X (the conv has one group).
  const int64_t channels = w.shape()[1] + (x_frames.empty() ? 0 : graph_.type_of(x_frames).shape[1] -
                                                                     graph_.type_of(conv.inputs[0]).shape[1]);
  conv.inputs[0] = gather(conv, frames);
  conv.inputs[1] = add_named_constant(graph_, conv.name + ".frame_weights", frame_weights(w, outputs, channels));
  if (widen && conv.attrs.get_int("bias")) {
    const Tensor bias = zero_extended(*f32_constant(graph_, conv.inputs[2]), outputs);
    conv.inputs[2] = add_named_constant(graph_, conv.name + ".widened_bias", bias);
  }
  if (conv.attrs.get_int("residual")) {
    std::string& residual = conv.inputs[conv.attrs.get_int("bias") ? 3 : 2];
    residual = residual_frames(residual);
  }
  conv.attrs.set("kernel_shape", std::vector<int64_t>{kernel[1], kernel[2]});
  conv.attrs.set("strides", std::vector<int64_t>{strides[1], strides[2]});
  conv.attrs.set("dilations", std::vector<int64_t>{dilations[1], dilations[2]});
  conv.attrs.set("pads", std::vector<int64_t>{pads[1], pads[2], pads[4], pads[5]});
  const std::string result = conv.outputs[0];
  const std::string flat = unique_value_name(graph_, result + ".frames");
  graph_.add_value(flat, TensorType{DType::f32, {batch * frames, outputs, y[3], y[4]}});
  conv.outputs[0] = flat;
  graph_.nodes()[i] = std::move(conv);
  if (widen) {  // only lowered convs read it
    frames_[result] = flat;
    widened_.push_back(result);
  } else {
    publish(result, flat, y);
  }
}

// Max and average pools are separable: a window's maximum is the maximum over its frames
// of each frame's plane maximum, and its average (of a box clipped to the input or to the
// padding, as ONNX counts) the average of the planes' averages. The time pool takes X's
// frames viewed as [N, 1, T, C * H * W] (a 2-D pool with a window of KT x 1), the plane
// pool the frames.
void FramesLowering::pool(size_t i) {
  const Node pool = graph_.nodes()[i];
  const std::vector<int64_t> x = graph_.type_of(pool.inputs[0]).shape, y = graph_.type_of(pool.outputs[0]).shape;
  const std::vector<int64_t> k = pool.attrs.get_ints("kernel_shape"), s = pool.attrs.get_ints("strides");
  const std::vector<int64_t> p = pool.attrs.get_ints("pads"), d = pool.attrs.get_ints("dilations", {1, 1, 1});
  std::string frames = frames_of(pool.inputs[0]);
  if (frames.empty()) {  // a one-tap gather copies X into frames
    frames = unique_value_name(graph_, pool.name + ".frames");
    Node copy = new_node(graph_, "NeeFrameGather", {pool.inputs[0]}, frames,
                         TensorType{DType::f32, {x[0] * x[2], x[1], x[3], x[4]}});
    for (const char* one : {"kernel", "stride", "dilation", "group"}) copy.attrs.set(one, int64_t{1});
    copy.attrs.set("pad_begin", int64_t{0});
    added_.push_back(std::move(copy));
  }
  const auto pool_2d = [&](const std::string& in, const std::string& out, const std::vector<int64_t>& out_shape,
                           std::vector<int64_t> kernel, std::vector<int64_t> strides, std::vector<int64_t> pads,
                           std::vector<int64_t> dilations) {
    Node node = new_node(graph_, pool.op, {in}, out, TensorType{DType::f32, out_shape});
    node.attrs = pool.attrs;
    node.attrs.set("kernel_shape", std::move(kernel));
    node.attrs.set("strides", std::move(strides));
    node.attrs.set("pads", std::move(pads));
    node.attrs.set("dilations", std::move(dilations));
    added_.push_back(std::move(node));
  };
  const int64_t plane_elements = x[1] * x[3] * x[4];
  if (k[0] != 1 || s[0] != 1 || p[0] != 0 || p[3] != 0) {
    const std::string viewed = unique_value_name(graph_, pool.name + ".time_rows");
    added_.push_back(reshape_view(graph_, frames, viewed, {x[0], 1, x[2], plane_elements}));
    const std::string pooled = unique_value_name(graph_, pool.name + ".time_pooled");
    pool_2d(viewed, pooled, {x[0], 1, y[2], plane_elements}, {k[0], 1}, {s[0], 1}, {p[0], 0, p[3], 0}, {d[0], 1});
    frames = unique_value_name(graph_, pool.name + ".time_pooled_frames");
    added_.push_back(reshape_view(graph_, pooled, frames, {x[0] * y[2], x[1], x[3], x[4]}));
  }
  if (k[1] != 1 || k[2] != 1 || s[1] != 1 || s[2] != 1 || p[1] != 0 || p[2] != 0 || p[4] != 0 || p[5] != 0) {
    const std::string pooled = unique_value_name(graph_, pool.name + ".frames_pooled");
    pool_2d(frames, pooled, {y[0] * y[2], y[1], y[3], y[4]}, {k[1], k[2]}, {s[1], s[2]}, {p[1], p[2], p[4], p[5]},
            {d[1], d[2]});
    frames = pooled;
  }
  replaced_.push_back(i);
  publish(pool.outputs[0], frames, y);
}

// A concatenation of lowered values along channels is one of their frames.
void FramesLowering::concat(size_t i) {
  const Node concat = graph_.nodes()[i];
  std::vector<std::string> inputs;
  for (const std::string& in : concat.inputs) {
    inputs.push_back(frames_of(in));
    if (inputs.back().empty() || graph_.type_of(inputs.back()).shape[1] != graph_.type_of(in).shape[1]) return;
  }
  const std::vector<int64_t> y = graph_.type_of(concat.outputs[0]).shape;
  const std::string frames = unique_value_name(graph_, concat.outputs[0] + ".frames");
  Node node = new_node(graph_, "Concat", inputs, frames, TensorType{DType::f32, {y[0] * y[2], y[1], y[3], y[4]}});
  node.attrs.set("axis", int64_t{1});
  added_.push_back(std::move(node));
  replaced_.push_back(i);
  publish(concat.outputs[0], frames, y);
}

void FramesLowering::finish() {
  std::sort(replaced_.rbegin(), replaced_.rend());
  for (size_t i : replaced_) graph_.nodes().erase(graph_.nodes().begin() + static_cast<std::ptrdiff_t>(i));
  for (Node& node : added_) graph_.add_node(std::move(node));
  for (const std::string& result : widened_) graph_.remove_value(result);
  drop_unread_copies(graph_);
  graph_.sort_topologically();
}

bool is_f32_rank5(const Graph& graph, const std::string& value) {
  const TensorType& t = graph.type_of(value);
  return t.dtype == DType::f32 && t.shape.size() == 5;
}

}  // namespace

void lower_3d_to_frames(Graph& graph) {
  FramesLowering lowering(graph);
  const size_t count = graph.nodes().size();
  for (size_t i = 0; i < count; ++i) {
    const Node& node = graph.nodes()[i];
    if (node.inputs.empty() || !is_f32_rank5(graph, node.inputs[0])) continue;
    if (node.op == "NeeConv") {
      lowering.conv(i);
    } else if ((node.op == "MaxPool" || node.op == "AveragePool") && node.outputs.size() == 1 &&
               node.attrs.get_ints("kernel_shape").size() == 3) {
      lowering.pool(i);
    } else if (node.op == "Concat" && node.attrs.get_int("axis") == 1 && !graph.is_output(node.outputs[0])) {
      lowering.concat(i);
    }
  }
  lowering.finish();
}

}  // namespace nee
