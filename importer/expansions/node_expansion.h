#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "runtime/graph.h"

namespace nee {

// Builds the nodes that stand for one node of an operator ONNX defines as a function of
// others (importer/expansions/expanded_operators.h): the importer then imports them in its
// place, so constant folding, the passes and the reference kernels see only operators
// they know.
// Values and constants the nodes add are named "<node>/<label>"; each expansion writes
// its nodes in the form of the model's opset.
class NodeExpansion {
 public:
  NodeExpansion(Graph& graph, std::string node_name) : graph_(graph), prefix_(std::move(node_name)) {}

  // Constants, added to the graph now.
  std::string int64s(const std::string& label, const std::vector<int64_t>& values);  // rank 1
  std::string int64_tensor(const std::string& label, const std::vector<int64_t>& shape,
                           const std::vector<int64_t>& values);
  std::string float_scalar(const std::string& label, float value);
  // A scalar of `dtype` holding `value`: an f32 constant, cast where `dtype` is another
  // float type (the Cast folds at import).
  std::string scalar(const std::string& label, float value, DType dtype);
  std::string float_tensor(const std::string& label, const std::vector<int64_t>& shape,
                           const std::vector<float>& values);

  // A node of `op` reading `inputs`; its one output is `output`, or "<node>/<label>" when
  // `output` is empty. Returns the output's name.
  std::string add(const std::string& op, const std::string& label, const std::vector<std::string>& inputs,
                  Attributes attrs = {}, const std::string& output = "");

  // Shorthands for the data-movement nodes every expansion needs.
  std::string reshape(const std::string& label, const std::string& input, const std::vector<int64_t>& shape,
                      const std::string& output = "");
  std::string transpose(const std::string& label, const std::string& input, const std::vector<int64_t>& perm,
                        const std::string& output = "");
  std::string cast(const std::string& label, const std::string& input, DType to, const std::string& output = "");

  std::vector<Node> take() { return std::move(nodes_); }

 private:
  std::string name(const std::string& label) const { return prefix_ + "/" + label; }

  Graph& graph_;
  std::string prefix_;
  std::vector<Node> nodes_;
};

// Input or output `i` of a node; empty when the node omits it or has fewer.
const std::string& optional_name(const std::vector<std::string>& names, size_t i);

}  // namespace nee
