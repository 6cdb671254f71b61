#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "core/conv_weight_layout.h"
#include "runtime/graph_options.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

void widen_conv_groups(Graph& graph, int64_t min_width, bool merge_wider, bool record_width) {
  for (Node& node : graph.nodes()) {
    if (node.op != "NeeConv") continue;
    const int64_t group = node.attrs.get_int("group", 1);
    const Tensor* w = f32_constant(graph, node.inputs[1]);
    if (group <= 1 || !w || w->shape().size() != 4 || node.attrs.get_int("weight_block", 0) != 0) continue;
    const std::vector<int64_t>& oihw = w->shape();
    const int64_t width = oihw[1];  // input channels per group
    // Depthwise convs (width 1) have blocked kernels of their own, and groups of whole
    // blocks are blocked as they are.
    if (width < 2 || width % kConvWeightBlock == 0 || oihw[0] != group * width) continue;
    const int64_t widened_width = std::lcm(width, kConvWeightBlock);
    const int64_t merged = widened_width / width;  // groups per widened group
    const bool divisor = kConvWeightBlock % width == 0;
    const bool wanted = divisor ? min_width > 0 && width >= min_width : merge_wider && merged <= kMostMergedGroups;
    if (!wanted || group % merged != 0) continue;

    // Output channel o of group g reads input k of its group; in the widened group g /
    // merged, that input sits at (g % merged) * width + k, and the other inputs weigh zero.
    Tensor widened(DType::f32, {oihw[0], widened_width, oihw[2], oihw[3]});
    const int64_t taps = oihw[2] * oihw[3];
    const float* src = w->data_as<float>();
    float* dst = widened.data_as<float>();
    for (int64_t o = 0; o < oihw[0]; ++o) {
      const int64_t offset = (o / width) % merged * width;
      for (int64_t k = 0; k < width; ++k) {
        std::copy_n(src + (o * width + k) * taps, taps, dst + (o * widened_width + offset + k) * taps);
      }
    }
    const std::string name = node.inputs[1] + ".groups_of" + std::to_string(widened_width);
    if (!graph.has_value(name)) graph.add_constant(name, widened);
    const std::string plain = node.inputs[1];
    node.inputs[1] = name;
    node.attrs.set("group", group / merged);
    // Widths that divide a block leave no input that a block's channels all skip.
    if (record_width && !divisor) node.attrs.set("group_width", width);
    if (graph.consumers(plain).empty() && !graph.is_output(plain)) graph.remove_value(plain);
  }
}

}  // namespace nee
