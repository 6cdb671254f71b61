#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/attention_workload.h"
#include "runtime/node_workload.h"
#include "runtime/reference/family_reference.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

// Element strides of an operand's three dims in Halide's order reversed: for Q, (d, s, g);
// for K, (d, t, g); for V, (dv, t, g); and for the mask (t, s, g), 0 where it broadcasts.
struct Strides {
  int64_t inner, row, group;
};

}  // namespace

ReferenceFn make_attention_reference(const Workload& w) {
  const AttentionDims n = attention_dims(w);
  const AttentionAttrs attrs = attention_attrs(w);
  const bool gsd = attrs.layout == AttentionLayout::group_major;
  const int64_t groups = n.groups;
  // Q [G,S,D] or [S,G,D]; K^T [G,D,T] (key t, depth d at g*D*T + d*T + t) or K [T,G,D].
  const Strides q = gsd ? Strides{1, n.depth, n.queries * n.depth} : Strides{1, groups * n.depth, n.depth};
  const Strides k = gsd ? Strides{n.keys, 1, n.depth * n.keys} : Strides{1, groups * n.depth, n.depth};
  const Strides v = gsd ? Strides{1, n.value_depth, n.keys * n.value_depth}
                        : Strides{1, groups * n.value_depth, n.value_depth};
  const Strides out = gsd ? Strides{1, n.value_depth, n.queries * n.value_depth}
                          : Strides{1, groups * n.value_depth, n.value_depth};
  const bool masked = attention_has_mask(w);
  Strides mask{0, 0, 0};
  if (masked) {
    std::vector<int64_t> shape = w.inputs[3].shape;
    shape.insert(shape.begin(), 3 - shape.size(), 1);
    mask = {shape[2] == 1 ? 0 : 1, shape[1] == 1 ? 0 : shape[2], shape[0] == 1 ? 0 : shape[1] * shape[2]};
  }
  const float scale = static_cast<float>(attrs.scale), mask_scale = static_cast<float>(attrs.mask_scale);
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& outs) {
    const float* qd = in[0]->data_as<float>();
    const float* kd = in[1]->data_as<float>();
    const float* vd = in[2]->data_as<float>();
    const float* md = masked ? in[3]->data_as<float>() : nullptr;
    float* od = outs[0]->data_as<float>();
    std::vector<float> scores(n.keys);
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t s = 0; s < n.queries; ++s) {
        const float* qrow = qd + g * q.group + s * q.row;
        for (int64_t t = 0; t < n.keys; ++t) {
          float dot = 0.0f;
          for (int64_t d = 0; d < n.depth; ++d) dot += qrow[d] * kd[g * k.group + t * k.row + d * k.inner];
          scores[t] = dot * scale;
          if (masked) scores[t] += md[g * mask.group + s * mask.row + t * mask.inner] * mask_scale;
        }
        const float max = *std::max_element(scores.begin(), scores.end());
        float sum = 0.0f;
        for (float& x : scores) sum += (x = std::exp(x - max));
        float* orow = od + g * out.group + s * out.row;
        for (int64_t c = 0; c < n.value_depth; ++c) {
          float acc = 0.0f;
          for (int64_t t = 0; t < n.keys; ++t) acc += scores[t] * vd[g * v.group + t * v.row + c];
          orow[c] = acc / sum;
        }
      }
    }
  };
}

// NeeAttention's attributes and inputs are its workload's (passes.h).
ReferenceFn make_reference_nee_attention(const Graph& graph, const Node& node) {
  const std::optional<Workload> w = workload_of(graph, node);
  return w ? make_attention_reference(*w) : nullptr;
}

}  // namespace nee
