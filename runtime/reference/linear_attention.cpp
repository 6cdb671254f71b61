// LinearAttention (opset 27): the recurrence of its definition, token by token, with a
// state [d_k, d_v] per batch and kv head, in f32 as ONNX's reference keeps it.
#include <cmath>
#include <vector>

#include "runtime/reference/parallel_ranges.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

// Per token t of kv head h: S *= exp(g_t) (gated; per head or per row of S), v_t becomes
// beta_t (v_t - S^T k_t) (delta), S += k_t v_t^T, and each of the group's query heads
// reads scale q_t^T S. The batch's kv heads split over the threads.
ReferenceFn make_reference_linear_attention(const Graph& graph, const Node& node) {
  const int64_t q_heads = node.attrs.get_int("q_num_heads"), kv_heads = node.attrs.get_int("kv_num_heads");
  const std::string rule = node.attrs.get_string("update_rule");
  const bool gated = rule == "gated" || rule == "gated_delta", delta = rule == "delta" || rule == "gated_delta";
  const float scale = node.attrs.get_float("scale");
  const std::vector<int64_t>& q = graph.type_of(node.inputs[0]).shape;
  const int64_t batch = q[0], tokens = q[1], d_k = q[2] / q_heads;
  const int64_t d_v = graph.type_of(node.inputs[2]).shape[2] / kv_heads, group = q_heads / kv_heads;
  const bool past = node.inputs.size() > 3 && !node.inputs[3].empty();
  const int64_t decay_width = gated ? graph.type_of(node.inputs[4]).shape[2] : 0;
  const int64_t beta_width = delta ? graph.type_of(node.inputs[5]).shape[2] : 0;
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* query = in[0]->data_as<float>();
    const float* key = in[1]->data_as<float>();
    const float* value = in[2]->data_as<float>();
    float* y = out[0]->data_as<float>();
    float* present = out.size() > 1 && out[1] ? out[1]->data_as<float>() : nullptr;
    const auto run_heads = [&](int64_t begin, int64_t end) {
      std::vector<float> state(static_cast<size_t>(d_k * d_v)), v_t(static_cast<size_t>(d_v));
      std::vector<float> sums(static_cast<size_t>(d_v));
      // sums = x^T S, row by row of S so that the inner loop runs along a row (and
      // vectorizes); each element still adds its d_k products in order.
      const auto times_state = [&](const float* x) {
        sums.assign(sums.size(), 0.0f);
        for (int64_t i = 0; i < d_k; ++i) {
          const float* state_row = &state[static_cast<size_t>(i * d_v)];
          for (int64_t j = 0; j < d_v; ++j) sums[static_cast<size_t>(j)] += state_row[j] * x[i];
        }
      };
      for (int64_t bh = begin; bh < end; ++bh) {
        const int64_t b = bh / kv_heads, h = bh % kv_heads;
        if (past) {
          const float* from = in[3]->data_as<float>() + bh * d_k * d_v;
          state.assign(from, from + d_k * d_v);
        } else {
          state.assign(state.size(), 0.0f);
        }
        for (int64_t t = 0; t < tokens; ++t) {
          const int64_t row = b * tokens + t;
          const float* k_t = key + (row * kv_heads + h) * d_k;
          const float* v_in = value + (row * kv_heads + h) * d_v;
          if (gated) {
            const float* g = in[4]->data_as<float>() + row * decay_width;
            for (int64_t i = 0; i < d_k; ++i) {
              const float factor = std::exp(decay_width == kv_heads ? g[h] : g[h * d_k + i]);
              for (int64_t j = 0; j < d_v; ++j) state[static_cast<size_t>(i * d_v + j)] *= factor;
            }
          }
          for (int64_t j = 0; j < d_v; ++j) v_t[static_cast<size_t>(j)] = v_in[j];
          if (delta) {
            const float beta = in[5]->data_as<float>()[row * beta_width + (beta_width == 1 ? 0 : h)];
            times_state(k_t);
            for (int64_t j = 0; j < d_v; ++j) {
              v_t[static_cast<size_t>(j)] = beta * (v_t[static_cast<size_t>(j)] - sums[static_cast<size_t>(j)]);
            }
          }
          for (int64_t i = 0; i < d_k; ++i) {
            float* state_row = &state[static_cast<size_t>(i * d_v)];
            for (int64_t j = 0; j < d_v; ++j) state_row[j] += k_t[i] * v_t[static_cast<size_t>(j)];
          }
          for (int64_t qh = h * group; qh < (h + 1) * group; ++qh) {
            const float* q_t = query + (row * q_heads + qh) * d_k;
            float* o = y + (row * q_heads + qh) * d_v;
            times_state(q_t);
            for (int64_t j = 0; j < d_v; ++j) o[j] = scale * sums[static_cast<size_t>(j)];
          }
        }
        if (present) std::copy(state.begin(), state.end(), present + bh * d_k * d_v);
      }
    };
    run_in_parallel(batch * kv_heads, workers_for(batch * kv_heads * tokens * d_k * d_v * 4, int64_t{1} << 16,
                                                  batch * kv_heads),
                    run_heads);
  };
}

}  // namespace nee
