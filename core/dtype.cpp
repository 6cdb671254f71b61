#include "core/dtype.h"

#include "core/error.h"

namespace nee {

std::string to_string(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::i64: return "i64";
    case DType::i32: return "i32";
    case DType::boolean: return "bool";
    case DType::i8: return "i8";
    case DType::u8: return "u8";
    case DType::f64: return "f64";
    case DType::i16: return "i16";
    case DType::u16: return "u16";
    case DType::u32: return "u32";
    case DType::u64: return "u64";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::string: return "string";
  }
  return "?";
}

DType dtype_from_string(const std::string& name) {
  for (DType t : {DType::f32, DType::i64, DType::i32, DType::boolean, DType::i8, DType::u8, DType::f64, DType::i16,
                  DType::u16, DType::u32, DType::u64, DType::f16, DType::bf16, DType::string}) {
    if (to_string(t) == name) return t;
  }
  throw Error("unknown data type '" + name + "'");
}

size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::i64: return 8;
    case DType::i32: return 4;
    case DType::boolean: return 1;
    case DType::i8: return 1;
    case DType::u8: return 1;
    case DType::f64: return 8;
    case DType::i16: return 2;
    case DType::u16: return 2;
    case DType::u32: return 4;
    case DType::u64: return 8;
    case DType::f16: return 2;
    case DType::bf16: return 2;
    case DType::string: return sizeof(std::string);
  }
  return 0;
}

bool is_floating(DType t) { return t == DType::f32 || t == DType::f64 || t == DType::f16 || t == DType::bf16; }

}  // namespace nee
