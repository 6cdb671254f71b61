// Conv, ConvTranspose, pooling and BatchNormalization: tiny models imported and run on
// the reference provider, checked against hand-computed values and against plain loops
// written here independently of the kernels (direct convolution, scatter for the
// transpose).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "import_and_run.h"
#include "onnx_model_builder.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;
using test::expect_near_all;
using test::import_error;
using test::make_f32;
using test::random_f32;
using test::run_model;
using test::run_single_output;
using test::set_attr;
using test::set_string_attr;
using test::values_of;
using ::testing::HasSubstr;

std::vector<float> iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

struct Conv2dParams {
  int64_t group, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left, pad_bottom, pad_right;
};

// Direct 2-D convolution: every output element sums its window, skipping taps in the pads.
std::vector<float> naive_conv2d(const Tensor& x, const Tensor& w, const Tensor& b, const Conv2dParams& p) {
  const int64_t n_batch = x.shape()[0], c_in = x.shape()[1], h = x.shape()[2], wd = x.shape()[3];
  const int64_t m_out = w.shape()[0], c_group = w.shape()[1], kh = w.shape()[2], kw = w.shape()[3];
  const int64_t oh = (h + p.pad_top + p.pad_bottom - ((kh - 1) * p.dilation_h + 1)) / p.stride_h + 1;
  const int64_t ow = (wd + p.pad_left + p.pad_right - ((kw - 1) * p.dilation_w + 1)) / p.stride_w + 1;
  const int64_t m_group = m_out / p.group;
  const float* xs = x.data_as<float>();
  const float* ws = w.data_as<float>();
  std::vector<float> y;
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t m = 0; m < m_out; ++m) {
      const int64_t g = m / m_group;
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          double sum = b.data_as<float>()[m];
          for (int64_t c = 0; c < c_group; ++c) {
            for (int64_t a = 0; a < kh; ++a) {
              for (int64_t e = 0; e < kw; ++e) {
                const int64_t r = i * p.stride_h - p.pad_top + a * p.dilation_h;
                const int64_t s = j * p.stride_w - p.pad_left + e * p.dilation_w;
                if (r < 0 || r >= h || s < 0 || s >= wd) continue;
                sum += xs[((n * c_in + g * c_group + c) * h + r) * wd + s] *
                       ws[((m * c_group + c) * kh + a) * kw + e];
              }
            }
          }
          y.push_back(static_cast<float>(sum));
        }
      }
    }
  }
  return y;
}

OnnxModelBuilder conv2d_model(const std::vector<int64_t>& x_shape, const Tensor& w, const Tensor& b,
                              const Conv2dParams& p) {
  OnnxModelBuilder m;
  m.input("x", x_shape).output("y");
  m.initializer("w", w).initializer("b", b);
  auto& n = m.node("Conv", {"x", "w", "b"}, {"y"});
  set_attr(n, "group", p.group);
  set_attr(n, "strides", std::vector<int64_t>{p.stride_h, p.stride_w});
  set_attr(n, "dilations", std::vector<int64_t>{p.dilation_h, p.dilation_w});
  set_attr(n, "pads", std::vector<int64_t>{p.pad_top, p.pad_left, p.pad_bottom, p.pad_right});
  return m;
}

TEST(ConvOperator, Conv2dHandComputed) {
  OnnxModelBuilder m;
  m.input("x", {1, 1, 3, 3}).output("y");
  m.initializer("w", make_f32({1, 1, 2, 2}, {1, 1, 1, 1}));
  m.node("Conv", {"x", "w"}, {"y"});
  // Sums of each 2x2 window of [[0,1,2],[3,4,5],[6,7,8]].
  Tensor y = run_single_output(m, {{"x", make_f32({1, 1, 3, 3}, iota(9))}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 2, 2}));
  expect_near_all(values_of(y), {8, 12, 20, 24});
}

TEST(ConvOperator, Conv1dWithPadsAndBias) {
  OnnxModelBuilder m;
  m.input("x", {1, 1, 4}).output("y");
  m.initializer("w", make_f32({1, 1, 3}, {1, 0, -1})).initializer("b", make_f32({1}, {10}));
  set_attr(m.node("Conv", {"x", "w", "b"}, {"y"}), "pads", std::vector<int64_t>{1, 1});
  // x = [1,2,4,8] padded [0,1,2,4,8,0]; y[i] = xp[i] - xp[i+2] + 10.
  Tensor y = run_single_output(m, {{"x", make_f32({1, 1, 4}, {1, 2, 4, 8})}});
  expect_near_all(values_of(y), {8, 7, 4, 14});
}

TEST(ConvOperator, ConvAutoPadSameUpperAndLower) {
  // 4-wide input, kernel 2, stride 1: one pad, after the input for SAME_UPPER and before
  // it for SAME_LOWER.
  for (const std::string mode : {"SAME_UPPER", "SAME_LOWER", "VALID"}) {
    OnnxModelBuilder m;
    m.input("x", {1, 1, 4}).output("y");
    m.initializer("w", make_f32({1, 1, 2}, {1, 10}));
    set_string_attr(m.node("Conv", {"x", "w"}, {"y"}), "auto_pad", mode);
    Tensor y = run_single_output(m, {{"x", make_f32({1, 1, 4}, {1, 2, 3, 4})}});
    if (mode == "SAME_UPPER") expect_near_all(values_of(y), {21, 32, 43, 4});
    if (mode == "SAME_LOWER") expect_near_all(values_of(y), {10, 21, 32, 43});
    if (mode == "VALID") expect_near_all(values_of(y), {21, 32, 43});
  }
}

TEST(ConvOperator, RandomGroupedDilatedStridedMatchesDirectLoop) {
  const Conv2dParams p{2, 2, 1, 2, 1, 1, 2, 0, 1};
  const Tensor x = random_f32({2, 4, 9, 8}, 1), w = random_f32({6, 2, 3, 2}, 2), b = random_f32({6}, 3);
  Tensor y = run_single_output(conv2d_model({2, 4, 9, 8}, w, b, p), {{"x", x}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 6, 3, 10}));
  expect_near_all(values_of(y), naive_conv2d(x, w, b, p), 1e-4f);
}

TEST(ConvOperator, RandomDepthwiseMatchesDirectLoop) {
  const Conv2dParams p{8, 1, 1, 1, 1, 1, 1, 1, 1};
  const Tensor x = random_f32({1, 8, 7, 7}, 4), w = random_f32({8, 1, 3, 3}, 5), b = random_f32({8}, 6);
  Tensor y = run_single_output(conv2d_model({1, 8, 7, 7}, w, b, p), {{"x", x}});
  expect_near_all(values_of(y), naive_conv2d(x, w, b, p), 1e-4f);
}

TEST(ConvOperator, RandomPointwiseMatchesDirectLoop) {
  const Conv2dParams p{1, 1, 1, 1, 1, 0, 0, 0, 0};
  const Tensor x = random_f32({1, 5, 6, 3}, 7), w = random_f32({7, 5, 1, 1}, 8), b = random_f32({7}, 9);
  Tensor y = run_single_output(conv2d_model({1, 5, 6, 3}, w, b, p), {{"x", x}});
  expect_near_all(values_of(y), naive_conv2d(x, w, b, p), 1e-4f);
}

TEST(ConvOperator, ConvRejectsChannelsThatDoNotFitGroup) {
  OnnxModelBuilder m;
  m.input("x", {1, 3, 4, 4}).output("y");
  m.initializer("w", make_f32({2, 2, 1, 1}, {1, 1, 1, 1}));
  set_attr(m.node("Conv", {"x", "w"}, {"y"}), "group", int64_t{2});
  EXPECT_THAT(import_error(m), HasSubstr("group 2"));
}

TEST(ConvOperator, ConvRejectsKernelShapeThatDiffersFromWeights) {
  OnnxModelBuilder m;
  m.input("x", {1, 1, 4, 4}).output("y");
  m.initializer("w", make_f32({1, 1, 2, 2}, {1, 1, 1, 1}));
  set_attr(m.node("Conv", {"x", "w"}, {"y"}), "kernel_shape", std::vector<int64_t>{3, 3});
  EXPECT_THAT(import_error(m), HasSubstr("kernel_shape [3,3] differs"));
}

TEST(ConvOperator, ConvTransposeStrideHandComputed) {
  OnnxModelBuilder m;
  m.input("x", {1, 1, 3}).output("y");
  m.initializer("w", make_f32({1, 1, 2}, {1, 10}));
  set_attr(m.node("ConvTranspose", {"x", "w"}, {"y"}), "strides", std::vector<int64_t>{2});
  // Each x[i] writes x[i] at 2i and 10 x[i] at 2i+1.
  Tensor y = run_single_output(m, {{"x", make_f32({1, 1, 3}, {1, 2, 3})}});
  expect_near_all(values_of(y), {1, 10, 2, 20, 3, 30});
}

TEST(ConvOperator, ConvTransposeOutputShapeAndSameUpperChoosePads) {
  // Full output of x = [1,2,3], w = [1,1,1], stride 2 is [1,1,3,2,5,3,3] (7 wide).
  // output_shape 6 drops one element: at the beginning unless auto_pad is SAME_UPPER.
  OnnxModelBuilder m;
  m.input("x", {1, 1, 3}).output("y");
  m.initializer("w", make_f32({1, 1, 3}, {1, 1, 1}));
  auto& n = m.node("ConvTranspose", {"x", "w"}, {"y"});
  set_attr(n, "strides", std::vector<int64_t>{2});
  set_attr(n, "output_shape", std::vector<int64_t>{6});
  expect_near_all(values_of(run_single_output(m, {{"x", make_f32({1, 1, 3}, {1, 2, 3})}})), {1, 3, 2, 5, 3, 3});

  OnnxModelBuilder same;
  same.input("x", {1, 1, 3}).output("y");
  same.initializer("w", make_f32({1, 1, 3}, {1, 1, 1}));
  auto& s = same.node("ConvTranspose", {"x", "w"}, {"y"});
  set_attr(s, "strides", std::vector<int64_t>{2});
  set_string_attr(s, "auto_pad", "SAME_UPPER");
  expect_near_all(values_of(run_single_output(same, {{"x", make_f32({1, 1, 3}, {1, 2, 3})}})), {1, 1, 3, 2, 5, 3});
}

// ConvTranspose by scattering: x[n, c, i, j] * w[c, m', a, e] lands on
// y[n, g*M/g + m', i*s - pad + a*d, ...].
std::vector<float> naive_conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& b, int64_t group,
                                          int64_t stride, int64_t dilation, int64_t pad_begin,
                                          const std::vector<int64_t>& out_hw) {
  const int64_t n_batch = x.shape()[0], c_in = x.shape()[1], h = x.shape()[2], wd = x.shape()[3];
  const int64_t m_group = w.shape()[1], kh = w.shape()[2], kw = w.shape()[3];
  const int64_t c_group = c_in / group, m_out = m_group * group, oh = out_hw[0], ow = out_hw[1];
  std::vector<double> y(n_batch * m_out * oh * ow);
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t m = 0; m < m_out; ++m) {
      for (int64_t q = 0; q < oh * ow; ++q) y[(n * m_out + m) * oh * ow + q] = b.data_as<float>()[m];
    }
    for (int64_t c = 0; c < c_in; ++c) {
      const int64_t g = c / c_group;
      for (int64_t i = 0; i < h; ++i) {
        for (int64_t j = 0; j < wd; ++j) {
          const float xv = x.data_as<float>()[((n * c_in + c) * h + i) * wd + j];
          for (int64_t mm = 0; mm < m_group; ++mm) {
            for (int64_t a = 0; a < kh; ++a) {
              for (int64_t e = 0; e < kw; ++e) {
                const int64_t r = i * stride - pad_begin + a * dilation;
                const int64_t s = j * stride - pad_begin + e * dilation;
                if (r < 0 || r >= oh || s < 0 || s >= ow) continue;
                y[((n * m_out + g * m_group + mm) * oh + r) * ow + s] +=
                    xv * w.data_as<float>()[((c * m_group + mm) * kh + a) * kw + e];
              }
            }
          }
        }
      }
    }
  }
  return {y.begin(), y.end()};
}

TEST(ConvOperator, RandomConvTransposeMatchesScatterLoop) {
  const Tensor x = random_f32({2, 4, 3, 4}, 10), w = random_f32({4, 3, 3, 2}, 11), b = random_f32({6}, 12);
  OnnxModelBuilder m;
  m.input("x", {2, 4, 3, 4}).output("y");
  m.initializer("w", w).initializer("b", b);
  auto& n = m.node("ConvTranspose", {"x", "w", "b"}, {"y"});
  set_attr(n, "group", int64_t{2});
  set_attr(n, "strides", std::vector<int64_t>{3, 3});
  set_attr(n, "dilations", std::vector<int64_t>{2, 2});
  set_attr(n, "pads", std::vector<int64_t>{1, 1, 2, 2});
  set_attr(n, "output_padding", std::vector<int64_t>{1, 2});
  // 3 * (in - 1) + output_padding + (k - 1) * 2 + 1 - 3.
  const std::vector<int64_t> out_hw = {3 * 2 + 1 + 5 - 3, 3 * 3 + 2 + 3 - 3};
  Tensor y = run_single_output(m, {{"x", x}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 6, out_hw[0], out_hw[1]}));
  expect_near_all(values_of(y), naive_conv_transpose2d(x, w, b, 2, 3, 2, 1, out_hw), 1e-4f);
}

TEST(ConvOperator, MaxPoolPadsCeilModeAndIndices) {
  OnnxModelBuilder m;
  m.input("x", {1, 1, 3, 3}).output("y").output("i", onnx::TensorProto::INT64);
  auto& n = m.node("MaxPool", {"x"}, {"y", "i"});
  set_attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
  set_attr(n, "strides", std::vector<int64_t>{2, 2});
  set_attr(n, "ceil_mode", int64_t{1});
  set_attr(n, "storage_order", int64_t{1});
  // x = [[5,1,2],[3,4,9],[6,0,8]]: ceil mode keeps the partial windows at the edges.
  auto out = run_model(m, {{"x", make_f32({1, 1, 3, 3}, {5, 1, 2, 3, 4, 9, 6, 0, 8})}});
  EXPECT_EQ(out.at("y").shape(), (std::vector<int64_t>{1, 1, 2, 2}));
  expect_near_all(values_of(out.at("y")), {5, 9, 6, 8});
  // Column-major spatial indices (h + w * H) of (0,0), (1,2), (2,0), (2,2).
  const int64_t* idx = out.at("i").data_as<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(idx, idx + 4), (std::vector<int64_t>{0, 7, 2, 8}));
}

TEST(ConvOperator, MaxPoolIgnoresPaddingAndDilates) {
  OnnxModelBuilder m;
  m.input("x", {1, 1, 5}).output("y");
  auto& n = m.node("MaxPool", {"x"}, {"y"});
  set_attr(n, "kernel_shape", std::vector<int64_t>{2});
  set_attr(n, "dilations", std::vector<int64_t>{2});
  set_attr(n, "pads", std::vector<int64_t>{1, 1});
  // Padded taps never win: x = [-1,-2,-3,-4,-5]; windows {-1,1}, {0,2}, {1,3}, {2,4}, {3,5}.
  Tensor y = run_single_output(m, {{"x", make_f32({1, 1, 5}, {-1, -2, -3, -4, -5})}});
  expect_near_all(values_of(y), {-2, -1, -2, -3, -4});
}

TEST(ConvOperator, AveragePoolCountIncludePad) {
  for (int64_t include : {0, 1}) {
    OnnxModelBuilder m;
    m.input("x", {1, 1, 2, 2}).output("y");
    auto& n = m.node("AveragePool", {"x"}, {"y"});
    set_attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
    set_attr(n, "pads", std::vector<int64_t>{1, 1, 0, 0});
    set_attr(n, "count_include_pad", include);
    // Windows at (-1,-1), (-1,0), (0,-1), (0,0) over [[1,2],[3,4]].
    Tensor y = run_single_output(m, {{"x", make_f32({1, 1, 2, 2}, {1, 2, 3, 4})}});
    if (include) expect_near_all(values_of(y), {0.25f, 0.75f, 1.0f, 2.5f});
    else expect_near_all(values_of(y), {1, 1.5f, 2, 2.5f});
  }
}

TEST(ConvOperator, AveragePoolSameLowerPadsAtTheBeginning) {
  OnnxModelBuilder m;
  m.input("x", {1, 1, 3}).output("y");
  auto& n = m.node("AveragePool", {"x"}, {"y"});
  set_attr(n, "kernel_shape", std::vector<int64_t>{2});
  set_string_attr(n, "auto_pad", "SAME_LOWER");
  Tensor y = run_single_output(m, {{"x", make_f32({1, 1, 3}, {2, 4, 8})}});
  expect_near_all(values_of(y), {2, 3, 6});
}

TEST(ConvOperator, GlobalPools) {
  for (const std::string op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    OnnxModelBuilder m;
    m.input("x", {1, 2, 2, 2}).output("y");
    m.node(op, {"x"}, {"y"});
    Tensor y = run_single_output(m, {{"x", make_f32({1, 2, 2, 2}, {1, 2, 3, 6, -1, -2, -3, -6})}});
    EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 2, 1, 1}));
    if (op == "GlobalAveragePool") expect_near_all(values_of(y), {3, -3});
    else expect_near_all(values_of(y), {6, -1});
  }
}

OnnxModelBuilder batch_norm_model(int64_t opset, const std::vector<int64_t>& param_shape,
                                  const std::vector<float>& scale, const std::vector<float>& bias,
                                  const std::vector<float>& mean, const std::vector<float>& var) {
  OnnxModelBuilder m(opset);
  m.input("x", {1, 2, 2}).output("y");
  m.initializer("s", make_f32(param_shape, scale)).initializer("b", make_f32(param_shape, bias));
  m.initializer("m", make_f32(param_shape, mean)).initializer("v", make_f32(param_shape, var));
  return m;
}

TEST(ConvOperator, BatchNormalizationInference) {
  OnnxModelBuilder m = batch_norm_model(15, {2}, {1, 2}, {0, 1}, {1, -1}, {4, 0.25f});
  set_attr(m.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}), "epsilon", 0.0f);
  // Channel 0: (x - 1) / 2; channel 1: (x + 1) / 0.5 * 2 + 1.
  Tensor y = run_single_output(m, {{"x", make_f32({1, 2, 2}, {3, 5, 0, 1})}});
  expect_near_all(values_of(y), {1, 2, 5, 9});
}

TEST(ConvOperator, BatchNormalizationOpset7NonSpatial) {
  OnnxModelBuilder m = batch_norm_model(7, {2, 2}, {1, 2, 3, 4}, {0, 0, 0, 1}, {0, 0, 0, 0}, {1, 1, 1, 1});
  auto& n = m.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"});
  set_attr(n, "spatial", int64_t{0});
  set_attr(n, "epsilon", 0.0f);
  Tensor y = run_single_output(m, {{"x", make_f32({1, 2, 2}, {1, 1, 1, 1})}});
  expect_near_all(values_of(y), {1, 2, 3, 5});
}

TEST(ConvOperator, BatchNormalizationStatisticsOutputsBeforeOpset14AreRefused) {
  // Opsets 9 to 13 name saved batch statistics as outputs 3 and 4; NEE computes training
  // mode from opset 14's form only (training_and_text_operator_test.cpp).
  OnnxModelBuilder old = batch_norm_model(9, {2}, {1, 1}, {0, 0}, {0, 0}, {1, 1});
  old.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "mean", "var"});
  EXPECT_THAT(import_error(old), HasSubstr("inference mode only"));
}

// 8-bit tensors for the quantized convs.
template <typename T>
Tensor make_8bit(DType dtype, const std::vector<int64_t>& shape, const std::vector<int>& values) {
  Tensor t(TensorType{dtype, shape});
  for (size_t i = 0; i < values.size(); ++i) t.data_as<T>()[i] = static_cast<T>(values[i]);
  return t;
}

TEST(ConvOperator, ConvIntegerSubtractsZeroPointsPerChannelAndPadsWithTheInputs) {
  // X u8 1x1x2x2 = [[3, 5], [7, 9]], x_zp 2 (so X - zp = [[1, 3], [5, 7]]); two 1x1 kernels
  // of i8 W = [4, -1] with per-channel zero points [1, -1] (W - zp = [3, 0]); pads 1 on
  // every side, so the 4x4 output's border reads x_zp and comes out 0.
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::UINT8, {"1", "1", "2", "2"}).output("y", onnx::TensorProto::INT32);
  m.initializer("w", make_8bit<int8_t>(DType::i8, {2, 1, 1, 1}, {4, -1}));
  m.initializer("x_zp", make_8bit<uint8_t>(DType::u8, {}, {2}));
  m.initializer("w_zp", make_8bit<int8_t>(DType::i8, {2}, {1, -1}));
  set_attr(m.node("ConvInteger", {"x", "w", "x_zp", "w_zp"}, {"y"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  const Tensor y = run_single_output(m, {{"x", make_8bit<uint8_t>(DType::u8, {1, 1, 2, 2}, {3, 5, 7, 9})}});
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{1, 2, 4, 4}));
  std::vector<int32_t> want(32, 0);
  const int shifted[4] = {1, 3, 5, 7};
  for (int i = 0; i < 4; ++i) want[(1 + i / 2) * 4 + 1 + i % 2] = 3 * shifted[i];  // channel 0; channel 1 is all 0
  EXPECT_EQ(std::vector<int32_t>(y.data_as<int32_t>(), y.data_as<int32_t>() + 32), want);
}

TEST(ConvOperator, QLinearConvRescalesRoundsHalfToEvenAndSaturates) {
  // One 1x1 kernel of weight 1 over X = [1, 2, 3, 255] (zero point 0): times x_scale *
  // w_scale / y_scale = 0.5 gives 0.5, 1, 1.5, 127.5; rounded half to even 0, 1, 2, 128;
  // plus y_zp 200: 200, 201, 202, and 328 saturates to 255.
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::UINT8, {"1", "1", "1", "4"}).output("y", onnx::TensorProto::UINT8);
  m.initializer("x_scale", make_f32({}, {0.25f}));
  m.initializer("x_zp", make_8bit<uint8_t>(DType::u8, {}, {0}));
  m.initializer("w", make_8bit<int8_t>(DType::i8, {1, 1, 1, 1}, {1}));
  m.initializer("w_scale", make_f32({1}, {4.0f}));
  m.initializer("w_zp", make_8bit<int8_t>(DType::i8, {}, {0}));
  m.initializer("y_scale", make_f32({}, {2.0f}));
  m.initializer("y_zp", make_8bit<uint8_t>(DType::u8, {}, {200}));
  m.node("QLinearConv", {"x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp"}, {"y"});
  const Tensor y = run_single_output(m, {{"x", make_8bit<uint8_t>(DType::u8, {1, 1, 1, 4}, {1, 2, 3, 255})}});
  EXPECT_EQ(std::vector<int>(y.data_as<uint8_t>(), y.data_as<uint8_t>() + 4), (std::vector<int>{200, 201, 202, 255}));
}


}  // namespace
}  // namespace nee
