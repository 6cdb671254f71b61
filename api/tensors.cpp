#include <fmt/format.h>

#include <array>
#include <utility>

#include <nee/nee.h>

#include "api/api_objects.h"
#include "core/error.h"
#include "runtime/tensor_limits.h"

namespace nee::c_api {

namespace {

constexpr std::array<std::pair<NeeDType, DType>, 14> kDTypes = {{
    {NEE_DTYPE_F32, DType::f32},  {NEE_DTYPE_F64, DType::f64},         {NEE_DTYPE_F16, DType::f16},
    {NEE_DTYPE_BF16, DType::bf16}, {NEE_DTYPE_I8, DType::i8},           {NEE_DTYPE_U8, DType::u8},
    {NEE_DTYPE_I16, DType::i16},  {NEE_DTYPE_U16, DType::u16},         {NEE_DTYPE_I32, DType::i32},
    {NEE_DTYPE_U32, DType::u32},  {NEE_DTYPE_I64, DType::i64},         {NEE_DTYPE_U64, DType::u64},
    {NEE_DTYPE_BOOL, DType::boolean}, {NEE_DTYPE_STRING, DType::string},
}};

// The type of a tensor made through the API: a known dtype other than string, dims >= 0,
// within the per-tensor cap.
TensorType tensor_type(NeeDType dtype, const int64_t* dims, size_t rank) {
  const DType d = from_c_dtype(dtype);
  if (d == DType::string) throw Error("string tensors do not pass NEE's C API");
  TensorType type{d, std::vector<int64_t>(dims, dims + rank)};
  checked_elements(type, "the tensor");
  return type;
}

}  // namespace

NeeDType to_c_dtype(DType dtype) {
  for (const auto& [c, d] : kDTypes) {
    if (d == dtype) return c;
  }
  return NEE_DTYPE_UNKNOWN;
}

DType from_c_dtype(NeeDType dtype) {
  for (const auto& [c, d] : kDTypes) {
    if (c == dtype) return d;
  }
  throw Error(fmt::format("{} is not a NeeDType", static_cast<int>(dtype)));
}

}  // namespace nee::c_api

using nee::c_api::guarded;
using nee::c_api::null_argument;

extern "C" {

size_t nee_dtype_size(NeeDType dtype) {
  for (const auto& [c, d] : nee::c_api::kDTypes) {
    if (c == dtype) return d == nee::DType::string ? 0 : nee::dtype_size(d);
  }
  return 0;
}

NeeStatus* nee_tensor_create(NeeDType dtype, const int64_t* dims, size_t rank, NeeTensor** out) {
  if (!out) return null_argument("nee_tensor_create", "out");
  if (!dims && rank > 0) return null_argument("nee_tensor_create", "dims");
  *out = nullptr;
  return guarded(NEE_ERROR_INVALID_ARGUMENT, [&] {
    *out = new NeeTensor{nee::Tensor(nee::c_api::tensor_type(dtype, dims, rank))};
  });
}

NeeStatus* nee_tensor_wrap(NeeDType dtype, const int64_t* dims, size_t rank, void* data, size_t bytes,
                           NeeTensor** out) {
  if (!out) return null_argument("nee_tensor_wrap", "out");
  if (!dims && rank > 0) return null_argument("nee_tensor_wrap", "dims");
  *out = nullptr;
  return guarded(NEE_ERROR_INVALID_ARGUMENT, [&] {
    const nee::TensorType type = nee::c_api::tensor_type(dtype, dims, rank);
    const size_t needed = static_cast<size_t>(type.elements()) * nee::dtype_size(type.dtype);
    if (bytes != needed) {
      throw nee::Error(fmt::format("nee_tensor_wrap: a {} tensor takes {} bytes; the buffer has {}",
                                   type.to_string(), needed, bytes));
    }
    if (!data && needed > 0) throw nee::Error("nee_tensor_wrap: data is NULL");
    // The caller owns the bytes: the tensor's storage never frees them.
    std::shared_ptr<uint8_t> borrowed(static_cast<uint8_t*>(data), [](uint8_t*) {});
    *out = new NeeTensor{nee::Tensor(type, std::move(borrowed), 0)};
  });
}

NeeDType nee_tensor_dtype(const NeeTensor* tensor) {
  return tensor ? nee::c_api::to_c_dtype(tensor->tensor.dtype()) : NEE_DTYPE_UNKNOWN;
}

size_t nee_tensor_rank(const NeeTensor* tensor) { return tensor ? tensor->tensor.shape().size() : 0; }

const int64_t* nee_tensor_dims(const NeeTensor* tensor) { return tensor ? tensor->tensor.shape().data() : nullptr; }

int64_t nee_tensor_element_count(const NeeTensor* tensor) { return tensor ? tensor->tensor.elements() : 0; }

size_t nee_tensor_byte_size(const NeeTensor* tensor) { return tensor ? tensor->tensor.bytes() : 0; }

void* nee_tensor_data(NeeTensor* tensor) { return tensor ? tensor->tensor.data() : nullptr; }

void nee_tensor_free(NeeTensor* tensor) { delete tensor; }

}  // extern "C"
