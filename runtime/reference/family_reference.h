#pragma once
#include <vector>

#include "core/family.h"
#include "core/workload.h"
#include "runtime/reference/reference_kernel.h"
#include "runtime/tensor.h"

namespace nee {

// The reference of each operator family, on a workload's operands and output in the
// workload's layouts. Each family's is defined beside the runtime's reference kernels of
// the ONNX operators it covers and shares their arithmetic, so the tuner checks every
// candidate against the code the runtime runs where a bundle has no kernel: one
// implementation per family.
#define NEE_FAMILY_REFERENCE_DECLARATION(name) ReferenceFn make_##name##_reference(const Workload& w);
NEE_FAMILIES(NEE_FAMILY_REFERENCE_DECLARATION)
#undef NEE_FAMILY_REFERENCE_DECLARATION

// The workload's family's reference (nee::Error for an op NEE has no family for).
ReferenceFn make_family_reference(const Workload& workload);

// Computes a workload's output with its family's reference, independently of any
// schedule: the answer every candidate is checked against.
void compute_reference(const Workload& workload, const std::vector<const Tensor*>& inputs, Tensor& output);

}  // namespace nee
