#include "core/conv2d_workload.h"
#include "core/conv_weight_layout.h"
#include "core/winograd_weights.h"
#include "runtime/node_workload.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

void use_winograd(Graph& graph, bool bound_weights) {
  for (Node& node : graph.nodes()) {
    if (node.op != "NeeConv") continue;
    const std::optional<Workload> workload = workload_of(graph, node);
    if (!workload) continue;
    const int64_t tile = conv2d_winograd_tile(*workload, bound_weights);
    const std::string blocked_name = node.inputs[1];
    const Tensor* blocked = f32_constant(graph, blocked_name);
    if (tile == 0 || !blocked) continue;
    // Convolutions sharing one constant share its transformed copy.
    const std::string name = blocked_name + ".winograd" + std::to_string(tile);
    if (!graph.has_value(name)) {
      const std::vector<int64_t> oihw = conv2d_oihw_weights(*workload).shape;
      Tensor filters(DType::f32, oihw);
      unpack_blocked_weights(blocked->data_as<float>(), oihw, kConvWeightBlock, filters.data_as<float>());
      Tensor transformed(DType::f32, winograd_weight_shape(oihw, tile));
      pack_winograd_weights(filters.data_as<float>(), oihw, tile, transformed.data_as<float>());
      graph.add_constant(name, transformed);
    }
    node.inputs[1] = name;
    node.attrs.set("winograd_tile", tile);
    if (graph.consumers(blocked_name).empty() && !graph.is_output(blocked_name)) graph.remove_value(blocked_name);
  }
}

}  // namespace nee
