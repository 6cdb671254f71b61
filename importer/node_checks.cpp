#include "importer/node_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.h"

namespace nee {

void expect_arity(const Node& node, size_t min_inputs, size_t max_inputs, size_t outputs) {
  if (node.inputs.size() < min_inputs || node.inputs.size() > max_inputs) {
    throw Error(min_inputs == max_inputs
                    ? fmt::format("expects {} inputs, got {}", min_inputs, node.inputs.size())
                    : fmt::format("expects {} to {} inputs, got {}", min_inputs, max_inputs,
                                  node.inputs.size()));
  }
  for (size_t i = 0; i < min_inputs; ++i) {
    if (node.inputs[i].empty()) throw Error(fmt::format("required input {} is omitted", i));
  }
  if (node.outputs.size() != outputs) {
    throw Error(fmt::format("expects {} outputs, got {}", outputs, node.outputs.size()));
  }
}

const TensorType& input_type(const ImportContext& ctx, const Node& node, size_t index,
                             std::initializer_list<DType> allowed) {
  // Import functions may ask before checking the arity (fuzz/findings/model_fuzzer/:
  // a ReduceMax without inputs read past the end of node.inputs).
  if (index >= node.inputs.size()) {
    throw Error(fmt::format("input {} is missing (the node has {} input(s))", index, node.inputs.size()));
  }
  const TensorType& type = ctx.graph.type_of(node.inputs[index]);
  if (std::find(allowed.begin(), allowed.end(), type.dtype) == allowed.end()) {
    std::vector<std::string> names;
    for (DType t : allowed) names.push_back(to_string(t));
    throw Error(fmt::format("input {} ('{}') has unsupported dtype {} (supported: {})", index,
                            node.inputs[index], to_string(type.dtype), fmt::join(names, ", ")));
  }
  return type;
}

int64_t normalize_axis(int64_t axis, size_t rank, const std::string& attribute) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    throw Error(fmt::format("{} {} is out of range for rank {}", attribute, axis, rank));
  }
  return axis < 0 ? axis + r : axis;
}

std::vector<int64_t> distinct_axes(const std::vector<int64_t>& axes, size_t rank) {
  std::vector<int64_t> normalized;
  for (int64_t axis : axes) {
    const int64_t d = normalize_axis(axis, rank, "axes");
    if (std::find(normalized.begin(), normalized.end(), d) != normalized.end()) {
      throw Error(fmt::format("axes [{}] names dim {} twice", fmt::join(axes, ","), d));
    }
    normalized.push_back(d);
  }
  return normalized;
}

}  // namespace nee
