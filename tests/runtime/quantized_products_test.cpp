// Models quantized the ways onnxruntime's CPU quantizers write them, imported and
// prepared as a CPU bundle's graph, computing what the unprepared graph computes: dynamic
// quantization (DynamicQuantizeLinear, then MatMulInteger by constant int8 weights, Cast
// and the scales' Mul) becomes a product by quantized panels, its ConvIntegers Convs by
// f32 weights; static QDQ quantization's
// activation pairs (QuantizeLinear, DequantizeLinear) become one elementwise kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;

GraphOptions quantizing_options() {
  GraphOptions options;
  options.pack_matmul_weights = options.pad_matmul_panels = options.quantize_matmul_weights = true;
  return options;
}

// x [2, 24, 40] -> DynamicQuantizeLinear -> MatMulInteger by W [40, 20] int8 with a zero
// point per column -> Cast -> Mul by x_scale * w_scale [20], as quantize_dynamic writes a
// Linear layer (a bias Add after it). W's integers are within `spread` of 0, its zero points
// within `zero_spread`.
std::string dynamic_layer_bytes(int spread = 127, int zero_spread = 2) {
  OnnxModelBuilder m;
  m.input("x", {2, 24, 40}).output("y");
  Tensor w(DType::i8, {40, 20}), w_zero(DType::i8, {20});
  for (int64_t i = 0; i < w.elements(); ++i) {
    w.data_as<int8_t>()[i] = static_cast<int8_t>(i * 53 % (2 * spread + 1) - spread);
  }
  for (int64_t i = 0; i < w_zero.elements(); ++i) {
    w_zero.data_as<int8_t>()[i] = static_cast<int8_t>(i % (2 * zero_spread + 1) - zero_spread);
  }
  m.initializer("w", w);
  m.initializer("w_zero", w_zero);
  m.initializer("w_scale", random_tensor({DType::f32, {20}}, 3));
  m.initializer("bias", random_tensor({DType::f32, {20}}, 4));
  m.node("DynamicQuantizeLinear", {"x"}, {"xq", "x_scale", "x_zero"});
  m.node("MatMulInteger", {"xq", "w", "x_zero", "w_zero"}, {"acc"});
  onnx::NodeProto& cast = m.node("Cast", {"acc"}, {"acc_f"});
  test::set_attr(cast, "to", int64_t{1});
  m.node("Mul", {"x_scale", "w_scale"}, {"scale"});
  m.node("Mul", {"acc_f", "scale"}, {"scaled"});
  m.node("Add", {"scaled", "bias"}, {"y"});
  return m.bytes();
}

TEST(QuantizedProducts, DynamicQuantizationRunsOnQuantizedPanels) {
  const std::string bytes = dynamic_layer_bytes();
  Graph prepared = import_onnx_bytes(bytes);
  optimize_graph(prepared, quantizing_options());
  std::map<std::string, int> ops;
  const Node* product = nullptr;
  for (const Node& n : prepared.nodes()) {
    ++ops[n.op];
    if (n.op == "NeeMatMul") product = &n;
  }
  EXPECT_EQ(ops["MatMulInteger"], 0);
  EXPECT_EQ(ops["Cast"], 1);  // the zero point's; A is centred from x in one elementwise kernel
  ASSERT_NE(product, nullptr);
  EXPECT_EQ(product->attrs.get_int("b_bits", 0), 8);
  EXPECT_EQ(product->attrs.get_int("b_group", 0), 40);
  EXPECT_EQ(prepared.type_of(product->inputs[1]).dtype, DType::u8);
  Session quantized(prepared, {});
  Session plain(import_onnx_bytes(bytes), {});
  for (uint64_t seed : {11, 12}) {
    const std::map<std::string, Tensor> inputs = {{"x", random_tensor({DType::f32, {2, 24, 40}}, seed)}};
    const Tensor got = quantized.run(inputs).at("y"), want = plain.run(inputs).at("y");
    float peak = 0;
    for (int64_t i = 0; i < want.elements(); ++i) peak = std::max(peak, std::abs(want.data_as<float>()[i]));
    EXPECT_GT(peak, 0.5f);
    for (int64_t i = 0; i < want.elements(); ++i) {
      ASSERT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-5f * peak) << i;
    }
  }
  // Zeros quantize with scale 0: the bias alone, no NaN from x / scale.
  const std::map<std::string, Tensor> zeros = {{"x", Tensor(DType::f32, {2, 24, 40})}};
  const Tensor got_zeros = quantized.run(zeros).at("y"), want_zeros = plain.run(zeros).at("y");
  for (int64_t i = 0; i < want_zeros.elements(); ++i) {
    ASSERT_EQ(got_zeros.data_as<float>()[i], want_zeros.data_as<float>()[i]) << i;
  }
  // Without the option (bundles from before it) the integer product stays.
  Graph older = import_onnx_bytes(bytes);
  optimize_graph(older, GraphOptions{});
  int integer_products = 0;
  for (const Node& n : older.nodes()) integer_products += n.op == "MatMulInteger";
  EXPECT_EQ(integer_products, 1);
}

// The ops of a prepared graph, counted, and its integer product (null for none).
const Node* integer_product(const Graph& graph, std::map<std::string, int>& ops) {
  const Node* product = nullptr;
  for (const Node& n : graph.nodes()) {
    ++ops[n.op];
    if (n.op == "NeeMatMul" && n.attrs.get_int("a_bits", 0) == 8) product = &n;
  }
  return product;
}

// The ops of a prepared graph, counted, and its last NeeConv (null for none).
const Node* last_conv(const Graph& graph, std::map<std::string, int>& ops) {
  const Node* conv = nullptr;
  for (const Node& n : graph.nodes()) {
    ++ops[n.op];
    if (n.op == "NeeConv") conv = &n;
  }
  return conv;
}

// Runs both graphs on random x of `shape` (two seeds) and on zeros; y agrees within 1e-5
// of its peak.
void expect_same_products(const Graph& prepared, const std::string& bytes, const std::vector<int64_t>& shape) {
  Session quantized(prepared, {});
  Session plain(import_onnx_bytes(bytes), {});
  for (uint64_t seed : {21, 22, 0}) {
    const Tensor x = seed == 0 ? Tensor(DType::f32, shape) : random_tensor({DType::f32, shape}, seed);
    const Tensor got = quantized.run({{"x", x}}).at("y"), want = plain.run({{"x", x}}).at("y");
    float peak = 0;
    for (int64_t i = 0; i < want.elements(); ++i) peak = std::max(peak, std::abs(want.data_as<float>()[i]));
    EXPECT_GT(peak, 0.01f);
    for (int64_t i = 0; i < want.elements(); ++i) {
      ASSERT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-5f * peak) << seed << " " << i;
    }
  }
}

TEST(QuantizedProducts, DynamicQuantizationRunsAsIntegerProducts) {
  GraphOptions options = quantizing_options();
  options.quantize_matmul_activations = true;
  // W less its zero points fits in signed bytes: an integer product of x, which the kernel
  // quantizes, so neither DynamicQuantizeLinear's bytes nor the centred A are made.
  const std::string bytes = dynamic_layer_bytes(120);
  Graph prepared = import_onnx_bytes(bytes);
  optimize_graph(prepared, options);
  std::map<std::string, int> ops;
  const Node* product = integer_product(prepared, ops);
  ASSERT_NE(product, nullptr);
  EXPECT_EQ(prepared.type_of(product->inputs[1]).dtype, DType::i8);
  EXPECT_EQ(prepared.type_of(product->inputs[4]).dtype, DType::u8);
  EXPECT_EQ(ops["Cast"], 0);
  EXPECT_EQ(ops["DynamicQuantizeLinear"], 1);
  expect_same_products(prepared, bytes, {2, 24, 40});
  // Integers that do not fit (127 less a zero point of -9) keep the f32 product.
  Graph wide = import_onnx_bytes(dynamic_layer_bytes(127, 9));
  optimize_graph(wide, options);
  std::map<std::string, int> wide_ops;
  EXPECT_EQ(integer_product(wide, wide_ops), nullptr);
  EXPECT_EQ(wide_ops["NeeMatMul"], 1);
}

// x [2, 24, 40] + shift -> QuantizeLinear and DequantizeLinear (u8, or i8) -> MatMul by W
// [40, 20] dequantized from int8 per column -> Add bias, as quantize_static writes a Linear
// layer after an elementwise op (which would fuse with the pair, and the pair's scale with
// the product's alpha).
std::string qdq_layer_bytes(bool signed_activations) {
  OnnxModelBuilder m;
  m.input("x", {2, 24, 40}).output("y");
  m.initializer("shift", random_tensor({DType::f32, {40}}, 6));
  m.node("Add", {"x", "shift"}, {"shifted"});
  Tensor scale(DType::f32, {});
  scale.data_as<float>()[0] = 0.011f;
  m.initializer("scale", scale);
  Tensor zero(signed_activations ? DType::i8 : DType::u8, {});
  static_cast<uint8_t*>(zero.data())[0] = signed_activations ? static_cast<uint8_t>(int8_t{-5}) : uint8_t{131};
  m.initializer("zero", zero);
  Tensor w(DType::i8, {40, 20}), w_scale(DType::f32, {20});
  for (int64_t i = 0; i < w.elements(); ++i) w.data_as<int8_t>()[i] = static_cast<int8_t>(i * 37 % 255 - 127);
  for (int64_t i = 0; i < w_scale.elements(); ++i) w_scale.data_as<float>()[i] = 0.001f * static_cast<float>(i + 1);
  m.initializer("w", w);
  m.initializer("w_scale", w_scale);
  m.initializer("bias", random_tensor({DType::f32, {20}}, 5));
  m.node("QuantizeLinear", {"shifted", "scale", "zero"}, {"xq"});
  m.node("DequantizeLinear", {"xq", "scale", "zero"}, {"xd"});
  onnx::NodeProto& dq = m.node("DequantizeLinear", {"w", "w_scale"}, {"wd"});
  test::set_attr(dq, "axis", int64_t{1});
  m.node("MatMul", {"xd", "wd"}, {"product"});
  m.node("Add", {"product", "bias"}, {"y"});
  return m.bytes();
}

TEST(QuantizedProducts, QdqProductsRunAsIntegerProducts) {
  GraphOptions options = quantizing_options();
  options.quantize_pairs_as_elementwise = options.quantize_matmul_activations = true;
  for (bool signed_activations : {false, true}) {
    const std::string bytes = qdq_layer_bytes(signed_activations);
    Graph prepared = import_onnx_bytes(bytes);
    optimize_graph(prepared, options);
    std::map<std::string, int> ops;
    const Node* product = integer_product(prepared, ops);
    ASSERT_NE(product, nullptr) << signed_activations;
    // The pair's elementwise kernel went with the product's f32 A, the Add's stayed a kernel
    // of its own, the product's x; i8's zero point is held shifted to u8's range.
    EXPECT_EQ(ops["NeeElementwise"], 1);
    const Tensor* zero = prepared.constant(product->inputs[4]);
    ASSERT_NE(zero, nullptr);
    EXPECT_EQ(zero->data_as<uint8_t>()[0], signed_activations ? 123 : 131);
    expect_same_products(prepared, bytes, {2, 24, 40});
  }
}

// x [1, 20, 9, 10] + shift -> QuantizeLinear and DequantizeLinear (u8) -> Conv by W [24, 20,
// 3, 3] dequantized from int8 per output channel, bias, pads 1 -> Relu -> a pair of int8 ->
// Conv by W [32, 24, 1, 1] of uint8 with a zero point of 128 per tensor, stride 2, as
// quantize_static writes a CNN's convs (24 channels, which pad_channels widens to 32).
std::string qdq_convs_bytes() {
  OnnxModelBuilder m;
  m.input("x", {1, 20, 9, 10}).output("y");
  m.initializer("shift", random_tensor({DType::f32, {1, 20, 1, 1}}, 7));
  m.node("Add", {"x", "shift"}, {"shifted"});
  const auto scalar = [&](const std::string& name, DType dtype, double value) {
    Tensor t(dtype, {});
    if (dtype == DType::f32) t.data_as<float>()[0] = static_cast<float>(value);
    if (dtype == DType::u8) t.data_as<uint8_t>()[0] = static_cast<uint8_t>(value);
    if (dtype == DType::i8) t.data_as<int8_t>()[0] = static_cast<int8_t>(value);
    m.initializer(name, t);
  };
  scalar("x_scale", DType::f32, 0.013);
  scalar("x_zero", DType::u8, 131);
  scalar("h_scale", DType::f32, 0.021);
  scalar("h_zero", DType::i8, -7);
  scalar("w2_scale", DType::f32, 0.004);
  scalar("w2_zero", DType::u8, 128);
  Tensor w1(DType::i8, {24, 20, 3, 3}), w1_scale(DType::f32, {24}), w2(DType::u8, {32, 24, 1, 1});
  for (int64_t i = 0; i < w1.elements(); ++i) w1.data_as<int8_t>()[i] = static_cast<int8_t>(i * 37 % 255 - 127);
  for (int64_t i = 0; i < 24; ++i) w1_scale.data_as<float>()[i] = 0.0005f * static_cast<float>(i + 1);
  for (int64_t i = 0; i < w2.elements(); ++i) w2.data_as<uint8_t>()[i] = static_cast<uint8_t>(i * 53 % 256);
  m.initializer("w1", w1);
  m.initializer("w1_scale", w1_scale);
  m.initializer("w2", w2);
  m.initializer("b1", random_tensor({DType::f32, {24}}, 8));
  m.node("QuantizeLinear", {"shifted", "x_scale", "x_zero"}, {"xq"});
  m.node("DequantizeLinear", {"xq", "x_scale", "x_zero"}, {"xd"});
  test::set_attr(m.node("DequantizeLinear", {"w1", "w1_scale"}, {"w1d"}), "axis", int64_t{0});
  test::set_attr(m.node("Conv", {"xd", "w1d", "b1"}, {"c1"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"h"});
  m.node("QuantizeLinear", {"h", "h_scale", "h_zero"}, {"hq"});
  m.node("DequantizeLinear", {"hq", "h_scale", "h_zero"}, {"hd"});
  m.node("DequantizeLinear", {"w2", "w2_scale", "w2_zero"}, {"w2d"});
  test::set_attr(m.node("Conv", {"hd", "w2d"}, {"y"}), "strides", std::vector<int64_t>{2, 2});
  return m.bytes();
}

TEST(QuantizedProducts, QdqConvsRunAsIntegerConvs) {
  GraphOptions options = quantizing_options();
  options.quantize_pairs_as_elementwise = options.quantize_conv_activations = true;
  options.block_activations = options.block_elementwise = options.pad_channels = true;
  const std::string bytes = qdq_convs_bytes();
  Graph prepared = import_onnx_bytes(bytes);
  optimize_graph(prepared, options);
  std::map<std::string, int> ops;
  std::vector<const Node*> integer_convs;
  for (const Node& n : prepared.nodes()) {
    ++ops[n.op];
    if (n.op == "NeeConv" && n.attrs.get_int("a_bits", 0) == 8) integer_convs.push_back(&n);
  }
  // Both convs quantize their inputs: the pairs' kernels went, the Add's stayed; the first
  // conv's 24 channels widened to 32 with its integers.
  ASSERT_EQ(integer_convs.size(), 2u);
  EXPECT_EQ(ops["NeeElementwise"], 1);
  EXPECT_EQ(prepared.type_of(integer_convs[0]->outputs[0]).elements(), 32 * 9 * 10);
  EXPECT_EQ(prepared.constant(integer_convs[0]->inputs[4])->data_as<uint8_t>()[0], 131);
  EXPECT_EQ(prepared.constant(integer_convs[1]->inputs[4])->data_as<uint8_t>()[0], 121);  // -7, shifted
  expect_same_products(prepared, bytes, {1, 20, 9, 10});
  // Without the flag the convs keep f32 weights.
  options.quantize_conv_activations = false;
  Graph plain = import_onnx_bytes(bytes);
  optimize_graph(plain, options);
  for (const Node& n : plain.nodes()) EXPECT_EQ(n.attrs.get_int("a_bits", 0), 0) << n.name;
}

// x [1, 16, 8, 8] -> Conv by f32 W [16, 16, 3, 3] and a bias -> a u8 pair -> SiLU as Sigmoid, a pair and
// Mul, as quantize_static writes EfficientNet's convs: the conv's pair is read by two ops.
TEST(QuantizedProducts, APairAfterAConvRunsInItsEpilogue) {
  OnnxModelBuilder m;
  m.input("x", {1, 16, 8, 8}).output("y");
  m.initializer("w", random_tensor({DType::f32, {16, 16, 3, 3}}, 9));
  m.initializer("b", random_tensor({DType::f32, {16}}, 10));
  Tensor scale(DType::f32, {}), zero(DType::u8, {}), gate_scale(DType::f32, {});
  scale.data_as<float>()[0] = 0.017f;
  zero.data_as<uint8_t>()[0] = 140;
  gate_scale.data_as<float>()[0] = 1.0f / 255;
  m.initializer("scale", scale);
  m.initializer("zero", zero);
  m.initializer("gate_scale", gate_scale);
  test::set_attr(m.node("Conv", {"x", "w", "b"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  m.node("QuantizeLinear", {"c", "scale", "zero"}, {"cq"});
  m.node("DequantizeLinear", {"cq", "scale", "zero"}, {"cd"});
  m.node("Sigmoid", {"cd"}, {"g"});
  m.node("QuantizeLinear", {"g", "gate_scale"}, {"gq"});
  m.node("DequantizeLinear", {"gq", "gate_scale"}, {"gd"});
  m.node("Mul", {"cd", "gd"}, {"y"});
  const std::string bytes = m.bytes();
  GraphOptions options = quantizing_options();
  options.quantize_pairs_as_elementwise = options.requantize_conv_outputs = true;
  Graph prepared = import_onnx_bytes(bytes);
  optimize_graph(prepared, options);
  std::map<std::string, int> ops;
  const Node* conv = last_conv(prepared, ops);
  ASSERT_NE(conv, nullptr);
  EXPECT_FLOAT_EQ(conv->attrs.get_float("requantize_scale"), 0.017f);
  EXPECT_EQ(conv->attrs.get_int("requantize_zero"), 140);
  EXPECT_EQ(conv->attrs.get_int("requantize_high"), 255);
  // The SiLU with its gate's pair is one kernel; the conv's pair has none of its own.
  EXPECT_EQ(ops["NeeElementwise"], 1);
  expect_same_products(prepared, bytes, {1, 16, 8, 8});
}

// x [1, 16, 8, 8] + shift -> a u8 pair -> Conv by W [16, 16, 3, 3] dequantized from int8, pads
// 1 -> Add of the pair's output, as quantize_static writes a ResNet's residual blocks: the
// pair's output is read by the next block's conv and by its residual Add.
TEST(QuantizedProducts, ConvsReadAPairTheirResidualReads) {
  OnnxModelBuilder m;
  m.input("x", {1, 16, 8, 8}).output("y");
  m.initializer("shift", random_tensor({DType::f32, {1, 16, 1, 1}}, 11));
  Tensor scale(DType::f32, {}), zero(DType::u8, {}), w(DType::i8, {16, 16, 3, 3}), w_scale(DType::f32, {});
  scale.data_as<float>()[0] = 0.011f;
  zero.data_as<uint8_t>()[0] = 120;
  w_scale.data_as<float>()[0] = 0.003f;
  for (int64_t i = 0; i < w.elements(); ++i) w.data_as<int8_t>()[i] = static_cast<int8_t>(i * 41 % 251 - 125);
  m.initializer("scale", scale);
  m.initializer("zero", zero);
  m.initializer("w", w);
  m.initializer("w_scale", w_scale);
  m.node("Add", {"x", "shift"}, {"shifted"});
  m.node("QuantizeLinear", {"shifted", "scale", "zero"}, {"sq"});
  m.node("DequantizeLinear", {"sq", "scale", "zero"}, {"sd"});
  m.node("DequantizeLinear", {"w", "w_scale"}, {"wd"});
  test::set_attr(m.node("Conv", {"sd", "wd"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  m.node("Add", {"c", "sd"}, {"y"});
  const std::string bytes = m.bytes();
  // The conv quantizes the pair's x where the flag is off (the shift's kernel writes x, the
  // pair's kernel its output for the residual) and the pair's output where it is on (the
  // shift and the pair one kernel).
  for (bool shared : {false, true}) {
    GraphOptions options = quantizing_options();
    options.quantize_pairs_as_elementwise = options.quantize_conv_activations = true;
    options.convs_read_shared_pairs = shared;
    Graph prepared = import_onnx_bytes(bytes);
    optimize_graph(prepared, options);
    std::map<std::string, int> ops;
    const Node* conv = last_conv(prepared, ops);
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->attrs.get_int("a_bits", 0), 8);
    EXPECT_EQ(ops["NeeElementwise"], shared ? 1 : 2) << shared;
    const Node* maker = prepared.producer(conv->inputs[0]);
    ASSERT_NE(maker, nullptr);
    EXPECT_EQ(maker->inputs[0], "x");
    EXPECT_EQ(maker->outputs[0] == "sd", shared);
    expect_same_products(prepared, bytes, {1, 16, 8, 8});
  }
}

// x [1, 3, 9, 9] -> DynamicQuantizeLinear -> ConvInteger by W [4, 3, 3, 3] int8 with a zero
// point per output channel, stride 2 and padding 1 -> Cast -> Mul by x_scale, as
// quantize_dynamic writes a Conv.
TEST(QuantizedProducts, DynamicQuantizedConvRunsAsConv) {
  OnnxModelBuilder m;
  m.input("x", {1, 3, 9, 9}).output("y");
  Tensor w(DType::i8, {4, 3, 3, 3}), w_zero(DType::i8, {4});
  // W less its zero points within a signed byte, as quantize_conv_activations needs.
  for (int64_t i = 0; i < w.elements(); ++i) w.data_as<int8_t>()[i] = static_cast<int8_t>(i * 29 % 241 - 120);
  for (int64_t i = 0; i < 4; ++i) w_zero.data_as<int8_t>()[i] = static_cast<int8_t>(3 * i - 4);
  m.initializer("w", w);
  m.initializer("w_zero", w_zero);
  m.node("DynamicQuantizeLinear", {"x"}, {"xq", "x_scale", "x_zero"});
  onnx::NodeProto& conv = m.node("ConvInteger", {"xq", "w", "x_zero", "w_zero"}, {"acc"});
  test::set_attr(conv, "strides", std::vector<int64_t>{2, 2});
  test::set_attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  test::set_attr(m.node("Cast", {"acc"}, {"acc_f"}), "to", int64_t{1});
  m.node("Mul", {"acc_f", "x_scale"}, {"y"});
  const std::string bytes = m.bytes();
  // As a Conv of f32 weights, and with quantize_conv_activations as an integer conv of x whose
  // scale and zero point DynamicQuantizeLinear makes as the model runs.
  for (bool integer : {false, true}) {
    GraphOptions options = quantizing_options();
    options.quantize_conv_activations = integer;
    Graph prepared = import_onnx_bytes(bytes);
    optimize_graph(prepared, options);
    std::map<std::string, int> ops;
    for (const Node& n : prepared.nodes()) {
      ++ops[n.op];
      if (n.op == "NeeConv") {
        EXPECT_EQ(n.attrs.get_int("a_bits", 0), integer ? 8 : 0);
      }
    }
    EXPECT_EQ(ops["ConvInteger"], 0);
    EXPECT_EQ(ops["NeeConv"], 1);
    Session quantized(prepared, {});
    Session plain(import_onnx_bytes(bytes), {});
    const std::map<std::string, Tensor> inputs = {{"x", random_tensor({DType::f32, {1, 3, 9, 9}}, 21)}};
    const Tensor got = quantized.run(inputs).at("y"), want = plain.run(inputs).at("y");
    ASSERT_EQ(got.shape(), (std::vector<int64_t>{1, 4, 5, 5}));
    float peak = 0;
    for (int64_t i = 0; i < want.elements(); ++i) peak = std::max(peak, std::abs(want.data_as<float>()[i]));
    EXPECT_GT(peak, 0.5f);
    for (int64_t i = 0; i < want.elements(); ++i) {
      ASSERT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-5f * peak) << integer << " " << i;
    }
  }
}

// x [2, 3, 40] quantized to `dtype` with scale 0.02 and zero point `zero`, then
// dequantized (scale 0.02, the same zero point), a Relu after: QDQ activations as
// quantize_static writes them. x reaches past the integer range, so some saturate.
std::string qdq_pair_bytes(int32_t dtype, int zero, float scale_value = 0.02f) {
  OnnxModelBuilder m;
  m.input("x", {2, 3, 40}).output("y").output("q", dtype);
  Tensor scale(DType::f32, {});
  scale.data_as<float>()[0] = scale_value;
  m.initializer("scale", scale);
  Tensor zero_point(dtype == onnx::TensorProto::INT8 ? DType::i8 : DType::u8, {});
  if (dtype == onnx::TensorProto::INT8) {
    zero_point.data_as<int8_t>()[0] = static_cast<int8_t>(zero);
  } else {
    zero_point.data_as<uint8_t>()[0] = static_cast<uint8_t>(zero);
  }
  m.initializer("zero", zero_point);
  m.node("QuantizeLinear", {"x", "scale", "zero"}, {"q"});
  m.node("DequantizeLinear", {"q", "scale", "zero"}, {"dq"});
  m.node("Relu", {"dq"}, {"y"});
  return m.bytes();
}

// The model prepared with its QDQ pairs as elementwise ops, and its ops counted into `ops`.
Graph with_pairs_as_elementwise(const std::string& bytes, std::map<std::string, int>& ops) {
  Graph prepared = import_onnx_bytes(bytes);
  GraphOptions options;
  options.quantize_pairs_as_elementwise = true;
  optimize_graph(prepared, options);
  for (const Node& n : prepared.nodes()) ++ops[n.op];
  return prepared;
}

TEST(QuantizedProducts, QuantizePairsRunAsOneElementwiseKernel) {
  for (const auto& [dtype, zero] : {std::pair{onnx::TensorProto::UINT8, 128}, std::pair{onnx::TensorProto::INT8, -3}}) {
    const std::string bytes = qdq_pair_bytes(dtype, zero);
    std::map<std::string, int> ops;
    const Graph prepared = with_pairs_as_elementwise(bytes, ops);
    // The quantized tensor is an output too, so its QuantizeLinear stays; the pair and the
    // Relu run as one kernel.
    EXPECT_EQ(ops["QuantizeLinear"], 1);
    EXPECT_EQ(ops["DequantizeLinear"], 0);
    EXPECT_EQ(ops["NeeElementwise"], 1);
    Session quantized(prepared, {});
    Session plain(import_onnx_bytes(bytes), {});
    Tensor x(DType::f32, {2, 3, 40});
    for (int64_t i = 0; i < x.elements(); ++i) x.data_as<float>()[i] = -3.0f + 0.025f * static_cast<float>(i);
    const std::map<std::string, Tensor> got = quantized.run({{"x", x}}), want = plain.run({{"x", x}});
    int zeros = 0, saturated = 0;
    for (int64_t i = 0; i < x.elements(); ++i) {
      const float g = got.at("y").data_as<float>()[i], w = want.at("y").data_as<float>()[i];
      EXPECT_EQ(g, w) << i;
      zeros += w == 0.0f;
      saturated += w == (dtype == onnx::TensorProto::INT8 ? 127 - zero : 255 - zero) * 0.02f;
    }
    EXPECT_GT(zeros, 0);
    EXPECT_GT(saturated, 0);
  }
}

// A pair of scale inf (onnxruntime's calibration of a range reaching -inf) stays on the
// reference kernels: (q - zero) * inf is NaN, which the elementwise kernel did not make.
TEST(QuantizedProducts, PairsOfAnInfiniteScaleStayOnTheReferenceKernels) {
  const std::string bytes = qdq_pair_bytes(onnx::TensorProto::UINT8, 0, std::numeric_limits<float>::infinity());
  std::map<std::string, int> ops;
  const Graph prepared = with_pairs_as_elementwise(bytes, ops);
  EXPECT_EQ(ops["DequantizeLinear"], 1);
  Session quantized(prepared, {});
  Session plain(import_onnx_bytes(bytes), {});
  const Tensor x = random_tensor({DType::f32, {2, 3, 40}}, 7);
  const Tensor got = quantized.run({{"x", x}}).at("y"), want = plain.run({{"x", x}}).at("y");
  for (int64_t i = 0; i < want.elements(); ++i) {
    const float g = got.data_as<float>()[i], w = want.data_as<float>()[i];
    EXPECT_TRUE(g == w || (std::isnan(g) && std::isnan(w))) << i << ": " << g << " vs " << w;
  }
}

// DynamicQuantizeLinear's vector loop against the formula element by element, over 101
// values (six vectors and a tail) with ties: x / scale is k + 0.5 for half of them, which
// round to the even neighbour.
TEST(QuantizedProducts, DynamicQuantizeLinearRoundsHalfToEven) {
  OnnxModelBuilder m;
  m.input("x", {101}).output("q", onnx::TensorProto::UINT8).output("scale").output("zero", onnx::TensorProto::UINT8);
  m.node("DynamicQuantizeLinear", {"x"}, {"q", "scale", "zero"});
  Session session(import_onnx_bytes(m.bytes()), {});
  Tensor x(DType::f32, {101});
  // Range [-128, 127]: scale 1 and zero point 128, so x = k + 0.5 is a tie.
  for (int64_t i = 0; i < 101; ++i) x.data_as<float>()[i] = -127.5f + 2.5f * static_cast<float>(i);
  x.data_as<float>()[0] = -128.0f;
  x.data_as<float>()[100] = 127.0f;
  const std::map<std::string, Tensor> out = session.run({{"x", x}});
  const float scale = out.at("scale").data_as<float>()[0];
  EXPECT_EQ(scale, 1.0f);
  const float zero = out.at("zero").data_as<uint8_t>()[0];
  EXPECT_EQ(zero, 128);
  int ties = 0;
  for (int64_t i = 0; i < 101; ++i) {
    const float q = x.data_as<float>()[i] / scale;
    ties += q - std::floor(q) == 0.5f;
    const float want = std::clamp(std::nearbyint(q) + zero, 0.0f, 255.0f);
    EXPECT_EQ(out.at("q").data_as<uint8_t>()[i], static_cast<uint8_t>(want)) << i;
  }
  EXPECT_GT(ties, 0);
}

}  // namespace
}  // namespace nee
