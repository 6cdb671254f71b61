#pragma once
#include <cstdint>
#include <vector>

namespace nee {

// A tensor seen as [outer, n, inner] around one axis: `outer` slices of `n` elements
// each, `inner` apart (the operators that work along one axis: ArgMax, ArgMin, TopK).
struct AxisSlices {
  int64_t outer = 1, n = 1, inner = 1;
};

inline AxisSlices axis_slices(const std::vector<int64_t>& shape, size_t axis) {
  AxisSlices s;
  for (size_t d = 0; d < axis; ++d) s.outer *= shape[d];
  s.n = shape[axis];
  for (size_t d = axis + 1; d < shape.size(); ++d) s.inner *= shape[d];
  return s;
}

}  // namespace nee
