#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/error.h"
#include "runtime/reference/index_tensor.h"
#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/strided_copy.h"

namespace nee {

namespace {

// An index along a dim of `extent`, negative ones counting from the end; out of range
// is an error, never an access outside the tensor.
int64_t checked_index(int64_t k, int64_t extent, const char* op) {
  if (k < -extent || k >= extent) throw Error(fmt::format("{} index {} is out of range for a dim of {}", op, k, extent));
  return k < 0 ? k + extent : k;
}

// Combines an update into an element as `reduction` says (none replaces).
template <typename T>
void combine(T& element, T update, const std::string& reduction) {
  if (reduction == "none") {
    element = update;
  } else if constexpr (std::is_same_v<T, bool>) {
    throw Error("reduction " + reduction + " of bool tensors");
  } else if (reduction == "add") {
    element = static_cast<T>(element + update);
  } else if (reduction == "mul") {
    element = static_cast<T>(element * update);
  } else if (reduction == "max") {
    element = std::max(element, update);
  } else {
    element = std::min(element, update);
  }
}

// Flat element offsets of data in the order ScatterND and GatherND address it: for index
// tuple t (the last dim of `indices`) after `batch` shared dims, the offset of the slice
// data[b..., t...] in elements, the slice holding `slice` elements.
struct SliceAddress {
  std::vector<int64_t> data_strides;
  int64_t batch_size = 1, tuples_per_batch = 1, tuple_length = 0, slice = 1;
};

SliceAddress slice_address(const std::vector<int64_t>& data, const std::vector<int64_t>& indices, int64_t batch) {
  SliceAddress a;
  a.data_strides = dense_strides(data);
  a.tuple_length = indices.back();
  for (int64_t d = 0; d < batch; ++d) a.batch_size *= indices[d];
  for (size_t d = static_cast<size_t>(batch); d + 1 < indices.size(); ++d) a.tuples_per_batch *= indices[d];
  for (size_t d = static_cast<size_t>(batch + a.tuple_length); d < data.size(); ++d) a.slice *= data[d];
  return a;
}

int64_t slice_offset(const SliceAddress& a, const std::vector<int64_t>& data, const Tensor& indices, int64_t batch,
                     int64_t b, int64_t tuple, const char* op) {
  int64_t offset = b * (batch > 0 ? a.data_strides[batch - 1] : 0);
  const int64_t* t = indices.data_as<int64_t>() + (b * a.tuples_per_batch + tuple) * a.tuple_length;
  for (int64_t j = 0; j < a.tuple_length; ++j) {
    offset += checked_index(t[j], data[batch + j], op) * a.data_strides[batch + j];
  }
  return offset;
}

}  // namespace

// ScatterElements and Scatter: a copy of data with out[i with its `axis` coordinate
// replaced by indices[i]] combined with updates[i], in index order.
ReferenceFn make_reference_scatter_elements(const Graph& graph, const Node& node) {
  const TensorType& data = graph.type_of(node.inputs[0]);
  const std::vector<int64_t> index_shape = graph.type_of(node.inputs[1]).shape;
  const size_t axis = static_cast<size_t>(node.attrs.get_int("axis"));
  const std::string reduction = node.attrs.get_string("reduction", "none");
  const std::vector<int64_t> shape = data.shape, strides = dense_strides(data.shape);
  return visit_dtype(data.dtype, [=](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      T* y = out[0]->data_as<T>();
      std::memcpy(y, in[0]->data(), out[0]->bytes());
      const T* updates = in[2]->data_as<T>();
      for (int64_t e = 0, n = in[1]->elements(); e < n; ++e) {
        int64_t rest = e, offset = 0;
        for (size_t d = index_shape.size(); d-- > 0;) {
          const int64_t coord = rest % index_shape[d];
          rest /= index_shape[d];
          offset += (d == axis ? checked_index(index_at(*in[1], e), shape[d], "ScatterElements") : coord) * strides[d];
        }
        combine(y[offset], updates[e], reduction);
      }
    };
  });
}

// ScatterND: a copy of data with each addressed slice combined with its updates.
ReferenceFn make_reference_scatter_nd(const Graph& graph, const Node& node) {
  const TensorType& data = graph.type_of(node.inputs[0]);
  const std::vector<int64_t> shape = data.shape;
  const SliceAddress a = slice_address(shape, graph.type_of(node.inputs[1]).shape, 0);
  const std::string reduction = node.attrs.get_string("reduction", "none");
  return visit_dtype(data.dtype, [=](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      T* y = out[0]->data_as<T>();
      std::memcpy(y, in[0]->data(), out[0]->bytes());
      const T* updates = in[2]->data_as<T>();
      for (int64_t tuple = 0; tuple < a.tuples_per_batch; ++tuple) {
        const int64_t offset = slice_offset(a, shape, *in[1], 0, 0, tuple, "ScatterND");
        for (int64_t j = 0; j < a.slice; ++j) combine(y[offset + j], updates[tuple * a.slice + j], reduction);
      }
    };
  });
}

// GatherND: the addressed slices, in index order.
ReferenceFn make_reference_gather_nd(const Graph& graph, const Node& node) {
  const TensorType& data = graph.type_of(node.inputs[0]);
  const std::vector<int64_t> shape = data.shape;
  const int64_t batch = node.attrs.get_int("batch_dims");
  const SliceAddress a = slice_address(shape, graph.type_of(node.inputs[1]).shape, batch);
  const size_t size = dtype_size(data.dtype);
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const auto* x = static_cast<const uint8_t*>(in[0]->data());
    auto* y = static_cast<uint8_t*>(out[0]->data());
    for (int64_t b = 0; b < a.batch_size; ++b) {
      for (int64_t tuple = 0; tuple < a.tuples_per_batch; ++tuple) {
        const int64_t offset = slice_offset(a, shape, *in[1], batch, b, tuple, "GatherND");
        std::memcpy(y, x + offset * size, a.slice * size);
        y += a.slice * size;
      }
    }
  };
}

// OneHot: `on` where the index (negative ones counting from the end of depth) equals
// the position along `axis`, `off` elsewhere; an index outside [-depth, depth) gives a
// row of `off`, as the spec says.
ReferenceFn make_reference_one_hot(const Graph& graph, const Node& node) {
  const TensorType& out_type = graph.type_of(node.outputs[0]);
  const size_t axis = static_cast<size_t>(node.attrs.get_int("axis"));
  const int64_t depth = node.attrs.get_int("depth");
  const DType index_dtype = graph.type_of(node.inputs[0]).dtype;
  int64_t inner = 1;
  for (size_t d = axis + 1; d < out_type.shape.size(); ++d) inner *= out_type.shape[d];
  const size_t size = dtype_size(out_type.dtype);
  return visit_dtype(index_dtype, [=](auto tag) -> ReferenceFn {
    using I = decltype(tag);
    return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const I* indices = in[0]->data_as<I>();
      const auto* values = static_cast<const uint8_t*>(in[2]->data());
      auto* y = static_cast<uint8_t*>(out[0]->data());
      for (int64_t e = 0, n = out[0]->elements(); e < n; ++e) std::memcpy(y + e * size, values, size);
      for (int64_t i = 0, n = in[0]->elements(); i < n; ++i) {
        int64_t k = static_cast<int64_t>(indices[i]);
        if (k < -depth || k >= depth) continue;
        if (k < 0) k += depth;
        const int64_t outer = i / inner, rest = i % inner;
        std::memcpy(y + ((outer * depth + k) * inner + rest) * size, values + size, size);
      }
    };
  });
}

int64_t count_nonzero(const Tensor& data) {
  return visit_dtype(data.dtype(), [&data](auto tag) {
    using T = decltype(tag);
    const T* x = data.data_as<T>();
    return static_cast<int64_t>(std::count_if(x, x + data.elements(), [](T v) { return v != T{}; }));
  });
}

// NonZero: each nonzero element's index, dim by dim, in row-major order.
ReferenceFn make_reference_non_zero(const Graph& graph, const Node& node) {
  const std::vector<int64_t> shape = graph.type_of(node.inputs[0]).shape;
  return [shape](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const int64_t count = out[0]->shape()[1];
    int64_t* y = out[0]->data_as<int64_t>();
    visit_dtype(in[0]->dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* x = in[0]->data_as<T>();
      int64_t found = 0;
      for (int64_t i = 0; i < in[0]->elements(); ++i) {
        if (x[i] == T{}) continue;
        int64_t rest = i;
        for (size_t d = shape.size(); d-- > 0;) {
          y[static_cast<int64_t>(d) * count + found] = rest % shape[d];
          rest /= shape[d];
        }
        ++found;
      }
    });
  };
}

// Compress: the slices along `axis` at the importer's `selected` positions (axis -1:
// elements of the flattened input).
ReferenceFn make_reference_compress(const Graph& graph, const Node& node) {
  const TensorType& type = graph.type_of(node.inputs[0]);
  const int64_t axis = node.attrs.get_int("axis");
  const std::vector<int64_t> selected = node.attrs.get_ints("selected");
  int64_t outer = 1, extent = type.elements(), inner = 1;
  if (axis >= 0) {
    outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= type.shape[d];
    extent = type.shape[axis];
    for (size_t d = static_cast<size_t>(axis) + 1; d < type.shape.size(); ++d) inner *= type.shape[d];
  }
  const size_t chunk = static_cast<size_t>(inner) * dtype_size(type.dtype);
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const auto* x = static_cast<const uint8_t*>(in[0]->data());
    auto* y = static_cast<uint8_t*>(out[0]->data());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k : selected) {
        std::memcpy(y, x + (o * extent + k) * chunk, chunk);
        y += chunk;
      }
    }
  };
}

}  // namespace nee
