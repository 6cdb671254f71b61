#include <numeric>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// Whether moving the dims of `shape` by `perm` keeps the element order: the dims of
// extent above 1 stay in their order, so only unit dims move.
bool keeps_element_order(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm) {
  int64_t last = -1;
  for (int64_t d : perm) {
    if (d < 0 || d >= static_cast<int64_t>(shape.size())) return false;
    if (shape[static_cast<size_t>(d)] == 1) continue;
    if (d < last) return false;
    last = d;
  }
  return true;
}

}  // namespace

void transpose_as_reshape(Graph& graph) {
  for (Node& node : graph.nodes()) {
    if (node.op != "Transpose" || node.inputs.size() != 1 || node.outputs.size() != 1) continue;
    const std::vector<int64_t>& shape = graph.type_of(node.inputs[0]).shape;
    std::vector<int64_t> reversed(shape.size());
    std::iota(reversed.rbegin(), reversed.rend(), 0);
    if (!keeps_element_order(shape, node.attrs.get_ints("perm", reversed))) continue;
    const std::vector<int64_t> out_shape = graph.type_of(node.outputs[0]).shape;
    node.op = "Reshape";
    node.inputs.push_back(add_shape_constant(graph, node.outputs[0] + ".shape", out_shape));
    node.attrs = Attributes{};
  }
}

}  // namespace nee
