#include <algorithm>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

int64_t rounded_up_quotient(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A 1-D or 2-D ConvTranspose of one group and no dilation, f32, constant weights and
// bias, of known dims.
bool is_plain_conv_transpose(const Graph& graph, const Node& node, bool with_1d) {
  if (node.op != "ConvTranspose" || node.attrs.get_int("group", 1) != 1) return false;
  const TensorType& x = graph.type_of(node.inputs[0]);
  const Tensor* w = f32_constant(graph, node.inputs[1]);
  const bool bias = node.inputs.size() > 2 && !node.inputs[2].empty();
  if (x.dtype != DType::f32 || (x.shape.size() != 4 && (x.shape.size() != 3 || !with_1d)) || !w ||
      (bias && !f32_constant(graph, node.inputs[2]))) {
    return false;
  }
  for (int64_t d : x.shape) {
    if (d <= 0) return false;
  }
  const std::vector<int64_t> dilations = node.attrs.get_ints("dilations");
  return std::all_of(dilations.begin(), dilations.end(), [](int64_t d) { return d == 1; });
}

// A 1-D ConvTranspose's [N, C, L] shapes and window attributes as a 2-D one's of one row.
std::vector<int64_t> one_row(std::vector<int64_t> shape) {
  if (shape.size() == 3) shape.insert(shape.begin() + 2, 1);
  return shape;
}
std::vector<int64_t> one_row_pads(const std::vector<int64_t>& pads) {
  return pads.size() == 2 ? std::vector<int64_t>{0, pads[0], 0, pads[1]} : pads;
}
std::vector<int64_t> one_row_window(const std::vector<int64_t>& sizes) {
  return sizes.size() == 1 ? std::vector<int64_t>{1, sizes[0]} : sizes;
}

// The phase weights: output channel (m * SH + ry) * SW + rx of the conv, at tap (jy, jx)
// of its MH x MW window, is W[c, m, (MH - 1 - jy) * SH + ry, (MW - 1 - jx) * SW + rx],
// zero past the kernel.
Tensor phase_weights(const Tensor& w, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t mh, int64_t mw) {
  const int64_t channels = w.shape()[0], outputs = w.shape()[1];
  Tensor v(DType::f32, {outputs * sh * sw, channels, mh, mw});
  float* to = v.data_as<float>();
  const float* from = w.data_as<float>();
  for (int64_t m = 0; m < outputs; ++m) {
    for (int64_t ry = 0; ry < sh; ++ry) {
      for (int64_t rx = 0; rx < sw; ++rx) {
        for (int64_t c = 0; c < channels; ++c) {
          for (int64_t jy = 0; jy < mh; ++jy) {
            for (int64_t jx = 0; jx < mw; ++jx) {
              const int64_t ty = (mh - 1 - jy) * sh + ry, tx = (mw - 1 - jx) * sw + rx;
              const int64_t o = (m * sh + ry) * sw + rx;
              to[((o * channels + c) * mh + jy) * mw + jx] =
                  ty < kh && tx < kw ? from[((c * outputs + m) * kh + ty) * kw + tx] : 0.0f;
            }
          }
        }
      }
    }
  }
  return v;
}

Tensor phase_bias(const Tensor& b, int64_t phases) {
  Tensor out(DType::f32, {b.elements() * phases});
  for (int64_t i = 0; i < out.elements(); ++i) out.data_as<float>()[i] = b.data_as<float>()[i / phases];
  return out;
}

}  // namespace

void lower_conv_transpose(Graph& graph, bool with_1d) {
  std::vector<Node> added;
  for (Node& node : graph.nodes()) {
    if (!is_plain_conv_transpose(graph, node, with_1d)) continue;
    // A 1-D one (HiFi-GAN's upsamplings, Conv-TasNet's decoder) as a 2-D one of one row.
    const bool one_d = graph.type_of(node.inputs[0]).shape.size() == 3;
    const std::vector<int64_t> x = one_row(graph.type_of(node.inputs[0]).shape);
    const std::vector<int64_t> y = one_row(graph.type_of(node.outputs[0]).shape);
    const Tensor& w = *f32_constant(graph, node.inputs[1]);
    const std::vector<int64_t> k = one_row_window(node.attrs.get_ints("kernel_shape"));
    const std::vector<int64_t> s = one_row_window(node.attrs.get_ints("strides"));
    const std::vector<int64_t> pads = one_row_pads(node.attrs.get_ints("pads"));  // begins, then ends
    const int64_t m = y[1], mh = rounded_up_quotient(k[0], s[0]), mw = rounded_up_quotient(k[1], s[1]);
    // The phases' rows q cover y's from -pads_begin: q < Q = ceil((O + pads_begin) / S),
    // which the conv writes with MH - 1 rows of padding before and Q - I after.
    const int64_t qh = rounded_up_quotient(y[2] + pads[0], s[0]), qw = rounded_up_quotient(y[3] + pads[1], s[1]);
    if (qh < x[2] || qw < x[3]) continue;
    const std::string base = node.name.empty() ? node.outputs[0] : node.name;

    std::string input = node.inputs[0];
    if (one_d) {
      input = unique_value_name(graph, base + ".row");
      added.push_back(reshape_view(graph, node.inputs[0], input, x));
    }
    Node conv = single_output_node("Conv", {input}, unique_value_name(graph, base + ".phases"));
    graph.add_value(conv.outputs[0], TensorType{DType::f32, {x[0], m * s[0] * s[1], qh, qw}});
    conv.inputs.push_back(
        add_named_constant(graph, base + ".phase_weights", phase_weights(w, k[0], k[1], s[0], s[1], mh, mw)));
    if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
      const Tensor bias = phase_bias(*f32_constant(graph, node.inputs[2]), s[0] * s[1]);
      conv.inputs.push_back(add_named_constant(graph, base + ".phase_bias", bias));
    }
    conv.attrs.set("kernel_shape", std::vector<int64_t>{mh, mw});
    conv.attrs.set("strides", std::vector<int64_t>{1, 1});
    conv.attrs.set("dilations", std::vector<int64_t>{1, 1});
    conv.attrs.set("pads", std::vector<int64_t>{mh - 1, mw - 1, qh - x[2], qw - x[3]});
    conv.attrs.set("group", int64_t{1});
    // Depth to space: [N, M, SH, SW, Q, Q'] -> [N, M, Q, SH, Q', SW] -> [N, M, Q * SH, Q' * SW].
    const std::string split = unique_value_name(graph, base + ".phase_planes");
    added.push_back(reshape_view(graph, conv.outputs[0], split, {x[0], m, s[0], s[1], qh, qw}));
    added.push_back(std::move(conv));
    Node interleave = single_output_node("Transpose", {split}, unique_value_name(graph, base + ".interleaved"));
    interleave.attrs.set("perm", std::vector<int64_t>{0, 1, 4, 2, 5, 3});
    graph.add_value(interleave.outputs[0], TensorType{DType::f32, {x[0], m, qh, s[0], qw, s[1]}});
    const std::vector<int64_t> full = {x[0], m, qh * s[0], qw * s[1]};
    Node last;
    if (full == y && pads[0] == 0 && pads[1] == 0) {
      const std::string shape = add_shape_constant(graph, unique_value_name(graph, base + ".output_shape"),
                                                   graph.type_of(node.outputs[0]).shape);
      last = single_output_node("Reshape", {interleave.outputs[0], shape}, node.outputs[0]);
    } else {
      const std::string planes = unique_value_name(graph, base + ".upsampled");
      const std::vector<int64_t> planes_shape = one_d ? std::vector<int64_t>{x[0], m, full[3]} : full;
      added.push_back(reshape_view(graph, interleave.outputs[0], planes, planes_shape));
      last = single_output_node("Slice", {planes}, node.outputs[0]);
      last.attrs.set("starts",
                     one_d ? std::vector<int64_t>{0, 0, pads[1]} : std::vector<int64_t>{0, 0, pads[0], pads[1]});
      last.attrs.set("steps", std::vector<int64_t>(planes_shape.size(), 1));
    }
    added.push_back(std::move(interleave));
    last.name = node.name;
    const std::vector<std::string> replaced = {node.inputs[1], node.inputs.size() > 2 ? node.inputs[2] : ""};
    node = std::move(last);
    for (const std::string& c : replaced) remove_if_unread(graph, c);
  }
  for (Node& n : added) graph.add_node(std::move(n));
  graph.sort_topologically();
}

}  // namespace nee
