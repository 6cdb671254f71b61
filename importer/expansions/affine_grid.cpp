#include <fmt/format.h>

#include "core/error.h"
#include "importer/expansions/expanded_operators.h"
#include "importer/expansions/node_expansion.h"
#include "importer/ops/constant_inputs.h"

namespace nee {

namespace {

// The normalized coordinate of position i of n in [-1, 1]: the corners' centres at the
// ends with align_corners, the pixels' centres otherwise.
float grid_coordinate(int64_t i, int64_t n, bool align_corners) {
  if (align_corners) return n == 1 ? -1.0f : -1.0f + 2.0f * static_cast<float>(i) / static_cast<float>(n - 1);
  return -1.0f + (2.0f * static_cast<float>(i) + 1.0f) / static_cast<float>(n);
}

}  // namespace

// AffineGrid (opset 20): theta [N, 2, 3] (or [N, 3, 4]) times the homogeneous coordinates
// (x, y[, z], 1) of every output position, a constant [H x W, 3] (or [D x H x W, 4]); the
// size must be a constant [N, C, H, W] (or [N, C, D, H, W]).
std::vector<Node> expand_affine_grid(Graph& graph, const Node& node, int64_t opset) {
  if (node.inputs.size() != 2 || node.inputs[0].empty() || node.inputs[1].empty()) {
    throw Error("AffineGrid takes theta and size");
  }
  const TensorType& theta = graph.type_of(node.inputs[0]);
  const std::vector<int64_t> size = *constant_ints(ImportContext{graph, opset}, node, 1, "size");
  if (size.size() != 4 && size.size() != 5) {
    throw Error(fmt::format("size has {} values; it must be [N, C, H, W] or [N, C, D, H, W]", size.size()));
  }
  const int64_t dims = static_cast<int64_t>(size.size()) - 2;  // 2 or 3 spatial dims
  if (theta.shape != std::vector<int64_t>{size[0], dims, dims + 1} || !is_floating(theta.dtype)) {
    throw Error(fmt::format("theta is {}; it must be floats [{}, {}, {}]", theta.to_string(), size[0], dims, dims + 1));
  }
  const bool align_corners = node.attrs.get_int("align_corners", 0) != 0;
  // Positions in row-major order of the spatial dims; coordinates x first (the last dim).
  std::vector<int64_t> spatial(size.begin() + 2, size.end());
  int64_t positions = 1;
  for (int64_t s : spatial) positions *= s;
  std::vector<float> base;
  base.reserve(static_cast<size_t>(positions * (dims + 1)));
  for (int64_t p = 0; p < positions; ++p) {
    std::vector<int64_t> at(spatial.size());
    int64_t rest = p;
    for (size_t d = spatial.size(); d-- > 0;) {
      at[d] = rest % spatial[d];
      rest /= spatial[d];
    }
    for (size_t d = spatial.size(); d-- > 0;) base.push_back(grid_coordinate(at[d], spatial[d], align_corners));
    base.push_back(1.0f);
  }
  NodeExpansion build(graph, node.name);
  std::string coordinates = build.float_tensor("coordinates", {positions, dims + 1}, base);
  if (theta.dtype != DType::f32) coordinates = build.cast("coordinates_typed", coordinates, theta.dtype);
  const std::string theta_t = build.transpose("theta_t", node.inputs[0], {0, 2, 1});
  const std::string grid = build.add("MatMul", "grid", {coordinates, theta_t});
  std::vector<int64_t> shape = {size[0]};
  shape.insert(shape.end(), spatial.begin(), spatial.end());
  shape.push_back(dims);
  build.reshape("y", grid, shape, node.outputs[0]);
  return build.take();
}

}  // namespace nee
