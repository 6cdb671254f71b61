#include <algorithm>
#include <limits>

#include "core/activation_layout.h"
#include "core/pool2d_workload.h"
#include "runtime/reference/family_reference.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/spatial_geometry.h"

namespace nee {

namespace {

// Visits the taps of one output position's window that lie inside the input, passing
// each tap's row-major spatial index and its (d, h, w) position.
template <typename Visit>
void for_each_tap_inside(const Window3d& w, int64_t od, int64_t oh, int64_t ow, Visit&& visit) {
  for (int64_t kd = 0; kd < w.kernel[0]; ++kd) {
    const int64_t id = od * w.strides[0] - w.pads_begin[0] + kd * w.dilations[0];
    if (id < 0 || id >= w.input[0]) continue;
    for (int64_t kh = 0; kh < w.kernel[1]; ++kh) {
      const int64_t ih = oh * w.strides[1] - w.pads_begin[1] + kh * w.dilations[1];
      if (ih < 0 || ih >= w.input[1]) continue;
      for (int64_t kw = 0; kw < w.kernel[2]; ++kw) {
        const int64_t iw = ow * w.strides[2] - w.pads_begin[2] + kw * w.dilations[2];
        if (iw < 0 || iw >= w.input[2]) continue;
        visit((id * w.input[1] + ih) * w.input[2] + iw, id, ih, iw);
      }
    }
  }
}

// Taps of a window along one axis that lie within the padded input [-pad_begin,
// input + pad_end): the divisor AveragePool uses with count_include_pad (a ceil_mode
// window may reach past the end padding, and those taps do not count).
int64_t taps_in_padded_input(const Window3d& w, size_t axis, int64_t out) {
  int64_t count = 0;
  for (int64_t k = 0; k < w.kernel[axis]; ++k) {
    const int64_t pos = out * w.strides[axis] - w.pads_begin[axis] + k * w.dilations[axis];
    if (pos >= -w.pads_begin[axis] && pos < w.input[axis] + w.pads_end[axis]) ++count;
  }
  return count;
}

template <typename T>
ReferenceFn max_pool_kernel(const Window3d& w, int64_t planes, bool column_major_indices) {
  return [w, planes, column_major_indices](const std::vector<const Tensor*>& in,
                                           const std::vector<Tensor*>& out) {
    const T* x = in[0]->data_as<T>();
    T* y = out[0]->data_as<T>();
    int64_t* indices = out.size() > 1 && out[1] ? out[1]->data_as<int64_t>() : nullptr;
    for (int64_t p = 0; p < planes; ++p) {
      const T* plane = x + p * w.input_size();
      for (int64_t od = 0; od < w.output[0]; ++od) {
        for (int64_t oh = 0; oh < w.output[1]; ++oh) {
          for (int64_t ow = 0; ow < w.output[2]; ++ow) {
            T best = std::numeric_limits<T>::lowest();
            int64_t best_index = 0;
            bool found = false;
            for_each_tap_inside(w, od, oh, ow, [&](int64_t index, int64_t id, int64_t ih, int64_t iw) {
              if (found && !(plane[index] > best)) return;
              found = true;
              best = plane[index];
              best_index = column_major_indices ? id + ih * w.input[0] + iw * w.input[0] * w.input[1] : index;
            });
            *y++ = best;
            if (indices) *indices++ = p * w.input_size() + best_index;
          }
        }
      }
    }
  };
}

// The sum of the taps inside X over the count of those taps, or with count_include_pad
// over the count of those inside the padded input.
ReferenceFn average_pool_kernel(const Window3d& w, int64_t planes, bool count_include_pad) {
  return [w, planes, count_include_pad](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    float* y = out[0]->data_as<float>();
    for (int64_t p = 0; p < planes; ++p) {
      const float* plane = x + p * w.input_size();
      for (int64_t od = 0; od < w.output[0]; ++od) {
        for (int64_t oh = 0; oh < w.output[1]; ++oh) {
          for (int64_t ow = 0; ow < w.output[2]; ++ow) {
            float sum = 0.0f;
            int64_t inside = 0;
            for_each_tap_inside(w, od, oh, ow, [&](int64_t index, int64_t, int64_t, int64_t) {
              sum += plane[index];
              ++inside;
            });
            const int64_t divisor = count_include_pad ? taps_in_padded_input(w, 0, od) *
                                                            taps_in_padded_input(w, 1, oh) *
                                                            taps_in_padded_input(w, 2, ow)
                                                      : inside;
            *y++ = sum / static_cast<float>(divisor);
          }
        }
      }
    }
  };
}

// A pool between channel-blocked convs ([N, C/16, H, W, 16] in and out) as the NCHW
// kernel on unpacked copies: the reference favours plain loops over speed.
ReferenceFn on_unblocked_copies(ReferenceFn nchw_kernel, const std::vector<int64_t>& nchw_in,
                                const std::vector<int64_t>& nchw_out) {
  return [nchw_kernel, nchw_in, nchw_out](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    Tensor x(DType::f32, nchw_in), y(DType::f32, nchw_out);
    unpack_blocked_activations(in[0]->data_as<float>(), nchw_in, x.data_as<float>());
    nchw_kernel({&x}, {&y});
    pack_blocked_activations(y.data_as<float>(), nchw_out, out[0]->data_as<float>());
  };
}

// The NCHW shapes of a MaxPool or AveragePool node's X and Y, and whether
// block_activations made them channel-blocked.
struct PoolShapes {
  std::vector<int64_t> x, y;
  bool blocked = false;
};

PoolShapes pool_shapes(const Graph& graph, const Node& node) {
  PoolShapes s{graph.type_of(node.inputs[0]).shape, graph.type_of(node.outputs[0]).shape};
  s.blocked = node.attrs.get_int("input_block", 0) != 0;
  if (s.blocked) {
    s.x = unblocked_activation_shape(s.x);
    s.y = unblocked_activation_shape(s.y);
  }
  return s;
}

}  // namespace

// Padding never wins a maximum: only taps inside X are compared. Indices, when
// requested, count over N x C x spatial; storage_order 1 orders the spatial dims
// column-major (the first spatial dim varies fastest), as ONNX Runtime does.
ReferenceFn make_reference_max_pool(const Graph& graph, const Node& node) {
  const TensorType& x = graph.type_of(node.inputs[0]);
  const PoolShapes shapes = pool_shapes(graph, node);
  const Window3d w = window_3d(node.attrs, shapes.x, shapes.y);
  const int64_t planes = shapes.x[0] * shapes.x[1];
  const bool column_major = node.attrs.get_int("storage_order") == 1;
  if (shapes.blocked) {
    // block_activations blocks f32 pools without an Indices output only.
    if (x.dtype != DType::f32 || (node.outputs.size() > 1 && !node.outputs[1].empty())) return nullptr;
    return on_unblocked_copies(max_pool_kernel<float>(w, planes, false), shapes.x, shapes.y);
  }
  switch (x.dtype) {
    case DType::f32: return max_pool_kernel<float>(w, planes, column_major);
    case DType::i8: return max_pool_kernel<int8_t>(w, planes, column_major);
    case DType::u8: return max_pool_kernel<uint8_t>(w, planes, column_major);
    default: return nullptr;
  }
}

ReferenceFn make_reference_average_pool(const Graph& graph, const Node& node) {
  if (graph.type_of(node.inputs[0]).dtype != DType::f32) return nullptr;
  const PoolShapes shapes = pool_shapes(graph, node);
  ReferenceFn nchw = average_pool_kernel(window_3d(node.attrs, shapes.x, shapes.y), shapes.x[0] * shapes.x[1],
                                         node.attrs.get_int("count_include_pad") != 0);
  return shapes.blocked ? on_unblocked_copies(std::move(nchw), shapes.x, shapes.y) : nchw;
}

namespace {

// A global pool of X's planes, each reduced by `reduce` over its `size` elements; a blocked
// X (input_block) runs it on an unpacked copy, as the windowed pools do.
template <typename Reduce>
ReferenceFn global_pool(const Graph& graph, const Node& node, Reduce reduce) {
  if (graph.type_of(node.inputs[0]).dtype != DType::f32) return nullptr;
  const PoolShapes shapes = pool_shapes(graph, node);
  const int64_t planes = shapes.x[0] * shapes.x[1];
  const int64_t size = TensorType{DType::f32, {shapes.x.begin() + 2, shapes.x.end()}}.elements();
  ReferenceFn nchw = [planes, size, reduce](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    float* y = out[0]->data_as<float>();
    for (int64_t p = 0; p < planes; ++p) y[p] = reduce(x + p * size, size);
  };
  return shapes.blocked ? on_unblocked_copies(std::move(nchw), shapes.x, shapes.y) : nchw;
}

}  // namespace

ReferenceFn make_reference_global_average_pool(const Graph& graph, const Node& node) {
  return global_pool(graph, node, [](const float* x, int64_t size) {
    float sum = 0.0f;
    for (int64_t i = 0; i < size; ++i) sum += x[i];
    return sum / static_cast<float>(size);
  });
}

ReferenceFn make_reference_global_max_pool(const Graph& graph, const Node& node) {
  return global_pool(graph, node, [](const float* x, int64_t size) { return *std::max_element(x, x + size); });
}

// Global pools are pool2d workloads with the whole plane as the window.
ReferenceFn make_pool2d_reference(const Workload& w) {
  const Pool2dAttrs a = pool2d_attrs(w);
  const std::vector<int64_t> x = pool2d_nchw_input(w).shape, y = pool2d_nchw_output(w).shape;
  const Window3d window = window_2d(a.kernel, a.strides, a.dilations, a.pads, x, y);
  const int64_t planes = x[0] * x[1];
  ReferenceFn nchw = a.kind == PoolKind::max ? max_pool_kernel<float>(window, planes, false)
                                             : average_pool_kernel(window, planes, a.count_include_pad);
  return a.block != 0 ? on_unblocked_copies(std::move(nchw), x, y) : nchw;
}

}  // namespace nee
