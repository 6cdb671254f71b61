// Operators of opsets 18 to 28 that the importer expands into nodes of other operators
// (Attention, RotaryEmbedding, DeformConv...): each case runs on the reference kernels
// against the operator computed here element by element from its definition, on random
// inputs, or on values worked out by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "core/half_float.h"
#include "import_and_run.h"
#include "importer/import_onnx.h"

namespace nee {
namespace {

using test::make_i64;
using test::OnnxModelBuilder;
using test::random_f32;
using test::set_attr;
using test::values_of;
using testing::HasSubstr;

constexpr float kMasked = -std::numeric_limits<float>::infinity();

// Extents of 4-D operands: Q [B, Hq, S, D], K [B, Hkv, T, D], V [B, Hkv, T, Dv].
struct Heads {
  int64_t batch, q_heads, kv_heads, queries, keys, depth, value_depth;
};

// The additive bias of score (b, h, i, j).
using Bias = std::function<float(int64_t b, int64_t h, int64_t i, int64_t j)>;

// softmax(scale QK^T, capped, + bias) V per query row, [B, Hq, S, Dv]; a row whose bias
// is -inf throughout is zeros. Query head h reads key head h / (Hq / Hkv).
std::vector<float> attention_by_definition(const std::vector<float>& q, const std::vector<float>& k,
                                           const std::vector<float>& v, const Heads& n, double scale, const Bias& bias,
                                           double softcap = 0.0) {
  std::vector<float> out(static_cast<size_t>(n.batch * n.q_heads * n.queries * n.value_depth), 0.0f);
  const int64_t group = n.q_heads / n.kv_heads;
  for (int64_t b = 0; b < n.batch; ++b) {
    for (int64_t h = 0; h < n.q_heads; ++h) {
      const int64_t kh = h / group;
      for (int64_t i = 0; i < n.queries; ++i) {
        std::vector<double> scores(static_cast<size_t>(n.keys));
        bool any = false;
        for (int64_t j = 0; j < n.keys; ++j) {
          double dot = 0.0;
          for (int64_t x = 0; x < n.depth; ++x) {
            dot += q[static_cast<size_t>(((b * n.q_heads + h) * n.queries + i) * n.depth + x)] *
                   k[static_cast<size_t>(((b * n.kv_heads + kh) * n.keys + j) * n.depth + x)];
          }
          double s = dot * scale;
          if (softcap > 0.0) s = softcap * std::tanh(s / softcap);
          const float add = bias(b, h, i, j);
          any = any || add != kMasked;
          scores[static_cast<size_t>(j)] = s + add;
        }
        if (!any) continue;
        double top = -INFINITY, sum = 0.0;
        for (double s : scores) top = std::max(top, s);
        for (double& s : scores) sum += (s = std::exp(s - top));
        for (int64_t y = 0; y < n.value_depth; ++y) {
          double acc = 0.0;
          for (int64_t j = 0; j < n.keys; ++j) {
            acc += scores[static_cast<size_t>(j)] / sum *
                   v[static_cast<size_t>(((b * n.kv_heads + kh) * n.keys + j) * n.value_depth + y)];
          }
          out[static_cast<size_t>(((b * n.q_heads + h) * n.queries + i) * n.value_depth + y)] = static_cast<float>(acc);
        }
      }
    }
  }
  return out;
}

// [B, rows, H * D] to [B, H, rows, D] (heads first), or back.
std::vector<float> regroup_heads(const std::vector<float>& x, int64_t batch, int64_t rows, int64_t heads,
                                 int64_t depth, bool heads_first) {
  std::vector<float> out(x.size());
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t d = 0; d < depth; ++d) {
          const auto by_head = static_cast<size_t>(((b * heads + h) * rows + r) * depth + d);
          const auto by_row = static_cast<size_t>((b * rows + r) * heads * depth + h * depth + d);
          (heads_first ? out[by_head] : out[by_row]) = x[heads_first ? by_row : by_head];
        }
  return out;
}
std::vector<float> heads_first(const std::vector<float>& x, int64_t batch, int64_t rows, int64_t heads, int64_t depth) {
  return regroup_heads(x, batch, rows, heads, depth, true);
}
std::vector<float> heads_last(const std::vector<float>& x, int64_t batch, int64_t rows, int64_t heads, int64_t depth) {
  return regroup_heads(x, batch, rows, heads, depth, false);
}

// [B, H, P, D] and [B, H, T, D] joined along the keys.
std::vector<float> joined_keys(const std::vector<float>& past, const std::vector<float>& fresh, int64_t outer,
                               int64_t past_rows, int64_t rows, int64_t depth) {
  std::vector<float> out;
  for (int64_t o = 0; o < outer; ++o) {
    out.insert(out.end(), past.begin() + o * past_rows * depth, past.begin() + (o + 1) * past_rows * depth);
    out.insert(out.end(), fresh.begin() + o * rows * depth, fresh.begin() + (o + 1) * rows * depth);
  }
  return out;
}

Bias no_bias() {
  return [](int64_t, int64_t, int64_t, int64_t) { return 0.0f; };
}

// 3-D Q [1, 3, 4 heads x 8] and K, V [1, 3, 2 heads x 8] (grouped heads), causal, after a
// cache of 2 keys: query i attends keys j <= i + 2; present_key and present_value are the
// cache and the new keys.
TEST(AttentionOperator, GroupedHeadsCausalAfterACache) {
  const Heads n{1, 4, 2, 3, 5, 8, 8};
  OnnxModelBuilder m(23);
  m.input("q", {1, 3, 32}).input("k", {1, 3, 16}).input("v", {1, 3, 16});
  m.input("past_k", {1, 2, 2, 8}).input("past_v", {1, 2, 2, 8});
  m.output("y").output("present_k").output("present_v");
  onnx::NodeProto& node =
      m.node("Attention", {"q", "k", "v", "", "past_k", "past_v"}, {"y", "present_k", "present_v"});
  set_attr(node, "q_num_heads", int64_t{4});
  set_attr(node, "kv_num_heads", int64_t{2});
  set_attr(node, "is_causal", int64_t{1});
  const Tensor q = random_f32({1, 3, 32}, 1), k = random_f32({1, 3, 16}, 2), v = random_f32({1, 3, 16}, 3);
  const Tensor pk = random_f32({1, 2, 2, 8}, 4), pv = random_f32({1, 2, 2, 8}, 5);
  const auto out = test::run_model(m, {{"q", q}, {"k", k}, {"v", v}, {"past_k", pk}, {"past_v", pv}});

  const std::vector<float> keys = joined_keys(values_of(pk), heads_first(values_of(k), 1, 3, 2, 8), 2, 2, 3, 8);
  const std::vector<float> values = joined_keys(values_of(pv), heads_first(values_of(v), 1, 3, 2, 8), 2, 2, 3, 8);
  test::expect_near_all(values_of(out.at("present_k")), keys);
  test::expect_near_all(values_of(out.at("present_v")), values);
  const Bias causal = [](int64_t, int64_t, int64_t i, int64_t j) { return j <= i + 2 ? 0.0f : kMasked; };
  const std::vector<float> y =
      attention_by_definition(heads_first(values_of(q), 1, 3, 4, 8), keys, values, n, 1.0 / std::sqrt(8.0), causal);
  EXPECT_EQ(out.at("y").shape(), (std::vector<int64_t>{1, 3, 32}));
  test::expect_near_all(values_of(out.at("y")), heads_last(y, 1, 3, 4, 8));
}

// A boolean mask [S, T] with its second row all false, 4 of 6 keys given (the last two
// masked): that query's output and probabilities are zeros, not NaN (mode 3).
TEST(AttentionOperator, BooleanMaskShorterThanTheKeysAndARowMaskedWhole) {
  const Heads n{2, 2, 2, 3, 6, 4, 5};
  OnnxModelBuilder m(23);
  m.input("q", {2, 2, 3, 4}).input("k", {2, 2, 6, 4}).input("v", {2, 2, 6, 5});
  m.input("mask", onnx::TensorProto::BOOL, {"3", "4"});
  m.output("y").output("probs");
  set_attr(m.node("Attention", {"q", "k", "v", "mask"}, {"y", "", "", "probs"}), "qk_matmul_output_mode",
           int64_t{3});
  const bool allowed[3][4] = {{true, false, true, true}, {false, false, false, false}, {true, true, false, true}};
  Tensor mask(DType::boolean, {3, 4});
  for (int i = 0; i < 12; ++i) mask.data_as<bool>()[i] = allowed[i / 4][i % 4];
  const Tensor q = random_f32({2, 2, 3, 4}, 6), k = random_f32({2, 2, 6, 4}, 7), v = random_f32({2, 2, 6, 5}, 8);
  const auto out = test::run_model(m, {{"q", q}, {"k", k}, {"v", v}, {"mask", mask}});
  const Bias bias = [&](int64_t, int64_t, int64_t i, int64_t j) {
    return j < 4 && allowed[i][j] ? 0.0f : kMasked;
  };
  test::expect_near_all(values_of(out.at("y")),
                        attention_by_definition(values_of(q), values_of(k), values_of(v), n, 0.5, bias));
  const std::vector<float> probs = values_of(out.at("probs"));
  ASSERT_EQ(probs.size(), 2u * 2 * 3 * 6);
  for (size_t row = 0; row < probs.size() / 6; ++row) {
    float sum = 0.0f;
    for (size_t j = 0; j < 6; ++j) sum += probs[row * 6 + j];
    EXPECT_NEAR(sum, row % 3 == 1 ? 0.0f : 1.0f, 1e-5f) << "row " << row;
  }
}

// A float mask added to causal scores with an explicit scale, 3-D operands of batch 2.
TEST(AttentionOperator, FloatMaskWithCausalAndAScale) {
  const Heads n{2, 2, 2, 4, 4, 3, 3};
  OnnxModelBuilder m(23);
  m.input("q", {2, 4, 6}).input("k", {2, 4, 6}).input("v", {2, 4, 6}).input("mask", {4, 4}).output("y");
  onnx::NodeProto& node = m.node("Attention", {"q", "k", "v", "mask"}, {"y"});
  set_attr(node, "q_num_heads", int64_t{2});
  set_attr(node, "kv_num_heads", int64_t{2});
  set_attr(node, "is_causal", int64_t{1});
  set_attr(node, "scale", 0.3f);
  const Tensor q = random_f32({2, 4, 6}, 9), k = random_f32({2, 4, 6}, 10), v = random_f32({2, 4, 6}, 11);
  const Tensor mask = random_f32({4, 4}, 12);
  const auto out = test::run_model(m, {{"q", q}, {"k", k}, {"v", v}, {"mask", mask}});
  const std::vector<float> added = values_of(mask);
  const Bias bias = [&](int64_t, int64_t, int64_t i, int64_t j) {
    return j <= i ? added[static_cast<size_t>(i * 4 + j)] : kMasked;
  };
  const std::vector<float> y = attention_by_definition(heads_first(values_of(q), 2, 4, 2, 3),
                                                       heads_first(values_of(k), 2, 4, 2, 3),
                                                       heads_first(values_of(v), 2, 4, 2, 3), n, 0.3, bias);
  test::expect_near_all(values_of(out.at("y")), heads_last(y, 2, 4, 2, 3));
}

// The soft cap (8 tanh(s / 8)) and the QK output before it (mode 0), after it (1), and
// with the mask added (2).
TEST(AttentionOperator, SoftCapAndTheScoresBeforeAndAfterIt) {
  const Heads n{1, 1, 1, 2, 3, 4, 4};
  const Tensor q = random_f32({1, 1, 2, 4}, 13, 3.0f), k = random_f32({1, 1, 3, 4}, 14, 3.0f);
  const Tensor v = random_f32({1, 1, 3, 4}, 15), mask = random_f32({2, 3}, 16);
  std::vector<float> scores, capped;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      float dot = 0.0f;
      for (int64_t x = 0; x < 4; ++x) dot += values_of(q)[i * 4 + x] * values_of(k)[j * 4 + x];
      scores.push_back(dot * 0.5f);
      capped.push_back(8.0f * std::tanh(dot * 0.5f / 8.0f));
    }
  }
  std::vector<float> biased = capped;
  for (size_t i = 0; i < biased.size(); ++i) biased[i] += values_of(mask)[i];
  const std::vector<float>* expected[] = {&scores, &capped, &biased};
  for (int64_t mode = 0; mode < 3; ++mode) {
    OnnxModelBuilder m(23);
    m.input("q", {1, 1, 2, 4}).input("k", {1, 1, 3, 4}).input("v", {1, 1, 3, 4}).input("mask", {2, 3});
    m.output("y").output("qk");
    onnx::NodeProto& node = m.node("Attention", {"q", "k", "v", "mask"}, {"y", "", "", "qk"});
    set_attr(node, "softcap", 8.0f);
    set_attr(node, "qk_matmul_output_mode", mode);
    const auto out = test::run_model(m, {{"q", q}, {"k", k}, {"v", v}, {"mask", mask}});
    test::expect_near_all(values_of(out.at("qk")), *expected[mode], 1e-4f);
    const Bias bias = [&](int64_t, int64_t, int64_t i, int64_t j) { return values_of(mask)[i * 3 + j]; };
    test::expect_near_all(values_of(out.at("y")),
                          attention_by_definition(values_of(q), values_of(k), values_of(v), n, 0.5, bias, 8.0));
  }
}

// Opset 24's key lengths per batch (a static cache of 6 keys, 5 and 3 of them valid) with
// the causal mask aligned to each batch's last key; opset 25's window of 1 key back.
TEST(AttentionOperator, KeyLengthsPerBatchAndASlidingWindow) {
  const Heads n{2, 1, 1, 2, 6, 4, 4};
  const Tensor q = random_f32({2, 1, 2, 4}, 17), k = random_f32({2, 1, 6, 4}, 18), v = random_f32({2, 1, 6, 4}, 19);
  OnnxModelBuilder m(24);
  m.input("q", {2, 1, 2, 4}).input("k", {2, 1, 6, 4}).input("v", {2, 1, 6, 4});
  m.input("lengths", onnx::TensorProto::INT64, {"2"}).output("y");
  set_attr(m.node("Attention", {"q", "k", "v", "", "", "", "lengths"}, {"y"}), "is_causal", int64_t{1});
  const int64_t lengths[2] = {5, 3};
  const auto out = test::run_model(m, {{"q", q}, {"k", k}, {"v", v}, {"lengths", make_i64({2}, {5, 3})}});
  const Bias by_length = [&](int64_t b, int64_t, int64_t i, int64_t j) {
    return j < lengths[b] && j <= i + lengths[b] - 2 ? 0.0f : kMasked;
  };
  test::expect_near_all(values_of(out.at("y")),
                        attention_by_definition(values_of(q), values_of(k), values_of(v), n, 0.5, by_length));

  const Heads square{1, 1, 1, 4, 4, 4, 4};
  const Tensor q4 = random_f32({1, 1, 4, 4}, 20), k4 = random_f32({1, 1, 4, 4}, 21), v4 = random_f32({1, 1, 4, 4}, 22);
  OnnxModelBuilder w(25);
  w.input("q", {1, 1, 4, 4}).input("k", {1, 1, 4, 4}).input("v", {1, 1, 4, 4}).output("y");
  onnx::NodeProto& node = w.node("Attention", {"q", "k", "v"}, {"y"});
  set_attr(node, "is_causal", int64_t{1});
  set_attr(node, "left_window_size", int64_t{1});
  const Bias window = [](int64_t, int64_t, int64_t i, int64_t j) { return j <= i && j >= i - 1 ? 0.0f : kMasked; };
  test::expect_near_all(
      values_of(test::run_single_output(w, {{"q", q4}, {"k", k4}, {"v", v4}})),
      attention_by_definition(values_of(q4), values_of(k4), values_of(v4), square, 0.5, window));
}

// f16 operands compute in f32 and come back as f16.
TEST(AttentionOperator, HalfOperandsComputeInFloat) {
  const Heads n{1, 2, 1, 3, 3, 4, 4};
  OnnxModelBuilder m(23);
  m.input("q", onnx::TensorProto::FLOAT16, {"1", "2", "3", "4"});
  m.input("k", onnx::TensorProto::FLOAT16, {"1", "1", "3", "4"});
  m.input("v", onnx::TensorProto::FLOAT16, {"1", "1", "3", "4"});
  m.output("y", onnx::TensorProto::FLOAT16);
  m.node("Attention", {"q", "k", "v"}, {"y"});
  const auto half = [](const Tensor& t) {
    Tensor h(DType::f16, t.shape());
    for (int64_t i = 0; i < t.elements(); ++i) h.data_as<uint16_t>()[i] = f32_to_f16(t.data_as<float>()[i]);
    return h;
  };
  const auto widened = [](const Tensor& h) {
    std::vector<float> out;
    for (int64_t i = 0; i < h.elements(); ++i) out.push_back(f16_to_f32(h.data_as<uint16_t>()[i]));
    return out;
  };
  const Tensor q = half(random_f32({1, 2, 3, 4}, 23)), k = half(random_f32({1, 1, 3, 4}, 24));
  const Tensor v = half(random_f32({1, 1, 3, 4}, 25));
  const Tensor y = test::run_single_output(m, {{"q", q}, {"k", k}, {"v", v}});
  ASSERT_EQ(y.dtype(), DType::f16);
  test::expect_near_all(widened(y), attention_by_definition(widened(q), widened(k), widened(v), n, 0.5, no_bias()),
                        1e-3f);
}

TEST(AttentionOperator, RefusesWhatItCannotRead) {
  const auto error = [](int64_t opset, const std::vector<int64_t>& k_dims, bool heads, bool lone_past) {
    OnnxModelBuilder m(opset);
    m.input("q", {1, 2, 8}).input("k", k_dims).input("v", k_dims).input("p", {1, 2, 1, 4}).output("y");
    onnx::NodeProto& node = m.node("Attention", {"q", "k", "v", "", lone_past ? "p" : ""}, {"y"});
    if (heads) {
      set_attr(node, "q_num_heads", int64_t{2});
      set_attr(node, "kv_num_heads", int64_t{2});
    }
    return test::import_error(m);
  };
  EXPECT_THAT(error(22, {1, 2, 8}, true, false), HasSubstr("Attention is an operator of opset 23 and later"));
  EXPECT_THAT(error(23, {1, 2, 8}, false, false), HasSubstr("3-D Q needs a positive 'q_num_heads'"));
  EXPECT_THAT(error(23, {1, 2, 2, 8}, true, false), HasSubstr("must all be 3-D or all 4-D"));
  EXPECT_THAT(error(23, {1, 2, 8}, true, true), HasSubstr("past_key and past_value must be given together"));
  EXPECT_THAT(error(23, {1, 2, 6}, true, false), HasSubstr("Q's heads have 4 elements and K's 3"));
}

// Rotary embedding by its definition: for each position p and pair (x1, x2) of the
// rotated part of a head, (cos x1 - sin x2, sin x1 + cos x2) with the angles of p; the
// pairs are the halves' elements r and r + R/2, or elements 2r and 2r + 1 interleaved.
// `x` is [B, S, H, D] as the test lays it out.
std::vector<float> rotated_by_definition(const std::vector<float>& x, const std::vector<float>& cos,
                                         const std::vector<float>& sin, const std::vector<int64_t>& positions,
                                         int64_t batch, int64_t seq, int64_t heads, int64_t depth, int64_t rotary,
                                         bool interleaved) {
  std::vector<float> out = x;
  const int64_t half = rotary / 2;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t s = 0; s < seq; ++s)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t r = 0; r < half; ++r) {
          const int64_t base = ((b * seq + s) * heads + h) * depth;
          const int64_t first = interleaved ? 2 * r : r, second = interleaved ? 2 * r + 1 : r + half;
          const int64_t angle = positions[static_cast<size_t>(b * seq + s)] * half + r;
          const float c = cos[static_cast<size_t>(angle)], n = sin[static_cast<size_t>(angle)];
          const float x1 = x[static_cast<size_t>(base + first)], x2 = x[static_cast<size_t>(base + second)];
          out[static_cast<size_t>(base + first)] = c * x1 - n * x2;
          out[static_cast<size_t>(base + second)] = n * x1 + c * x2;
        }
  return out;
}

// 3-D [B, S, H x D] with position ids, halves, every element rotated; and interleaved
// pairs of the first 4 of 8 elements.
TEST(RotaryEmbeddingOperator, HalvesAndInterleavedPairsWholeOrPartial) {
  const std::vector<int64_t> positions = {0, 1, 2, 5, 6, 7};
  for (const bool interleaved : {false, true}) {
    const int64_t rotary = interleaved ? 4 : 8;
    OnnxModelBuilder m(23);
    m.input("x", {2, 3, 16}).input("cos", {8, rotary / 2}).input("sin", {8, rotary / 2});
    m.input("positions", onnx::TensorProto::INT64, {"2", "3"}).output("y");
    onnx::NodeProto& node = m.node("RotaryEmbedding", {"x", "cos", "sin", "positions"}, {"y"});
    set_attr(node, "num_heads", int64_t{2});
    set_attr(node, "interleaved", int64_t{interleaved});
    set_attr(node, "rotary_embedding_dim", rotary);
    const Tensor x = random_f32({2, 3, 16}, 26), cos = random_f32({8, rotary / 2}, 27);
    const Tensor sin = random_f32({8, rotary / 2}, 28);
    const Tensor y = test::run_single_output(
        m, {{"x", x}, {"cos", cos}, {"sin", sin}, {"positions", make_i64({2, 3}, positions)}});
    test::expect_near_all(values_of(y), rotated_by_definition(values_of(x), values_of(cos), values_of(sin), positions,
                                                              2, 3, 2, 8, rotary, interleaved));
  }
}

// 4-D [B, H, S, D] with the angles given per position ([B, S, D/2], no position ids).
TEST(RotaryEmbeddingOperator, FourDimensionalWithAnglesPerPosition) {
  OnnxModelBuilder m(23);
  m.input("x", {1, 2, 3, 4}).input("cos", {1, 3, 2}).input("sin", {1, 3, 2}).output("y");
  m.node("RotaryEmbedding", {"x", "cos", "sin"}, {"y"});
  const Tensor x = random_f32({1, 2, 3, 4}, 29), cos = random_f32({1, 3, 2}, 30), sin = random_f32({1, 3, 2}, 31);
  const Tensor y = test::run_single_output(m, {{"x", x}, {"cos", cos}, {"sin", sin}});
  // The definition's [B, S, H, D] view of x, and positions 0..2 into the per-position angles.
  const std::vector<float> expected = rotated_by_definition(heads_last(values_of(x), 1, 3, 2, 4), values_of(cos),
                                                            values_of(sin), {0, 1, 2}, 1, 3, 2, 4, 4, false);
  test::expect_near_all(values_of(y), heads_first(expected, 1, 3, 2, 4));
}

// SwiGLU (opset 28): Swish(A) * B with alpha 1.5; A and B must have one shape; not read
// before opset 28.
TEST(SwigluOperator, SwishOfTheGateTimesTheValue) {
  const auto model = [](int64_t opset, const std::vector<int64_t>& b_dims) {
    OnnxModelBuilder m(opset);
    m.input("a", {2, 3}).input("b", b_dims).output("y");
    set_attr(m.node("SwiGLU", {"a", "b"}, {"y"}), "alpha", 1.5f);
    return m;
  };
  const Tensor a = random_f32({2, 3}, 32, 3.0f), b = random_f32({2, 3}, 33);
  std::vector<float> expected;
  for (int i = 0; i < 6; ++i) {
    const float x = values_of(a)[i];
    expected.push_back(x / (1.0f + std::exp(-1.5f * x)) * values_of(b)[i]);
  }
  test::expect_near_all(values_of(test::run_single_output(model(28, {2, 3}), {{"a", a}, {"b", b}})), expected);
  EXPECT_THAT(test::import_error(model(28, {1, 3})), HasSubstr("they must be the same"));
  EXPECT_THAT(test::import_error(model(27, {2, 3})), HasSubstr("SwiGLU is an operator of opset 28 and later"));
}

// GroupNormalization: each of 2 groups of [1, 4, 3] normalized over its 2 channels and 3
// positions (epsilon 0.01), then scaled and shifted per channel (opset 21) or per group
// (opset 18).
TEST(GroupNormalizationOperator, PerChannelFromOpset21PerGroupBefore) {
  const Tensor x = random_f32({1, 4, 3}, 34, 2.0f);
  const std::vector<float> v = values_of(x);
  std::vector<float> normalized(12);
  for (int g = 0; g < 2; ++g) {
    double mean = 0.0, square = 0.0;
    for (int i = 0; i < 6; ++i) mean += v[g * 6 + i] / 6.0;
    for (int i = 0; i < 6; ++i) square += (v[g * 6 + i] - mean) * (v[g * 6 + i] - mean) / 6.0;
    for (int i = 0; i < 6; ++i) {
      normalized[g * 6 + i] = static_cast<float>((v[g * 6 + i] - mean) / std::sqrt(square + 0.01));
    }
  }
  const auto run = [&](int64_t opset, const std::vector<float>& scale, const std::vector<float>& bias) {
    OnnxModelBuilder m(opset);
    const int64_t n = static_cast<int64_t>(scale.size());
    m.input("x", {1, 4, 3}).output("y");
    m.initializer("scale", test::make_f32({n}, scale));
    m.initializer("bias", test::make_f32({n}, bias));
    onnx::NodeProto& node = m.node("GroupNormalization", {"x", "scale", "bias"}, {"y"});
    set_attr(node, "num_groups", int64_t{2});
    set_attr(node, "epsilon", 0.01f);
    return values_of(test::run_single_output(m, {{"x", x}}));
  };
  std::vector<float> by_channel(12), by_group(12);
  for (int i = 0; i < 12; ++i) {
    by_channel[i] = normalized[i] * (1.0f + 0.5f * static_cast<float>(i / 3)) + static_cast<float>(i / 3);
    by_group[i] = normalized[i] * (i < 6 ? 2.0f : -1.0f) + (i < 6 ? 0.5f : 0.25f);
  }
  test::expect_near_all(run(21, {1.0f, 1.5f, 2.0f, 2.5f}, {0, 1, 2, 3}), by_channel, 1e-4f);
  test::expect_near_all(run(18, {2.0f, -1.0f}, {0.5f, 0.25f}), by_group, 1e-4f);
  OnnxModelBuilder wrong(21);
  wrong.input("x", {1, 4, 3}).output("y");
  wrong.initializer("scale", test::make_f32({2}, {1, 1}));
  wrong.initializer("bias", test::make_f32({2}, {0, 0}));
  set_attr(wrong.node("GroupNormalization", {"x", "scale", "bias"}, {"y"}), "num_groups", int64_t{2});
  EXPECT_THAT(test::import_error(wrong), HasSubstr("at opset 21 it must be f32[4] (one per channel)"));
}

// CenterCropPad (opset 18): [3, 2] to [1, 4]: the middle row, padded by one zero each side.
TEST(CenterCropPadOperator, CropsOneAxisAndPadsTheOther) {
  OnnxModelBuilder m(18);
  m.input("x", {3, 2}).output("y");
  m.initializer("shape", make_i64({2}, {1, 4}));
  m.node("CenterCropPad", {"x", "shape"}, {"y"});
  const Tensor y = test::run_single_output(m, {{"x", test::make_f32({3, 2}, {0, 1, 2, 3, 4, 5})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 4}));
  test::expect_near_all(values_of(y), {0, 2, 3, 0});
}

// AffineGrid (opset 20): x' = 2x + 1, y' = y over a 2x2 grid, whose coordinates are the
// pixels' centres (-0.5, 0.5) or, with align_corners, the corners (-1, 1).
TEST(AffineGridOperator, TransformsTheGridsCoordinates) {
  const auto run = [](int64_t align_corners) {
    OnnxModelBuilder m(20);
    m.input("theta", {1, 2, 3}).output("grid");
    m.initializer("size", make_i64({4}, {1, 1, 2, 2}));
    set_attr(m.node("AffineGrid", {"theta", "size"}, {"grid"}), "align_corners", align_corners);
    return test::run_single_output(m, {{"theta", test::make_f32({1, 2, 3}, {2, 0, 1, 0, 1, 0})}});
  };
  const Tensor centres = run(0);
  EXPECT_EQ(centres.shape(), (std::vector<int64_t>{1, 2, 2, 2}));
  test::expect_near_all(values_of(centres), {0, -0.5f, 2, -0.5f, 0, 0.5f, 2, 0.5f});
  test::expect_near_all(values_of(run(1)), {-1, -1, 3, -1, -1, 1, 3, 1});
}

// LpPool (p 2, windows of 2 along a row of 3) and GlobalLpPool (p 1 over each channel).
TEST(LpPoolOperator, WindowsAndWholeChannels) {
  OnnxModelBuilder m(18);
  m.input("x", {1, 1, 1, 3}).output("y");
  set_attr(m.node("LpPool", {"x"}, {"y"}), "kernel_shape", std::vector<int64_t>{1, 2});
  test::expect_near_all(values_of(test::run_single_output(m, {{"x", test::make_f32({1, 1, 1, 3}, {3, -4, 12})}})),
                        {5.0f, std::sqrt(160.0f)}, 1e-4f);
  OnnxModelBuilder global(18);
  global.input("x", {1, 2, 1, 2}).output("y");
  set_attr(global.node("GlobalLpPool", {"x"}, {"y"}), "p", int64_t{1});
  const Tensor y = test::run_single_output(global, {{"x", test::make_f32({1, 2, 1, 2}, {1, -2, 3, 4})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 2, 1, 1}));
  test::expect_near_all(values_of(y), {3, 7});
}

// TensorScatter (opset 24): two rows written into a cache of 3 per batch, at row 1 for
// batch 0 and, wrapping around (circular), at row 2 then 0 for batch 1.
TEST(TensorScatterOperator, WritesEachBatchsRowsWrappingAround) {
  OnnxModelBuilder m(24);
  m.input("cache", {2, 3, 1}).input("update", {2, 2, 1});
  m.input("at", onnx::TensorProto::INT64, {"2"}).output("present");
  onnx::NodeProto& node = m.node("TensorScatter", {"cache", "update", "at"}, {"present"});
  set_attr(node, "axis", int64_t{1});
  test::set_string_attr(node, "mode", "circular");
  const Tensor present = test::run_single_output(m, {{"cache", test::make_f32({2, 3, 1}, {0, 0, 0, 0, 0, 0})},
                                                     {"update", test::make_f32({2, 2, 1}, {1, 2, 3, 4})},
                                                     {"at", make_i64({2}, {1, 2})}});
  test::expect_near_all(values_of(present), {0, 1, 2, 4, 0, 3});
}

// CausalConvWithState (opset 27): kernel (1, 10) over [1, 2, 3] after the carry [5], or
// after a zero, and the carry out, the last position.
TEST(CausalConvWithStateOperator, CarriesTheLastPositions) {
  const auto model = [](bool carry) {
    OnnxModelBuilder m(27);
    m.input("x", {1, 1, 3}).input("past", {1, 1, 1}).output("y").output("present");
    m.initializer("w", test::make_f32({1, 1, 2}, {1, 10}));
    m.node("CausalConvWithState", {"x", "w", "", carry ? "past" : ""}, {"y", "present"});
    return m;
  };
  const Tensor x = test::make_f32({1, 1, 3}, {1, 2, 3}), past = test::make_f32({1, 1, 1}, {5});
  auto out = test::run_model(model(true), {{"x", x}, {"past", past}});
  test::expect_near_all(values_of(out.at("y")), {15, 21, 32});
  test::expect_near_all(values_of(out.at("present")), {3});
  out = test::run_model(model(false), {{"x", x}, {"past", past}});
  test::expect_near_all(values_of(out.at("y")), {10, 21, 32});
}

// DeformConv's sample of image plane `plane` [H, W] at pixel coordinates (y, x): bilinear
// between the four neighbours, those outside the image counting as zeros.
float bilinear_or_zero(const float* plane, int64_t height, int64_t width, float y, float x) {
  const float y0 = std::floor(y), x0 = std::floor(x);
  float value = 0.0f;
  for (int64_t dy = 0; dy < 2; ++dy) {
    for (int64_t dx = 0; dx < 2; ++dx) {
      const int64_t row = static_cast<int64_t>(y0) + dy, column = static_cast<int64_t>(x0) + dx;
      if (row < 0 || row >= height || column < 0 || column >= width) continue;
      const float weight = (dy ? y - y0 : 1.0f - (y - y0)) * (dx ? x - x0 : 1.0f - (x - x0));
      value += weight * plane[row * width + column];
    }
  }
  return value;
}

// Extents and attributes of a DeformConv case.
struct Deform {
  int64_t batch, channels, height, width, outputs, kh, kw, stride_h, stride_w, pad_h, pad_w, dilation_h,
      dilation_w, group, offset_group;
  int64_t out_h() const { return (height + 2 * pad_h - (kh - 1) * dilation_h - 1) / stride_h + 1; }
  int64_t out_w() const { return (width + 2 * pad_w - (kw - 1) * dilation_w - 1) / stride_w + 1; }
};

// Y [N, M, oH, oW] of DeformConv by its definition: offset [N, G, kH, kW, (dy, dx), oH, oW],
// mask [N, G, kH, kW, oH, oW].
std::vector<float> deform_conv_by_definition(const Deform& d, const std::vector<float>& x,
                                             const std::vector<float>& w, const std::vector<float>& offset,
                                             const std::vector<float>& bias, const std::vector<float>& mask) {
  const int64_t oh = d.out_h(), ow = d.out_w(), taps = d.kh * d.kw;
  const int64_t in_per_group = d.channels / d.group, out_per_group = d.outputs / d.group;
  const int64_t in_per_offset_group = d.channels / d.offset_group;
  std::vector<float> y(static_cast<size_t>(d.batch * d.outputs * oh * ow));
  for (int64_t n = 0; n < d.batch; ++n) {
    for (int64_t m = 0; m < d.outputs; ++m) {
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          double sum = bias[static_cast<size_t>(m)];
          for (int64_t ci = 0; ci < in_per_group; ++ci) {
            const int64_t c = m / out_per_group * in_per_group + ci, g = c / in_per_offset_group;
            const float* plane = x.data() + (n * d.channels + c) * d.height * d.width;
            for (int64_t t = 0; t < taps; ++t) {
              const int64_t a = t / d.kw, b = t % d.kw;
              const auto at = [&](int64_t pair) {
                return offset[static_cast<size_t>((((n * d.offset_group + g) * taps + t) * 2 + pair) * oh * ow +
                                                  i * ow + j)];
              };
              const float py = static_cast<float>(i * d.stride_h - d.pad_h + a * d.dilation_h) + at(0);
              const float px = static_cast<float>(j * d.stride_w - d.pad_w + b * d.dilation_w) + at(1);
              const float weight =
                  mask[static_cast<size_t>(((n * d.offset_group + g) * taps + t) * oh * ow + i * ow + j)];
              sum += static_cast<double>(w[static_cast<size_t>((m * in_per_group + ci) * taps + t)]) * weight *
                     bilinear_or_zero(plane, d.height, d.width, py, px);
            }
          }
          y[static_cast<size_t>(((n * d.outputs + m) * oh + i) * ow + j)] = static_cast<float>(sum);
        }
      }
    }
  }
  return y;
}

// DeformConv (opset 19, and 22's "linear" GridSample): two groups, two offset groups, a
// 3x2 kernel with strides, pads and dilations, offsets of up to 3 pixels (samples fall
// off the image and between pixels), a mask and a bias, on random inputs; and without
// mask and bias (ones and zeros).
TEST(DeformConvOperator, MatchesItsDefinitionOnRandomInputs) {
  const Deform d{2, 4, 7, 6, 6, 3, 2, 2, 1, 1, 0, 2, 1, 2, 2};
  const int64_t oh = d.out_h(), ow = d.out_w(), taps = d.kh * d.kw;
  const std::vector<int64_t> x_shape = {d.batch, d.channels, d.height, d.width};
  const std::vector<int64_t> w_shape = {d.outputs, d.channels / d.group, d.kh, d.kw};
  const std::vector<int64_t> offset_shape = {d.batch, d.offset_group * taps * 2, oh, ow};
  const std::vector<int64_t> mask_shape = {d.batch, d.offset_group * taps, oh, ow};
  const Tensor x = test::random_f32(x_shape, 1), w = test::random_f32(w_shape, 2);
  const Tensor offset = test::random_f32(offset_shape, 3, 3.0f), bias = test::random_f32({d.outputs}, 4);
  const Tensor mask = test::random_f32(mask_shape, 5);
  for (const int64_t opset : {19, 22}) {
    for (const bool modulated : {true, false}) {
      OnnxModelBuilder m(opset);
      m.input("x", x_shape).input("offset", offset_shape).input("mask", mask_shape).output("y");
      m.initializer("w", w);
      m.initializer("b", bias);
      onnx::NodeProto& node = m.node("DeformConv", {"x", "w", "offset", modulated ? "b" : "", modulated ? "mask" : ""},
                                     {"y"});
      set_attr(node, "strides", std::vector<int64_t>{d.stride_h, d.stride_w});
      set_attr(node, "pads", std::vector<int64_t>{d.pad_h, d.pad_w, d.pad_h, d.pad_w});
      set_attr(node, "dilations", std::vector<int64_t>{d.dilation_h, d.dilation_w});
      set_attr(node, "group", d.group);
      set_attr(node, "offset_group", d.offset_group);
      const Tensor y = test::run_single_output(m, {{"x", x}, {"offset", offset}, {"mask", mask}});
      EXPECT_EQ(y.shape(), (std::vector<int64_t>{d.batch, d.outputs, oh, ow}));
      const std::vector<float> ones(static_cast<size_t>(mask.elements()), 1.0f);
      const std::vector<float> zeros(static_cast<size_t>(d.outputs), 0.0f);
      test::expect_near_all(values_of(y), deform_conv_by_definition(d, values_of(x), values_of(w), values_of(offset),
                                                                    modulated ? values_of(bias) : zeros,
                                                                    modulated ? values_of(mask) : ones),
                            2e-5f);
    }
  }
}

TEST(DeformConvOperator, RefusesWhatItCannotRead) {
  const auto error = [](const std::vector<int64_t>& x_shape, int64_t offset_channels, int64_t offset_group) {
    OnnxModelBuilder m(19);
    m.input("x", x_shape).input("offset", {1, offset_channels, 2, 2}).output("y");
    std::vector<int64_t> w_shape = {2, x_shape[1], 2};
    if (x_shape.size() == 4) w_shape.push_back(2);
    m.initializer("w", test::random_f32(w_shape, 1));
    set_attr(m.node("DeformConv", {"x", "w", "offset"}, {"y"}), "offset_group", offset_group);
    return test::import_error(m);
  };
  EXPECT_THAT(error({1, 2, 3, 3}, 6, 1), HasSubstr("offset is f32[1,6,2,2]; it must be [1, 8, 2, 2]"));
  EXPECT_THAT(error({1, 3, 3, 3}, 8, 2), HasSubstr("channels a multiple of offset_group"));
  EXPECT_THAT(error({1, 2, 3}, 8, 1), HasSubstr("NEE reads DeformConv over 2-D images"));
}

// OptionalHasElement of nothing is false, OptionalGetElement of a tensor is the tensor (opset
// 18); a graph input of optional type is refused by name.
TEST(OptionalOperators, PlainTensorsAndNothing) {
  OnnxModelBuilder m(18);
  m.input("x", {2}).output("has", onnx::TensorProto::BOOL).output("y");
  m.node("OptionalHasElement", {""}, {"has"});
  m.node("OptionalGetElement", {"x"}, {"y"});
  const auto out = test::run_model(m, {{"x", test::make_f32({2}, {3, -1})}});
  ASSERT_EQ(out.at("has").dtype(), DType::boolean);
  EXPECT_FALSE(*out.at("has").data_as<bool>());
  test::expect_near_all(values_of(out.at("y")), {3, -1});

  OnnxModelBuilder optional_input(18);
  optional_input.output("has", onnx::TensorProto::BOOL);
  onnx::ValueInfoProto* input = optional_input.model().mutable_graph()->add_input();
  input->set_name("maybe");
  input->mutable_type()->mutable_optional_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(1);
  optional_input.node("OptionalHasElement", {"maybe"}, {"has"});
  EXPECT_THAT(test::import_error(optional_input), HasSubstr("graph input 'maybe' is an optional"));
}

TEST(RotaryEmbeddingOperator, RefusesWhatItCannotRead) {
  const auto error = [](int64_t rotary, int64_t heads, int64_t cache_width) {
    OnnxModelBuilder m(23);
    m.input("x", {1, 2, 8}).input("cos", {4, cache_width}).input("sin", {4, cache_width});
    m.input("positions", onnx::TensorProto::INT64, {"1", "2"}).output("y");
    onnx::NodeProto& node = m.node("RotaryEmbedding", {"x", "cos", "sin", "positions"}, {"y"});
    if (heads) set_attr(node, "num_heads", heads);
    if (rotary) set_attr(node, "rotary_embedding_dim", rotary);
    return test::import_error(m);
  };
  EXPECT_THAT(error(0, 0, 4), HasSubstr("3-D X needs a positive 'num_heads'"));
  EXPECT_THAT(error(3, 2, 1), HasSubstr("rotary_embedding_dim 3 must be even"));
  EXPECT_THAT(error(0, 2, 4), HasSubstr("cos_cache's last dim must be 2"));
}

}  // namespace
}  // namespace nee
