#pragma once
#include <cstdint>
#include <string>

#include <onnx/onnx_pb.h>

#include "core/dtype.h"
#include "runtime/tensor.h"
#include "runtime/tensor_limits.h"

namespace nee {

// Conversions between NEE tensors and ONNX TensorProto messages, shared by the importer
// (initializers, Constant nodes) and tensor_io (.pb files). Errors name `what`.
DType dtype_from_onnx(int32_t elem_type, const std::string& what);
int32_t onnx_elem_type(DType dtype);

// ONNX's INT4 and UINT4 (onnx 1.16 on; the onnx library NEE builds with predates them).
inline constexpr int32_t kOnnxUint4 = 21, kOnnxInt4 = 22;

// A TensorProto's dtype and dims, without reading its data. INT4 and UINT4 tensors (the
// weights of 4-bit quantized models) are held unpacked, one element a byte, as i8 and u8.
TensorType tensor_proto_type(const onnx::TensorProto& proto, const std::string& what);
bool holds_4bit_integers(const onnx::TensorProto& proto);
// The elements of `type` (i8 or u8) from packed 4-bit ones, two a byte, low nibble first.
Tensor unpack_4bit_integers(const uint8_t* packed, const TensorType& type);

// Reads raw_data or the typed field (string_data for STRING, which ONNX never keeps in
// raw_data); the element count must match the dims exactly, and is compared with them
// before the tensor is allocated, so that dims the data does not fill cost nothing. A
// tensor over `max_bytes` is refused. Writes raw_data, or string_data for strings.
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& what,
                         int64_t max_bytes = kMaxTensorBytes);
onnx::TensorProto tensor_to_proto(const Tensor& tensor, const std::string& name);

}  // namespace nee
