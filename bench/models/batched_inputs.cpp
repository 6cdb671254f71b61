#include "bench/models/batched_inputs.h"

#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "runtime/tensor_io.h"

namespace nee::bench {
namespace fs = std::filesystem;

Tensor repeat_along_batch(const Tensor& t, int batch) {
  if (batch < 1) throw Error("batch " + std::to_string(batch) + " is not positive");
  if (t.shape().empty()) throw Error("a scalar tensor has no batch dim to repeat");
  if (batch == 1) return t;
  std::vector<int64_t> shape = t.shape();
  shape[0] *= batch;
  Tensor out(t.dtype(), shape);
  for (int i = 0; i < batch; ++i) std::memcpy(out.data_as<uint8_t>() + i * t.bytes(), t.data(), t.bytes());
  return out;
}

InputShapes batched_input_shapes(const std::string& inputs_dir, int batch) {
  InputShapes shapes;
  for (int i = 0;; ++i) {
    const std::string path = inputs_dir + "/input_" + std::to_string(i) + ".pb";
    if (!fs::exists(path)) break;
    std::string name;
    std::vector<int64_t> shape = read_tensor_pb(path, &name).shape();
    if (name.empty()) throw Error(path + " names no graph input, so its shape at batch " + std::to_string(batch) +
                                  " cannot be given");
    if (shape.empty()) throw Error(path + " holds a scalar, which has no batch dim");
    shape[0] *= batch;
    shapes[name] = shape;
  }
  if (shapes.empty()) throw Error("no input_0.pb in " + inputs_dir);
  return shapes;
}

std::map<std::string, Tensor> read_batched_inputs(const std::string& inputs_dir,
                                                  const std::vector<std::string>& graph_inputs, int batch) {
  std::map<std::string, Tensor> inputs;
  for (size_t i = 0; i < graph_inputs.size(); ++i) {
    std::string name;
    const Tensor t = read_tensor_pb(inputs_dir + "/input_" + std::to_string(i) + ".pb", &name);
    inputs[name.empty() ? graph_inputs[i] : name] = repeat_along_batch(t, batch);
  }
  return inputs;
}

}  // namespace nee::bench
