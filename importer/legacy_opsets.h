#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "importer/op_importer.h"

namespace nee {

// Models of default-domain opsets 1 to 6. The import functions implement each operator
// as defined at opset 7 and later; a node of an older model whose operator changed
// before opset 7 is rewritten into opset 7's version first (ONNX's version converter
// does the same, adapter by adapter).

// Empty when NEE reads operator `op` in a model of `opset`: its definition at opset 7
// was already in force, or an upgrade exists. Otherwise the reason it cannot.
std::string legacy_version_problem(const std::string& op, int64_t opset);

// Rewrites `node` of a model of opset ctx.opset < 7 into opset 7's version of its
// operator: the legacy broadcast of binary ops, is_test, consumed_inputs, attributes
// that became inputs and the reverse. Returns nodes (Reshapes) that must run before it,
// whose constant inputs it adds to `graph`. ctx.graph is `graph`.
std::vector<Node> upgrade_legacy_node(const ImportContext& ctx, Graph& graph, Node& node);

}  // namespace nee
