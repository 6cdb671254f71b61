// Each kind of bad model gets a clear nee::Error that names the problem.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"

namespace nee {
namespace {

using test::make_f32;
using test::OnnxModelBuilder;
using test::set_attr;
using ::testing::HasSubstr;

std::string import_error(const std::string& bytes, const InputShapes& shapes = {}) {
  try {
    import_onnx_bytes(bytes, shapes);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "import succeeded";
  return "";
}

OnnxModelBuilder relu_model() {
  OnnxModelBuilder m;
  m.input("x", {2, 2}).output("y");
  m.node("Relu", {"x"}, {"y"}, "act");
  return m;
}

TEST(ImportErrors, MissingFile) {
  try {
    import_onnx("/nonexistent/model.onnx");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot open"));
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/model.onnx"));
  }
}

TEST(ImportErrors, TruncatedFileNamesThePath) {
  OnnxModelBuilder m;
  m.input("x", {64, 64}).output("y");
  m.initializer("w", make_f32({64, 64}, std::vector<float>(64 * 64, 1.0f)));
  m.node("MatMul", {"x", "w"}, {"y"});
  const std::string bytes = m.bytes();
  const std::string path = ::testing::TempDir() + "/truncated.onnx";
  std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  try {
    import_onnx(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("truncated or malformed"));
    EXPECT_THAT(e.what(), HasSubstr(path));
  }
}

TEST(ImportErrors, GarbageBytes) {
  EXPECT_THAT(import_error(std::string("\xff\xff\xff\xff garbage", 12)), HasSubstr("not a valid ONNX model"));
}

TEST(ImportErrors, UnsupportedOperatorNamesOpAndNode) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("y");
  m.node("Frobnicate", {"x"}, {"y"}, "weird_node");
  const std::string error = import_error(m.bytes());
  EXPECT_THAT(error, HasSubstr("unsupported operator 'Frobnicate'"));
  EXPECT_THAT(error, HasSubstr("weird_node"));
}

TEST(ImportErrors, UnsupportedInputDtype) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::COMPLEX64, {"2"}).output("y");
  m.node("Relu", {"x"}, {"y"});
  const std::string error = import_error(m.bytes());
  EXPECT_THAT(error, HasSubstr("unsupported data type COMPLEX64"));
  EXPECT_THAT(error, HasSubstr("'x'"));
}

TEST(ImportErrors, UnsupportedInitializerDtype) {
  OnnxModelBuilder m = relu_model();
  auto& init = m.raw_initializer();
  init.set_name("complex");
  init.set_data_type(onnx::TensorProto::COMPLEX64);
  init.add_dims(1);
  init.set_raw_data(std::string(8, '\0'));
  EXPECT_THAT(import_error(m.bytes()), HasSubstr("unsupported data type COMPLEX64"));
}

TEST(ImportErrors, RawInitializerSizeMismatch) {
  OnnxModelBuilder m = relu_model();
  auto& init = m.raw_initializer();
  init.set_name("w");
  init.set_data_type(onnx::TensorProto::FLOAT);
  init.add_dims(3);
  init.add_dims(4);
  init.set_raw_data(std::string(4 * 11, '\0'));
  const std::string error = import_error(m.bytes());
  EXPECT_THAT(error, HasSubstr("initializer 'w'"));
  EXPECT_THAT(error, HasSubstr("48 bytes"));
  EXPECT_THAT(error, HasSubstr("44 bytes"));
}

TEST(ImportErrors, TypedInitializerSizeMismatch) {
  OnnxModelBuilder m = relu_model();
  auto& init = m.raw_initializer();
  init.set_name("w");
  init.set_data_type(onnx::TensorProto::FLOAT);
  init.add_dims(2);
  init.add_float_data(1.0f);
  const std::string error = import_error(m.bytes());
  EXPECT_THAT(error, HasSubstr("initializer 'w'"));
  EXPECT_THAT(error, HasSubstr("float_data holds 1"));
}

TEST(ImportErrors, DimsProductOverflows) {
  OnnxModelBuilder m = relu_model();
  auto& init = m.raw_initializer();
  init.set_name("huge");
  init.set_data_type(onnx::TensorProto::FLOAT);
  init.add_dims(int64_t{1} << 40);
  init.add_dims(int64_t{1} << 40);
  EXPECT_THAT(import_error(m.bytes()), HasSubstr("overflows"));
}

TEST(ImportErrors, TensorOverSizeLimitFromTinyFile) {
  OnnxModelBuilder m = relu_model();
  auto& init = m.raw_initializer();
  init.set_name("big");
  init.set_data_type(onnx::TensorProto::FLOAT);
  init.add_dims(int64_t{1} << 20);
  init.add_dims(int64_t{1} << 20);
  const std::string bytes = m.bytes();
  EXPECT_LT(bytes.size(), 200u);
  EXPECT_THAT(import_error(bytes), HasSubstr("GiB limit"));
}

TEST(ImportErrors, InferredOutputOverSizeLimit) {
  OnnxModelBuilder m;
  m.input("a", {100000, 1}).input("b", {1, 100000}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"}, "outer");
  const std::string error = import_error(m.bytes());
  EXPECT_THAT(error, HasSubstr("GiB limit"));
  EXPECT_THAT(error, HasSubstr("outer"));
}

TEST(ImportErrors, MatMulShapeMismatchNamesNode) {
  OnnxModelBuilder m;
  m.input("a", {2, 3}).input("b", {4, 5}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"}, "mm");
  const std::string error = import_error(m.bytes());
  EXPECT_THAT(error, HasSubstr("node 'mm' (MatMul)"));
  EXPECT_THAT(error, HasSubstr("inner dimensions differ"));
}

TEST(ImportErrors, AddShapesDoNotBroadcast) {
  OnnxModelBuilder m;
  m.input("a", {2, 3}).input("b", {4}).output("y");
  m.node("Add", {"a", "b"}, {"y"}, "add");
  EXPECT_THAT(import_error(m.bytes()), HasSubstr("do not broadcast"));
}

TEST(ImportErrors, DeclaredOutputShapeMismatch) {
  OnnxModelBuilder m;
  m.input("x", {2, 2}).output("y", {2, 3});
  m.node("Relu", {"x"}, {"y"});
  const std::string error = import_error(m.bytes());
  EXPECT_THAT(error, HasSubstr("shape mismatch"));
  EXPECT_THAT(error, HasSubstr("'y'"));
}

TEST(ImportErrors, CycleNamesANodeOnIt) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("y");
  m.node("Add", {"x", "c"}, {"a"}, "first");
  m.node("Relu", {"a"}, {"c"}, "second");
  m.node("Relu", {"a"}, {"y"}, "after");
  const std::string error = import_error(m.bytes());
  EXPECT_THAT(error, HasSubstr("cycle"));
  EXPECT_TRUE(error.find("'first'") != std::string::npos || error.find("'second'") != std::string::npos)
      << error;
}

TEST(ImportErrors, UnknownValue) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("y");
  m.node("Add", {"x", "ghost"}, {"y"}, "add");
  EXPECT_THAT(import_error(m.bytes()), HasSubstr("reads 'ghost'"));
}

TEST(ImportErrors, ReshapeNeedsConstantShape) {
  OnnxModelBuilder m;
  m.input("x", {4}).input("s", onnx::TensorProto::INT64, {"1"}).output("y");
  m.node("Reshape", {"x", "s"}, {"y"}, "rs");
  EXPECT_THAT(import_error(m.bytes()), HasSubstr("not a constant"));
}

TEST(ImportErrors, DynamicNonBatchDim) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::FLOAT, {"N", "features"}).output("y");
  m.node("Relu", {"x"}, {"y"});
  const std::string error = import_error(m.bytes());
  EXPECT_THAT(error, HasSubstr("dynamic dim 1"));
  EXPECT_THAT(error, HasSubstr("features"));
}

TEST(ImportShapes, SymbolicBatchDefaultsToOne) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::FLOAT, {"N", "3"}).output("y");
  m.node("Relu", {"x"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  EXPECT_EQ(g.type_of("x").shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(g.type_of("y").shape, (std::vector<int64_t>{1, 3}));
}

TEST(ImportShapes, GivenShapesOverrideSymbolicDims) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::FLOAT, {"N", "features"}).output("y");
  m.node("Relu", {"x"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes(), {{"x", {8, 5}}});
  EXPECT_EQ(g.type_of("y").shape, (std::vector<int64_t>{8, 5}));
}

TEST(ImportShapes, GivenShapeMustAgreeWithStaticDims) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::FLOAT, {"N", "3"}).output("y");
  m.node("Relu", {"x"}, {"y"});
  EXPECT_THAT(import_error(m.bytes(), {{"x", {8, 4}}}), HasSubstr("contradicts"));
  EXPECT_THAT(import_error(m.bytes(), {{"z", {1}}}), HasSubstr("'z'"));
}

}  // namespace
}  // namespace nee
