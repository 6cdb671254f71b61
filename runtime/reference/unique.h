#pragma once
#include <cstdint>
#include <vector>

#include "runtime/tensor.h"

namespace nee {

// What ONNX Unique finds in a tensor, by the position of each slice along the axis (each
// element when the input is taken flat). `first`, `counts`: per distinct slice, in output
// order, where it first occurs and how often; `inverse`: per input slice, the output
// position of its distinct slice.
struct UniqueSlices {
  std::vector<int64_t> first;
  std::vector<int64_t> inverse;
  std::vector<int64_t> counts;
};

// The distinct slices of `x` along `axis` (-1: the elements of x flattened), ascending
// (slices compared element by element in row-major order, NaN above every number and
// equal to NaN) when `sorted`, else in order of first occurrence. The importer calls it
// for the outputs' shapes, the kernel for their values. f16 and bf16 never reach it: the
// importer computes Unique on them in f32.
UniqueSlices unique_slices(const Tensor& x, int64_t axis, bool sorted);

}  // namespace nee
