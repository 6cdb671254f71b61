// f16 and bf16 models: element-moving operators keep the bits, the others compute in
// f32 between Casts the importer adds, and outputs keep their names and declared dtypes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/half_float.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;
using ::testing::ElementsAre;

Tensor make_f16(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  Tensor t(DType::f16, shape);
  for (size_t i = 0; i < values.size(); ++i) t.data_as<uint16_t>()[i] = f32_to_f16(values[i]);
  return t;
}

std::vector<float> f16_values(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DType::f16);
  std::vector<float> out;
  for (int64_t i = 0; i < t.elements(); ++i) out.push_back(f16_to_f32(t.data_as<uint16_t>()[i]));
  return out;
}

// 2048 + 1 is not an f16 (its spacing there is 2): each Add rounds its result to f16, as
// numpy does, so (2048 + 1) + 1 is 2048 and not 2050. A constant f16 addend folds.
TEST(HalfPrecision, ArithmeticRoundsEachResultToF16) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::FLOAT16, {"2"}).output("y", onnx::TensorProto::FLOAT16);
  m.initializer("one", make_f16({2}, {1, 1}));
  m.node("Add", {"x", "one"}, {"t"});
  m.node("Add", {"t", "one"}, {"y"});
  Session session(import_onnx_bytes(m.bytes()), {}, SessionOptions{optimize_graph});
  const auto out = session.run({{"x", make_f16({2}, {2048, 0.5f})}});
  EXPECT_THAT(f16_values(out.at("y")), ElementsAre(2048, 2.5f));
}

// Moving operators keep the f16 values; an operator with a bool output keeps its name.
TEST(HalfPrecision, MovesKeepBitsAndOtherDtypesKeepTheirNames) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::FLOAT16, {"2", "2"}).output("t", onnx::TensorProto::FLOAT16);
  m.output("same", onnx::TensorProto::BOOL);
  m.node("Transpose", {"x"}, {"t"});
  m.node("Equal", {"x", "t"}, {"same"});
  Session session(import_onnx_bytes(m.bytes()), {}, SessionOptions{optimize_graph});
  const auto out = session.run({{"x", make_f16({2, 2}, {1, 2, 2, 65504})}});
  EXPECT_THAT(f16_values(out.at("t")), ElementsAre(1, 2, 2, 65504));
  const Tensor& same = out.at("same");
  EXPECT_THAT(std::vector<bool>(same.data_as<bool>(), same.data_as<bool>() + 4), ElementsAre(true, true, true, true));
}

}  // namespace
}  // namespace nee
