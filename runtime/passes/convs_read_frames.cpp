#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "runtime/passes/passes.h"

namespace nee {

namespace {

// A conv that sums directly over one group of f32 products, not reading frames in place already.
bool sums_directly(const Node& conv) {
  return conv.op == "NeeConv" && conv.attrs.get_int("group", 1) == 1 && conv.attrs.get_int("winograd_tile", 0) == 0 &&
         conv.attrs.get_int("frame_taps", 0) == 0 && conv.attrs.get_int("a_bits", 0) == 0;
}

// Whether `gather` gathers frames [N * T, C, H, W] (not a 5-D [N, C, T, H, W] X) of one
// group for `conv` alone, which reads them as X and nowhere else.
bool gathers_for_alone(const Graph& graph, const Node& gather, const Node& conv) {
  const std::string& y = gather.outputs[0];
  if (gather.op != "NeeFrameGather" || gather.attrs.get_int("input_frames", 0) == 0 ||
      gather.attrs.get_int("group") != 1 || graph.is_output(y) || graph.consumers(y).size() != 1) {
    return false;
  }
  for (size_t i = 1; i < conv.inputs.size(); ++i) {
    if (conv.inputs[i] == y) return false;
  }
  return true;
}

}  // namespace

void convs_read_frames(Graph& graph) {
  std::set<std::string> gone;
  for (Node& conv : graph.nodes()) {
    if (!sums_directly(conv)) continue;
    const Node* gather = graph.producer(conv.inputs[0]);
    if (!gather || !gathers_for_alone(graph, *gather, conv)) continue;
    const int64_t frames_in = gather->attrs.get_int("input_frames");
    const int64_t clips = graph.type_of(gather->inputs[0]).shape[0] / frames_in;
    conv.inputs[0] = gather->inputs[0];
    conv.attrs.set("frame_taps", gather->attrs.get_int("kernel"));
    conv.attrs.set("frame_stride", gather->attrs.get_int("stride"));
    conv.attrs.set("frame_dilation", gather->attrs.get_int("dilation"));
    conv.attrs.set("frame_pad", gather->attrs.get_int("pad_begin"));
    conv.attrs.set("frames_in", frames_in);
    conv.attrs.set("frames_out", graph.type_of(gather->outputs[0]).shape[0] / clips);
    gone.insert(gather->name);
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
