#pragma once
#include <vector>

#include "core/workload.h"
#include "runtime/tensor.h"

namespace nee {

// Computes a workload's output with plain loops, independently of any schedule: the
// answer every candidate is checked against.
void compute_reference(const Workload& workload, const std::vector<const Tensor*>& inputs, Tensor& output);

}  // namespace nee
