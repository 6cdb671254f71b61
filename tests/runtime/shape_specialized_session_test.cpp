// A model with symbolic dims run at several shapes through one ShapeSpecializedSession:
// each result equals a Session imported at that shape, a shape seen before makes no new
// specialization, and past its capacity the least recently used one goes.
#include <gtest/gtest.h>

#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/session.h"
#include "runtime/shape_specialized_session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;

// y = softmax(x W) over the last dim, x of shape batch x seq x 4.
std::string symbolic_model() {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::FLOAT, {"batch", "seq", "4"}).output("y");
  m.initializer("w", random_tensor(TensorType{DType::f32, {4, 3}}, 7));
  m.node("MatMul", {"x", "w"}, {"xw"});
  m.node("Softmax", {"xw"}, {"y"});
  return m.bytes();
}

ShapeSpecializedSession make(const std::string& model, size_t capacity) {
  return ShapeSpecializedSession(
      [model](const ShapeSpecializedSession::InputShapes& shapes) { return import_onnx_bytes(model, shapes); },
      [] { return std::vector<std::unique_ptr<KernelProvider>>{}; }, capacity);
}

TEST(ShapeSpecializedSession, EachShapeMatchesASessionImportedAtIt) {
  const std::string model = symbolic_model();
  ShapeSpecializedSession session = make(model, 8);
  const std::vector<std::vector<int64_t>> shapes = {{1, 5, 4}, {2, 9, 4}, {1, 16, 4}, {1, 5, 4}};
  for (size_t k = 0; k < shapes.size(); ++k) {
    const Tensor x = random_tensor(TensorType{DType::f32, shapes[k]}, 100 + k);
    const Tensor got = session.run({{"x", x}}).at("y");
    Session alone(import_onnx_bytes(model, {{"x", shapes[k]}}), {});
    const Tensor want = alone.run({{"x", x}}).at("y");
    ASSERT_EQ(got.shape(), (std::vector<int64_t>{shapes[k][0], shapes[k][1], 3}));
    for (int64_t i = 0; i < got.elements(); ++i) EXPECT_EQ(got.data_as<float>()[i], want.data_as<float>()[i]);
  }
  EXPECT_EQ(session.made(), 3u);  // the fourth shape is the first again
  EXPECT_EQ(session.kept(), 3u);
}

TEST(ShapeSpecializedSession, TheLeastRecentlyUsedGoesPastCapacity) {
  ShapeSpecializedSession session = make(symbolic_model(), 2);
  const auto run_at = [&session](int64_t seq) {
    session.run({{"x", random_tensor(TensorType{DType::f32, {1, seq, 4}}, 1)}});
  };
  run_at(2);
  run_at(3);
  run_at(2);  // 3 is now the least recently used
  run_at(4);  // evicts 3
  EXPECT_EQ(session.made(), 3u);
  run_at(2);  // still kept
  EXPECT_EQ(session.made(), 3u);
  run_at(3);  // made again
  EXPECT_EQ(session.made(), 4u);
  EXPECT_EQ(session.kept(), 2u);
}

}  // namespace
}  // namespace nee
