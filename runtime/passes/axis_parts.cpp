#include "runtime/passes/axis_parts.h"

namespace nee {

std::optional<std::vector<AxisPart>> axis_parts(const Graph& graph, const Node& reader, const std::string& value,
                                                size_t axis) {
  if (reader.inputs.empty() || reader.inputs[0] != value) return std::nullopt;
  const std::vector<int64_t>& in = graph.type_of(value).shape;
  if (axis >= in.size()) return std::nullopt;
  if (reader.op == "Split") {
    if (reader.attrs.get_int("axis", -1) != static_cast<int64_t>(axis)) return std::nullopt;
    const std::vector<int64_t> sizes = reader.attrs.get_ints("split", {});
    if (sizes.size() != reader.outputs.size()) return std::nullopt;
    std::vector<AxisPart> parts;
    int64_t first = 0;
    for (size_t p = 0; p < sizes.size(); ++p) {
      if (!reader.outputs[p].empty()) parts.push_back({reader.outputs[p], first, sizes[p]});
      first += sizes[p];
    }
    return parts;
  }
  if (reader.op != "Slice") return std::nullopt;
  const std::vector<int64_t>& out = graph.type_of(reader.outputs[0]).shape;
  const std::vector<int64_t> starts = reader.attrs.get_ints("starts", {});
  const std::vector<int64_t> steps = reader.attrs.get_ints("steps", {});
  if (starts.size() != in.size() || steps.size() != in.size() || out.size() != in.size()) return std::nullopt;
  for (size_t d = 0; d < in.size(); ++d) {
    if (steps[d] != 1) return std::nullopt;
    if (d != axis && (starts[d] != 0 || out[d] != in[d])) return std::nullopt;
  }
  return std::vector<AxisPart>{{reader.outputs[0], starts[axis], out[axis]}};
}

}  // namespace nee
