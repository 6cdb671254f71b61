#pragma once
#include <cstdint>

#include "core/workload.h"

namespace nee {

// The layernorm family: ONNX LayerNormalization (opset 17) and the ReduceMean chain
// exporters emit for it before opset 17 (see runtime/passes/fuse_layer_norm.cpp).
// Each row (the dims from `axis` on) is normalized with its mean and biased variance:
// out = (x - mean) / sqrt(var + epsilon) * scale + bias; with `rms` (RMSNorm, as LLaMA
// and T5 have it) with its root mean square instead, uncentered:
// out = x / sqrt(mean(x^2) + epsilon) * scale + bias.
// Scale and the optional bias broadcast to the row's shape (X.shape[axis:]); a scale
// that varies over the leading dims is not covered. Throws nee::Error naming the problem.
Workload make_layernorm_workload(const TensorType& x, const TensorType& scale, const TensorType* bias,
                                 int64_t axis, double epsilon, bool rms = false);
int64_t layernorm_axis(const Workload& w);
double layernorm_epsilon(const Workload& w);
bool layernorm_has_bias(const Workload& w);
bool layernorm_is_rms(const Workload& w);
// "DxDx...xD[,axis=A][,epsilon=E][,bias=0|1][,rms=0|1]" as `nee-tune --op layernorm
// --shape` reads it.
Workload layernorm_workload_from_shape(const std::string& text);
// Elements of one normalized row: the terms of its mean and variance.
int64_t layernorm_row_length(const Workload& w);

}  // namespace nee
