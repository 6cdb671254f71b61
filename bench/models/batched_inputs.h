#pragma once
#include <map>
#include <string>
#include <vector>

#include "importer/import_onnx.h"
#include "runtime/tensor.h"

namespace nee::bench {

// A zoo model's test inputs (input_<i>.pb of a test-data folder) at a batch above the
// one they were saved at. Runtime only: nee-model-runner links this without the bench.

// `t` repeated `batch` times along dim 0 (a [1, ...] test sample becomes [batch, ...]),
// as run_peer.py's --batch makes its inputs. Throws nee::Error for a scalar or batch < 1.
Tensor repeat_along_batch(const Tensor& t, int batch);

// The shapes of a test-data folder's input_<i>.pb tensors with dim 0 times `batch`, by
// the names the files store: what the model's inputs become at that batch (import_onnx's
// InputShapes, nee-tune's --input-shape). Throws nee::Error for a folder without inputs
// or a file that names no input.
InputShapes batched_input_shapes(const std::string& inputs_dir, int batch);

// The folder's input_<i>.pb tensors repeated to `batch`, by the name each file stores,
// else by `graph_inputs[i]`. Throws nee::Error for a missing or unreadable file.
std::map<std::string, Tensor> read_batched_inputs(const std::string& inputs_dir,
                                                  const std::vector<std::string>& graph_inputs, int batch);

}  // namespace nee::bench
