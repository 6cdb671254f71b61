#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "runtime/reference/recurrent_activation.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

enum class Cell { rnn, gru, lstm };

// The importer's normalized attributes and the static dims of one recurrent node.
struct RecurrentPlan {
  Cell cell;
  int64_t seq, batch, input, hidden, dirs, gates;
  bool layout_batch_first, linear_before_reset, input_forget, reverse_only;
  bool clip;
  float clip_value;
  std::vector<RecurrentActivation> activations;  // per direction: f (, g (, h))
};

// y += M v for M of `rows` x `cols`, row-major.
void add_matrix_vector(const float* m, const float* v, int64_t rows, int64_t cols, float* y) {
  for (int64_t r = 0; r < rows; ++r) {
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += m[r * cols + c] * v[c];
    y[r] += sum;
  }
}

// One direction over one batch entry's `steps` time steps, the spec's equations in
// f32. `h` and `c` hold the state in and out; `write_y(t, h)` stores step t's output.
template <typename WriteY>
void run_direction(const RecurrentPlan& p, int64_t dir, int64_t batch_entry, int64_t steps, bool reverse,
                   const std::vector<const Tensor*>& in, std::vector<float>& h, std::vector<float>& c,
                   WriteY write_y) {
  const int64_t H = p.hidden, rows = p.gates * H;
  const float* w = in[1]->data_as<float>() + dir * rows * p.input;
  const float* r = in[2]->data_as<float>() + dir * rows * H;
  const float* wb = in.size() > 3 && in[3] ? in[3]->data_as<float>() + dir * 2 * rows : nullptr;
  const float* peep = in.size() > 7 && in[7] ? in[7]->data_as<float>() + dir * 3 * H : nullptr;
  const size_t per_dir = p.cell == Cell::lstm ? 3 : p.cell == Cell::gru ? 2 : 1;
  const RecurrentActivation* act = &p.activations[static_cast<size_t>(dir) * per_dir];
  const auto clipped = [&p](float v) { return p.clip ? std::clamp(v, -p.clip_value, p.clip_value) : v; };
  std::vector<float> gx(rows), gh(rows), reset_h(H), z(H), reset(H);  // scratch, reused every step
  for (int64_t step = 0; step < steps; ++step) {
    const int64_t t = reverse ? steps - 1 - step : step;
    const float* x = in[0]->data_as<float>() +
                     (p.layout_batch_first ? batch_entry * p.seq + t : t * p.batch + batch_entry) * p.input;
    std::fill(gx.begin(), gx.end(), 0.0f);
    std::fill(gh.begin(), gh.end(), 0.0f);
    add_matrix_vector(w, x, rows, p.input, gx.data());
    if (wb) {
      for (int64_t i = 0; i < rows; ++i) gx[i] += wb[i];
    }
    if (p.cell == Cell::gru) {
      // z and r take R h; the candidate takes R (r . h) or, linear_before_reset, r . (R h + Rb).
      add_matrix_vector(r, h.data(), 2 * H, H, gh.data());
      if (wb) {
        for (int64_t i = 0; i < 2 * H; ++i) gh[i] += wb[rows + i];
      }
      for (int64_t i = 0; i < H; ++i) {
        z[i] = act[0](clipped(gx[i] + gh[i]));
        reset[i] = act[0](clipped(gx[H + i] + gh[H + i]));
      }
      float* candidate = gh.data() + 2 * H;
      const float* rb = wb ? wb + rows + 2 * H : nullptr;
      if (p.linear_before_reset) {
        add_matrix_vector(r + 2 * H * H, h.data(), H, H, candidate);
        for (int64_t i = 0; i < H; ++i) candidate[i] = reset[i] * (candidate[i] + (rb ? rb[i] : 0.0f));
      } else {
        for (int64_t i = 0; i < H; ++i) reset_h[i] = reset[i] * h[i];
        add_matrix_vector(r + 2 * H * H, reset_h.data(), H, H, candidate);
        for (int64_t i = 0; i < H; ++i) candidate[i] += rb ? rb[i] : 0.0f;
      }
      for (int64_t i = 0; i < H; ++i) {
        const float hh = act[1](clipped(gx[2 * H + i] + candidate[i]));
        h[i] = (1 - z[i]) * hh + z[i] * h[i];
      }
    } else {
      add_matrix_vector(r, h.data(), rows, H, gh.data());
      for (int64_t i = 0; i < rows; ++i) gx[i] += gh[i] + (wb ? wb[rows + i] : 0.0f);
      if (p.cell == Cell::rnn) {
        for (int64_t i = 0; i < H; ++i) h[i] = act[0](clipped(gx[i]));
      } else {  // LSTM: gates i, o, f, c; peepholes i, o, f
        for (int64_t i = 0; i < H; ++i) {
          const float in_gate = act[0](clipped(gx[i] + (peep ? peep[i] * c[i] : 0.0f)));
          const float forget =
              p.input_forget ? 1 - in_gate : act[0](clipped(gx[2 * H + i] + (peep ? peep[2 * H + i] * c[i] : 0.0f)));
          const float cell_in = act[1](clipped(gx[3 * H + i]));
          c[i] = forget * c[i] + in_gate * cell_in;
          const float out_gate = act[0](clipped(gx[H + i] + (peep ? peep[H + i] * c[i] : 0.0f)));
          h[i] = out_gate * act[2](c[i]);
        }
      }
    }
    write_y(t, h);
  }
}

}  // namespace

// RNN, GRU and LSTM: each direction and batch entry in turn over its sequence length;
// outputs past an entry's length are zero, and Y_h (Y_c) hold the state after its last step.
ReferenceFn make_reference_recurrent(const Graph& graph, const Node& node) {
  RecurrentPlan p{};
  p.cell = node.op == "LSTM" ? Cell::lstm : node.op == "GRU" ? Cell::gru : Cell::rnn;
  p.layout_batch_first = node.attrs.get_int("layout") != 0;
  const std::vector<int64_t>& x = graph.type_of(node.inputs[0]).shape;
  p.seq = x[p.layout_batch_first ? 1 : 0];
  p.batch = x[p.layout_batch_first ? 0 : 1];
  p.input = x[2];
  p.hidden = node.attrs.get_int("hidden_size");
  const std::string direction = node.attrs.get_string("direction");
  p.dirs = direction == "bidirectional" ? 2 : 1;
  p.reverse_only = direction == "reverse";
  p.gates = p.cell == Cell::lstm ? 4 : p.cell == Cell::gru ? 3 : 1;
  p.linear_before_reset = node.attrs.get_int("linear_before_reset") != 0;
  p.input_forget = node.attrs.get_int("input_forget") != 0;
  p.clip = node.attrs.has("clip");
  p.clip_value = node.attrs.get_float("clip", 0.0f);
  const std::vector<float> none;
  p.activations = recurrent_activations(
      node.attrs.get_strings("activations", {}),
      node.attrs.has("activation_alpha") ? node.attrs.get_floats("activation_alpha") : none,
      node.attrs.has("activation_beta") ? node.attrs.get_floats("activation_beta") : none);
  return [p](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const int64_t H = p.hidden;
    const int32_t* lens = in.size() > 4 && in[4] ? in[4]->data_as<int32_t>() : nullptr;
    const float* h0 = in.size() > 5 && in[5] ? in[5]->data_as<float>() : nullptr;
    const float* c0 = in.size() > 6 && in[6] ? in[6]->data_as<float>() : nullptr;
    Tensor* y = !out.empty() ? out[0] : nullptr;
    Tensor* y_h = out.size() > 1 ? out[1] : nullptr;
    Tensor* y_c = out.size() > 2 ? out[2] : nullptr;
    if (y) std::fill(y->data_as<float>(), y->data_as<float>() + y->elements(), 0.0f);
    // Offset of (dir, batch entry) in a state tensor, and of (t, dir, batch entry) in Y.
    const auto state_at = [&](int64_t d, int64_t b) { return (p.layout_batch_first ? b * p.dirs + d : d * p.batch + b) * H; };
    const auto y_at = [&](int64_t t, int64_t d, int64_t b) {
      return (p.layout_batch_first ? (b * p.seq + t) * p.dirs + d : (t * p.dirs + d) * p.batch + b) * H;
    };
    for (int64_t b = 0; b < p.batch; ++b) {
      const int64_t steps = lens ? lens[b] : p.seq;
      if (steps < 0 || steps > p.seq) {
        throw Error(fmt::format("sequence_lens[{}] is {}, outside 0 to the sequence length {}", b, steps, p.seq));
      }
      for (int64_t d = 0; d < p.dirs; ++d) {
        std::vector<float> h(H, 0.0f), c(H, 0.0f);
        if (h0) std::copy(h0 + state_at(d, b), h0 + state_at(d, b) + H, h.begin());
        if (c0) std::copy(c0 + state_at(d, b), c0 + state_at(d, b) + H, c.begin());
        run_direction(p, d, b, steps, p.reverse_only || d == 1, in, h, c, [&](int64_t t, const std::vector<float>& hv) {
          if (y) std::copy(hv.begin(), hv.end(), y->data_as<float>() + y_at(t, d, b));
        });
        if (y_h) std::copy(h.begin(), h.end(), y_h->data_as<float>() + state_at(d, b));
        if (y_c) std::copy(c.begin(), c.end(), y_c->data_as<float>() + state_at(d, b));
      }
    }
  };
}

}  // namespace nee
