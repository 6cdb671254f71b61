#include "tuner/measure/workload_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "core/activation_layout.h"
#include "core/activations.h"
#include "core/conv_workload.h"
#include "core/elementwise_workload.h"
#include "core/error.h"
#include "core/family.h"
#include "core/layernorm_workload.h"
#include "core/pool_workload.h"
#include "core/softmax_workload.h"
#include "core/strided_copy_workload.h"
#include "runtime/reference/broadcast.h"

namespace nee {

// Row-major offset of a broadcast operand's element for an output batch index.
static int64_t broadcast_offset(const std::vector<int64_t>& shape, int matrix_dims,
                                const std::vector<int64_t>& out_batch_shape, int64_t out_batch_index) {
  const int operand_batch = static_cast<int>(shape.size()) - matrix_dims;
  int64_t matrix_size = 1;
  for (size_t i = operand_batch; i < shape.size(); ++i) matrix_size *= shape[i];
  int64_t offset = 0, stride = matrix_size;
  int64_t rest = out_batch_index;
  for (int d = static_cast<int>(out_batch_shape.size()) - 1; d >= 0; --d) {
    const int64_t coord = rest % out_batch_shape[d];
    rest /= out_batch_shape[d];
    const int od = d - (static_cast<int>(out_batch_shape.size()) - operand_batch);
    if (od < 0) continue;
    if (shape[od] != 1) offset += coord * stride;
    stride *= shape[od];
  }
  return offset;
}

static void reference_matmul(const Workload& w, const std::vector<const Tensor*>& in, Tensor& out) {
  const MatmulAttrs attrs = matmul_attrs(w);
  const auto& so = w.output.shape;
  const size_t r = so.size();
  const int64_t m_size = so[r - 2], n_size = so[r - 1];
  const auto& sa = w.inputs[0].shape;
  const int64_t k_size = attrs.trans_a ? sa[sa.size() - 2] : sa.back();
  const std::vector<int64_t> batch_shape(so.begin(), so.end() - 2);
  int64_t batches = 1;
  for (int64_t d : batch_shape) batches *= d;

  const float* a = in[0]->data_as<float>();
  const float* b = in[1]->data_as<float>();
  float* o = out.data_as<float>();
  // Output rows are independent and each is summed in the same order whoever computes
  // it, so they are shared among the cores. On one core the 4096-cubed product took 31 s,
  // and nee-measure checks every candidate of a GPU batch against it.
  const int64_t rows = batches * m_size;
  const auto compute_rows = [&](int64_t first, int64_t last) {
    std::vector<float> row(static_cast<size_t>(n_size));
    for (int64_t r = first; r < last; ++r) {
      const int64_t bi = r / m_size, i = r % m_size;
      const float* ab = a + broadcast_offset(w.inputs[0].shape, 2, batch_shape, bi);
      const float* bb = b + broadcast_offset(w.inputs[1].shape, 2, batch_shape, bi);
      std::fill(row.begin(), row.end(), 0.0f);
      for (int64_t k = 0; k < k_size; ++k) {
        const float av = attrs.trans_a ? ab[k * m_size + i] : ab[i * k_size + k];
        if (attrs.trans_b) {
          for (int64_t j = 0; j < n_size; ++j) row[j] += av * bb[j * k_size + k];
        } else {
          const float* brow = bb + k * n_size;
          for (int64_t j = 0; j < n_size; ++j) row[j] += av * brow[j];
        }
      }
      float* orow = o + r * n_size;
      for (int64_t j = 0; j < n_size; ++j) orow[j] = static_cast<float>(attrs.alpha) * row[j];
    }
  };
  // A thread per core, each with 2^20 or more multiply-adds, so small products stay on one.
  const int64_t macs = rows * n_size * k_size;
  const int64_t workers = std::clamp<int64_t>(std::min<int64_t>(std::thread::hardware_concurrency(), macs >> 20), 1,
                                              std::max<int64_t>(1, rows));
  std::vector<std::thread> threads;
  for (int64_t t = 1; t < workers; ++t) threads.emplace_back(compute_rows, rows * t / workers, rows * (t + 1) / workers);
  compute_rows(0, rows / workers);
  for (std::thread& t : threads) t.join();
  if (matmul_has_bias(w)) {
    // C broadcasts over the whole output from the right.
    const Tensor& c = *in[2];
    const auto& sc = c.shape();
    const float* cd = c.data_as<float>();
    const int64_t total = out.elements();
    for (int64_t e = 0; e < total; ++e) {
      int64_t rest = e, offset = 0, stride = 1;
      for (size_t d = 0; d < sc.size(); ++d) {
        const int64_t od = so[r - 1 - d];
        const int64_t coord = rest % od;
        rest /= od;
        const int64_t cd_extent = sc[sc.size() - 1 - d];
        if (cd_extent != 1) offset += coord * stride;
        stride *= cd_extent;
      }
      o[e] += static_cast<float>(attrs.beta) * cd[offset];
    }
  }
  if (attrs.relu) {
    for (int64_t e = 0; e < out.elements(); ++e) o[e] = std::max(o[e], 0.0f);
  }
  if (attrs.gelu) {
    for (int64_t e = 0; e < out.elements(); ++e) o[e] = gelu(o[e]);
  }
}

// Direct loops over every output element and every tap, zero outside the input, in
// ONNX's layouts: blocked operands are unpacked first and a blocked output packed last.
static void reference_conv2d(const Workload& w, const std::vector<const Tensor*>& in, Tensor& out) {
  const Conv2dAttrs a = conv2d_attrs(w);
  const std::vector<int64_t> xs = conv2d_nchw_input(w).shape;
  const std::vector<int64_t> ws = conv2d_oihw_weights(w).shape;
  const std::vector<int64_t> os = conv2d_nchw_output(w).shape;
  const int64_t channels = xs[1], ih = xs[2], iw = xs[3];
  const int64_t group_channels = ws[1], kh = ws[2], kw = ws[3];
  const int64_t group_out = os[1] / a.group;
  const float* x = in[0]->data_as<float>();
  std::vector<float> nchw_input;
  if (a.input_block != 0) {
    nchw_input.resize(static_cast<size_t>(xs[0] * xs[1] * xs[2] * xs[3]));
    unpack_blocked_activations(x, xs, nchw_input.data());
    x = nchw_input.data();
  }
  const float* wt = in[1]->data_as<float>();
  std::vector<float> unblocked;
  if (a.weight_block != 0) {
    unblocked.resize(static_cast<size_t>(ws[0] * ws[1] * ws[2] * ws[3]));
    unpack_conv2d_weights(wt, ws, a, unblocked.data());
    wt = unblocked.data();
  }
  size_t next = 2;
  const float* bias = conv2d_has_bias(w) ? in[next++]->data_as<float>() : nullptr;
  const float* residual = conv2d_has_residual(w) ? in[next++]->data_as<float>() : nullptr;
  const size_t out_elements = static_cast<size_t>(os[0] * os[1] * os[2] * os[3]);
  std::vector<float> nchw_residual, nchw_output;
  if (residual && a.output_block != 0) {
    nchw_residual.resize(out_elements);
    unpack_blocked_activations(residual, os, nchw_residual.data());
    residual = nchw_residual.data();
  }
  float* o = out.data_as<float>();
  if (a.output_block != 0) {
    nchw_output.resize(out_elements);
    o = nchw_output.data();
  }
  for (int64_t n = 0; n < os[0]; ++n) {
    for (int64_t oc = 0; oc < os[1]; ++oc) {
      const int64_t first_channel = (oc / group_out) * group_channels;
      for (int64_t oy = 0; oy < os[2]; ++oy) {
        for (int64_t ox = 0; ox < os[3]; ++ox) {
          double sum = 0;
          for (int64_t ci = 0; ci < group_channels; ++ci) {
            for (int64_t ky = 0; ky < kh; ++ky) {
              const int64_t y = oy * a.strides[0] + ky * a.dilations[0] - a.pads[0];
              if (y < 0 || y >= ih) continue;
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t xx = ox * a.strides[1] + kx * a.dilations[1] - a.pads[1];
                if (xx < 0 || xx >= iw) continue;
                sum += static_cast<double>(wt[((oc * group_channels + ci) * kh + ky) * kw + kx]) *
                       x[((n * channels + first_channel + ci) * ih + y) * iw + xx];
              }
            }
          }
          const int64_t e = ((n * os[1] + oc) * os[2] + oy) * os[3] + ox;
          float v = static_cast<float>(sum);
          if (bias) v += bias[oc];
          if (residual) v += residual[e];
          if (a.activation == ConvActivation::relu) v = std::max(v, 0.0f);
          if (a.activation == ConvActivation::clip) {
            v = std::clamp(v, static_cast<float>(a.clip_min), static_cast<float>(a.clip_max));
          }
          if (a.activation == ConvActivation::silu) v = silu(v);
          if (a.activation == ConvActivation::gelu) v = gelu(v);
          o[e] = v;
        }
      }
    }
  }
  if (a.output_block != 0) pack_blocked_activations(o, os, out.data_as<float>());
}

// The program evaluated at every output element on its broadcast inputs.
static void reference_elementwise(const Workload& w, const std::vector<const Tensor*>& in, Tensor& out) {
  const ElementwiseProgram program = elementwise_program(w);
  std::vector<std::vector<int64_t>> shapes;
  for (const TensorType& t : w.inputs) shapes.push_back(t.shape);
  std::vector<float> values(in.size()), temps;
  float* o = out.data_as<float>();
  for_each_broadcast_n(w.output.shape, shapes, [&](int64_t e, const std::vector<int64_t>& offsets) {
    for (size_t i = 0; i < in.size(); ++i) values[i] = in[i]->data_as<float>()[offsets[i]];
    o[e] = program.evaluate(values.data(), temps);
  });
}

// Every tap of every window tested against the input's bounds (and, for the divisor with
// count_include_pad, against the padded input's).
static void reference_pool2d(const Workload& w, const std::vector<const Tensor*>& in, Tensor& out) {
  const Pool2dAttrs a = pool2d_attrs(w);
  const auto& xs = w.inputs[0].shape;
  const auto& os = w.output.shape;
  const int64_t ih = xs[2], iw = xs[3];
  const bool average = a.kind == PoolKind::average;
  const float* x = in[0]->data_as<float>();
  float* o = out.data_as<float>();
  for (int64_t plane = 0; plane < os[0] * os[1]; ++plane) {
    const float* xp = x + plane * ih * iw;
    for (int64_t oy = 0; oy < os[2]; ++oy) {
      for (int64_t ox = 0; ox < os[3]; ++ox) {
        double sum = 0;
        float best = -std::numeric_limits<float>::infinity();
        int64_t inside = 0, in_padded = 0;
        for (int64_t ky = 0; ky < a.kernel[0]; ++ky) {
          const int64_t y = oy * a.strides[0] + ky * a.dilations[0] - a.pads[0];
          for (int64_t kx = 0; kx < a.kernel[1]; ++kx) {
            const int64_t xx = ox * a.strides[1] + kx * a.dilations[1] - a.pads[1];
            if (y >= -a.pads[0] && y < ih + a.pads[2] && xx >= -a.pads[1] && xx < iw + a.pads[3]) ++in_padded;
            if (y < 0 || y >= ih || xx < 0 || xx >= iw) continue;
            ++inside;
            sum += xp[y * iw + xx];
            best = std::max(best, xp[y * iw + xx]);
          }
        }
        const int64_t divisor = a.count_include_pad ? in_padded : inside;
        *o++ = average ? static_cast<float>(sum / static_cast<double>(divisor)) : best;
      }
    }
  }
}

// The tensor as [outer, n, inner]; sums in double.
static void reference_softmax(const Workload& w, const std::vector<const Tensor*>& in, Tensor& out) {
  const auto& shape = w.inputs[0].shape;
  const size_t axis = static_cast<size_t>(softmax_axis(w));
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t n = shape[axis];
  const float* x = in[0]->data_as<float>();
  float* o = out.data_as<float>();
  for (int64_t b = 0; b < outer; ++b) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = b * n * inner + i;
      double max = x[base];
      for (int64_t j = 1; j < n; ++j) max = std::max<double>(max, x[base + j * inner]);
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += std::exp(x[base + j * inner] - max);
      for (int64_t j = 0; j < n; ++j) {
        o[base + j * inner] = static_cast<float>(std::exp(x[base + j * inner] - max) / sum);
      }
    }
  }
}

// Index into a row-shaped operand that broadcasts (from the right) to the row's shape.
static int64_t row_broadcast_index(const std::vector<int64_t>& row_shape, const std::vector<int64_t>& shape,
                                   int64_t element) {
  int64_t index = 0, stride = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t extent = row_shape[row_shape.size() - 1 - d];
    const int64_t coord = element % extent;
    element /= extent;
    const int64_t own = shape[shape.size() - 1 - d];
    if (own != 1) index += coord * stride;
    stride *= own;
  }
  return index;
}

// Mean and centered (two-pass) variance per row, in double.
static void reference_layernorm(const Workload& w, const std::vector<const Tensor*>& in, Tensor& out) {
  const auto& shape = w.inputs[0].shape;
  const std::vector<int64_t> row_shape(shape.begin() + layernorm_axis(w), shape.end());
  const int64_t n = layernorm_row_length(w), rows = w.inputs[0].elements() / n;
  const double epsilon = layernorm_epsilon(w);
  const float* x = in[0]->data_as<float>();
  const float* scale = in[1]->data_as<float>();
  const float* bias = layernorm_has_bias(w) ? in[2]->data_as<float>() : nullptr;
  float* o = out.data_as<float>();
  for (int64_t row = 0; row < rows; ++row) {
    const float* xr = x + row * n;
    double mean = 0, var = 0;
    for (int64_t j = 0; j < n; ++j) mean += xr[j];
    mean /= static_cast<double>(n);
    for (int64_t j = 0; j < n; ++j) var += (xr[j] - mean) * (xr[j] - mean);
    const double inv_std = 1.0 / std::sqrt(var / static_cast<double>(n) + epsilon);
    for (int64_t j = 0; j < n; ++j) {
      double v = (xr[j] - mean) * inv_std * scale[row_broadcast_index(row_shape, w.inputs[1].shape, j)];
      if (bias) v += bias[row_broadcast_index(row_shape, w.inputs[2].shape, j)];
      o[row * n + j] = static_cast<float>(v);
    }
  }
}

// Every output element from its input index, computed on its own from the definition
// (no merged dims or runs, unlike the runtime's reference Transpose and Slice).
static void reference_strided_copy(const Workload& w, const std::vector<const Tensor*>& in, Tensor& out) {
  const StridedCopyAttrs a = strided_copy_attrs(w);
  const auto& in_shape = w.inputs[0].shape;
  const auto& out_shape = w.output.shape;
  const size_t rank = out_shape.size();
  const float* x = in[0]->data_as<float>();
  float* o = out.data_as<float>();
  std::vector<int64_t> index(rank), source(rank);
  for (int64_t e = 0; e < out.elements(); ++e) {
    int64_t rest = e;
    for (size_t k = rank; k-- > 0;) {
      index[k] = rest % out_shape[k];
      rest /= out_shape[k];
    }
    for (size_t k = 0; k < rank; ++k) {
      const size_t j = static_cast<size_t>(a.perm[k]);
      source[j] = a.starts[j] + index[k] * a.steps[j];
    }
    int64_t offset = 0;
    for (size_t j = 0; j < rank; ++j) offset = offset * in_shape[j] + source[j];
    o[e] = x[offset];
  }
}

// One reference per family, in NEE_FAMILIES' order: a family without one does not build.
using Reference = void (*)(const Workload&, const std::vector<const Tensor*>&, Tensor&);
constexpr Reference kReferences[] = {
#define NEE_REFERENCE_ROW(name) reference_##name,
    NEE_FAMILIES(NEE_REFERENCE_ROW)
#undef NEE_REFERENCE_ROW
};

void compute_reference(const Workload& workload, const std::vector<const Tensor*>& inputs, Tensor& output) {
  kReferences[static_cast<size_t>(family_of(workload).id)](workload, inputs, output);
}

}  // namespace nee
