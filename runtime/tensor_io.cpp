#include "runtime/tensor_io.h"

#include <fmt/format.h>

#include <fstream>
#include <random>
#include <sstream>

#include "core/error.h"
#include "core/half_float.h"
#include "runtime/onnx_tensor.h"
#include "runtime/tensor_limits.h"

namespace nee {

Tensor read_tensor_pb(const std::string& path, std::string* name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot open tensor file '{}'", path));
  std::stringstream bytes;
  bytes << in.rdbuf();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes.str())) {
    throw Error(fmt::format("'{}' is not a valid ONNX TensorProto (truncated or malformed)", path));
  }
  if (name) *name = proto.name();
  return tensor_from_proto(proto, fmt::format("tensor '{}' in '{}'", proto.name(), path));
}

void write_tensor_pb(const std::string& path, const Tensor& tensor, const std::string& name) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(fmt::format("cannot write tensor file '{}'", path));
  if (!tensor_to_proto(tensor, name).SerializeToOstream(&out) || !out.flush()) {
    throw Error(fmt::format("failed writing tensor file '{}'", path));
  }
}

namespace {

template <typename T, typename Distribution>
void fill(Tensor& t, std::mt19937_64& rng, Distribution dist) {
  T* p = t.data_as<T>();
  bool all_zero = true;
  for (int64_t i = 0; i < t.elements(); ++i) {
    p[i] = static_cast<T>(dist(rng));
    all_zero = all_zero && p[i] == T(0);
  }
  if (all_zero && t.elements() > 0) p[0] = T(1);
}

// f16 and bf16 from uniform f32 values in [-1, 1), rounded by `round`.
void fill_half(Tensor& t, std::mt19937_64& rng, uint16_t (*round)(float)) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  uint16_t* p = t.data_as<uint16_t>();
  bool all_zero = true;
  for (int64_t i = 0; i < t.elements(); ++i) {
    p[i] = round(dist(rng));
    all_zero = all_zero && (p[i] & 0x7fffu) == 0;
  }
  if (all_zero && t.elements() > 0) p[0] = round(1.0f);
}

// Strings: the decimal text of integers drawn as the signed integers are, so that a model
// that casts its string inputs to numbers gets numbers.
void fill_text(Tensor& t, std::mt19937_64& rng) {
  Tensor numbers(DType::i64, t.shape());
  fill<int64_t>(numbers, rng, std::uniform_int_distribution<int64_t>(-10, 10));
  std::string* text = t.data_as<std::string>();
  for (int64_t i = 0; i < t.elements(); ++i) text[i] = std::to_string(numbers.data_as<int64_t>()[i]);
}

}  // namespace

Tensor random_tensor(const TensorType& type, uint64_t seed) {
  checked_elements(type, "random tensor");
  Tensor t(type);
  std::mt19937_64 rng(seed);
  switch (type.dtype) {
    case DType::f32: fill<float>(t, rng, std::uniform_real_distribution<float>(-1.0f, 1.0f)); break;
    case DType::i64: fill<int64_t>(t, rng, std::uniform_int_distribution<int64_t>(-10, 10)); break;
    case DType::i32: fill<int32_t>(t, rng, std::uniform_int_distribution<int32_t>(-10, 10)); break;
    case DType::i8: fill<int8_t>(t, rng, std::uniform_int_distribution<int>(-10, 10)); break;
    case DType::u8: fill<uint8_t>(t, rng, std::uniform_int_distribution<int>(0, 10)); break;
    case DType::boolean: fill<uint8_t>(t, rng, std::uniform_int_distribution<int>(0, 1)); break;
    case DType::f64: fill<double>(t, rng, std::uniform_real_distribution<double>(-1.0, 1.0)); break;
    case DType::i16: fill<int16_t>(t, rng, std::uniform_int_distribution<int>(-10, 10)); break;
    case DType::u16: fill<uint16_t>(t, rng, std::uniform_int_distribution<int>(0, 10)); break;
    case DType::u32: fill<uint32_t>(t, rng, std::uniform_int_distribution<uint32_t>(0, 10)); break;
    case DType::u64: fill<uint64_t>(t, rng, std::uniform_int_distribution<uint64_t>(0, 10)); break;
    case DType::f16: fill_half(t, rng, f32_to_f16); break;
    case DType::bf16: fill_half(t, rng, f32_to_bf16); break;
    case DType::string: fill_text(t, rng); break;
  }
  return t;
}

}  // namespace nee
