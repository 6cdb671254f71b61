// Opsets 18 to 27 and IR versions 9 to 13, which PyTorch's dynamo exporter and onnx
// 1.13-1.22 write: what changed in the operators NEE reads, each run on the reference
// kernels against values worked out here, and what NEE refuses by name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>

#include "import_and_run.h"
#include "importer/import_onnx.h"

namespace nee {
namespace {

using test::make_f32;
using test::make_i64;
using test::OnnxModelBuilder;
using test::set_attr;
using test::set_string_attr;
using test::values_of;
using testing::HasSubstr;

// ReduceMean's axes as an input (opset 18), over the last dim of [2, 3].
TEST(NewerOpsets, ReduceMeanTakesItsAxesAsAnInput) {
  OnnxModelBuilder m(18);
  m.input("x", {2, 3}).output("y");
  m.initializer("axes", make_i64({1}, {-1}));
  m.node("ReduceMean", {"x", "axes"}, {"y"});
  const Tensor y = test::run_single_output(m, {{"x", make_f32({2, 3}, {1, 2, 3, 4, 5, 9})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 1}));
  test::expect_near_all(values_of(y), {2, 6});
}

// Split's num_outputs (opset 18): 7 into parts of ceil(7 / 3) = 3, the last one 1.
TEST(NewerOpsets, SplitIntoNumOutputsPartsTheLastSmaller) {
  OnnxModelBuilder m(18);
  m.input("x", {7}).output("a").output("b").output("c");
  set_attr(m.node("Split", {"x"}, {"a", "b", "c"}), "num_outputs", int64_t{3});
  const auto out = test::run_model(m, {{"x", make_f32({7}, {0, 1, 2, 3, 4, 5, 6})}});
  test::expect_near_all(values_of(out.at("a")), {0, 1, 2});
  test::expect_near_all(values_of(out.at("b")), {3, 4, 5});
  test::expect_near_all(values_of(out.at("c")), {6});
  OnnxModelBuilder wrong(18);
  wrong.input("x", {7}).output("a").output("b");
  set_attr(wrong.node("Split", {"x"}, {"a", "b"}), "num_outputs", int64_t{3});
  EXPECT_THAT(test::import_error(wrong), HasSubstr("num_outputs 3 but the node has 2 outputs"));
}

// Pad's axes input (opset 18): pads for dim 1 of [1, 2] only, 1 before and 2 after.
TEST(NewerOpsets, PadOfTheAxesItNames) {
  OnnxModelBuilder m(18);
  m.input("x", {1, 2}).output("y");
  m.initializer("pads", make_i64({2}, {1, 2}));
  m.initializer("value", make_f32({}, {7}));
  m.initializer("axes", make_i64({1}, {-1}));
  m.node("Pad", {"x", "pads", "value", "axes"}, {"y"});
  const Tensor y = test::run_single_output(m, {{"x", make_f32({1, 2}, {1, 2})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 5}));
  test::expect_near_all(values_of(y), {7, 1, 2, 7, 7});
}

// Pad's wrap mode (opset 19) continues each dim periodically: [1, 2, 3] padded by 2 before
// and 4 after reads ... 2 3 [1 2 3] 1 2 3 1 ...; opset 18 has no such mode.
TEST(NewerOpsets, PadWrapsAround) {
  const auto model = [](int64_t opset) {
    OnnxModelBuilder m(opset);
    m.input("x", {1, 3}).output("y");
    m.initializer("pads", make_i64({4}, {0, 2, 0, 4}));
    set_string_attr(m.node("Pad", {"x", "pads"}, {"y"}), "mode", "wrap");
    return m;
  };
  test::expect_near_all(values_of(test::run_single_output(model(19), {{"x", make_f32({1, 3}, {1, 2, 3})}})),
                        {2, 3, 1, 2, 3, 1, 2, 3, 1});
  EXPECT_THAT(test::import_error(model(18)), HasSubstr("mode 'wrap' needs opset 19"));
}

// Resize's axes (opset 18): nearest, scales 2 for dim 3 of [1, 1, 1, 2] only; antialias
// and aspect-ratio policies are refused by name.
TEST(NewerOpsets, ResizeOfTheAxesItNames) {
  const auto resize = [](const std::string& attribute, int64_t value) {
    OnnxModelBuilder m(18);
    m.input("x", {1, 1, 1, 2}).output("y");
    m.initializer("scales", make_f32({1}, {2}));
    onnx::NodeProto& n = m.node("Resize", {"x", "", "scales"}, {"y"});
    set_string_attr(n, "mode", "nearest");
    set_attr(n, "axes", std::vector<int64_t>{3});
    if (!attribute.empty()) set_attr(n, attribute, value);
    return m;
  };
  const Tensor y = test::run_single_output(resize("", 0), {{"x", make_f32({1, 1, 1, 2}, {1, 2})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 1, 4}));
  test::expect_near_all(values_of(y), {1, 1, 2, 2});
  EXPECT_THAT(test::import_error(resize("antialias", 2)), HasSubstr("antialias is 2; it must be 0 or 1"));
}

// Antialiased linear downsampling (opset 18) of [1, 2, 3, 4] by 0.5: each output reads a
// tent twice as wide, weights (1, 3, 3, 1) / 8 over 4 neighbours, clamped at the edges:
// (1 + 3 + 6 + 3) / 8 and (2 + 9 + 12 + 4) / 8, where plain linear gives 1.5 and 3.5.
TEST(NewerOpsets, ResizeAntialiasedDownsampling) {
  OnnxModelBuilder m(18);
  m.input("x", {1, 1, 1, 4}).output("y");
  m.initializer("scales", make_f32({4}, {1, 1, 1, 0.5f}));
  onnx::NodeProto& n = m.node("Resize", {"x", "", "scales"}, {"y"});
  set_string_attr(n, "mode", "linear");
  set_attr(n, "antialias", int64_t{1});
  test::expect_near_all(values_of(test::run_single_output(m, {{"x", make_f32({1, 1, 1, 4}, {1, 2, 3, 4})}})),
                        {1.625f, 3.375f});
}

// Gelu (opset 20), exact and tanh-approximated, against the formulas at a few points.
TEST(NewerOpsets, GeluBothForms) {
  const std::vector<float> x = {-2.0f, -0.5f, 0.0f, 0.7f, 3.0f};
  for (const char* approximate : {"none", "tanh"}) {
    OnnxModelBuilder m(20);
    m.input("x", {5}).output("y");
    set_string_attr(m.node("Gelu", {"x"}, {"y"}), "approximate", approximate);
    std::vector<float> want;
    for (float v : x) {
      want.push_back(std::string(approximate) == "none"
                         ? 0.5f * v * (1.0f + std::erf(v / std::sqrt(2.0f)))
                         : 0.5f * v * (1.0f + std::tanh(std::sqrt(2.0f / 3.14159265f) * (v + 0.044715f * v * v * v))));
    }
    test::expect_near_all(values_of(test::run_single_output(m, {{"x", make_f32({5}, x)}})), want);
  }
  OnnxModelBuilder bad(20);
  bad.input("x", {5}).output("y");
  set_string_attr(bad.node("Gelu", {"x"}, {"y"}), "approximate", "sigmoid");
  EXPECT_THAT(test::import_error(bad), HasSubstr("approximate 'sigmoid' is not one of none, tanh"));
}

// GridSample's mode "linear" (opset 20) samples as "bilinear" did: the middle of a 2x2
// image is the mean of its pixels.
TEST(NewerOpsets, GridSampleLinearIsBilinear) {
  OnnxModelBuilder m(20);
  m.input("x", {1, 1, 2, 2}).input("grid", {1, 1, 1, 2}).output("y");
  onnx::NodeProto& n = m.node("GridSample", {"x", "grid"}, {"y"});
  set_string_attr(n, "mode", "linear");
  set_attr(n, "align_corners", int64_t{1});
  const Tensor y = test::run_single_output(
      m, {{"x", make_f32({1, 1, 2, 2}, {1, 2, 3, 6})}, {"grid", make_f32({1, 1, 1, 2}, {0, 0})}});
  test::expect_near_all(values_of(y), {3});
}

// DFT's axis as the constant input 2 (opset 20): the transform of 1, 2, 3, 4 along dim 1.
TEST(NewerOpsets, DftTakesItsAxisAsAnInput) {
  OnnxModelBuilder m(20);
  m.input("x", {1, 4, 1}).output("y");
  m.initializer("axis", make_i64({}, {1}));
  m.node("DFT", {"x", "", "axis"}, {"y"});
  const Tensor y = test::run_single_output(m, {{"x", make_f32({1, 4, 1}, {1, 2, 3, 4})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 4, 2}));
  test::expect_near_all(values_of(y), {10, 0, -2, 2, -2, 0, -2, -2}, 1e-4f);
}

// Blocked quantization (opset 21) needs a scale of one value per block.
TEST(NewerOpsets, BlockedQuantizationScalesPerBlock) {
  OnnxModelBuilder m(21);
  m.input("x", {1, 4}).output("y", onnx::TensorProto::UINT8);
  m.initializer("scale", make_f32({1, 3}, {0.5f, 0.25f, 1}));
  set_attr(m.node("QuantizeLinear", {"x", "scale"}, {"y"}), "block_size", int64_t{2});
  EXPECT_THAT(test::import_error(m), HasSubstr("must be [1,2]: X f32[1,4] in blocks of 2 along dim 1"));
}

// RMSNormalization (opset 23) over the last dim: rows 3, 4 (rms sqrt(12.5)) and 0, 2
// (rms sqrt(2)), scales 1 and 2; its stash_type other than float is refused.
TEST(NewerOpsets, RmsNormalization) {
  const auto model = [](int64_t stash_type) {
    OnnxModelBuilder m(23);
    m.input("x", {2, 2}).output("y");
    m.initializer("scale", make_f32({2}, {1, 2}));
    onnx::NodeProto& n = m.node("RMSNormalization", {"x", "scale"}, {"y"});
    set_attr(n, "epsilon", 0.0f);
    set_attr(n, "stash_type", stash_type);
    return m;
  };
  const Tensor y = test::run_single_output(model(1), {{"x", make_f32({2, 2}, {3, 4, 0, 2})}});
  const float first = std::sqrt(12.5f), second = std::sqrt(2.0f);
  test::expect_near_all(values_of(y), {3 / first, 8 / first, 0, 4 / second});
  EXPECT_THAT(test::import_error(model(10)), HasSubstr("only stash_type 1 (float) is supported"));
}

// Swish (opset 24): x * sigmoid(alpha * x).
TEST(NewerOpsets, Swish) {
  OnnxModelBuilder m(24);
  m.input("x", {3}).output("y");
  set_attr(m.node("Swish", {"x"}, {"y"}), "alpha", 2.0f);
  const std::vector<float> x = {-1.5f, 0.0f, 2.0f};
  std::vector<float> want;
  for (float v : x) want.push_back(v / (1.0f + std::exp(-2.0f * v)));
  test::expect_near_all(values_of(test::run_single_output(m, {{"x", make_f32({3}, x)}})), want);
}

// QuantizeLinear's precision (opset 23): float, or the input's, which for f32 is float.
TEST(NewerOpsets, QuantizePrecisionOtherThanFloatIsRefused) {
  OnnxModelBuilder m(23);
  m.input("x", {1, 4}).output("y", onnx::TensorProto::UINT8);
  m.initializer("scale", make_f32({}, {0.5f}));
  set_attr(m.node("QuantizeLinear", {"x", "scale"}, {"y"}), "precision", int64_t{10});
  EXPECT_THAT(test::import_error(m), HasSubstr("precision 10 is not supported"));
}

// IR version 14 and opset 28 import; IR version 15 is refused by name (opset 29:
// ImportVersions.OpsetsAbove28AreRefusedByNumber).
TEST(NewerOpsets, IrVersion14AndOpset28ImportIrVersion15DoesNot) {
  OnnxModelBuilder m(28);
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"});
  m.model().set_ir_version(14);
  test::expect_near_all(values_of(test::run_single_output(m, {{"x", make_f32({2}, {-1, 2})}})), {0, 2});
  m.model().set_ir_version(15);
  EXPECT_THAT(test::import_error(m), HasSubstr("NEE reads IR versions 3 to 14"));
}

// SpaceToDepth's mode (opset 28): of a [1, 2, 2, 2] map in 2x2 blocks, DCR orders the
// output channels by the position in the block, then the channel; CRD by the channel
// first. With two channels the orders differ.
TEST(NewerOpsets, SpaceToDepthInBothModes) {
  const auto run = [](const std::string& mode) {
    OnnxModelBuilder m(28);
    m.input("x", {1, 2, 2, 2}).output("y");
    onnx::NodeProto& node = m.node("SpaceToDepth", {"x"}, {"y"});
    set_attr(node, "blocksize", int64_t{2});
    if (!mode.empty()) set_string_attr(node, "mode", mode);
    return values_of(test::run_single_output(m, {{"x", make_f32({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})}}));
  };
  // Channel 0 holds 0 1 / 2 3, channel 1 holds 4 5 / 6 7.
  test::expect_near_all(run(""), {0, 4, 1, 5, 2, 6, 3, 7});
  test::expect_near_all(run("DCR"), {0, 4, 1, 5, 2, 6, 3, 7});
  test::expect_near_all(run("CRD"), {0, 1, 2, 3, 4, 5, 6, 7});
  OnnxModelBuilder wrong(28);
  wrong.input("x", {1, 1, 2, 2}).output("y");
  onnx::NodeProto& node = wrong.node("SpaceToDepth", {"x"}, {"y"});
  set_attr(node, "blocksize", int64_t{2});
  set_string_attr(node, "mode", "RDC");
  EXPECT_THAT(test::import_error(wrong), HasSubstr("mode 'RDC' is neither DCR nor CRD"));
}

// Mod of floats with fmod 0 (opset 28): A - floor(A / B) * B, the divisor's sign, and the
// special cases opset 28 lists; refused before.
TEST(NewerOpsets, FloorModOfFloats) {
  const auto model = [](int64_t opset) {
    OnnxModelBuilder m(opset);
    m.input("a", {7}).input("b", {7}).output("y");
    m.node("Mod", {"a", "b"}, {"y"});
    return m;
  };
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor a = make_f32({7}, {5.5f, -5.5f, 5.5f, -0.0f, -5.0f, 5.0f, inf});
  const Tensor b = make_f32({7}, {2.0f, 2.0f, -2.0f, 3.0f, inf, inf, 2.0f});
  const std::vector<float> y = values_of(test::run_single_output(model(28), {{"a", a}, {"b", b}}));
  test::expect_near_all({y[0], y[1], y[2], y[5]}, {1.5f, 0.5f, -0.5f, 5.0f});
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_FALSE(std::signbit(y[3])) << "a zero remainder takes the divisor's sign";
  EXPECT_EQ(y[4], inf) << "a finite dividend of the other sign than an infinite divisor gives the divisor";
  EXPECT_TRUE(std::isnan(y[6]));
  EXPECT_THAT(test::import_error(model(27)), HasSubstr("Mod of floats needs fmod=1 before opset 28"));
}

// Signed BitShift (opset 28): arithmetic right shifts, left shifts that drop what passes
// the sign, and counts out of range giving the sign fill alone; refused before.
TEST(NewerOpsets, SignedBitShifts) {
  const auto model = [](int64_t opset, const std::string& direction) {
    OnnxModelBuilder m(opset);
    m.input("x", onnx::TensorProto::INT8, {"4"}).input("n", onnx::TensorProto::INT8, {"4"});
    m.output("y", onnx::TensorProto::INT8);
    set_string_attr(m.node("BitShift", {"x", "n"}, {"y"}), "direction", direction);
    return m;
  };
  const auto int8s = [](const std::vector<int8_t>& v) {
    Tensor t(DType::i8, {static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), t.data_as<int8_t>());
    return t;
  };
  const auto run = [&](const std::string& direction) {
    const Tensor y = test::run_single_output(model(28, direction), {{"x", int8s({-8, 64, -3, 5})},
                                                                    {"n", int8s({1, 1, 8, -1})}});
    return std::vector<int8_t>(y.data_as<int8_t>(), y.data_as<int8_t>() + 4);
  };
  EXPECT_THAT(run("RIGHT"), testing::ElementsAre(-4, 32, -1, 0));
  EXPECT_THAT(run("LEFT"), testing::ElementsAre(-16, -128, 0, 0));
  EXPECT_THAT(test::import_error(model(27, "LEFT")), HasSubstr("BitShift at opset 27"));
}

// CumProd (opset 26): running products, exclusive (starting from 1) and reversed.
TEST(NewerOpsets, CumProdExclusiveAndReversed) {
  OnnxModelBuilder m(26);
  m.input("x", {4}).output("y");
  m.initializer("axis", make_i64({}, {0}));
  onnx::NodeProto& node = m.node("CumProd", {"x", "axis"}, {"y"});
  set_attr(node, "exclusive", int64_t{1});
  set_attr(node, "reverse", int64_t{1});
  test::expect_near_all(values_of(test::run_single_output(m, {{"x", make_f32({4}, {2, 3, 4, 5})}})), {60, 20, 5, 1});
}

// The bitwise operators (opset 18) on int32, broadcast, and BitwiseNot.
TEST(NewerOpsets, BitwiseOperators) {
  const auto run = [](const std::string& op) {
    OnnxModelBuilder m(18);
    m.input("a", onnx::TensorProto::INT32, {"3"}).output("y", onnx::TensorProto::INT32);
    m.initializer("b", test::make_i32({1}, {6}));
    if (op == "BitwiseNot") {
      m.node(op, {"a"}, {"y"});
    } else {
      m.node(op, {"a", "b"}, {"y"});
    }
    const Tensor y = test::run_single_output(m, {{"a", test::make_i32({3}, {5, -1, 12})}});
    return std::vector<int32_t>(y.data_as<int32_t>(), y.data_as<int32_t>() + 3);
  };
  EXPECT_THAT(run("BitwiseAnd"), testing::ElementsAre(4, 6, 4));
  EXPECT_THAT(run("BitwiseOr"), testing::ElementsAre(7, -1, 14));
  EXPECT_THAT(run("BitwiseXor"), testing::ElementsAre(3, -7, 10));
  EXPECT_THAT(run("BitwiseNot"), testing::ElementsAre(-6, 0, -13));
}

// LpNormalization: rows of [2, 3] over their L1 norm (p 1); a row of zeros stays zeros.
TEST(NewerOpsets, LpNormalizationOverRowsAndAZeroRow) {
  OnnxModelBuilder m(13);
  m.input("x", {2, 3}).output("y");
  onnx::NodeProto& node = m.node("LpNormalization", {"x"}, {"y"});
  set_attr(node, "p", int64_t{1});
  set_attr(node, "axis", int64_t{1});
  test::expect_near_all(values_of(test::run_single_output(m, {{"x", make_f32({2, 3}, {1, -2, 1, 0, 0, 0})}})),
                        {0.25f, -0.5f, 0.25f, 0, 0, 0});
}

// Col2Im (opset 18), PyTorch's Fold: blocks of 2x3 with strides (2, 1), dilations (1, 2)
// and uneven pads, on random columns, against the sum worked out here; and columns
// whose count does not match the blocks, refused.
TEST(NewerOpsets, Col2ImSumsOverlappingBlocks) {
  const int64_t batch = 2, channels = 3, height = 5, width = 6, bh = 2, bw = 3;
  const int64_t pad_top = 1, pad_left = 0, pad_bottom = 0, pad_right = 1, stride_h = 2, dilation_w = 2;
  const int64_t rows = (height + pad_top + pad_bottom - bh) / stride_h + 1;
  const int64_t columns = width + pad_left + pad_right - (bw - 1) * dilation_w;
  const auto model = [&](int64_t positions) {
    OnnxModelBuilder m(18);
    m.input("x", {batch, channels * bh * bw, positions}).output("y");
    m.initializer("image", make_i64({2}, {height, width}));
    m.initializer("block", make_i64({2}, {bh, bw}));
    onnx::NodeProto& node = m.node("Col2Im", {"x", "image", "block"}, {"y"});
    set_attr(node, "strides", std::vector<int64_t>{stride_h, 1});
    set_attr(node, "dilations", std::vector<int64_t>{1, dilation_w});
    set_attr(node, "pads", std::vector<int64_t>{pad_top, pad_left, pad_bottom, pad_right});
    return m;
  };
  const Tensor x = test::random_f32({batch, channels * bh * bw, rows * columns}, 7);
  const std::vector<float> cols = values_of(x);
  std::vector<float> expected(static_cast<size_t>(batch * channels * height * width), 0.0f);
  for (int64_t image = 0; image < batch * channels; ++image) {
    for (int64_t k = 0; k < bh * bw; ++k) {
      for (int64_t l = 0; l < rows * columns; ++l) {
        const int64_t y = l / columns * stride_h - pad_top + k / bw, xc = l % columns - pad_left + k % bw * dilation_w;
        if (y < 0 || y >= height || xc < 0 || xc >= width) continue;
        expected[static_cast<size_t>((image * height + y) * width + xc)] +=
            cols[static_cast<size_t>((image * bh * bw + k) * rows * columns + l)];
      }
    }
  }
  const Tensor y = test::run_single_output(model(rows * columns), {{"x", x}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{batch, channels, height, width}));
  test::expect_near_all(values_of(y), expected);
  EXPECT_THAT(test::import_error(model(rows * columns + 1)), HasSubstr("it must be [N, C x 6, 9]"));
}

// A 4-bit initializer (opset 21; ONNX's INT4 is 22, UINT4 21) with `values` packed two a
// byte, low nibble first, in raw_data or (one byte an entry) in int32_data.
void add_4bit_initializer(OnnxModelBuilder& m, const std::string& name, int32_t type, const std::vector<int64_t>& dims,
                          const std::vector<int>& values, bool raw) {
  onnx::TensorProto& t = m.raw_initializer();
  t.set_name(name);
  t.set_data_type(type);
  for (int64_t d : dims) t.add_dims(d);
  std::string packed((values.size() + 1) / 2, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    packed[i / 2] = static_cast<char>(packed[i / 2] | (values[i] & 0xF) << (i % 2 * 4));
  }
  if (raw) {
    t.set_raw_data(packed);
  } else {
    for (char byte : packed) t.add_int32_data(static_cast<uint8_t>(byte));
  }
}

// 4-bit weights dequantized in blocks (opset 21), as 4-bit quantized models store them:
// an INT4 [4, 2] weight with an INT4 zero point and a scale per block of 3 rows, and a
// UINT4 vector in int32_data per tensor. (w - zero) x scale, worked by hand; a graph input
// of INT4 is refused by name.
TEST(NewerOpsets, FourBitWeightsDequantizedInBlocks) {
  OnnxModelBuilder m(21);
  m.output("y").output("v");
  add_4bit_initializer(m, "w", 22, {4, 2}, {-8, 7, 3, -1, 0, 5, -2, 1}, true);
  add_4bit_initializer(m, "zero", 22, {2, 2}, {1, 0, -1, 2}, true);
  add_4bit_initializer(m, "u", 21, {3}, {15, 0, 9}, false);
  m.initializer("scale", make_f32({2, 2}, {0.5f, 2, 0.25f, 1}));
  m.initializer("one", make_f32({}, {1}));
  onnx::NodeProto& blocked = m.node("DequantizeLinear", {"w", "scale", "zero"}, {"y"});
  set_attr(blocked, "axis", int64_t{0});
  set_attr(blocked, "block_size", int64_t{3});
  m.node("DequantizeLinear", {"u", "one"}, {"v"});
  const auto out = test::run_model(m, {});
  test::expect_near_all(values_of(out.at("y")), {-4.5f, 14, 1, -2, -0.5f, 10, -0.25f, -1});
  test::expect_near_all(values_of(out.at("v")), {15, 0, 9});
  // The folded matrix keeps the integers it came from, for the products that read it
  // (passes.h: quantize_matmul_weights); the vector does not.
  const Graph imported = import_onnx_bytes(m.bytes());
  const DequantizedOrigin* origin = imported.dequantized_origin("y");
  ASSERT_NE(origin, nullptr);
  EXPECT_EQ(origin->x.type(), (TensorType{DType::i8, {4, 2}}));
  EXPECT_EQ(origin->x.data_as<int8_t>()[0], -8);
  EXPECT_EQ(origin->zero_point.type(), (TensorType{DType::i8, {2, 2}}));
  EXPECT_EQ(origin->axis, 0);
  EXPECT_EQ(origin->block_size, 3);
  EXPECT_EQ(imported.dequantized_origin("v"), nullptr);

  OnnxModelBuilder input(21);
  input.input("x", 22, {"2"}).output("y");
  input.initializer("one", make_f32({}, {1}));
  input.node("DequantizeLinear", {"x", "one"}, {"y"});
  EXPECT_THAT(test::import_error(input), HasSubstr("INT4 and UINT4 in initializers and Constants"));
}

// QuantizeLinear in blocks of 2 along the last dim, to int16 (opset 21): each pair of [1, 4]
// has its own scale and zero point.
TEST(NewerOpsets, QuantizeLinearInBlocksToInt16) {
  OnnxModelBuilder m(21);
  m.input("x", {1, 4}).output("q", onnx::TensorProto::INT16);
  m.initializer("scale", make_f32({1, 2}, {0.5f, 4}));
  Tensor zero(DType::i16, {1, 2});
  zero.data_as<int16_t>()[0] = -300;
  zero.data_as<int16_t>()[1] = 1000;
  m.initializer("zero", zero);
  onnx::NodeProto& node = m.node("QuantizeLinear", {"x", "scale", "zero"}, {"q"});
  set_attr(node, "axis", int64_t{1});
  set_attr(node, "block_size", int64_t{2});
  const Tensor q = test::run_single_output(m, {{"x", make_f32({1, 4}, {1, -2.25f, 40, -10})}});
  ASSERT_EQ(q.dtype(), DType::i16);
  const int16_t* v = q.data_as<int16_t>();
  // 1 / 0.5 = 2, -2.25 / 0.5 = -4.5 (to even: -4); 40 / 4 = 10, -10 / 4 = -2.5 (to even: -2).
  EXPECT_EQ(std::vector<int16_t>(v, v + 4), (std::vector<int16_t>{-298, -304, 1010, 998}));
}

// LinearAttention (opset 27; onnx 1.23's cases check its values): inputs a rule does not
// take, or lacks, and heads that do not group are refused by name.
TEST(NewerOpsets, LinearAttentionRefusesWhatItCannotRead) {
  const auto error = [](const std::string& rule, bool decay, bool beta, int64_t kv_heads) {
    OnnxModelBuilder m(27);
    m.input("q", {1, 2, 8}).input("k", {1, 2, 8}).input("v", {1, 2, 8}).input("g", {1, 2, 2});
    m.input("b", {1, 2, 2}).output("y");
    onnx::NodeProto& node = m.node("LinearAttention", {"q", "k", "v", "", decay ? "g" : "", beta ? "b" : ""}, {"y"});
    set_attr(node, "q_num_heads", int64_t{2});
    set_attr(node, "kv_num_heads", kv_heads);
    if (!rule.empty()) set_string_attr(node, "update_rule", rule);
    return test::import_error(m);
  };
  EXPECT_THAT(error("linear", true, false, 2), HasSubstr("update_rule 'linear' takes no decay input"));
  EXPECT_THAT(error("", true, false, 2), HasSubstr("update_rule 'gated_delta' needs a beta input"));
  EXPECT_THAT(error("gated", false, false, 2), HasSubstr("update_rule 'gated' needs a decay input"));
  EXPECT_THAT(error("delta", false, true, 3), HasSubstr("q_num_heads 2 must be a positive multiple of kv_num_heads 3"));
}

// An inverse onesided DFT (opset 20's IRFFT) of 4 bins, non-Hermitian on purpose (the
// zero bin has an imaginary part), to 7 points (the bins zero-padded past 7 / 2 + 1 = 4)
// and to 4 (truncated to 3, the middle bin's imaginary part dropped), against numpy's
// irfft worked out here; and the default length, 2 (bins - 1).
TEST(NewerOpsets, InverseOnesidedDftIsIrfft) {
  const std::vector<float> bins = {1.5f, 0.5f, -2, 1, 0.25f, -0.75f, 3, 2};  // (re, im) x 4
  const auto irfft = [&](int64_t n) {
    std::vector<std::complex<double>> full(static_cast<size_t>(n));
    for (int64_t k = 0; k <= n / 2; ++k) {
      if (k >= 4) continue;
      const bool real_bin = k == 0 || 2 * k == n;
      full[k] = {bins[2 * k], real_bin ? 0.0 : bins[2 * k + 1]};
    }
    for (int64_t k = n / 2 + 1; k < n; ++k) full[k] = std::conj(full[n - k]);
    std::vector<float> y;
    for (int64_t t = 0; t < n; ++t) {
      std::complex<double> sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += full[k] * std::polar(1.0, 2 * M_PI * static_cast<double>(k * t) / n);
      y.push_back(static_cast<float>(sum.real() / static_cast<double>(n)));
    }
    return y;
  };
  for (const int64_t n : {int64_t{7}, int64_t{4}, int64_t{0}}) {
    OnnxModelBuilder m(20);
    m.input("x", {1, 4, 2}).output("y");
    if (n) m.initializer("n", make_i64({}, {n}));
    onnx::NodeProto& node = m.node("DFT", {"x", n ? "n" : ""}, {"y"});
    set_attr(node, "inverse", int64_t{1});
    set_attr(node, "onesided", int64_t{1});
    const Tensor y = test::run_single_output(m, {{"x", make_f32({1, 4, 2}, bins)}});
    const int64_t length = n ? n : 6;
    EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, length, 1}));
    test::expect_near_all(values_of(y), irfft(length), 1e-5f);
  }
}

// Types newer than the onnx library NEE is built with are refused by their names.
TEST(NewerOpsets, NewerDataTypesAreRefusedByName) {
  OnnxModelBuilder m(28);
  m.input("x", 27, {"2"}).output("y");
  m.node("Relu", {"x"}, {"y"});
  EXPECT_THAT(test::import_error(m), HasSubstr("unsupported data type FLOAT6E2M3"));
}

}  // namespace
}  // namespace nee
