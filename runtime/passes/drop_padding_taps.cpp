#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// Whether tap k of a window along one axis reads the input for some output: whether some
// o < output has o * stride + k * dilation - pad_begin in [0, input).
bool reads_input(int64_t k, int64_t input, int64_t output, int64_t stride, int64_t dilation, int64_t pad_begin) {
  const int64_t first = k * dilation - pad_begin;  // the index output 0 reads
  const int64_t o = first >= 0 ? 0 : (-first + stride - 1) / stride;
  return o < output && o * stride + first < input;
}

// W [M, C / group, k...] cut to the taps [first[i], last[i]] along each spatial dim i.
Tensor cut_taps(const Tensor& w, const std::vector<int64_t>& first, const std::vector<int64_t>& last) {
  std::vector<int64_t> shape = w.shape();
  const size_t dims = first.size();
  for (size_t i = 0; i < dims; ++i) shape[2 + i] = last[i] - first[i] + 1;
  Tensor cut(DType::f32, shape);
  const float* from = w.data_as<float>();
  float* to = cut.data_as<float>();
  std::vector<int64_t> at(shape.size(), 0);  // the cut tensor's index, last dim fastest
  for (int64_t e = 0; e < cut.elements(); ++e) {
    int64_t source = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      source = source * w.shape()[d] + at[d] + (d >= 2 ? first[d - 2] : 0);
    }
    to[e] = from[source];
    for (size_t d = shape.size(); d-- > 0;) {
      if (++at[d] < shape[d]) break;
      at[d] = 0;
    }
  }
  return cut;
}

}  // namespace

void drop_padding_taps(Graph& graph) {
  for (Node& node : graph.nodes()) {
    if (node.op != "Conv" || node.inputs.size() < 2) continue;
    const Tensor* w = f32_constant(graph, node.inputs[1]);
    const std::vector<int64_t>& x = graph.type_of(node.inputs[0]).shape;
    const std::vector<int64_t>& y = graph.type_of(node.outputs[0]).shape;
    if (!w || x.size() < 3 || x.size() != y.size() || w->shape().size() != x.size()) continue;
    const size_t dims = x.size() - 2;
    const std::vector<int64_t> kernel = node.attrs.get_ints("kernel_shape"), strides = node.attrs.get_ints("strides");
    const std::vector<int64_t> dilations = node.attrs.get_ints("dilations");
    std::vector<int64_t> pads = node.attrs.get_ints("pads");  // begins, then ends
    if (kernel.size() != dims || strides.size() != dims || dilations.size() != dims || pads.size() != 2 * dims) {
      continue;
    }
    std::vector<int64_t> first(dims), last(dims);
    bool cut = false;
    for (size_t i = 0; i < dims; ++i) {
      const int64_t input = x[2 + i], output = y[2 + i], stride = strides[i], dilation = dilations[i];
      first[i] = 0;
      last[i] = kernel[i] - 1;
      if (input <= 0 || output <= 0) continue;
      while (first[i] < last[i] && !reads_input(first[i], input, output, stride, dilation, pads[i])) ++first[i];
      while (last[i] > first[i] && !reads_input(last[i], input, output, stride, dilation, pads[i])) --last[i];
      // Dropping taps [0, first) moves the window's start by first * dilation, which the
      // begin pad gives up; the end pad gives up what the taps after last spanned, which
      // keeps the output's extent. Where either would go negative (a crop), the dim stays.
      const int64_t begin = pads[i] - first[i] * dilation, end = pads[dims + i] - (kernel[i] - 1 - last[i]) * dilation;
      if (begin < 0 || end < 0) {
        first[i] = 0;
        last[i] = kernel[i] - 1;
        continue;
      }
      if (first[i] > 0 || last[i] < kernel[i] - 1) {
        pads[i] = begin;
        pads[dims + i] = end;
        cut = true;
      }
    }
    if (!cut) continue;
    std::vector<int64_t> cut_kernel(dims);
    for (size_t i = 0; i < dims; ++i) cut_kernel[i] = last[i] - first[i] + 1;
    const std::string old_weights = node.inputs[1];
    node.inputs[1] = add_named_constant(graph, old_weights + ".live_taps", cut_taps(*w, first, last));
    node.attrs.set("kernel_shape", cut_kernel);
    node.attrs.set("pads", pads);
    remove_if_unread(graph, old_weights);
  }
}

}  // namespace nee
