#pragma once
#include <string>

#include "runtime/tensor.h"

namespace nee {

struct Comparison {
  bool ok = true;
  double max_abs_error = 0;
  double max_rel_error = 0;  // |got - want| / max(|want|, atol/rtol floor)
  double peak_rel_error = 0; // max |got - want| / max |want|: the figure model checks use
  std::string problem;       // shape or dtype mismatch, NaN, ...
};

// Element-wise check |got - want| <= atol + rtol * |want| (numpy's allclose rule).
Comparison compare_tensors(const Tensor& got, const Tensor& want, double rtol, double atol);

}  // namespace nee
