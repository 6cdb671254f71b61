// Bounded memory by design: every size the importer and the session allocate is checked
// against the data present and against the caps (runtime/tensor_limits.h) before the
// allocation, and the error names the tensor, its size and the cap.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_limits.h"

namespace nee {
namespace {

using test::make_f32;
using test::make_i64;
using test::OnnxModelBuilder;
using test::set_attr;
using ::testing::HasSubstr;

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;

int64_t max_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

std::string import_error(const std::string& bytes, const MemoryCaps& caps = {}) {
  try {
    import_onnx_bytes(bytes, {}, {}, caps);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "import succeeded";
  return "";
}

// A Relu model with an extra initializer 'w' of f32[2^28] (1 GiB declared) whose data
// `fill` provides, or fails to.
template <typename Fill>
std::string gigabyte_initializer_model(Fill fill) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"});
  onnx::TensorProto& init = m.raw_initializer();
  init.set_name("w");
  init.set_data_type(onnx::TensorProto::FLOAT);
  init.add_dims(kGiB / 4);
  fill(init);
  return m.bytes();
}

// The model declares 1 GiB and carries 8 bytes: refused by comparing the two, with the
// process's peak resident size growing by nowhere near the declared size (it grew by
// 1.06 GB when the importer allocated first).
void expect_refused_without_growing(const std::string& bytes, const std::string& field) {
  EXPECT_LT(bytes.size(), 200u);
  const int64_t before = max_rss_bytes();
  // The check means something only while the peak so far is below the declared size.
  ASSERT_LT(before, kGiB / 2);
  const std::string error = import_error(bytes);
  EXPECT_LT(max_rss_bytes() - before, 64 * kMiB);
  EXPECT_THAT(error, HasSubstr("initializer 'w'"));
  EXPECT_THAT(error, HasSubstr("f32[268435456]"));
  EXPECT_THAT(error, HasSubstr(field));
}

TEST(MemoryCaps, GigabyteInitializerWithEightRawBytesIsRefusedBeforeAllocating) {
  const std::string bytes =
      gigabyte_initializer_model([](onnx::TensorProto& t) { t.set_raw_data(std::string(8, '\1')); });
  expect_refused_without_growing(bytes, "raw_data holds 8 bytes");
}

TEST(MemoryCaps, GigabyteInitializerWithTwoTypedValuesIsRefusedBeforeAllocating) {
  const std::string bytes = gigabyte_initializer_model([](onnx::TensorProto& t) {
    t.add_float_data(1.0f);
    t.add_float_data(2.0f);
  });
  expect_refused_without_growing(bytes, "float_data holds 2");
}

TEST(MemoryCaps, GigabyteExternalDataWithEightBytesInTheFileIsRefused) {
  const std::filesystem::path folder = std::filesystem::path(::testing::TempDir()) / "memory_caps_external";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "w.bin", std::ios::binary) << std::string(8, '\1');
  const std::string bytes = gigabyte_initializer_model([](onnx::TensorProto& t) {
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* location = t.add_external_data();
    location->set_key("location");
    location->set_value("w.bin");
  });
  const std::string path = (folder / "model.onnx").string();
  std::ofstream(path, std::ios::binary) << bytes;
  const int64_t before = max_rss_bytes();
  try {
    import_onnx(path);
    FAIL() << "import succeeded";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("initializer 'w'"));
    EXPECT_THAT(e.what(), HasSubstr("external data holds 8 bytes"));
  }
  EXPECT_LT(max_rss_bytes() - before, 64 * kMiB);
}

TEST(MemoryCaps, ConstantNodeDeclaringMoreThanItCarriesIsRefused) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("y");
  onnx::NodeProto& constant = m.node("Constant", {}, {"c"}, "big_constant");
  onnx::AttributeProto* value = constant.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value->mutable_t()->add_dims(kGiB / 4);
  value->mutable_t()->set_raw_data(std::string(8, '\1'));
  m.node("Add", {"x", "c"}, {"y"});
  const int64_t before = max_rss_bytes();
  const std::string error = import_error(m.bytes());
  EXPECT_LT(max_rss_bytes() - before, 64 * kMiB);
  EXPECT_THAT(error, HasSubstr("node 'big_constant' (Constant)"));
  EXPECT_THAT(error, HasSubstr("raw_data holds 8 bytes"));
}

TEST(MemoryCaps, InitializersTogetherAreCappedNamingTheOneThatPassesTheCap) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"});
  m.initializer("first", Tensor(DType::f32, {kMiB / 4}));   // 1 MiB
  m.initializer("second", Tensor(DType::f32, {kMiB / 4}));  // 1 MiB more
  MemoryCaps caps;
  caps.weights_bytes = 3 * kMiB / 2;
  EXPECT_NO_THROW(import_onnx_bytes(m.bytes()));
  const std::string error = import_error(m.bytes(), caps);
  EXPECT_THAT(error, HasSubstr("initializer 'second' takes 1 MiB"));
  EXPECT_THAT(error, HasSubstr("1 MiB taken before it"));
  EXPECT_THAT(error, HasSubstr("1.50 MiB cap on the model's weights"));
}

TEST(MemoryCaps, LoopCopyingItsBodysInitializerEachIterationIsCapped) {
  // Each unrolled iteration copies the body's 1 MiB initializer: 100 iterations would
  // make 100 MiB of constants from a model of 1 MiB.
  OnnxModelBuilder body;
  body.input("i", onnx::TensorProto::INT64, {}).input("cond_in", onnx::TensorProto::BOOL, {});
  body.input("acc_in", {kMiB / 4});
  body.initializer("w", Tensor(DType::f32, {kMiB / 4}));
  body.node("Add", {"acc_in", "w"}, {"acc_out"});
  body.node("Identity", {"cond_in"}, {"cond_out"});
  body.output("cond_out", onnx::TensorProto::BOOL).output("acc_out");
  OnnxModelBuilder m;
  m.input("x", {kMiB / 4}).output("final");
  m.initializer("trips", make_i64({}, {100}));
  set_attr(m.node("Loop", {"trips", "", "x"}, {"final"}, "loop"), "body", body);
  MemoryCaps caps;
  caps.weights_bytes = 16 * kMiB;
  const std::string error = import_error(m.bytes(), caps);
  EXPECT_THAT(error, HasSubstr("initializer 'w' of subgraph"));
  EXPECT_THAT(error, HasSubstr("16 MiB cap on the model's weights"));
}

// x f32[1] broadcast by `op` to f32[elements], then summed to one value.
OnnxModelBuilder bomb_model(const std::string& op, int64_t elements) {
  OnnxModelBuilder m;
  m.input("x", {1}).output("y");
  m.initializer("shape", make_i64({1}, {elements}));
  if (op == "Expand") {
    m.node("Expand", {"x", "shape"}, {"big"}, "bomb");
  } else {
    m.node("ConstantOfShape", {"shape"}, {"zeros"}, "bomb");
    m.node("Add", {"zeros", "x"}, {"big"});
  }
  m.node("ReduceSum", {"big"}, {"y"});
  return m;
}

TEST(MemoryCaps, ExpandAndConstantOfShapeBombsAreRefusedAtImportNamingTheNode) {
  // 2^27 floats: 512 MiB, over a 64 MiB cap on any one tensor.
  for (const std::string op : {"Expand", "ConstantOfShape"}) {
    const std::string error = import_error(bomb_model(op, int64_t{1} << 27).bytes(), memory_caps_within(64 * kMiB));
    EXPECT_THAT(error, HasSubstr("of node 'bomb' (" + op + ")")) << op;
    EXPECT_THAT(error, HasSubstr("512 MiB")) << op;
    EXPECT_THAT(error, HasSubstr("over the 64 MiB limit per tensor")) << op;
  }
}

TEST(MemoryCaps, SessionRefusesAPlanOverItsCapBeforeAllocatingNamingTheNode) {
  // 2^25 floats: a 128 MiB intermediate, within the tensor cap, over a 64 MiB run cap.
  const Graph graph = import_onnx_bytes(bomb_model("Expand", int64_t{1} << 25).bytes());
  SessionOptions options{optimize_graph};
  options.memory_caps.plan_bytes = 64 * kMiB;
  Session session(graph, {}, options);
  const int64_t before = max_rss_bytes();
  try {
    session.prepare();
    FAIL() << "prepare() succeeded";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("over the 64 MiB cap on one run's memory"));
    EXPECT_THAT(e.what(), HasSubstr("'big' of node 'bomb' (Expand), f32[33554432] (128 MiB)"));
  }
  EXPECT_LT(max_rss_bytes() - before, 64 * kMiB);
  // The same graph within the default caps prepares and runs.
  Session fits(graph, {}, SessionOptions{optimize_graph});
  const auto out = fits.run({{"x", make_f32({1}, {0.5f})}});
  EXPECT_FLOAT_EQ(out.at("y").data_as<float>()[0], 0.5f * (1 << 25));
}

TEST(MemoryCaps, SessionRefusesWeightsAndInputsOverTheTotalCap) {
  OnnxModelBuilder m;
  m.input("x", {kMiB / 4}).output("y");
  m.initializer("w", Tensor(DType::f32, {kMiB / 4}));
  m.node("Add", {"x", "w"}, {"y"});
  const Graph graph = import_onnx_bytes(m.bytes());
  SessionOptions options{optimize_graph};
  options.memory_caps.total_bytes = 2 * kMiB;  // 1 MiB of weights, 1 MiB input, 1 MiB output
  Session session(graph, {}, options);
  try {
    session.prepare();
    FAIL() << "prepare() succeeded";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the model takes 3 MiB (1 MiB of constants, 1 MiB of inputs, 1 MiB per run)"));
    EXPECT_THAT(e.what(), HasSubstr("over the 2 MiB cap on its memory"));
  }
}

TEST(MemoryCaps, ByteSizesParseAsTheCommandLineWritesThem) {
  EXPECT_EQ(parse_byte_size("512M"), 512 * kMiB);
  EXPECT_EQ(parse_byte_size("4G"), 4 * kGiB);
  EXPECT_EQ(parse_byte_size("4GiB"), 4 * kGiB);
  EXPECT_EQ(parse_byte_size("4gb"), 4 * kGiB);
  EXPECT_EQ(parse_byte_size("2T"), 2 * 1024 * kGiB);
  EXPECT_EQ(parse_byte_size("64k"), 64 * 1024);
  EXPECT_EQ(parse_byte_size("1048576"), kMiB);
  EXPECT_EQ(parse_byte_size("100B"), 100);
  for (const char* bad : {"", "G", "-1G", "0", "1.5G", "12X", "4 G", "4GG", "99999999999T",
                          "99999999999999999999"}) {
    EXPECT_THAT([&] { parse_byte_size(bad); }, ::testing::ThrowsMessage<Error>(HasSubstr("is not a byte size")))
        << bad;
  }
}

TEST(MemoryCaps, CapsWithinATotalLowerEveryCap) {
  const MemoryCaps small = memory_caps_within(512 * kMiB);
  EXPECT_EQ(small.tensor_bytes, 512 * kMiB);
  EXPECT_EQ(small.weights_bytes, 512 * kMiB);
  EXPECT_EQ(small.plan_bytes, 512 * kMiB);
  EXPECT_EQ(small.total_bytes, 512 * kMiB);
  const MemoryCaps large = memory_caps_within(64 * kGiB);
  EXPECT_EQ(large.tensor_bytes, kMaxTensorBytes);  // one tensor stays within 4 GiB
  EXPECT_EQ(large.weights_bytes, 64 * kGiB);
  EXPECT_EQ(large.total_bytes, 64 * kGiB);
  EXPECT_EQ(format_bytes(100), "100 bytes");
  EXPECT_EQ(format_bytes(3 * kMiB / 2), "1.50 MiB");
  EXPECT_EQ(format_bytes(4 * kGiB), "4 GiB");
}

}  // namespace
}  // namespace nee
