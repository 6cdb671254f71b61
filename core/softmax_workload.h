#pragma once
#include <cstdint>

#include "core/workload.h"

namespace nee {

// The softmax family: ONNX Softmax (opset 13 semantics) over one axis of an f32 tensor of
// any rank, viewed as [outer, axis, inner]; stable: exp(x - max) / sum(exp(x - max)).
// `axis` may be negative; the key stores it non-negative. Throws nee::Error naming the
// problem.
Workload make_softmax_workload(const TensorType& x, int64_t axis);
int64_t softmax_axis(const Workload& w);
// "DxDx...xD[,axis=A]" (default -1) as `nee-tune --op softmax --shape` reads it.
Workload softmax_workload_from_shape(const std::string& text);
// The axis extent: the terms of each output's denominator.
int64_t softmax_length(const Workload& w);

}  // namespace nee
