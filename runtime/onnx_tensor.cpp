#include "runtime/onnx_tensor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

#include "core/error.h"
#include "runtime/tensor_limits.h"

namespace nee {

DType dtype_from_onnx(int32_t elem_type, const std::string& what) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT: return DType::f32;
    case onnx::TensorProto::INT64: return DType::i64;
    case onnx::TensorProto::INT32: return DType::i32;
    case onnx::TensorProto::BOOL: return DType::boolean;
    case onnx::TensorProto::INT8: return DType::i8;
    case onnx::TensorProto::UINT8: return DType::u8;
    case onnx::TensorProto::DOUBLE: return DType::f64;
    case onnx::TensorProto::INT16: return DType::i16;
    case onnx::TensorProto::UINT16: return DType::u16;
    case onnx::TensorProto::UINT32: return DType::u32;
    case onnx::TensorProto::UINT64: return DType::u64;
    case onnx::TensorProto::FLOAT16: return DType::f16;
    case onnx::TensorProto::BFLOAT16: return DType::bf16;
    case onnx::TensorProto::STRING: return DType::string;
    default: break;
  }
  // Types newer than the onnx library NEE is built with (1.12's ends at BFLOAT16, 16), as
  // onnx 1.23's TensorProto numbers them, so that a model using one is told which.
  static const char* const kNewerTypes[] = {"FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
                                            "UINT4",        "INT4",           "FLOAT4E2M1", "FLOAT8E8M0",
                                            "UINT2",        "INT2",           "FLOAT6E2M3", "FLOAT6E3M2"};
  constexpr int32_t kFirstNewerType = 17;
  const int32_t newer = elem_type - kFirstNewerType;
  const std::string name = onnx::TensorProto::DataType_IsValid(elem_type) ? onnx::TensorProto::DataType_Name(elem_type)
                           : newer >= 0 && newer < static_cast<int32_t>(std::size(kNewerTypes))
                               ? kNewerTypes[newer]
                               : std::to_string(elem_type);
  throw Error(fmt::format("{} has unsupported data type {} (NEE supports FLOAT, DOUBLE, FLOAT16, "
                          "BFLOAT16, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8, BOOL, STRING; "
                          "and INT4 and UINT4 in initializers and Constants, read as INT8 and UINT8)",
                          what, name));
}

int32_t onnx_elem_type(DType dtype) {
  switch (dtype) {
    case DType::f32: return onnx::TensorProto::FLOAT;
    case DType::i64: return onnx::TensorProto::INT64;
    case DType::i32: return onnx::TensorProto::INT32;
    case DType::boolean: return onnx::TensorProto::BOOL;
    case DType::i8: return onnx::TensorProto::INT8;
    case DType::u8: return onnx::TensorProto::UINT8;
    case DType::f64: return onnx::TensorProto::DOUBLE;
    case DType::i16: return onnx::TensorProto::INT16;
    case DType::u16: return onnx::TensorProto::UINT16;
    case DType::u32: return onnx::TensorProto::UINT32;
    case DType::u64: return onnx::TensorProto::UINT64;
    case DType::f16: return onnx::TensorProto::FLOAT16;
    case DType::bf16: return onnx::TensorProto::BFLOAT16;
    case DType::string: return onnx::TensorProto::STRING;
  }
  throw Error("no ONNX element type for " + to_string(dtype));
}

namespace {

// The typed field ONNX keeps `dtype`'s elements in when raw_data is not used, and how
// many it holds: int32, int16, uint16, float16 and bfloat16 (their bit patterns), bool,
// int8 and uint8 in int32_data, uint32 and uint64 in uint64_data, one element per entry.
std::pair<const char*, int64_t> typed_field(const onnx::TensorProto& proto, DType dtype) {
  switch (dtype) {
    case DType::f32: return {"float_data", proto.float_data_size()};
    case DType::i64: return {"int64_data", proto.int64_data_size()};
    case DType::f64: return {"double_data", proto.double_data_size()};
    case DType::u32:
    case DType::u64: return {"uint64_data", proto.uint64_data_size()};
    case DType::string: return {"string_data", proto.string_data_size()};
    case DType::i32:
    case DType::boolean:
    case DType::u8:
    case DType::i8:
    case DType::i16:
    case DType::u16:
    case DType::f16:
    case DType::bf16: break;
  }
  return {"int32_data", proto.int32_data_size()};
}

template <typename T>
void copy_from_int32_data(const onnx::TensorProto& proto, Tensor& t) {
  T* out = t.data_as<T>();
  for (int i = 0; i < proto.int32_data_size(); ++i) out[i] = static_cast<T>(proto.int32_data(i));
}

template <typename T>
void copy_from_uint64_data(const onnx::TensorProto& proto, Tensor& t) {
  T* out = t.data_as<T>();
  for (int i = 0; i < proto.uint64_data_size(); ++i) out[i] = static_cast<T>(proto.uint64_data(i));
}

}  // namespace

bool holds_4bit_integers(const onnx::TensorProto& proto) {
  return proto.data_type() == kOnnxInt4 || proto.data_type() == kOnnxUint4;
}

TensorType tensor_proto_type(const onnx::TensorProto& proto, const std::string& what) {
  const std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  if (holds_4bit_integers(proto)) return TensorType{proto.data_type() == kOnnxInt4 ? DType::i8 : DType::u8, dims};
  return TensorType{dtype_from_onnx(proto.data_type(), what), dims};
}

Tensor unpack_4bit_integers(const uint8_t* packed, const TensorType& type) {
  Tensor t(type);
  const bool is_signed = type.dtype == DType::i8;
  auto* out = t.data_as<uint8_t>();
  for (int64_t i = 0, n = type.elements(); i < n; ++i) {
    const int nibble = (packed[i / 2] >> (i % 2 * 4)) & 0xF;
    out[i] = static_cast<uint8_t>(is_signed && nibble >= 8 ? nibble - 16 : nibble);  // two's complement in 4 bits
  }
  return t;
}

Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& what, int64_t max_bytes) {
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    throw Error(what + " stores its data in an external file, which NEE does not read");
  }
  const TensorType type = tensor_proto_type(proto, what);
  const DType dtype = type.dtype;
  const int64_t elements = checked_elements(type, what, max_bytes);
  // The data present is compared with the dims before anything is allocated, so that a
  // few bytes declaring large dims cost no more than those bytes.
  if (dtype == DType::string && proto.has_raw_data()) {
    throw Error(what + " is a STRING tensor with raw_data; ONNX keeps strings in string_data");
  }
  if (holds_4bit_integers(proto)) {
    // Two elements a byte, the first in the low nibble: raw_data, or int32_data holding
    // one packed byte an entry.
    const size_t packed = static_cast<size_t>((elements + 1) / 2);
    std::string from_int32_data;
    if (!proto.has_raw_data()) {
      for (int32_t v : proto.int32_data()) from_int32_data.push_back(static_cast<char>(v));
    }
    const std::string& bytes = proto.has_raw_data() ? proto.raw_data() : from_int32_data;
    if (bytes.size() != packed) {
      throw Error(fmt::format("{} declares {} 4-bit elements ({} bytes packed) but holds {} bytes", what, elements,
                              packed, bytes.size()));
    }
    return unpack_4bit_integers(reinterpret_cast<const uint8_t*>(bytes.data()), type);
  }
  if (proto.has_raw_data()) {
    const size_t expected = static_cast<size_t>(elements) * dtype_size(dtype);
    if (proto.raw_data().size() != expected) {
      throw Error(fmt::format("{} declares shape {} ({} bytes) but its raw_data holds {} bytes",
                              what, type.to_string(), expected, proto.raw_data().size()));
    }
    Tensor t(type);
    if (expected) std::memcpy(t.data(), proto.raw_data().data(), expected);
    return t;
  }
  const auto [field, found] = typed_field(proto, dtype);
  if (found != elements) {
    throw Error(fmt::format("{} declares shape {} ({} elements) but its {} holds {}", what, type.to_string(),
                            elements, field, found));
  }
  Tensor t(type);
  switch (dtype) {
    case DType::f32: std::copy(proto.float_data().begin(), proto.float_data().end(), t.data_as<float>()); break;
    case DType::i64: std::copy(proto.int64_data().begin(), proto.int64_data().end(), t.data_as<int64_t>()); break;
    case DType::f64: std::copy(proto.double_data().begin(), proto.double_data().end(), t.data_as<double>()); break;
    case DType::string:
      std::copy(proto.string_data().begin(), proto.string_data().end(), t.data_as<std::string>());
      break;
    case DType::i32: copy_from_int32_data<int32_t>(proto, t); break;
    case DType::boolean:
    case DType::u8: copy_from_int32_data<uint8_t>(proto, t); break;
    case DType::i8: copy_from_int32_data<int8_t>(proto, t); break;
    case DType::i16: copy_from_int32_data<int16_t>(proto, t); break;
    case DType::u16:
    case DType::f16:
    case DType::bf16: copy_from_int32_data<uint16_t>(proto, t); break;
    case DType::u32: copy_from_uint64_data<uint32_t>(proto, t); break;
    case DType::u64: copy_from_uint64_data<uint64_t>(proto, t); break;
  }
  return t;
}

onnx::TensorProto tensor_to_proto(const Tensor& tensor, const std::string& name) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(onnx_elem_type(tensor.dtype()));
  for (int64_t d : tensor.shape()) proto.add_dims(d);
  if (tensor.dtype() == DType::string) {
    const std::string* strings = tensor.data_as<std::string>();
    for (int64_t i = 0; i < tensor.elements(); ++i) proto.add_string_data(strings[i]);
    return proto;
  }
  proto.set_raw_data(tensor.bytes() ? std::string(static_cast<const char*>(tensor.data()), tensor.bytes())
                                    : std::string());
  return proto;
}

}  // namespace nee
