#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "runtime/onnx_tensor.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using ::testing::HasSubstr;

TEST(TensorIo, RoundTripsEveryDtype) {
  for (DType dtype : {DType::f32, DType::i64, DType::i32, DType::boolean, DType::i8, DType::u8, DType::f64,
                      DType::i16, DType::u16, DType::u32, DType::u64}) {
    const Tensor t = random_tensor({dtype, {3, 4}}, 42);
    const std::string path = ::testing::TempDir() + "/t_" + to_string(dtype) + ".pb";
    write_tensor_pb(path, t, "input_0");
    std::string name;
    const Tensor back = read_tensor_pb(path, &name);
    EXPECT_EQ(name, "input_0");
    EXPECT_EQ(back.type(), t.type());
    EXPECT_EQ(std::memcmp(back.data(), t.data(), t.bytes()), 0) << to_string(dtype);
  }
}

// Without raw_data, ONNX keeps double in double_data, int16 and uint16 in int32_data,
// uint32 and uint64 in uint64_data.
TEST(TensorIo, TypedFieldsOfTheWiderDtypesAreRead) {
  onnx::TensorProto d;
  d.set_data_type(onnx::TensorProto::DOUBLE);
  d.add_dims(2);
  d.add_double_data(0.1);
  d.add_double_data(-3e300);
  const Tensor doubles = tensor_from_proto(d, "d");
  EXPECT_EQ(doubles.dtype(), DType::f64);
  EXPECT_EQ(doubles.data_as<double>()[0], 0.1);
  EXPECT_EQ(doubles.data_as<double>()[1], -3e300);

  onnx::TensorProto s;
  s.set_data_type(onnx::TensorProto::INT16);
  s.add_dims(1);
  s.add_int32_data(-32768);
  EXPECT_EQ(tensor_from_proto(s, "s").data_as<int16_t>()[0], -32768);

  onnx::TensorProto u;
  u.set_data_type(onnx::TensorProto::UINT64);
  u.add_dims(1);
  u.add_uint64_data(18446744073709551615ull);
  EXPECT_EQ(tensor_from_proto(u, "u").data_as<uint64_t>()[0], 18446744073709551615ull);

  onnx::TensorProto short_one;
  short_one.set_data_type(onnx::TensorProto::UINT32);
  short_one.add_dims(2);
  short_one.add_uint64_data(7);
  EXPECT_THROW(tensor_from_proto(short_one, "short"), Error);
}

TEST(TensorIo, MissingFileIsNamed) {
  try {
    read_tensor_pb("/nonexistent/input_0.pb");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/input_0.pb"));
  }
}

TEST(TensorIo, MalformedFileIsRejected) {
  const std::string path = ::testing::TempDir() + "/bad.pb";
  std::ofstream(path, std::ios::binary) << std::string("\xff\xff\xff\xff\x0f", 5);
  try {
    read_tensor_pb(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("not a valid ONNX TensorProto"));
  }
}

TEST(TensorIo, RandomTensorIsDeterministicBoundedAndNonZero) {
  const Tensor a = random_tensor({DType::f32, {1000}}, 7);
  const Tensor b = random_tensor({DType::f32, {1000}}, 7);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.bytes()), 0);
  bool any_nonzero = false;
  for (int64_t i = 0; i < a.elements(); ++i) {
    EXPECT_GE(a.data_as<float>()[i], -1.0f);
    EXPECT_LE(a.data_as<float>()[i], 1.0f);
    any_nonzero = any_nonzero || a.data_as<float>()[i] != 0.0f;
  }
  EXPECT_TRUE(any_nonzero);
  const Tensor one_bool = random_tensor({DType::boolean, {1}}, 0);
  const Tensor other_bool = random_tensor({DType::boolean, {1}}, 1);
  EXPECT_EQ(one_bool.data_as<uint8_t>()[0], 1);
  EXPECT_EQ(other_bool.data_as<uint8_t>()[0], 1);
}

}  // namespace
}  // namespace nee
