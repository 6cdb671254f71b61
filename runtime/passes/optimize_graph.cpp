#include "runtime/passes/passes.h"

namespace nee {

void optimize_graph(Graph& graph) {
  remove_identity(graph);
  fuse_conv(graph);
  fuse_gemm(graph);
  fuse_matmul_add(graph);
  convert_matmul(graph);
  fuse_matmul_relu(graph);
  fuse_layer_norm(graph);
}

}  // namespace nee
