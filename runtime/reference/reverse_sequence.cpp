#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "core/error.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

// ReverseSequence: for batch entry b, the first sequence_lens[b] time steps in reverse
// order, the rest as they are. Elements are moved as bytes, so every dtype shares it.
ReferenceFn make_reference_reverse_sequence(const Graph& graph, const Node& node) {
  const TensorType& x = graph.type_of(node.inputs[0]);
  const bool batch_major = node.attrs.get_int("batch_axis") == 0;
  const int64_t batch = x.shape[batch_major ? 0 : 1], time = x.shape[batch_major ? 1 : 0];
  int64_t inner = 1;
  for (size_t d = 2; d < x.shape.size(); ++d) inner *= x.shape[d];
  const size_t step_bytes = static_cast<size_t>(inner) * dtype_size(x.dtype);
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const auto* src = static_cast<const uint8_t*>(in[0]->data());
    auto* dst = static_cast<uint8_t*>(out[0]->data());
    const int64_t* lens = in[1]->data_as<int64_t>();
    const auto offset = [&](int64_t b, int64_t t) {
      return static_cast<size_t>(batch_major ? b * time + t : t * batch + b) * step_bytes;
    };
    for (int64_t b = 0; b < batch; ++b) {
      if (lens[b] < 0 || lens[b] > time) {
        throw Error(fmt::format("sequence_lens[{}] is {}; it must lie in [0, {}] (the time dim)", b, lens[b], time));
      }
      for (int64_t t = 0; t < time; ++t) {
        const int64_t from = t < lens[b] ? lens[b] - 1 - t : t;
        std::memcpy(dst + offset(b, t), src + offset(b, from), step_bytes);
      }
    }
  };
}

}  // namespace nee
