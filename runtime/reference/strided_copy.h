#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace nee {

// Copies `count` elements of `elem_size` bytes, `step` elements apart in `src`, to
// consecutive elements of `dst`.
inline void strided_gather(const uint8_t* src, uint8_t* dst, size_t elem_size, int64_t count, int64_t step) {
  // memcpy of a constant size compiles to one load and store, without reading the
  // elements through another type.
  const auto copy = [&](auto size) {
    constexpr int64_t n = decltype(size)::value;
    for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * n, src + i * step * n, n);
  };
  switch (elem_size) {
    case 1: return copy(std::integral_constant<int64_t, 1>{});
    case 2: return copy(std::integral_constant<int64_t, 2>{});
    case 4: return copy(std::integral_constant<int64_t, 4>{});
    case 8: return copy(std::integral_constant<int64_t, 8>{});
    default:
      for (int64_t i = 0; i < count; ++i) {
        std::memcpy(dst + i * elem_size, src + i * step * static_cast<int64_t>(elem_size), elem_size);
      }
  }
}

// Copies elements of `elem_size` bytes into a dense row-major output of `shape`; output
// element (i0, i1, ...) reads source element `offset + sum(i_d * strides[d])`. Strides
// may be 0 (broadcast) or negative (reversed slices).
//
// Dims that are contiguous in the source are merged first, and a unit-stride innermost
// dim is copied as one run: attention's Transposes and Slices in the zoo's BERT encoder
// took 4.7 ms of an 11.9 ms run copying element by element.
inline void strided_copy(const uint8_t* src, uint8_t* dst, size_t elem_size, const std::vector<int64_t>& shape,
                         const std::vector<int64_t>& strides, int64_t offset) {
  std::vector<int64_t> dims, steps;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return;
    if (shape[d] == 1) continue;
    if (!dims.empty() && steps.back() == strides[d] * shape[d]) {
      dims.back() *= shape[d];
      steps.back() = strides[d];
    } else {
      dims.push_back(shape[d]);
      steps.push_back(strides[d]);
    }
  }
  int64_t run = 1;
  if (!dims.empty() && steps.back() == 1) {
    run = dims.back();
    dims.pop_back();
    steps.pop_back();
  }
  // Without a contiguous innermost dim (a Transpose that moves the source's outer dim
  // innermost), the innermost dim becomes a typed strided loop instead of one memcpy per
  // element: BERT's key transpose [128,4,64] -> [4,64,128] took 169 us that way.
  int64_t gather = 1, gather_step = 0;
  if (run == 1 && !dims.empty()) {
    gather = dims.back();
    gather_step = steps.back();
    dims.pop_back();
    steps.pop_back();
  }
  const size_t run_bytes = static_cast<size_t>(run * gather) * elem_size;
  int64_t runs = 1;
  for (int64_t d : dims) runs *= d;
  const size_t rank = dims.size();
  std::vector<int64_t> index(rank, 0);
  int64_t source = offset;
  for (int64_t r = 0; r < runs; ++r) {
    uint8_t* out = dst + r * run_bytes;
    const uint8_t* in = src + source * static_cast<int64_t>(elem_size);
    if (gather == 1) {
      std::memcpy(out, in, run_bytes);
    } else {
      strided_gather(in, out, elem_size, gather, gather_step);
    }
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < dims[d]) {
        source += steps[d];
        break;
      }
      source -= steps[d] * (dims[d] - 1);
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
