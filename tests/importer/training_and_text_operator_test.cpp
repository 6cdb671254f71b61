// TfIdfVectorizer, MaxUnpool, Upsample and BatchNormalization in training mode. Expected
// values are worked out by hand in the comments: n-gram counts on short token lists
// where each skip count finds a different set, unpooling where every index's (image,
// channel, row, column) is written out, Upsample's asymmetric source coordinates x /
// scale, and batch statistics of a few integers chosen so that the square roots are whole.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "importer/import_onnx.h"
#include "import_and_run.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/staged_session.h"

namespace nee {
namespace {

using test::ints_of;
using test::dims_text;
using test::make_f32;
using test::make_i32;
using test::make_i64;
using test::OnnxModelBuilder;
using test::run_model;
using test::run_single_output;
using test::set_attr;
using test::set_string_attr;
using test::values_of;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

void set_floats(onnx::NodeProto& node, const std::string& name, const std::vector<float>& values) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float v : values) a->add_floats(v);
}

// ---- TfIdfVectorizer ----

struct NgramPool {
  std::vector<int64_t> pool, ngram_counts, ngram_indexes;
  std::vector<float> weights;  // none when empty
};

OnnxModelBuilder tf_idf_model(const std::vector<int64_t>& x_shape, int32_t x_type, const NgramPool& p,
                              const std::string& mode, int64_t min_length, int64_t max_length, int64_t max_skip) {
  OnnxModelBuilder m(11);
  m.input("x", x_type, dims_text(x_shape)).output("y");
  onnx::NodeProto& n = m.node("TfIdfVectorizer", {"x"}, {"y"});
  set_string_attr(n, "mode", mode);
  set_attr(n, "min_gram_length", min_length);
  set_attr(n, "max_gram_length", max_length);
  set_attr(n, "max_skip_count", max_skip);
  set_attr(n, "pool_int64s", p.pool);
  set_attr(n, "ngram_counts", p.ngram_counts);
  set_attr(n, "ngram_indexes", p.ngram_indexes);
  if (!p.weights.empty()) set_floats(n, "weights", p.weights);
  return m;
}

// Pool: 1-grams [1], [3]; 2-grams [1, 2], [1, 3], into columns 3, 0, 1, 4 (column 2 has
// none). Tokens 1 2 1 2 3 (positions 0..4):
//   [1] at 0 and 2: 2, however many skips (a 1-gram has no gap to skip);  [3] at 4: 1
//   [1, 2] adjacent at (0,1), (2,3); one apart: (0,2) = 1 1, (2,4) = 1 3, none; two
//          apart: (0,3) = 1 2: so 2 with max_skip 0 or 1, 3 with max_skip 2
//   [1, 3] adjacent: none; one apart: (2,4); so 0 with max_skip 0, 1 from max_skip 1
const NgramPool kMixedPool{{1, 3, 1, 2, 1, 3}, {0, 2}, {3, 0, 1, 4}, {}};

TEST(TfIdfVectorizer, CountsWithEachSkipCount) {
  const Tensor tokens = make_i32({5}, {1, 2, 1, 2, 3});
  const auto count = [&](int64_t max_skip) {
    return values_of(
        run_single_output(tf_idf_model({5}, onnx::TensorProto::INT32, kMixedPool, "TF", 1, 2, max_skip),
                          {{"x", tokens}}));
  };
  EXPECT_THAT(count(0), ElementsAre(1, 2, 0, 2, 0));
  EXPECT_THAT(count(1), ElementsAre(1, 2, 0, 2, 1));
  EXPECT_THAT(count(2), ElementsAre(1, 3, 0, 2, 1));
}

// min_gram_length 2 leaves the 1-gram columns (3 and 0) at zero.
TEST(TfIdfVectorizer, MinGramLengthSkipsShorterNgrams) {
  const Tensor y = run_single_output(tf_idf_model({5}, onnx::TensorProto::INT32, kMixedPool, "TF", 2, 2, 1),
                                     {{"x", make_i32({5}, {1, 2, 1, 2, 3})}});
  EXPECT_THAT(values_of(y), ElementsAre(0, 2, 0, 0, 1));
}

// Rows 1 2 1 and 3 1 3 are counted apart: row 0 has [1] twice and [1, 2] once; row 1
// has [1] once, [3] twice and [1, 3] once. Read as one sequence, the 1 ending row 0 and
// the 3 starting row 1 would make one more [1, 3].
TEST(TfIdfVectorizer, RowsOfABatchAreSeparateSequences) {
  const NgramPool pool{{1, 3, 1, 2, 1, 3}, {0, 2}, {0, 1, 2, 3}, {}};
  const Tensor y = run_single_output(tf_idf_model({2, 3}, onnx::TensorProto::INT64, pool, "TF", 1, 2, 0),
                                     {{"x", make_i64({2, 3}, {1, 2, 1, 3, 1, 3})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 4}));
  EXPECT_THAT(values_of(y), ElementsAre(2, 0, 1, 0, 1, 2, 0, 1));
}

// Tokens 1 1 1 3 with 1-grams [1], [3], [7] weighted 0.5, 2, 4: counts 3, 1, 0. TF gives
// the counts, IDF the weight of each n-gram that occurs, TFIDF count * weight.
TEST(TfIdfVectorizer, WeightingModes) {
  const NgramPool pool{{1, 3, 7}, {0}, {0, 1, 2}, {0.5f, 2, 4}};
  const auto weigh = [&](const std::string& mode) {
    return values_of(run_single_output(tf_idf_model({4}, onnx::TensorProto::INT32, pool, mode, 1, 1, 0),
                                       {{"x", make_i32({4}, {1, 1, 1, 3})}}));
  };
  EXPECT_THAT(weigh("TF"), ElementsAre(3, 1, 0));
  EXPECT_THAT(weigh("IDF"), ElementsAre(0.5f, 2, 0));
  EXPECT_THAT(weigh("TFIDF"), ElementsAre(1.5f, 2, 0));
}

TEST(TfIdfVectorizer, BadInputsAreClearErrors) {
  OnnxModelBuilder strings = tf_idf_model({4}, onnx::TensorProto::INT32, kMixedPool, "TF", 1, 2, 0);
  auto* pool_strings = strings.model().mutable_graph()->mutable_node(0)->add_attribute();
  pool_strings->set_name("pool_strings");
  pool_strings->set_type(onnx::AttributeProto::STRINGS);
  pool_strings->add_strings("a");
  EXPECT_THAT(test::import_error(strings), HasSubstr("pool_strings is not supported"));
  EXPECT_THAT(test::import_error(tf_idf_model({4}, onnx::TensorProto::FLOAT, kMixedPool, "TF", 1, 2, 0)),
              HasSubstr("input 0 'x' is tensor(float), which TfIdfVectorizer"));
  EXPECT_THAT(test::import_error(tf_idf_model({4}, onnx::TensorProto::INT32, kMixedPool, "BM25", 1, 2, 0)),
              HasSubstr("mode 'BM25' is not one of TF, IDF, TFIDF"));
  EXPECT_THAT(test::import_error(tf_idf_model({4}, onnx::TensorProto::INT32, kMixedPool, "TF", 2, 1, 0)),
              HasSubstr("max_gram_length 1 is below min_gram_length 2"));
  EXPECT_THAT(test::import_error(tf_idf_model({4}, onnx::TensorProto::INT32, {{1, 3, 1, 2, 1}, {0, 2}, {0, 1, 2}, {}},
                                              "TF", 1, 2, 0)),
              HasSubstr("does not split the pool of 5 values"));
  EXPECT_THAT(test::import_error(tf_idf_model({4}, onnx::TensorProto::INT32, {{1, 3}, {0}, {0}, {}}, "TF", 1, 1, 0)),
              HasSubstr("ngram_indexes has 1 entries; the pool holds 2 n-grams"));
  EXPECT_THAT(test::import_error(tf_idf_model({4}, onnx::TensorProto::INT32, {{1, 3}, {0}, {1, 1}, {}}, "TF", 1, 1, 0)),
              HasSubstr("must be distinct and non-negative"));
  EXPECT_THAT(test::import_error(tf_idf_model({4}, onnx::TensorProto::INT32, {{1, 1}, {0}, {0, 1}, {}}, "TF", 1, 1, 0)),
              HasSubstr("holds the n-gram [1] twice"));
  EXPECT_THAT(
      test::import_error(tf_idf_model({4}, onnx::TensorProto::INT32, {{1, 3}, {0}, {0, 1}, {1}}, "TFIDF", 1, 1, 0)),
      HasSubstr("weights has 1 entries"));
}

// ---- MaxUnpool ----

OnnxModelBuilder max_unpool_model(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& kernel,
                                  const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                                  const std::vector<int64_t>& output_shape = {}) {
  OnnxModelBuilder m(11);
  m.input("x", x_shape).input("i", onnx::TensorProto::INT64, dims_text(x_shape)).output("y");
  std::vector<std::string> inputs = {"x", "i"};
  if (!output_shape.empty()) {
    m.initializer("shape", make_i64({static_cast<int64_t>(output_shape.size())}, output_shape));
    inputs.push_back("shape");
  }
  onnx::NodeProto& n = m.node("MaxUnpool", inputs, {"y"});
  set_attr(n, "kernel_shape", kernel);
  set_attr(n, "strides", strides);
  if (!pads.empty()) set_attr(n, "pads", pads);
  return m;
}

// X [1, 2, 1, 2] with 2x2 windows of stride 2 unpools to [1, 2, 2, 4], 8 elements per
// channel. Indices count over the whole tensor: 1 is (c0, r0, col1), 6 is (c0, r1, col2),
// 8 is (c1, r0, col0), 15 is (c1, r1, col3).
TEST(MaxUnpool, IndicesAddressTheWholeFlattenedOutput) {
  const Tensor y = run_single_output(max_unpool_model({1, 2, 1, 2}, {2, 2}, {2, 2}, {}),
                                     {{"x", make_f32({1, 2, 1, 2}, {10, 20, 30, 40})},
                                      {"i", make_i64({1, 2, 1, 2}, {1, 6, 8, 15})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 2, 2, 4}));
  EXPECT_THAT(values_of(y), ElementsAre(0, 10, 0, 0, 0, 0, 20, 0, 30, 0, 0, 0, 0, 0, 0, 40));
}

// 1-D: 2 values, kernel 3, stride 2, pads 1 and 1 give (2 - 1) * 2 + 3 - 2 = 3 elements.
TEST(MaxUnpool, PadsShrinkTheOutput) {
  const Tensor y = run_single_output(max_unpool_model({1, 1, 2}, {3}, {2}, {1, 1}),
                                     {{"x", make_f32({1, 1, 2}, {5, 7})}, {"i", make_i64({1, 1, 2}, {0, 2})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 3}));
  EXPECT_THAT(values_of(y), ElementsAre(5, 0, 7));
}

// output_shape [1, 1, 3, 5] ignores pads: the unpooled tensor is [1, 1, 2, 4] (kernel and
// stride 2 on [1, 2]), where index 5 is (r1, col1) and 2 is (r0, col2); they land at those
// coordinates of the 3 x 5 output, flat 1 * 5 + 1 = 6 and 2.
TEST(MaxUnpool, OutputShapeWidensWithZerosAtTheEnd) {
  const Tensor y = run_single_output(max_unpool_model({1, 1, 1, 2}, {2, 2}, {2, 2}, {0, 1, 0, 1}, {1, 1, 3, 5}),
                                     {{"x", make_f32({1, 1, 1, 2}, {8, 9})}, {"i", make_i64({1, 1, 1, 2}, {5, 2})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 3, 5}));
  EXPECT_THAT(values_of(y), ElementsAre(0, 0, 9, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0));
}

// output_shape as a graph input: a staged run imports MaxUnpool once it is known.
TEST(MaxUnpool, OutputShapeInputRunsInStages) {
  OnnxModelBuilder m(11);
  m.input("x", {1, 1, 2}).input("i", onnx::TensorProto::INT64, {"1", "1", "2"});
  m.input("shape", onnx::TensorProto::INT64, {"3"}).output("y");
  set_attr(m.node("MaxUnpool", {"x", "i", "shape"}, {"y"}), "kernel_shape", std::vector<int64_t>{2});
  EXPECT_THAT(test::import_error(m), HasSubstr("input 2 (output_shape, 'shape') is not a constant"));
  StagedSession session(load_staged_onnx_bytes(m.bytes()),
                        [] { return std::vector<std::unique_ptr<KernelProvider>>{}; }, SessionOptions{optimize_graph});
  // Kernel 2 and stride 1 unpool 2 values to 3; output_shape asks for 5.
  const auto out = session.run({{"x", make_f32({1, 1, 2}, {4, 6})}, {"i", make_i64({1, 1, 2}, {2, 0})},
                                {"shape", make_i64({3}, {1, 1, 5})}});
  EXPECT_THAT(values_of(out.at("y")), ElementsAre(6, 0, 4, 0, 0));
}

TEST(MaxUnpool, IndexOutsideTheOutputIsARunTimeError) {
  const OnnxModelBuilder m = max_unpool_model({1, 1, 2}, {2}, {2}, {});
  for (int64_t bad : {int64_t{4}, int64_t{-1}}) {
    try {
      run_model(m, {{"x", make_f32({1, 1, 2}, {1, 2})}, {"i", make_i64({1, 1, 2}, {0, bad})}});
      ADD_FAILURE() << "index " << bad << " ran";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("outside the 4 unpooled elements"));
    }
  }
}

TEST(MaxUnpool, BadInputsAreClearErrors) {
  EXPECT_THAT(test::import_error(max_unpool_model({1, 1, 2, 2}, {2, 2}, {2, 2}, {}, {1, 1, 4, 3})),
              HasSubstr("output_shape [1,1,4,3] is smaller than the unpooled shape [1,1,4,4]"));
  EXPECT_THAT(test::import_error(max_unpool_model({1, 1, 2, 2}, {2, 2}, {2, 2}, {}, {1, 4, 4})),
              HasSubstr("must have one entry per dim"));
  EXPECT_THAT(test::import_error(max_unpool_model({1, 1, 2, 2}, {2}, {2, 2}, {})),
              HasSubstr("kernel_shape [2] needs 2 values"));
  EXPECT_THAT(test::import_error(max_unpool_model({1, 1, 1}, {1}, {1}, {1, 0})), HasSubstr("leave nothing"));
  OnnxModelBuilder mismatched(11);
  mismatched.input("x", {1, 1, 2}).input("i", onnx::TensorProto::INT64, {"1", "1", "3"}).output("y");
  set_attr(mismatched.node("MaxUnpool", {"x", "i"}, {"y"}), "kernel_shape", std::vector<int64_t>{2});
  EXPECT_THAT(test::import_error(mismatched), HasSubstr("must have X"));
}

// ---- Upsample ----

// Opset 9, scales [1, 1, 2, 1.5] from an initializer: 2 x 2 becomes 4 x 3; output row y
// reads row floor(y / 2) = 0 0 1 1, column x reads floor(x / 1.5) = 0 0 1.
TEST(Upsample, NearestWithScalesInput) {
  OnnxModelBuilder m(9);
  m.input("x", {1, 1, 2, 2}).initializer("scales", make_f32({4}, {1, 1, 2, 1.5f})).output("y");
  m.node("Upsample", {"x", "scales"}, {"y"});
  const Tensor y = run_single_output(m, {{"x", make_f32({1, 1, 2, 2}, {1, 2, 3, 4})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 4, 3}));
  EXPECT_THAT(values_of(y), ElementsAre(1, 1, 2, 1, 1, 2, 3, 3, 4, 3, 3, 4));
}

// Opset 7, scales attribute [1, 1, 2, 2], linear: source coordinates 0, 0.5, 1, 1.5 per
// axis, the last clamped to the edge. Rows [0, 4] and [8, 12] (and [4, 8] halfway) each
// become v0, (v0 + v1) / 2, v1, v1.
TEST(Upsample, LinearWithScalesAttribute) {
  OnnxModelBuilder m(7);
  m.input("x", {1, 1, 2, 2}).output("y");
  onnx::NodeProto& n = m.node("Upsample", {"x"}, {"y"});
  set_string_attr(n, "mode", "linear");
  set_floats(n, "scales", {1, 1, 2, 2});
  const Tensor y = run_single_output(m, {{"x", make_f32({1, 1, 2, 2}, {0, 4, 8, 12})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 4, 4}));
  EXPECT_THAT(values_of(y), Pointwise(FloatNear(1e-6f), std::vector<float>{0, 2, 4, 4, 4, 6, 8, 8, 8, 10, 12, 12,
                                                                           8, 10, 12, 12}));
}

// Integers, nearest: each element repeated; scale 2.5 on 3 elements gives floor(7.5) = 7,
// output x reading floor(x / 2.5): 0 0 0 1 1 2 2.
TEST(Upsample, NearestCopiesIntegers) {
  OnnxModelBuilder m(8);
  m.input("x", onnx::TensorProto::INT64, {"3"}).output("y", onnx::TensorProto::INT64);
  set_floats(m.node("Upsample", {"x"}, {"y"}), "scales", {2.5f});
  const Tensor y = run_single_output(m, {{"x", make_i64({3}, {5, 6, 7})}});
  EXPECT_THAT(ints_of(y), ElementsAre(5, 5, 5, 6, 6, 7, 7));
}

TEST(Upsample, BadInputsAreClearErrors) {
  const auto model = [](int64_t opset, const std::string& mode, const std::vector<float>& scales) {
    OnnxModelBuilder m(opset);
    m.input("x", {1, 1, 2, 2}).output("y");
    onnx::NodeProto& n = m.node("Upsample", {"x"}, {"y"});
    set_string_attr(n, "mode", mode);
    set_floats(n, "scales", scales);
    return m;
  };
  EXPECT_THAT(test::import_error(model(7, "nearest", {1, 1, 0.5f, 1})), HasSubstr("must each be at least 1"));
  EXPECT_THAT(test::import_error(model(7, "nearest", {1, 2})), HasSubstr("must have one entry per dim"));
  EXPECT_THAT(test::import_error(model(7, "cubic", {1, 1, 2, 2})), HasSubstr("mode 'cubic' is not one of"));
  OnnxModelBuilder deprecated(10);
  deprecated.input("x", {1, 1, 2, 2}).initializer("scales", make_f32({4}, {1, 1, 2, 2})).output("y");
  deprecated.node("Upsample", {"x", "scales"}, {"y"});
  EXPECT_THAT(test::import_error(deprecated), HasSubstr("deprecated from opset 10 on"));
}

// ---- BatchNormalization, training mode ----

// X [N=2, C=2, 2]. Channel 0 holds 1 3 5 7: mean 4, biased variance (9 + 1 + 1 + 9) / 4 = 5;
// channel 1 holds 0 0 0 8: mean 2, variance (4 + 4 + 4 + 36) / 4 = 12. With epsilon 4 the
// divisors are 3 and 4: with scale 3, B 1, y0 = x - 3; with scale 2, B -1, y1 = x / 2 - 2.
// momentum 0.75: running_mean = 0.75 * [0, 10] + 0.25 * [4, 2] = [1, 8];
// running_var = 0.75 * [1, 2] + 0.25 * [5, 12] = [2, 4.5] (the unbiased 20/3 would differ).
TEST(BatchNormalizationTraining, BatchStatisticsAndRunningUpdate) {
  OnnxModelBuilder m(15);
  m.input("x", {2, 2, 2}).output("y").output("running_mean").output("running_var");
  m.initializer("s", make_f32({2}, {3, 2})).initializer("b", make_f32({2}, {1, -1}));
  m.initializer("mean", make_f32({2}, {0, 10})).initializer("var", make_f32({2}, {1, 2}));
  onnx::NodeProto& n =
      m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y", "running_mean", "running_var"});
  set_attr(n, "training_mode", int64_t{1});
  set_attr(n, "epsilon", 4.0f);
  set_attr(n, "momentum", 0.75f);
  const auto out = run_model(m, {{"x", make_f32({2, 2, 2}, {1, 3, 0, 0, 5, 7, 0, 8})}});
  const auto near = [](std::vector<float> expected) { return Pointwise(FloatNear(1e-5f), expected); };
  EXPECT_THAT(values_of(out.at("y")), near({-2, 0, -2, -2, 2, 4, -2, 2}));
  EXPECT_THAT(values_of(out.at("running_mean")), near({1, 8}));
  EXPECT_THAT(values_of(out.at("running_var")), near({2, 4.5f}));
}

// A Conv (weight 2) feeding a training-mode BatchNormalization must not be folded into
// it with the mean and var inputs: conv output 0 2 4 6 has mean 3 and variance 5, so with
// epsilon 4 and scale 3, y = (c - 3) / 3 * 3 = -3 -1 1 3. Folding mean 0, var 1 would
// give 2x * 3 / sqrt(5) instead. Only Y is requested; momentum keeps its default.
TEST(BatchNormalizationTraining, IsNotFoldedIntoAConv) {
  OnnxModelBuilder m(15);
  m.input("x", {1, 1, 1, 4}).output("y");
  m.initializer("w", make_f32({1, 1, 1, 1}, {2}));
  m.initializer("s", make_f32({1}, {3})).initializer("b", make_f32({1}, {0}));
  m.initializer("mean", make_f32({1}, {0})).initializer("var", make_f32({1}, {1}));
  m.node("Conv", {"x", "w"}, {"c"});
  onnx::NodeProto& n = m.node("BatchNormalization", {"c", "s", "b", "mean", "var"}, {"y"});
  set_attr(n, "training_mode", int64_t{1});
  set_attr(n, "epsilon", 4.0f);
  const Tensor y = run_single_output(m, {{"x", make_f32({1, 1, 1, 4}, {0, 1, 2, 3})}});
  EXPECT_THAT(values_of(y), Pointwise(FloatNear(1e-5f), std::vector<float>{-3, -1, 1, 3}));
}

// Default momentum 0.9 on one channel of 2 and 4 (mean 3, variance 1): running_mean
// 0.9 * 1 + 0.1 * 3 = 1.2 and running_var 0.9 * 1 + 0.1 * 1 = 1; running_mean omitted.
TEST(BatchNormalizationTraining, DefaultMomentumAndOmittedOutput) {
  OnnxModelBuilder m(14);
  m.input("x", {2, 1}).output("y").output("running_var");
  for (const char* name : {"s", "b", "mean", "var"}) m.initializer(name, make_f32({1}, {1}));
  onnx::NodeProto& n = m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y", "", "running_var"});
  set_attr(n, "training_mode", int64_t{1});
  set_attr(n, "epsilon", 0.0f);
  const auto out = run_model(m, {{"x", make_f32({2, 1}, {2, 4})}});
  EXPECT_THAT(values_of(out.at("y")), Pointwise(FloatNear(1e-6f), std::vector<float>{0, 2}));  // (x - 3) / 1 + 1
  EXPECT_THAT(values_of(out.at("running_var")), Pointwise(FloatNear(1e-6f), std::vector<float>{1}));
  EXPECT_EQ(out.count("running_mean"), 0u);
}

TEST(BatchNormalizationTraining, RunningStatisticsNeedTrainingMode) {
  const auto model = [](int64_t opset, int64_t training_mode) {
    OnnxModelBuilder m(opset);
    m.input("x", {1, 2, 2}).output("y").output("rm").output("rv");
    for (const char* name : {"s", "b", "mean", "var"}) m.initializer(name, make_f32({2}, {1, 1}));
    set_attr(m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y", "rm", "rv"}), "training_mode",
             training_mode);
    return m;
  };
  EXPECT_THAT(test::import_error(model(15, 0)), HasSubstr("computed in training mode only (training_mode=1)"));
  EXPECT_THAT(test::import_error(model(13, 1)), HasSubstr("training_mode came at opset 14"));
  EXPECT_THAT(test::import_error(model(15, 2)), HasSubstr("training_mode is 2; it must be 0 or 1"));
}

}  // namespace
}  // namespace nee
