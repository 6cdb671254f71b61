#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace nee {

// Sequence values (ONNX's seq(tensor)), resolved at import like control flow: a sequence
// is the list of its tensors' value names, and the operators on sequences become
// operators on those tensors (SequenceAt an Identity, ConcatFromSequence a Concat,
// SplitToSequence a Split) or constants (SequenceLength). So a sequence built in a loop
// that the importer unrolls, or passed through an If, costs nothing at run time. A
// position that is computed from the data keys the next stage, as any value that
// decides shapes does. Sequences as graph inputs or outputs are not read.
class SequenceValues {
 public:
  static const std::set<std::string>& operators();  // SequenceAt, ConcatFromSequence...
  // Whether `node` is an operator on sequences (or an Identity of a sequence).
  bool handles(const Node& node) const;
  bool is_sequence(const std::string& name) const { return sequences_.count(name) != 0; }
  // Tensors the sequence `name` holds.
  const std::vector<std::string>& elements(const std::string& name) const;

  // Records the sequence `node` defines, or returns the nodes that compute its tensor
  // output, to import in its place. Throws ValueNeeded when a position is not known yet.
  std::vector<Node> expand(Graph& graph, const Node& node, int64_t opset);

 private:
  struct Sequence {
    DType dtype;
    std::vector<std::string> elements;
  };
  const Sequence& sequence(const std::string& name) const;
  std::map<std::string, Sequence> sequences_;
};

}  // namespace nee
