#include "core/matmul_weight_layout.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

void pack_matmul_weights(Graph& graph, bool pad_panels) {
  for (Node& node : graph.nodes()) {
    if (node.op != "NeeMatMul" || node.attrs.get_int("b_block", 0) != 0 || node.attrs.get_int("trans_b", 0) != 0) {
      continue;
    }
    const std::string weights_name = node.inputs[1];
    const Tensor* weights = f32_constant(graph, weights_name);
    if (!weights || !matmul_weights_pack(weights->shape(), pad_panels)) continue;
    // Products sharing one constant share its packed copy.
    const std::string packed_name = weights_name + ".panels" + std::to_string(kMatmulWeightPanel);
    if (!graph.has_value(packed_name)) {
      Tensor packed(DType::f32, matmul_panel_shape(weights->shape()));
      pack_matmul_panels(weights->data_as<float>(), weights->shape(), packed.data_as<float>());
      graph.add_constant(packed_name, packed);
    }
    node.inputs[1] = packed_name;
    const MatmulAttrs packed = with_packed_b({}, weights->shape());
    node.attrs.set("b_block", packed.b_block);
    if (packed.b_columns != 0) node.attrs.set("b_columns", packed.b_columns);
    // The plain copy goes once nothing reads it (a tied embedding's Gather still may).
    if (graph.consumers(weights_name).empty() && !graph.is_output(weights_name)) graph.remove_value(weights_name);
  }
}

}  // namespace nee
