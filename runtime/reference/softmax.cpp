#include <algorithm>
#include <cmath>

#include "core/softmax_workload.h"
#include "runtime/reference/family_reference.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

// Normalizes each of `outer` x `inner` slices of `n` elements (stride `inner`), shifted
// by the slice maximum for stability.
ReferenceFn softmax_kernel(int64_t outer, int64_t n, int64_t inner, bool log) {
  return [outer, inner, n, log](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    float* y = out[0]->data_as<float>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        float max = x[base];
        for (int64_t j = 1; j < n; ++j) max = std::max(max, x[base + j * inner]);
        float sum = 0.0f;
        for (int64_t j = 0; j < n; ++j) sum += std::exp(x[base + j * inner] - max);
        if (log) {
          const float log_sum = std::log(sum);
          for (int64_t j = 0; j < n; ++j) y[base + j * inner] = x[base + j * inner] - max - log_sum;
        } else {
          for (int64_t j = 0; j < n; ++j) y[base + j * inner] = std::exp(x[base + j * inner] - max) / sum;
        }
      }
    }
  };
}

// Hardmax: 1 at the first maximum of each slice, 0 elsewhere.
ReferenceFn hardmax_kernel(int64_t outer, int64_t n, int64_t inner) {
  return [outer, inner, n](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    float* y = out[0]->data_as<float>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        int64_t best = 0;
        for (int64_t j = 1; j < n; ++j) {
          if (x[base + j * inner] > x[base + best * inner]) best = j;
        }
        for (int64_t j = 0; j < n; ++j) y[base + j * inner] = j == best ? 1.0f : 0.0f;
      }
    }
  };
}

enum class Normalizer { softmax, log_softmax, hardmax };

// The importer stores a non-negative axis; with coerce_2d=1 (opset < 13) a slice is
// every dim from axis on, otherwise the axis alone.
ReferenceFn make_softmax_node_kernel(const Graph& graph, const Node& node, Normalizer kind) {
  const TensorType& type = graph.type_of(node.inputs[0]);
  if (type.dtype != DType::f32) return nullptr;
  const size_t axis = static_cast<size_t>(node.attrs.get_int("axis"));
  const size_t slice_end = node.attrs.get_int("coerce_2d", 0) != 0 ? type.shape.size() : axis + 1;
  int64_t outer = 1, n = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= type.shape[d];
  for (size_t d = axis; d < slice_end; ++d) n *= type.shape[d];
  for (size_t d = slice_end; d < type.shape.size(); ++d) inner *= type.shape[d];
  if (kind == Normalizer::hardmax) return hardmax_kernel(outer, n, inner);
  return softmax_kernel(outer, n, inner, kind == Normalizer::log_softmax);
}

}  // namespace

ReferenceFn make_reference_softmax(const Graph& graph, const Node& node) {
  return make_softmax_node_kernel(graph, node, Normalizer::softmax);
}

ReferenceFn make_reference_log_softmax(const Graph& graph, const Node& node) {
  return make_softmax_node_kernel(graph, node, Normalizer::log_softmax);
}

ReferenceFn make_reference_hardmax(const Graph& graph, const Node& node) {
  return make_softmax_node_kernel(graph, node, Normalizer::hardmax);
}

ReferenceFn make_softmax_reference(const Workload& w) {
  const std::vector<int64_t>& shape = w.inputs[0].shape;
  const size_t axis = static_cast<size_t>(softmax_axis(w));
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  return softmax_kernel(outer, shape[axis], inner, false);
}

}  // namespace nee
