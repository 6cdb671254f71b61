#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "core/half_float.h"
#include "runtime/reference/reference_kernel.h"

namespace nee {

// Calls f(T{}) with the C++ element type of `dtype` (bool for DType::boolean, which is
// stored as one byte holding 0 or 1) and returns what f returns. f16 and bf16 are visited
// as their uint16_t bit patterns: only kernels that move elements see them, since the
// importer computes on them in f32 (importer/half_precision.h).
template <typename F>
decltype(auto) visit_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::f32: return f(float{});
    case DType::i64: return f(int64_t{});
    case DType::i32: return f(int32_t{});
    case DType::boolean: return f(bool{});
    case DType::i8: return f(int8_t{});
    case DType::u8: return f(uint8_t{});
    case DType::f64: return f(double{});
    case DType::i16: return f(int16_t{});
    case DType::u16:
    case DType::f16:
    case DType::bf16: return f(uint16_t{});
    case DType::u32: return f(uint32_t{});
    case DType::u64: return f(uint64_t{});
    case DType::string: break;  // no numeric kernel reads text: import functions refuse it
  }
  throw Error("no numeric kernel for dtype " + to_string(dtype));
}

// visit_dtype for kernels of numbers: f(T{}) for every dtype but bool, which gets no
// kernel (nullptr).
template <typename F>
ReferenceFn visit_numeric_dtype(DType dtype, F&& f) {
  return visit_dtype(dtype, [&f](auto tag) -> ReferenceFn {
    if constexpr (std::is_same_v<decltype(tag), bool>) {
      return nullptr;
    } else {
      return f(tag);
    }
  });
}

// `value` converted to `dtype`, as the bytes of one element: what fills and constants
// (Pad's value, EyeLike's ones) write. f16 and bf16 are rounded from f32.
inline std::vector<uint8_t> element_bytes(double value, DType dtype) {
  std::vector<uint8_t> bytes(dtype_size(dtype));
  auto put = [&bytes](auto v) { std::memcpy(bytes.data(), &v, sizeof v); };
  if (dtype == DType::f16) {
    put(f32_to_f16(static_cast<float>(value)));
  } else if (dtype == DType::bf16) {
    put(f32_to_bf16(static_cast<float>(value)));
  } else {
    visit_dtype(dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>) {
        put(static_cast<uint8_t>(value != 0));
      } else {
        put(static_cast<T>(value));
      }
    });
  }
  return bytes;
}

}  // namespace nee
