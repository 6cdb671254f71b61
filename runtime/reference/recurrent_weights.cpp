#include "runtime/reference/recurrent_weights.h"

#include <algorithm>

namespace nee {

Tensor recurrent_input_weights(const Tensor& w) {
  const int64_t dirs = w.shape()[0], rows = w.shape()[1], input = w.shape()[2];
  Tensor out(DType::f32, {input, dirs * rows});
  const float* from = w.data_as<float>();
  float* to = out.data_as<float>();
  for (int64_t j = 0; j < dirs * rows; ++j) {
    for (int64_t i = 0; i < input; ++i) to[i * dirs * rows + j] = from[j * input + i];
  }
  return out;
}

Tensor recurrent_input_bias(const Tensor* b, int64_t dirs, int64_t gates, int64_t hidden, bool gru) {
  const int64_t rows = gates * hidden;
  Tensor out(DType::f32, {dirs * rows});
  float* to = out.data_as<float>();
  std::fill_n(to, dirs * rows, 0.0f);
  if (!b) return out;
  const float* from = b->data_as<float>();
  for (int64_t d = 0; d < dirs; ++d) {
    const float* wb = from + d * 2 * rows;
    const float* rb = wb + rows;
    for (int64_t j = 0; j < rows; ++j) to[d * rows + j] = wb[j] + (gru && j >= 2 * hidden ? 0.0f : rb[j]);
  }
  return out;
}

Tensor recurrent_weights_packed(const Tensor& r) {
  const int64_t dirs = r.shape()[0], rows = r.shape()[1], hidden = r.shape()[2], gates = rows / hidden;
  const int64_t blocks = (hidden + kRecurrentUnitBlock - 1) / kRecurrentUnitBlock;
  Tensor out(DType::f32, {dirs, blocks, hidden, gates, kRecurrentUnitBlock});
  const float* from = r.data_as<float>();
  float* to = out.data_as<float>();
  std::fill_n(to, out.elements(), 0.0f);
  for (int64_t d = 0; d < dirs; ++d) {
    for (int64_t k = 0; k < gates; ++k) {
      for (int64_t u = 0; u < hidden; ++u) {
        const float* row = from + (d * rows + k * hidden + u) * hidden;
        float* block = to + (d * blocks + u / kRecurrentUnitBlock) * hidden * gates * kRecurrentUnitBlock;
        float* lane = block + k * kRecurrentUnitBlock + u % kRecurrentUnitBlock;
        for (int64_t c = 0; c < hidden; ++c) lane[c * gates * kRecurrentUnitBlock] = row[c];
      }
    }
  }
  return out;
}

Tensor recurrent_candidate_bias(const Tensor* b, int64_t dirs, int64_t hidden) {
  Tensor out(DType::f32, {dirs, hidden});
  float* to = out.data_as<float>();
  std::fill_n(to, dirs * hidden, 0.0f);
  if (!b) return out;
  for (int64_t d = 0; d < dirs; ++d) {
    std::copy_n(b->data_as<float>() + d * 6 * hidden + 5 * hidden, hidden, to + d * hidden);
  }
  return out;
}

}  // namespace nee
