#pragma once
#include <cstdint>

#include "core/dtype.h"
#include "core/error.h"

namespace nee {

// Calls f(T{}) with the C++ element type of `dtype` (bool for DType::boolean, which is
// stored as one byte holding 0 or 1) and returns what f returns.
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
    case DType::u16: return f(uint16_t{});
    case DType::u32: return f(uint32_t{});
    case DType::u64: return f(uint64_t{});
  }
  throw Error("unknown dtype");
}

}  // namespace nee
