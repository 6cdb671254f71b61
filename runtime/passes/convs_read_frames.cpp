#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "runtime/passes/passes.h"

namespace nee {

namespace {

// The NeeConv that is the one reader of gather G's output, reading it as X alone, if it
// sums directly over one group; else null.
Node* sole_direct_conv_reader(Graph& graph, const Node& gather) {
  const std::string& y = gather.outputs[0];
  const std::vector<const Node*> readers = graph.consumers(y);
  if (graph.is_output(y) || readers.size() != 1) return nullptr;
  const Node& conv = *readers[0];
  if (conv.op != "NeeConv" || conv.inputs[0] != y || conv.attrs.get_int("group", 1) != 1 ||
      conv.attrs.get_int("winograd_tile", 0) != 0 || conv.attrs.get_int("frame_taps", 0) != 0) {
    return nullptr;
  }
  for (size_t i = 1; i < conv.inputs.size(); ++i) {
    if (conv.inputs[i] == y) return nullptr;
  }
  return const_cast<Node*>(&conv);
}

}  // namespace

void convs_read_frames(Graph& graph) {
  std::set<std::string> gone;
  for (const Node& gather : graph.nodes()) {
    // Frames [N * T, C, H, W] only (input_frames set), not a 5-D [N, C, T, H, W] X.
    const int64_t frames_in = gather.attrs.get_int("input_frames", 0);
    if (gather.op != "NeeFrameGather" || frames_in == 0 || gather.attrs.get_int("group") != 1) continue;
    Node* conv = sole_direct_conv_reader(graph, gather);
    if (!conv) continue;
    const int64_t clips = graph.type_of(gather.inputs[0]).shape[0] / frames_in;
    conv->inputs[0] = gather.inputs[0];
    conv->attrs.set("frame_taps", gather.attrs.get_int("kernel"));
    conv->attrs.set("frame_stride", gather.attrs.get_int("stride"));
    conv->attrs.set("frame_dilation", gather.attrs.get_int("dilation"));
    conv->attrs.set("frame_pad", gather.attrs.get_int("pad_begin"));
    conv->attrs.set("frames_in", frames_in);
    conv->attrs.set("frames_out", graph.type_of(gather.outputs[0]).shape[0] / clips);
    gone.insert(gather.name);
  }
  std::vector<Node>& nodes = graph.nodes();
  for (size_t i = nodes.size(); i-- > 0;) {
    if (!gone.count(nodes[i].name)) continue;
    const std::string unread = nodes[i].outputs[0];
    nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
    graph.remove_value(unread);
  }
}

}  // namespace nee
