// String tensors (ONNX STRING): how a Tensor holds them, their .pb form, Cast and
// CastLike to and from text, StringNormalizer, Identity, and the refusal of every other
// operator. Expected texts are numpy's str of the value (what onnx's Cast tests were
// made with), written out by hand: shortest digits that read back, positional from 1e-4
// up to 1e16 with ".0" on whole numbers, scientific beyond; NaN and infinities in the
// spellings the spec reserves.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "importer/import_onnx.h"
#include "import_and_run.h"
#include "onnx_model_builder.h"
#include "runtime/memory_plan.h"
#include "runtime/onnx_tensor.h"
#include "runtime/output_comparison.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/staged_session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::dims_text;
using test::make_f32;
using test::make_i64;
using test::OnnxModelBuilder;
using test::run_single_output;
using test::set_attr;
using test::set_string_attr;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int32_t kString = onnx::TensorProto::STRING;
constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

Tensor make_strings(const std::vector<int64_t>& shape, const std::vector<std::string>& values) {
  Tensor t(DType::string, shape);
  std::copy(values.begin(), values.end(), t.data_as<std::string>());
  return t;
}

std::vector<std::string> strings_of(const Tensor& t) {
  return std::vector<std::string>(t.data_as<std::string>(), t.data_as<std::string>() + t.elements());
}

void set_strings(onnx::NodeProto& node, const std::string& name, const std::vector<std::string>& values) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRINGS);
  for (const std::string& v : values) a->add_strings(v);
}

// x of `from` and `shape` cast to `to`.
OnnxModelBuilder cast_model(int32_t from, int32_t to, const std::vector<int64_t>& shape) {
  OnnxModelBuilder m(13);
  m.input("x", from, dims_text(shape)).output("y", to);
  set_attr(m.node("Cast", {"x"}, {"y"}), "to", int64_t{to});
  return m;
}

std::vector<std::unique_ptr<KernelProvider>> no_providers() { return {}; }

std::map<std::string, Tensor> run_staged(const OnnxModelBuilder& m, const std::map<std::string, Tensor>& inputs) {
  StagedSession session(load_staged_onnx_bytes(m.bytes()), no_providers, SessionOptions{optimize_graph});
  return session.run(inputs);
}

// ---- The tensor ----

TEST(StringTensor, StartsEmptyAndClonesDeeply) {
  Tensor t(DType::string, {2, 2});
  EXPECT_EQ(t.bytes(), 4 * sizeof(std::string));
  EXPECT_THAT(strings_of(t), ElementsAre("", "", "", ""));
  // Longer than any small-string buffer, so the text lives on the heap.
  const std::string long_text(100, 'x');
  t.data_as<std::string>()[1] = long_text;
  const Tensor shallow = t;
  const Tensor deep = t.clone();
  const Tensor flat = t.reshaped({4});
  t.data_as<std::string>()[1] = "changed";
  EXPECT_EQ(shallow.data_as<std::string>()[1], "changed");
  EXPECT_EQ(flat.data_as<std::string>()[1], "changed");
  EXPECT_EQ(deep.data_as<std::string>()[1], long_text);
  EXPECT_NE(deep.data(), t.data());
}

TEST(StringTensor, CannotViewBytesOwnedElsewhere) {
  std::shared_ptr<uint8_t> arena(new uint8_t[256], std::default_delete<uint8_t[]>());
  EXPECT_THROW(Tensor(TensorType{DType::string, {2}}, arena, 0), Error);
}

TEST(StringTensor, DTypeNameReadsBack) {
  EXPECT_EQ(to_string(DType::string), "string");
  EXPECT_EQ(dtype_from_string("string"), DType::string);
  EXPECT_EQ(dtype_from_onnx(kString, "x"), DType::string);
  EXPECT_EQ(onnx_elem_type(DType::string), kString);
}

// ---- .pb files and TensorProto ----

TEST(StringTensor, PbFileRoundTrip) {
  const Tensor t = make_strings({1, 3}, {"", "naïve", std::string(40, 'z')});
  const onnx::TensorProto proto = tensor_to_proto(t, "t");
  EXPECT_FALSE(proto.has_raw_data());
  EXPECT_THAT(proto.string_data(), ElementsAre("", "naïve", std::string(40, 'z')));
  const std::string path = (std::filesystem::temp_directory_path() / "nee_string_tensor_test.pb").string();
  write_tensor_pb(path, t, "t");
  std::string name;
  const Tensor back = read_tensor_pb(path, &name);
  std::filesystem::remove(path);
  EXPECT_EQ(name, "t");
  EXPECT_EQ(back.type().to_string(), "string[1,3]");
  EXPECT_EQ(strings_of(back), strings_of(t));
}

TEST(StringTensor, ProtoMustKeepStringsInStringData) {
  onnx::TensorProto raw;
  raw.set_data_type(kString);
  raw.add_dims(1);
  raw.set_raw_data("abc");
  EXPECT_THAT([&] { tensor_from_proto(raw, "r"); }, ::testing::ThrowsMessage<Error>(HasSubstr("string_data")));
  onnx::TensorProto short_one;
  short_one.set_data_type(kString);
  short_one.add_dims(2);
  short_one.add_string_data("a");
  EXPECT_THAT([&] { tensor_from_proto(short_one, "s"); },
              ::testing::ThrowsMessage<Error>(HasSubstr("its string_data holds 1")));
}

TEST(StringTensor, ComparesEqualOrNot) {
  const Tensor a = make_strings({2}, {"x", "y"});
  EXPECT_TRUE(compare_tensors(a, make_strings({2}, {"x", "y"}), 1e-3, 1e-3).ok);
  const Comparison c = compare_tensors(a, make_strings({2}, {"x", "Y"}), 1e-3, 1e-3);
  EXPECT_FALSE(c.ok);
  EXPECT_THAT(c.problem, HasSubstr("element 1 is \"y\", expected \"Y\""));
}

TEST(StringTensor, RandomStringsAreSmallIntegers) {
  const Tensor t = random_tensor(TensorType{DType::string, {50}}, 7);
  bool any_nonzero = false;
  for (const std::string& s : strings_of(t)) {
    const int64_t v = std::stoll(s);
    EXPECT_EQ(std::to_string(v), s);
    EXPECT_GE(v, -10);
    EXPECT_LE(v, 10);
    any_nonzero = any_nonzero || v != 0;
  }
  EXPECT_TRUE(any_nonzero);
}

// ---- Cast to text ----

TEST(CastToString, FloatsAsNumpyWritesThem) {
  const float inf = std::numeric_limits<float>::infinity();
  // float32(1e-4) is 9.99999974e-05, below 1e-4: scientific. float32(1e16) is just above.
  const std::vector<float> x = {0.5f,   1.0f,   -0.0f,  0.1f,       123456.0f,     1e15f, 1e16f,
                                1.5e-7f, 1e-4f, 3.4e38f, 0.9767611f, std::nanf(""), inf,   -inf};
  const Tensor y = run_single_output(cast_model(kFloat, kString, {14}), {{"x", make_f32({14}, x)}});
  EXPECT_EQ(y.type().to_string(), "string[14]");
  EXPECT_THAT(strings_of(y), ElementsAre("0.5", "1.0", "-0.0", "0.1", "123456.0", "1000000000000000.0", "1e+16",
                                         "1.5e-07", "1e-04", "3.4e+38", "0.9767611", "NaN", "INF", "-INF"));
}

TEST(CastToString, DoublesIntegersAndBools) {
  Tensor d(DType::f64, {2});
  d.data_as<double>()[0] = 0.1;  // shortest as a double; as a float it would be 0.10000000149011612
  d.data_as<double>()[1] = 1e-4;  // exactly the double 1e-4: positional
  EXPECT_THAT(strings_of(run_single_output(cast_model(onnx::TensorProto::DOUBLE, kString, {2}), {{"x", d}})),
              ElementsAre("0.1", "0.0001"));
  // 2^53 + 1 has no double: the text must come from the integer.
  EXPECT_THAT(strings_of(run_single_output(cast_model(onnx::TensorProto::INT64, kString, {3}),
                                           {{"x", make_i64({3}, {-4, 0, 9007199254740993})}})),
              ElementsAre("-4", "0", "9007199254740993"));
  Tensor b(DType::boolean, {2});
  b.data_as<uint8_t>()[0] = 1;
  EXPECT_THAT(strings_of(run_single_output(cast_model(onnx::TensorProto::BOOL, kString, {2}), {{"x", b}})),
              ElementsAre("True", "False"));
}

// float16 0x2E66 is 0.0999755859375, the float16 nearest 0.1: "0.1" is the shortest
// text that reads back to it. 0x0003 is the subnormal 3 * 2^-24 = 1.79e-07; "2e-07"
// reads back to it (2e-07 / 2^-24 = 3.36, nearest 3).
TEST(CastToString, HalfFloatsWithTheirOwnShortestDigits) {
  Tensor h(DType::f16, {3});
  h.data_as<uint16_t>()[0] = 0x2E66;
  h.data_as<uint16_t>()[1] = 0x0003;
  h.data_as<uint16_t>()[2] = 0xC500;  // -5.0
  EXPECT_THAT(strings_of(run_single_output(cast_model(onnx::TensorProto::FLOAT16, kString, {3}), {{"x", h}})),
              ElementsAre("0.1", "2e-07", "-5.0"));
}

// ---- Cast from text ----

TEST(CastFromString, FloatsIncludingTheReservedSpellings) {
  const Tensor x = make_strings({9}, {"0.47892547", " 2.5 ", "+INF", "INF", "-inf", "NaN", "1e3", "1e50", "-1e-50"});
  const Tensor y = run_single_output(cast_model(kString, kFloat, {9}), {{"x", x}});
  const float* v = y.data_as<float>();
  EXPECT_EQ(v[0], 0.47892547f);
  EXPECT_EQ(v[1], 2.5f);
  EXPECT_EQ(v[2], std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[3], std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[4], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(v[5]));
  EXPECT_EQ(v[6], 1000.0f);
  EXPECT_EQ(v[7], std::numeric_limits<float>::infinity());  // beyond float: numpy's float32 gives inf
  EXPECT_EQ(v[8], 0.0f);
  EXPECT_TRUE(std::signbit(v[8]));
}

TEST(CastFromString, IntegersExactlyAndFloatsTruncated) {
  const Tensor x = make_strings({4}, {"9007199254740993", "100.5", "-7.9", "+12"});
  const Tensor y = run_single_output(cast_model(kString, onnx::TensorProto::INT64, {4}), {{"x", x}});
  EXPECT_THAT(std::vector<int64_t>(y.data_as<int64_t>(), y.data_as<int64_t>() + 4),
              ElementsAre(9007199254740993, 100, -7, 12));
  const Tensor b = run_single_output(cast_model(kString, onnx::TensorProto::BOOL, {4}),
                                     {{"x", make_strings({4}, {"True", "false", "0", "0.5"})}});
  EXPECT_THAT(std::vector<uint8_t>(b.data_as<uint8_t>(), b.data_as<uint8_t>() + 4), ElementsAre(1, 0, 0, 1));
}

TEST(CastFromString, TextThatIsNoNumberIsAnErrorNamingIt) {
  try {
    run_single_output(cast_model(kString, kFloat, {2}), {{"x", make_strings({2}, {"1", "Hello World!"})}});
    ADD_FAILURE() << "ran";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("element 1 of the input (\"Hello World!\") is not a number"));
  }
}

// Any float32 written as text reads back as the same bits: the digits are shortest,
// but never too short. The patterns cover normal numbers of every exponent, subnormals
// and both signs.
TEST(CastFromString, FloatTextReadsBackExactly) {
  OnnxModelBuilder m(13);
  m.input("x", kFloat, {"64"}).output("y", kFloat);
  set_attr(m.node("Cast", {"x"}, {"s"}), "to", int64_t{kString});
  set_attr(m.node("Cast", {"s"}, {"y"}), "to", int64_t{kFloat});
  std::vector<float> x(64);
  uint32_t bits = 0x12345u;
  for (float& v : x) {
    bits = bits * 1664525u + 1013904223u;  // any pattern but NaN and infinity
    if ((bits & 0x7F800000u) == 0x7F800000u) bits ^= 0x40000000u;
    std::memcpy(&v, &bits, sizeof v);
  }
  const Tensor y = run_single_output(m, {{"x", make_f32({64}, x)}});
  EXPECT_EQ(std::memcmp(y.data(), x.data(), sizeof(float) * x.size()), 0);
}

// ---- CastLike ----

TEST(CastLike, ToAndFromStrings) {
  OnnxModelBuilder to_text(15);
  to_text.input("x", kFloat, {"2"}).input("like", kString, {"1"}).output("y", kString);
  to_text.node("CastLike", {"x", "like"}, {"y"});
  EXPECT_THAT(strings_of(run_single_output(to_text, {{"x", make_f32({2}, {0.25f, -2.0f})},
                                                     {"like", make_strings({1}, {"ignored"})}})),
              ElementsAre("0.25", "-2.0"));
  OnnxModelBuilder from_text(15);
  from_text.input("x", kString, {"2"}).input("like", kFloat, {"1"}).output("y", kFloat);
  from_text.node("CastLike", {"x", "like"}, {"y"});
  const Tensor y =
      run_single_output(from_text, {{"x", make_strings({2}, {"0.25", "-2"})}, {"like", make_f32({1}, {9})}});
  EXPECT_THAT(test::values_of(y), ElementsAre(0.25f, -2.0f));
}

// ---- In a session ----

// A string intermediate gets no arena bytes, where a number between the same nodes
// does; a string output is allocated per run, so one kept from a run is not
// overwritten by the next.
TEST(StringTensor, StringsAreAllocatedPerRun) {
  OnnxModelBuilder m(13);
  m.input("x", kFloat, {"2"}).output("y", kString);
  set_attr(m.node("Cast", {"x"}, {"s"}), "to", int64_t{kString});
  set_attr(m.node("Cast", {"s"}, {"f"}), "to", int64_t{kFloat});
  set_attr(m.node("Cast", {"f"}, {"y"}), "to", int64_t{kString});
  Session session(import_onnx_bytes(m.bytes()), {}, SessionOptions{optimize_graph});
  session.prepare();
  EXPECT_EQ(session.memory_plan().offsets.count("s"), 0u);
  EXPECT_EQ(session.memory_plan().offsets.count("f"), 1u);
  const Tensor first = session.run({{"x", make_f32({2}, {1.5f, 2.0f})}}).at("y");
  const Tensor second = session.run({{"x", make_f32({2}, {-3.0f, 0.25f})}}).at("y");
  EXPECT_THAT(strings_of(first), ElementsAre("1.5", "2.0"));
  EXPECT_THAT(strings_of(second), ElementsAre("-3.0", "0.25"));
}

TEST(Identity, PassesStringsThrough) {
  OnnxModelBuilder m(13);
  m.input("x", kString, {"1", "2"}).output("y", kString);
  m.node("Identity", {"x"}, {"y"});
  EXPECT_THAT(strings_of(run_single_output(m, {{"x", make_strings({1, 2}, {"a", "b"})}})), ElementsAre("a", "b"));
}

// ---- StringNormalizer ----

OnnxModelBuilder normalizer_model(const std::vector<int64_t>& shape, const std::vector<std::string>& stopwords,
                                  const std::string& action, int64_t case_sensitive) {
  OnnxModelBuilder m(10);
  m.input("x", kString, dims_text(shape)).output("y", kString);
  onnx::NodeProto& n = m.node("StringNormalizer", {"x"}, {"y"});
  if (!stopwords.empty()) set_strings(n, "stopwords", stopwords);
  if (!action.empty()) set_string_attr(n, "case_change_action", action);
  set_attr(n, "is_case_sensitive", case_sensitive);
  return m;
}

TEST(StringNormalizer, RemovesStopwordsCaseSensitively) {
  const auto out = run_staged(normalizer_model({4}, {"monday"}, "LOWER", 1),
                              {{"x", make_strings({4}, {"monday", "Monday", "TUESDAY", "wed"})}});
  EXPECT_EQ(out.at("y").type().to_string(), "string[3]");
  EXPECT_THAT(strings_of(out.at("y")), ElementsAre("monday", "tuesday", "wed"));
}

TEST(StringNormalizer, IgnoresCaseAndUppersOnARow) {
  const auto out = run_staged(normalizer_model({1, 5}, {"MONDAY", "été"}, "UPPER", 0),
                              {{"x", make_strings({1, 5}, {"Monday", "tuesday", "ÉTÉ", "straße", "ça"})}});
  EXPECT_EQ(out.at("y").type().to_string(), "string[1,3]");
  // Simple case mappings: one code point to one, so the eszett stays.
  EXPECT_THAT(strings_of(out.at("y")), ElementsAre("TUESDAY", "STRAßE", "ÇA"));
}

TEST(StringNormalizer, KeepsOneEmptyStringWhenAllAreRemoved) {
  const auto flat = run_staged(normalizer_model({2}, {"a"}, "", 1), {{"x", make_strings({2}, {"a", "a"})}});
  EXPECT_EQ(flat.at("y").type().to_string(), "string[1]");
  EXPECT_THAT(strings_of(flat.at("y")), ElementsAre(""));
  const auto row = run_staged(normalizer_model({1, 2}, {"a"}, "NONE", 1), {{"x", make_strings({1, 2}, {"a", "a"})}});
  EXPECT_EQ(row.at("y").type().to_string(), "string[1,1]");
  EXPECT_THAT(strings_of(row.at("y")), ElementsAre(""));
}

// One session run on other strings: the stage made for them sizes and fills Y anew.
TEST(StringNormalizer, RunsAgainOnOtherStrings) {
  StagedSession session(load_staged_onnx_bytes(normalizer_model({3}, {"b"}, "UPPER", 1).bytes()), no_providers,
                        SessionOptions{optimize_graph});
  EXPECT_THAT(strings_of(session.run({{"x", make_strings({3}, {"a", "b", "c"})}}).at("y")), ElementsAre("A", "C"));
  EXPECT_THAT(strings_of(session.run({{"x", make_strings({3}, {"x", "y", "z"})}}).at("y")),
              ElementsAre("X", "Y", "Z"));
  // Strings seen before key the stage by their text (not by where they are stored): nothing is made.
  const size_t made = session.made();
  EXPECT_THAT(strings_of(session.run({{"x", make_strings({3}, {"a", "b", "c"})}}).at("y")), ElementsAre("A", "C"));
  EXPECT_EQ(session.made(), made);
}

TEST(StringNormalizer, ConstantInputImportsWithoutStages) {
  OnnxModelBuilder m(10);
  m.initializer("x", make_strings({3}, {"Keep", "drop", "Me"})).output("y", kString);
  onnx::NodeProto& n = m.node("StringNormalizer", {"x"}, {"y"});
  set_strings(n, "stopwords", {"DROP"});
  set_string_attr(n, "case_change_action", "LOWER");
  EXPECT_THAT(strings_of(run_single_output(m, {})), ElementsAre("keep", "me"));
}

TEST(StringNormalizer, BadInputsAreClearErrors) {
  EXPECT_THAT(test::import_error(normalizer_model({3}, {}, "", 1)), HasSubstr("input 0 (X, 'x') is not a constant"));
  OnnxModelBuilder two_rows(10);
  two_rows.initializer("x", make_strings({2, 2}, {"a", "b", "c", "d"})).output("y", kString);
  two_rows.node("StringNormalizer", {"x"}, {"y"});
  EXPECT_THAT(test::import_error(two_rows), HasSubstr("X is string[2,2]; it must be [C] or [1, C]"));
  OnnxModelBuilder title(10);
  title.initializer("x", make_strings({1}, {"a"})).output("y", kString);
  set_string_attr(title.node("StringNormalizer", {"x"}, {"y"}), "case_change_action", "TITLE");
  EXPECT_THAT(test::import_error(title), HasSubstr("case_change_action is 'TITLE'"));
  OnnxModelBuilder numbers(10);
  numbers.input("x", kFloat, {"2"}).output("y", kString);
  numbers.node("StringNormalizer", {"x"}, {"y"});
  EXPECT_THAT(test::import_error(numbers),
              HasSubstr("input 0 'x' is tensor(float), which StringNormalizer at opset 10 (its version 10) does not "
                        "take as its input 'X': it must be tensor(string)"));
  OnnxModelBuilder bad_text(10);
  bad_text.initializer("x", make_strings({1}, {"\xC3("})).output("y", kString);
  set_string_attr(bad_text.node("StringNormalizer", {"x"}, {"y"}), "case_change_action", "UPPER");
  EXPECT_THAT(test::import_error(bad_text), HasSubstr("is not UTF-8 text"));
}

// ---- Every other operator refuses strings ----

TEST(StringTensor, OtherOperatorsRefuseStrings) {
  OnnxModelBuilder add(13);
  add.input("a", kString, {"2"}).input("b", kString, {"2"}).output("y", kString);
  add.node("Add", {"a", "b"}, {"y"});
  EXPECT_THAT(test::import_error(add), HasSubstr("input 0 'a' is tensor(string), which Add"));
  OnnxModelBuilder concat(13);
  concat.input("a", kString, {"2"}).input("b", kString, {"2"}).output("y", kString);
  set_attr(concat.node("Concat", {"a", "b"}, {"y"}), "axis", int64_t{0});
  EXPECT_THAT(test::import_error(concat), HasSubstr("has unsupported dtype string"));
  OnnxModelBuilder reshape(13);
  reshape.input("a", kString, {"2"}).initializer("shape", make_i64({2}, {1, 2})).output("y", kString);
  reshape.node("Reshape", {"a", "shape"}, {"y"});
  EXPECT_THAT(test::import_error(reshape), HasSubstr("has unsupported dtype string"));
}

}  // namespace
}  // namespace nee
