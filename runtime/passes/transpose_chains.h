#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/graph.h"

namespace nee {

// Chains of Transposes and views, as compose_transposes (passes.h) folds them.

// A chain's index map as factors: the source's dims of extent above 1, split where a later
// view cuts one, each factor an id with its extent; the source's memory order of the
// factors, and per dim of the chain's current value the factors it spans, outer first.
class FactoredIndex {
 public:
  explicit FactoredIndex(const std::vector<int64_t>& shape);
  void transpose(const std::vector<int64_t>& perm);
  // The current value viewed as `shape`: false where a new dim does not cover whole
  // factors and cannot split the one it cuts.
  bool view(const std::vector<int64_t>& shape);
  // The whole map as one transpose: the source viewed as `source_shape` (factors adjacent
  // in both orders merged), read along `perm` for the output's order.
  void as_transpose(std::vector<int64_t>& source_shape, std::vector<int64_t>& perm) const;

 private:
  int add_factor(int64_t extent);
  std::pair<int, int> split(int f, int64_t outer);

  std::vector<int64_t> extents_;
  std::vector<int> source_order_;
  std::vector<std::vector<int>> dims_;
};

// Reshape, Flatten, Squeeze, Unsqueeze, Identity: a node whose output views its input.
bool is_view(const Node& node);
// A Transpose or a view.
bool chains(const Node& node);
// A Transpose's perm (reversed dims where it has none, ONNX's default).
std::vector<int64_t> transpose_perm(const Graph& graph, const Node& node);
// The chain from `head`: it, then while the last one's output is read by one chaining
// node alone (as its first input) and is no graph output, that node.
std::vector<const Node*> chain_from(const Graph& graph, const Node& head);
// Applies the chain's nodes to `index`: false where a view does not factor.
bool follow(const Graph& graph, const std::vector<const Node*>& chain, FactoredIndex& index);

}  // namespace nee
