#pragma once
#include <map>
#include <string>

#include "runtime/graph.h"
#include "runtime/tensor.h"

namespace nee::fuzz {

// At most this many operations per run (FLOPs plus elements written), so that a run stays
// far below libFuzzer's -timeout (10 s in scripts/fuzz.sh) even under ASan. For scale:
// the 932 ONNX node-test models replay in 0.2 s together (gcc build, import included),
// and libFuzzer's slowest input in 60 s of model_fuzzer took under a second.
inline constexpr double kMaxRunWork = 1e6;

// A run's operations: each node's FLOPs plus the elements it writes.
double run_work(const Graph& graph);

// Zero-filled inputs for `types`, or false when one is larger than a run may take.
bool zero_inputs(const std::map<std::string, TensorType>& types, std::map<std::string, Tensor>& inputs);

}  // namespace nee::fuzz
