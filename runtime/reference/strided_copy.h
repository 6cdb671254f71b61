#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

namespace nee {

// Copies elements of `elem_size` bytes into a dense row-major output of `shape`; output
// element (i0, i1, ...) reads source element `offset + sum(i_d * strides[d])`. Strides
// may be 0 (broadcast) or negative (reversed slices).
inline void strided_copy(const uint8_t* src, uint8_t* dst, size_t elem_size, const std::vector<int64_t>& shape,
                         const std::vector<int64_t>& strides, int64_t offset) {
  int64_t total = 1;
  for (int64_t d : shape) total *= d;
  if (total == 0) return;
  const size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  int64_t source = offset;
  for (int64_t o = 0; o < total; ++o) {
    std::memcpy(dst + o * elem_size, src + source * elem_size, elem_size);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d]) {
        source += strides[d];
        break;
      }
      source -= strides[d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
}

// Row-major element strides of a dense tensor of `shape`.
inline std::vector<int64_t> dense_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

}  // namespace nee
