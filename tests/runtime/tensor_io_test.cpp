#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using ::testing::HasSubstr;

TEST(TensorIo, RoundTripsEveryDtype) {
  for (DType dtype : {DType::f32, DType::i64, DType::i32, DType::boolean, DType::i8, DType::u8}) {
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
