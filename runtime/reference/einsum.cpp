#include <type_traits>

#include "runtime/reference/einsum_equation.h"
#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

// Element strides per label: the sum of the strides of the dims that carry it (a label
// repeated within an operand walks its diagonal), 0 for a dim of size 1 that broadcasts.
std::vector<int64_t> label_strides(const std::vector<int>& labels, const std::vector<int64_t>& shape,
                                   size_t label_count) {
  std::vector<int64_t> strides(label_count, 0);
  int64_t stride = 1;
  for (size_t d = labels.size(); d-- > 0;) {
    if (shape[d] != 1) strides[static_cast<size_t>(labels[d])] += stride;
    stride *= shape[d];
  }
  return strides;
}

}  // namespace

// Einsum: every combination of label values in turn (an odometer over all labels), each
// adding the product of the operands' elements it selects to the output element it selects.
ReferenceFn make_reference_einsum(const Graph& graph, const Node& node) {
  std::vector<std::vector<int64_t>> shapes;
  for (const std::string& input : node.inputs) shapes.push_back(graph.type_of(input).shape);
  const EinsumEquation eq = parse_einsum(node.attrs.get_string("equation"), shapes);
  const size_t labels = eq.label_sizes.size();
  std::vector<std::vector<int64_t>> strides;
  for (size_t k = 0; k < shapes.size(); ++k) strides.push_back(label_strides(eq.operand_labels[k], shapes[k], labels));
  std::vector<int64_t> out_shape;
  for (int label : eq.output_labels) out_shape.push_back(eq.label_sizes[static_cast<size_t>(label)]);
  const std::vector<int64_t> out_strides = label_strides(eq.output_labels, out_shape, labels);
  const std::vector<int64_t> sizes = eq.label_sizes;
  return visit_numeric_dtype(graph.type_of(node.inputs[0]).dtype, [=](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      T* y = out[0]->data_as<T>();
      for (int64_t i = 0, n = out[0]->elements(); i < n; ++i) y[i] = T{0};
      for (int64_t size : sizes) {
        if (size == 0) return;
      }
      std::vector<int64_t> index(sizes.size(), 0), offsets(in.size(), 0);
      int64_t out_offset = 0;
      for (;;) {
        T product{1};
        for (size_t k = 0; k < in.size(); ++k) product *= in[k]->data_as<T>()[offsets[k]];
        y[out_offset] += product;
        size_t l = 0;  // advance the odometer, last label fastest
        for (l = sizes.size(); l-- > 0;) {
          if (++index[l] < sizes[l]) {
            for (size_t k = 0; k < in.size(); ++k) offsets[k] += strides[k][l];
            out_offset += out_strides[l];
            break;
          }
          for (size_t k = 0; k < in.size(); ++k) offsets[k] -= strides[k][l] * (sizes[l] - 1);
          out_offset -= out_strides[l] * (sizes[l] - 1);
          index[l] = 0;
        }
        if (l == static_cast<size_t>(-1)) return;
      }
    };
  });
}

}  // namespace nee
