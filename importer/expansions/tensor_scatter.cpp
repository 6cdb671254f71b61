#include <fmt/format.h>

#include "core/error.h"
#include "importer/expansions/expanded_operators.h"
#include "importer/expansions/node_expansion.h"

namespace nee {

// TensorScatter (opset 24), a KV cache's update: a ScatterElements of `update` into
// `past_cache` along `axis`, at write_indices[b] + s for the update's row s of batch b
// (modulo the cache's length in circular mode). Without write_indices the indices are a
// constant, folded at import.
std::vector<Node> expand_tensor_scatter(Graph& graph, const Node& node, int64_t /*opset*/) {
  if (node.inputs.size() < 2 || node.inputs[0].empty() || node.inputs[1].empty()) {
    throw Error("TensorScatter takes past_cache, update and optional write_indices");
  }
  const TensorType& cache = graph.type_of(node.inputs[0]);
  const TensorType& update = graph.type_of(node.inputs[1]);
  const int64_t rank = static_cast<int64_t>(cache.shape.size());
  int64_t axis = node.attrs.get_int("axis", -2);
  if (axis < 0) axis += rank;
  if (rank < 2 || axis <= 0 || axis >= rank) {
    throw Error(fmt::format("axis {} must name a dim of the {}-D cache other than the batch", axis, rank));
  }
  const std::string mode = node.attrs.get_string("mode", "linear");
  if (mode != "linear" && mode != "circular") throw Error("mode '" + mode + "' is neither linear nor circular");
  bool fits = update.dtype == cache.dtype && update.shape.size() == cache.shape.size();
  for (int64_t d = 0; fits && d < rank; ++d) {
    const size_t i = static_cast<size_t>(d);
    fits = d == axis ? update.shape[i] <= cache.shape[i] : update.shape[i] == cache.shape[i];
  }
  if (!fits) {
    throw Error(fmt::format("update {} does not fit cache {} along axis {}", update.to_string(), cache.to_string(),
                            axis));
  }
  const int64_t batch = cache.shape[0], rows = update.shape[static_cast<size_t>(axis)];

  NodeExpansion build(graph, node.name);
  std::vector<int64_t> row_shape(static_cast<size_t>(rank), 1), row_index(static_cast<size_t>(rows));
  row_shape[static_cast<size_t>(axis)] = rows;
  for (int64_t s = 0; s < rows; ++s) row_index[static_cast<size_t>(s)] = s;
  std::string index = build.int64_tensor("row_index", row_shape, row_index);
  const std::string& starts = optional_name(node.inputs, 2);
  if (!starts.empty()) {
    const TensorType& type = graph.type_of(starts);
    if (type.dtype != DType::i64 || type.shape != std::vector<int64_t>{batch}) {
      throw Error(fmt::format("write_indices is {}; it must be int64 [{}]", type.to_string(), batch));
    }
    std::vector<int64_t> by_batch(static_cast<size_t>(rank), 1);
    by_batch[0] = batch;
    index = build.add("Add", "index", {index, build.reshape("starts_by_batch", starts, by_batch)});
  }
  if (mode == "circular") {
    const int64_t length = cache.shape[static_cast<size_t>(axis)];
    index = build.add("Mod", "wrapped", {index, build.int64_tensor("length", {}, {length})});
  }
  index = build.add("Expand", "index_by_element", {index, build.int64s("update_shape", update.shape)});
  Attributes along;
  along.set("axis", axis);
  build.add("ScatterElements", "present", {node.inputs[0], index, node.inputs[1]}, along, node.outputs[0]);
  return build.take();
}

}  // namespace nee
