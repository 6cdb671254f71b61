#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "core/error.h"
#include "runtime/reference/float_lanes.h"
#include "runtime/reference/parallel_ranges.h"
#include "runtime/reference/recurrent_activation.h"
#include "runtime/reference/recurrent_weights.h"
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

// The operands of one direction shared by its batch entries: R packed by blocks of
// units (recurrent_weights_packed), a GRU's candidate Rb and an LSTM's peepholes, and the
// strides between steps of each entry's projected gates and of its outputs.
struct DirectionOperands {
  const float* packed;
  const float* candidate_bias;
  const float* peepholes;
  int64_t projection_stride, y_stride;
};

// One batch entry of one direction: its projected gates x W^T + bias of every step, its
// steps, its outputs (or null), and its state: `h` and `c` in and out, `h_next` the
// state being written, `reset_h` a GRU's r . h.
struct BatchEntry {
  const float* projection;
  int64_t steps;
  float* y;
  std::vector<float> h, h_next, c, reset_h;
};

constexpr int64_t kBlock = kRecurrentUnitBlock;

static_assert(kBlock == kFloatLanes, "a block of units is one FloatLanes");
using Lanes = FloatLanes;

// K gates of one block of units, their sums held in registers over the whole reduction:
// through memory, each multiply-add waited for the last one's store (speech_rnn's
// recurrences ran at 18 GFLOP/s so).
template <int K>
inline __attribute__((always_inline)) void add_gates_product(float* acc, const float* h, int64_t hidden,
                                                              const float* w, int64_t stride) {
  Lanes sums[K];
  for (int k = 0; k < K; ++k) sums[k] = *reinterpret_cast<const Lanes*>(acc + k * kBlock);
  for (int64_t c = 0; c < hidden; ++c) {
    const float* row = w + c * stride;
    for (int k = 0; k < K; ++k) sums[k] += h[c] * *reinterpret_cast<const Lanes*>(row + k * kBlock);
  }
  for (int k = 0; k < K; ++k) *reinterpret_cast<Lanes*>(acc + k * kBlock) = sums[k];
}

// acc[(k - first) * 16 + j] += sum over c of h[c] * block[(c * gates + k) * 16 + j] for
// the gates k from `first` to `last` (at most 4): one block of units' recurrent product,
// a contiguous run of its packed weights.
NEE_VECTOR_CLONES void add_block_product(float* acc, const float* h, int64_t hidden, const float* block, int64_t gates,
                                         int64_t first, int64_t last) {
  const float* w = block + first * kBlock;
  const int64_t stride = gates * kBlock;
  switch (last - first) {
    case 1: return add_gates_product<1>(acc, h, hidden, w, stride);
    case 2: return add_gates_product<2>(acc, h, hidden, w, stride);
    case 3: return add_gates_product<3>(acc, h, hidden, w, stride);
    default: return add_gates_product<4>(acc, h, hidden, w, stride);
  }
}

typedef int32_t IntLanes __attribute__((vector_size(kBlock * sizeof(int32_t))));

// e^x of 16 lanes in place, Cephes' expf: x = n ln 2 + r (ln 2 in two parts), e^r by its degree-7
// polynomial, 2^n in the exponent bits; x clamped to [-87, 88], where e^x stays normal.
inline __attribute__((always_inline)) void exp_lanes(Lanes& x) {
  x = x < 88.0f ? x : 88.0f;
  x = x > -87.0f ? x : -87.0f;
  const Lanes t = x * 1.44269504f + 0.5f;
  IntLanes n = __builtin_convertvector(t, IntLanes);  // toward zero: one too many below zero
  n += __builtin_convertvector(n, Lanes) > t;         // true is -1
  const Lanes nf = __builtin_convertvector(n, Lanes);
  const Lanes r = x - nf * 0.693359375f + nf * 2.12194440e-4f;
  Lanes p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const IntLanes scale = (n + 127) << 23;
  x = (p * r * r + r + 1.0f) * reinterpret_cast<const Lanes&>(scale);
}

// Sigmoid, or tanh(x) = 2 sigmoid(2x) - 1, of 16 values in place. The gates' activations
// one value at a time (libm's expf through RecurrentActivation) took most of each step
// of speech_rnn's 256-unit layers.
NEE_VECTOR_CLONES void activate_lanes(float* v, bool tanh) {
  Lanes& x = *reinterpret_cast<Lanes*>(v);
  Lanes e = tanh ? x * -2.0f : -x;
  exp_lanes(e);
  const Lanes s = 1.0f / (1.0f + e);
  x = tanh ? s * 2.0f - 1.0f : s;
}

// `f` of v[0..n) in place: a whole block's sigmoid or tanh 16 lanes at once, the rest
// one value at a time.
void activate(const RecurrentActivation& f, float* v, int64_t n) {
  using Function = RecurrentActivation::Function;
  if (n == kBlock && (f.function == Function::sigmoid || f.function == Function::tanh)) {
    activate_lanes(v, f.function == Function::tanh);
    return;
  }
  for (int64_t i = 0; i < n; ++i) v[i] = f(v[i]);
}

// Threads meeting once a step: each waits until all have arrived. They spin (yielding
// after a while), since a step of a batch-1 LSTM of 512 units takes tens of microseconds.
class StepBarrier {
 public:
  explicit StepBarrier(int count) : count_(count) {}
  void wait() {
    const int generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == count_) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
      return;
    }
    for (int spins = 0; generation_.load(std::memory_order_acquire) == generation; ++spins) {
      if (spins > 4096) std::this_thread::yield();
    }
  }

 private:
  const int count_;
  std::atomic<int> arrived_{0}, generation_{0};
};

// One direction over its batch entries' steps, the spec's equations in f32. The blocks
// of units split between threads, each computing its units' gates from the whole previous
// state; a thread takes a block's weights through every entry before the next block, so
// that a batch streams them from memory once a step.
void run_direction(const RecurrentPlan& p, int64_t dir, const DirectionOperands& o, bool reverse,
                   std::vector<BatchEntry>& entries) {
  const int64_t H = p.hidden, G = p.gates, blocks = (H + kBlock - 1) / kBlock;
  const size_t per_dir = p.cell == Cell::lstm ? 3 : p.cell == Cell::gru ? 2 : 1;
  const RecurrentActivation* act = &p.activations[static_cast<size_t>(dir) * per_dir];
  const auto clipped = [&p](float v) { return p.clip ? std::clamp(v, -p.clip_value, p.clip_value) : v; };
  // A GRU's candidate takes R (r . h) (unless linear_before_reset): its product waits
  // until every unit's reset gate is known.
  const bool reset_first = p.cell == Cell::gru && !p.linear_before_reset;
  // A thread (of the kernel pool's) where each step's product has 64K multiply-adds a
  // thread or more; they meet every step, so each runs on a thread of its own.
  const int64_t batch = static_cast<int64_t>(entries.size());
  const int workers = static_cast<int>(workers_for(batch * G * H * H, int64_t{1} << 16, blocks));
  int64_t most_steps = 0;
  for (BatchEntry& e : entries) {
    most_steps = std::max(most_steps, e.steps);
    e.h_next = e.h;
    e.reset_h.assign(static_cast<size_t>(H), 0.0f);
  }
  // Entry e's state before `step` (of those it has) and the one `step` writes.
  const auto state = [](BatchEntry& e, int64_t step) { return step % 2 == 0 ? e.h.data() : e.h_next.data(); };
  const auto next = [](BatchEntry& e, int64_t step) { return step % 2 == 0 ? e.h_next.data() : e.h.data(); };
  StepBarrier barrier(workers);
  const auto work = [&](int w) {
    const int64_t b0 = blocks * w / workers, b1 = blocks * (w + 1) / workers;
    std::vector<float> acc(static_cast<size_t>(G * kBlock)), candidate(kBlock);
    std::vector<float> gates_of_blocks;  // a reset-first GRU's gates, kept for its second pass
    for (int64_t step = 0; step < most_steps; ++step) {
      gates_of_blocks.clear();
      for (int64_t bb = b0; bb < b1; ++bb) {
        const int64_t u0 = bb * kBlock, n = std::min(kBlock, H - u0);
        const float* block = o.packed + bb * H * G * kBlock;
        for (BatchEntry& e : entries) {
          if (step >= e.steps) continue;
          const float* x = e.projection + (reverse ? e.steps - 1 - step : step) * o.projection_stride;
          const float* h = state(e, step);
          float* h_out = next(e, step);
          std::fill(acc.begin(), acc.end(), 0.0f);
          for (int64_t k = 0; k < G; ++k) std::copy_n(x + k * H + u0, n, acc.data() + k * kBlock);
          float* g0 = acc.data();
          if (p.cell == Cell::gru) {
            float* g1 = acc.data() + kBlock;
            float* g2 = acc.data() + 2 * kBlock;
            // The candidate's projection moves aside, so that (linear_before_reset) one pass
            // leaves R h of all three gates in acc.
            std::copy_n(g2, kBlock, candidate.data());
            std::fill_n(g2, kBlock, 0.0f);
            add_block_product(acc.data(), h, H, block, G, 0, reset_first ? 2 : 3);
            for (int64_t i = 0; i < n; ++i) {
              g0[i] = clipped(g0[i]);
              g1[i] = clipped(g1[i]);
            }
            activate(act[0], g0, n);  // z
            activate(act[0], g1, n);  // r
            if (reset_first) {
              for (int64_t i = 0; i < n; ++i) e.reset_h[u0 + i] = g1[i] * h[u0 + i];
              std::copy_n(candidate.data(), kBlock, g2);
              gates_of_blocks.insert(gates_of_blocks.end(), acc.begin(), acc.end());
              continue;
            }
            const float* rb = o.candidate_bias + u0;
            for (int64_t i = 0; i < n; ++i) candidate[i] = clipped(candidate[i] + g1[i] * (g2[i] + rb[i]));
            activate(act[1], candidate.data(), n);
            for (int64_t i = 0; i < n; ++i) h_out[u0 + i] = (1 - g0[i]) * candidate[i] + g0[i] * h[u0 + i];
            continue;
          }
          add_block_product(acc.data(), h, H, block, G, 0, G);
          if (p.cell == Cell::rnn) {
            for (int64_t i = 0; i < n; ++i) g0[i] = clipped(g0[i]);
            activate(act[0], g0, n);
            std::copy_n(g0, n, h_out + u0);
            continue;
          }
          // LSTM: gates i, o, f, c; peepholes i, o, f
          const float* peep = o.peepholes;
          float* g1 = acc.data() + kBlock;
          float* g2 = acc.data() + 2 * kBlock;
          float* g3 = acc.data() + 3 * kBlock;
          float* c = e.c.data();
          for (int64_t i = 0; i < n; ++i) {
            const int64_t u = u0 + i;
            g0[i] = clipped(g0[i] + (peep ? peep[u] * c[u] : 0.0f));
            g2[i] = clipped(g2[i] + (peep ? peep[2 * H + u] * c[u] : 0.0f));
            g3[i] = clipped(g3[i]);
          }
          activate(act[0], g0, n);
          if (!p.input_forget) activate(act[0], g2, n);
          activate(act[1], g3, n);
          for (int64_t i = 0; i < n; ++i) {
            const int64_t u = u0 + i;
            c[u] = (p.input_forget ? 1 - g0[i] : g2[i]) * c[u] + g0[i] * g3[i];
            g1[i] = clipped(g1[i] + (peep ? peep[H + u] * c[u] : 0.0f));
            candidate[i] = c[u];
          }
          activate(act[0], g1, n);
          activate(act[2], candidate.data(), n);
          for (int64_t i = 0; i < n; ++i) h_out[u0 + i] = g1[i] * candidate[i];
        }
      }
      if (reset_first) {
        barrier.wait();
        const float* z = gates_of_blocks.data();
        for (int64_t bb = b0; bb < b1; ++bb) {
          const int64_t u0 = bb * kBlock, n = std::min(kBlock, H - u0);
          for (BatchEntry& e : entries) {
            if (step >= e.steps) continue;
            std::fill_n(candidate.data(), kBlock, 0.0f);
            add_block_product(candidate.data(), e.reset_h.data(), H, o.packed + bb * H * G * kBlock, G, 2, 3);
            for (int64_t i = 0; i < n; ++i) {
              candidate[i] = clipped(z[2 * kBlock + i] + candidate[i] + o.candidate_bias[u0 + i]);
            }
            activate(act[1], candidate.data(), n);
            const float* h = state(e, step);
            float* h_out = next(e, step);
            for (int64_t i = 0; i < n; ++i) h_out[u0 + i] = (1 - z[i]) * candidate[i] + z[i] * h[u0 + i];
            z += G * kBlock;
          }
        }
      }
      for (BatchEntry& e : entries) {
        if (step >= e.steps || !e.y) continue;
        const float* h_out = next(e, step);
        float* y = e.y + (reverse ? e.steps - 1 - step : step) * o.y_stride;
        std::copy(h_out + b0 * kBlock, h_out + std::min(b1 * kBlock, H), y + b0 * kBlock);
      }
      barrier.wait();
    }
  };
  run_in_parallel(workers, workers, [&](int64_t worker, int64_t) { work(static_cast<int>(worker)); });
  for (BatchEntry& e : entries) {
    if (e.steps % 2 != 0) e.h.swap(e.h_next);  // its last step wrote h_next
  }
}

// ONNX's node, or NeeRecurrence, whose X is the projection [S, B, dirs * gates * H] (or
// [B, S, ...] with layout 1) and whose op is the attribute "cell".
RecurrentPlan plan_of(const Graph& graph, const Node& node) {
  RecurrentPlan p{};
  const std::string cell = node.op == "NeeRecurrence" ? node.attrs.get_string("cell") : node.op;
  p.cell = cell == "LSTM" ? Cell::lstm : cell == "GRU" ? Cell::gru : Cell::rnn;
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
  return p;
}

// Every direction and batch entry in turn over its sequence length, from the projected
// gates; outputs past an entry's length are zero, and Y_h (Y_c) hold the state after its
// last step. `in` from slot 4 on is ONNX's: sequence_lens, initial_h, initial_c, P.
void run_recurrence(const RecurrentPlan& p, const float* projection, const float* packed, const float* candidate_bias,
                    const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
  const int64_t H = p.hidden, rows = p.gates * H, row = p.dirs * rows;
  const int64_t packed_per_direction = (H + kBlock - 1) / kBlock * H * p.gates * kBlock;
  const int32_t* lens = in.size() > 4 && in[4] ? in[4]->data_as<int32_t>() : nullptr;
  const float* h0 = in.size() > 5 && in[5] ? in[5]->data_as<float>() : nullptr;
  const float* c0 = in.size() > 6 && in[6] ? in[6]->data_as<float>() : nullptr;
  const float* peep = in.size() > 7 && in[7] ? in[7]->data_as<float>() : nullptr;
  Tensor* y = !out.empty() ? out[0] : nullptr;
  Tensor* y_h = out.size() > 1 ? out[1] : nullptr;
  Tensor* y_c = out.size() > 2 ? out[2] : nullptr;
  if (y) std::fill(y->data_as<float>(), y->data_as<float>() + y->elements(), 0.0f);
  // Offset of (dir, batch entry) in a state tensor, and of (t, dir, batch entry) in Y.
  const auto state_at = [&](int64_t d, int64_t b) {
    return (p.layout_batch_first ? b * p.dirs + d : d * p.batch + b) * H;
  };
  const auto y_at = [&](int64_t t, int64_t d, int64_t b) {
    return (p.layout_batch_first ? (b * p.seq + t) * p.dirs + d : (t * p.dirs + d) * p.batch + b) * H;
  };
  for (int64_t b = 0; b < p.batch; ++b) {
    const int64_t steps = lens ? lens[b] : p.seq;
    if (steps < 0 || steps > p.seq) {
      throw Error(fmt::format("sequence_lens[{}] is {}, outside 0 to the sequence length {}", b, steps, p.seq));
    }
  }
  for (int64_t d = 0; d < p.dirs; ++d) {
    std::vector<BatchEntry> entries(static_cast<size_t>(p.batch));
    for (int64_t b = 0; b < p.batch; ++b) {
      BatchEntry& e = entries[static_cast<size_t>(b)];
      e.projection = projection + (p.layout_batch_first ? b * p.seq : b) * row + d * rows;
      e.steps = lens ? lens[b] : p.seq;
      e.y = y ? y->data_as<float>() + y_at(0, d, b) : nullptr;
      e.h.assign(static_cast<size_t>(H), 0.0f);
      e.c.assign(static_cast<size_t>(H), 0.0f);
      if (h0) std::copy(h0 + state_at(d, b), h0 + state_at(d, b) + H, e.h.begin());
      if (c0) std::copy(c0 + state_at(d, b), c0 + state_at(d, b) + H, e.c.begin());
    }
    const DirectionOperands o{packed + d * packed_per_direction, candidate_bias ? candidate_bias + d * H : nullptr,
                              peep ? peep + d * 3 * H : nullptr, (p.layout_batch_first ? 1 : p.batch) * row,
                              y_at(1, d, 0) - y_at(0, d, 0)};
    run_direction(p, d, o, p.reverse_only || d == 1, entries);
    for (int64_t b = 0; b < p.batch; ++b) {
      const BatchEntry& e = entries[static_cast<size_t>(b)];
      if (y_h) std::copy(e.h.begin(), e.h.end(), y_h->data_as<float>() + state_at(d, b));
      if (y_c) std::copy(e.c.begin(), e.c.end(), y_c->data_as<float>() + state_at(d, b));
    }
  }
}

}  // namespace

// RNN, GRU and LSTM: the input projection of every step first (x W^T + bias, in the
// forms recurrent_weights.h gives), then the recurrence, as their lowering computes them.
ReferenceFn make_reference_recurrent(const Graph& graph, const Node& node) {
  const RecurrentPlan p = plan_of(graph, node);
  return [p](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const int64_t rows = p.dirs * p.gates * p.hidden;
    const Tensor wt = recurrent_input_weights(*in[1]);
    const Tensor* b = in.size() > 3 ? in[3] : nullptr;
    const Tensor bias = recurrent_input_bias(b, p.dirs, p.gates, p.hidden, p.cell == Cell::gru);
    std::vector<float> projection(static_cast<size_t>(p.seq * p.batch * rows));
    const float* x = in[0]->data_as<float>();
    for (int64_t r = 0; r < p.seq * p.batch; ++r) {
      float* to = projection.data() + r * rows;
      std::copy_n(bias.data_as<float>(), rows, to);
      for (int64_t i = 0; i < p.input; ++i) {
        const float xi = x[r * p.input + i];
        const float* w = wt.data_as<float>() + i * rows;
        for (int64_t j = 0; j < rows; ++j) to[j] += xi * w[j];
      }
    }
    const Tensor packed = recurrent_weights_packed(*in[2]);
    const Tensor candidate_bias = recurrent_candidate_bias(b, p.dirs, p.hidden);
    run_recurrence(p, projection.data(), packed.data_as<float>(), candidate_bias.data_as<float>(), in, out);
  };
}

// NeeRecurrence (passes.h: lower_recurrent): inputs the projection, the packed R, a GRU's
// candidate Rb (or none), then ONNX's from sequence_lens on.
ReferenceFn make_reference_lowered_recurrence(const Graph& graph, const Node& node) {
  const RecurrentPlan p = plan_of(graph, node);
  return [p](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* candidate_bias = in.size() > 2 && in[2] ? in[2]->data_as<float>() : nullptr;
    if (p.cell == Cell::gru && !candidate_bias) throw Error("NeeRecurrence of a GRU without its candidate bias");
    run_recurrence(p, in[0]->data_as<float>(), in[1]->data_as<float>(), candidate_bias, in, out);
  };
}

}  // namespace nee
