#include "importer/ops/constant_inputs.h"

#include <fmt/format.h>

#include "core/error.h"
#include "importer/value_needed.h"

namespace nee {

bool has_input(const Node& node, size_t index) { return index < node.inputs.size() && !node.inputs[index].empty(); }

const Tensor& constant_input(const ImportContext& ctx, const Node& node, size_t index, const std::string& role) {
  const Tensor* t = ctx.graph.constant(node.inputs[index]);
  if (!t) {
    throw ValueNeeded(fmt::format("input {} ({}, '{}') is not a constant; NEE needs static shapes, so it must be "
                                  "an initializer, a Constant or computable at import",
                                  index, role, node.inputs[index]),
                      node.inputs[index]);
  }
  return *t;
}

std::optional<std::vector<int64_t>> constant_ints(const ImportContext& ctx, const Node& node, size_t index,
                                                  const std::string& role) {
  if (!has_input(node, index)) return std::nullopt;
  const Tensor& t = constant_input(ctx, node, index, role);
  if (t.shape().size() > 1) throw Error(fmt::format("input {} ({}) must be 1-D, got {}", index, role, t.type().to_string()));
  if (t.dtype() == DType::i64) return std::vector<int64_t>(t.data_as<int64_t>(), t.data_as<int64_t>() + t.elements());
  if (t.dtype() == DType::i32) return std::vector<int64_t>(t.data_as<int32_t>(), t.data_as<int32_t>() + t.elements());
  throw Error(fmt::format("input {} ({}) must be int64 or int32, got {}", index, role, t.type().to_string()));
}

std::optional<std::vector<float>> constant_floats(const ImportContext& ctx, const Node& node, size_t index,
                                                  const std::string& role) {
  if (!has_input(node, index)) return std::nullopt;
  const Tensor& t = constant_input(ctx, node, index, role);
  if (t.shape().size() > 1) throw Error(fmt::format("input {} ({}) must be 1-D, got {}", index, role, t.type().to_string()));
  if (t.dtype() != DType::f32) throw Error(fmt::format("input {} ({}) must be float, got {}", index, role, t.type().to_string()));
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.elements());
}

}  // namespace nee
