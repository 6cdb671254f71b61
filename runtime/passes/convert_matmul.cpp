#include "runtime/passes/nee_matmul.h"
#include "runtime/passes/passes.h"

namespace nee {

// MatMul with a 1-D operand stays a MatMul: the matmul workload family needs rank >= 2.
void convert_matmul(Graph& graph) {
  for (Node& node : graph.nodes()) {
    if (is_fusable_matmul(graph, node)) node = plain_nee_matmul(node);
  }
}

}  // namespace nee
