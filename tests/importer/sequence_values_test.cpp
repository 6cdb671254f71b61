// Sequence values resolved at import (importer/sequences.h): each result is checked
// against the same list operations written out in the test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "import_and_run.h"
#include "importer/import_onnx.h"

namespace nee {
namespace {

using test::make_f32;
using test::make_i64;
using test::OnnxModelBuilder;
using test::set_attr;
using test::values_of;
using ::testing::HasSubstr;

TEST(SequenceValues, SplitEraseInsertAtAndConcat) {
  // x: 4 rows of 2. Split into rows (dropping the axis), erase the last, insert y at
  // the front, read one back, and stack them all on a new axis.
  OnnxModelBuilder m;
  m.input("x", {4, 2}).input("y", {2}).output("second").output("stacked").output("count", onnx::TensorProto::INT64);
  m.initializer("one", make_i64({}, {1}));
  m.initializer("front", make_i64({}, {-3}));  // -3 of 3 rows: position 0
  set_attr(m.node("SplitToSequence", {"x"}, {"rows"}), "keepdims", int64_t{0});
  m.node("SequenceErase", {"rows"}, {"three"});
  m.node("SequenceInsert", {"three", "y", "front"}, {"four"});
  m.node("SequenceAt", {"four", "one"}, {"second"});
  m.node("SequenceLength", {"four"}, {"count"});
  onnx::NodeProto& concat = m.node("ConcatFromSequence", {"four"}, {"stacked"});
  set_attr(concat, "axis", int64_t{0});
  set_attr(concat, "new_axis", int64_t{1});
  const auto out = test::run_model(m, {{"x", make_f32({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}, {"y", make_f32({2}, {9, 9})}});
  EXPECT_EQ(values_of(out.at("second")), (std::vector<float>{1, 2}));
  EXPECT_EQ(out.at("stacked").shape(), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(values_of(out.at("stacked")), (std::vector<float>{9, 9, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(*out.at("count").data_as<int64_t>(), 4);
}

TEST(SequenceValues, ASequenceBuiltInALoopIsConcatenatedAfterIt) {
  // seq = []; for i in range(3): seq.append(x * i); out = concat(seq, axis 0)
  OnnxModelBuilder body;
  body.input("i", onnx::TensorProto::INT64, {}).input("cond_in", onnx::TensorProto::BOOL, {});
  body.input("seq_in", onnx::TensorProto::FLOAT, {});
  set_attr(body.node("Cast", {"i"}, {"i_f"}), "to", int64_t{onnx::TensorProto::FLOAT});
  body.node("Mul", {"x", "i_f"}, {"xi"});
  body.node("SequenceInsert", {"seq_in", "xi"}, {"seq_out"});
  body.node("Identity", {"cond_in"}, {"cond_out"});
  body.output("cond_out", onnx::TensorProto::BOOL).output("seq_out");
  OnnxModelBuilder m;
  m.input("x", {2}).output("all");
  m.initializer("trips", make_i64({}, {3}));
  m.node("SequenceEmpty", {}, {"empty"});
  set_attr(m.node("Loop", {"trips", "", "empty"}, {"seq"}), "body", body);
  set_attr(m.node("ConcatFromSequence", {"seq"}, {"all"}), "axis", int64_t{0});
  EXPECT_EQ(values_of(test::run_single_output(m, {{"x", make_f32({2}, {1, 2})}})),
            (std::vector<float>{0, 0, 1, 2, 2, 4}));
}

TEST(SequenceValues, AnOutOfRangePositionIsNamed) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("y");
  m.initializer("far", make_i64({}, {2}));
  m.node("SequenceConstruct", {"x", "x"}, {"pair"});
  m.node("SequenceAt", {"pair", "far"}, {"y"});
  EXPECT_THAT(test::import_error(m), HasSubstr("SequenceAt position 2 is out of range for a sequence of 2"));
}

TEST(SequenceValues, ASequenceOutputIsRefused) {
  OnnxModelBuilder m;
  m.input("x", {2});
  m.node("SequenceConstruct", {"x"}, {"seq"});
  onnx::ValueInfoProto* out = m.model().mutable_graph()->add_output();
  out->set_name("seq");
  out->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::FLOAT);
  EXPECT_THAT(test::import_error(m), HasSubstr("graph output 'seq' is not a tensor"));
}

}  // namespace
}  // namespace nee
