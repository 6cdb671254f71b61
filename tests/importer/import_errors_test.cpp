// Each kind of bad model gets a clear nee::Error that names the problem.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"

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

TEST(ImportErrors, ModelWithoutAGraph) {
  onnx::ModelProto model = OnnxModelBuilder().model();
  model.clear_graph();
  EXPECT_THAT(import_error(model.SerializeAsString()), HasSubstr("has no graph"));
  EXPECT_THAT([&] { load_staged_onnx_bytes(model.SerializeAsString()); },
              ::testing::ThrowsMessage<Error>(HasSubstr("has no graph")));
}

TEST(ImportErrors, EmptyGraphDeclaresNoOutputs) {
  const std::string error = import_error(OnnxModelBuilder().bytes());
  EXPECT_THAT(error, HasSubstr("graph 'test' declares no outputs (0 nodes, 0 inputs)"));
  // Nodes without a declared output compute nothing a caller can read either.
  OnnxModelBuilder m;
  m.input("x", {2});
  m.node("Relu", {"x"}, {"y"});
  EXPECT_THAT(import_error(m.bytes()), HasSubstr("declares no outputs (1 nodes, 1 inputs)"));
}

TEST(ImportErrors, IrVersionNewerThanTheOnnxLibraryKnows) {
  OnnxModelBuilder m = relu_model();
  m.model().set_ir_version(999);
  const std::string error = import_error(m.bytes());
  EXPECT_THAT(error, HasSubstr("IR version 999"));
  EXPECT_THAT(error, HasSubstr("IR versions 3 to 14"));
  m.model().set_ir_version(onnx::IR_VERSION);
  EXPECT_NO_THROW(import_onnx_bytes(m.bytes()));
}

TEST(ImportErrors, OperandTypeOutsideTheOperatorsTypeConstraints) {
  // Relu takes int8 from its version 14 on, not before.
  OnnxModelBuilder m(13);
  m.input("x", onnx::TensorProto::INT8, {"2"}).output("y", onnx::TensorProto::INT8);
  m.node("Relu", {"x"}, {"y"}, "act");
  const std::string error = import_error(m.bytes());
  EXPECT_THAT(error, HasSubstr("node 'act' (Relu): input 0 'x' is tensor(int8), which Relu at opset 13 (its version "
                               "13) does not take as its input 'X': T is one of tensor(bfloat16), tensor(double), "
                               "tensor(float), tensor(float16)"));
  OnnxModelBuilder newer(14);
  newer.model().mutable_graph()->CopyFrom(m.model().graph());
  EXPECT_NO_THROW(import_onnx_bytes(newer.bytes()));
  // The check is every operator's: Sqrt takes floating-point types only, at any opset.
  OnnxModelBuilder sqrt;
  sqrt.input("x", onnx::TensorProto::INT32, {"2"}).output("y", onnx::TensorProto::INT32);
  sqrt.node("Sqrt", {"x"}, {"y"}, "root");
  EXPECT_THAT(import_error(sqrt.bytes()), HasSubstr("node 'root' (Sqrt): input 0 'x' is tensor(int32)"));
}

TEST(ImportErrors, OutputTypeOutsideTheOperatorsTypeConstraints) {
  // Cast makes strings from its version 9 on, not before.
  for (int64_t opset : {8, 9}) {
    OnnxModelBuilder m(opset);
    m.input("x", {2}).output("y", onnx::TensorProto::STRING);
    set_attr(m.node("Cast", {"x"}, {"y"}, "to_text"), "to", int64_t{onnx::TensorProto::STRING});
    if (opset == 9) {
      EXPECT_NO_THROW(import_onnx_bytes(m.bytes()));
      continue;
    }
    EXPECT_THAT(import_error(m.bytes()), HasSubstr("node 'to_text' (Cast): output 0 'y' is tensor(string), which Cast "
                                                   "at opset 8 (its version 6) does not take as its output 'output'"));
  }
}

TEST(ImportErrors, OperatorTheModelsOpsetDoesNotDefine) {
  OnnxModelBuilder m(13);  // HardSwish came with opset 14
  m.input("x", {2}).output("y");
  m.node("HardSwish", {"x"}, {"y"}, "hs");
  EXPECT_THAT(import_error(m.bytes()),
              HasSubstr("node 'hs' (HardSwish): operator 'HardSwish' came with opset 14; the model's default-domain "
                        "opset is 13"));
}

// ONNX lets a graph output be a graph input (IR.md: a graph input defines a value, a
// graph output uses it); its value is the input's.
TEST(ImportShapes, GraphOutputThatIsAGraphInputReturnsTheInput) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("x").output("y");
  m.node("Relu", {"x"}, {"y"});
  const Graph g = import_onnx_bytes(m.bytes());
  EXPECT_EQ(g.outputs(), (std::vector<std::string>{"x", "y"}));
  Session session(g, {}, SessionOptions{optimize_graph});
  const auto out = session.run({{"x", make_f32({2}, {-1.5f, 2.5f})}});
  EXPECT_EQ(test::values_of(out.at("x")), (std::vector<float>{-1.5f, 2.5f}));
  EXPECT_EQ(test::values_of(out.at("y")), (std::vector<float>{0.0f, 2.5f}));
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
