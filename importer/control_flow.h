#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "runtime/graph.h"
#include "runtime/tensor_limits.h"

namespace nee {

// If, Loop and Scan, resolved at import. NEE plans static shapes, so a subgraph's nodes
// are imported into the graph that holds the control-flow node, specialized on what is
// known: If with a known condition becomes its branch; Scan becomes one copy of its body
// per slice; Loop becomes its iterations, one at a time, while its trip count and
// condition are known. A condition computed from the model's data is a value the next
// stage is specialized on (runtime/staged_session.h). Inlined values are named
// "<node>/<branch or iteration>/<name>", so every stage names them alike.
class ControlFlow {
 public:
  // Subgraph initializers and Constant nodes, copied once per inlining (a Loop's once per
  // iteration), reserve their bytes in `weights` before they are read, and none may take
  // over `max_tensor_bytes`.
  ControlFlow(std::optional<std::filesystem::path> folder, ByteBudget& weights, int64_t max_tensor_bytes)
      : folder_(std::move(folder)), weights_(weights), max_tensor_bytes_(max_tensor_bytes) {}

  static const std::set<std::string>& operators();  // If, Loop, Scan
  static bool handles(const std::string& op) { return operators().count(op) != 0; }

  // A node of the model, or of a subgraph being inlined, whose value names are mapped
  // through `renames` (names not in it are kept). A control-flow node keeps its subgraphs
  // here and lists, after its own inputs, the outer values its subgraphs read, so that
  // ordering, pruning and staging see them.
  Node make_node(const onnx::NodeProto& proto, const std::string& name,
                 const std::map<std::string, std::string>& renames);

  // The nodes that replace control-flow node `node`, to import in its place. Values they
  // need (branch initializers, iteration numbers) are added to `graph` as constants.
  // Throws ValueNeeded when a condition or trip count is not known yet.
  std::vector<Node> expand(Graph& graph, const Node& node, int64_t opset);

 private:
  struct Scope {
    const onnx::GraphProto* graph;
    std::map<std::string, std::string> renames;  // outer values' names, as imported
  };
  struct Record {
    std::map<std::string, Scope> bodies;  // by attribute: then_branch, else_branch, body
    size_t own_inputs = 0;                // inputs past these are the subgraphs' outer reads
    std::string base;                     // the node's name as the model gives it
    int64_t iteration = 0;                // Loop: iterations already inlined
    std::vector<std::vector<std::string>> scan_slices;  // Loop: each scan output's slices so far
  };
  struct Inlined {
    std::vector<Node> nodes;
    std::vector<std::string> outputs;  // the subgraph's outputs, as named after inlining
  };

  // The subgraph's nodes renamed under `prefix`, its inputs bound to `bindings`.
  Inlined inline_body(Graph& graph, const Scope& scope, const std::string& prefix,
                      const std::vector<std::string>& bindings);
  std::vector<Node> expand_if(Graph& graph, const Node& node, const Record& record);
  std::vector<Node> expand_loop(Graph& graph, const Node& node, const Record& record, int64_t opset);
  std::vector<Node> expand_scan(Graph& graph, const Node& node, const Record& record, int64_t opset);

  std::optional<std::filesystem::path> folder_;
  ByteBudget& weights_;
  int64_t max_tensor_bytes_;
  std::map<std::string, Record> records_;  // by node name
};

}  // namespace nee
