#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace nee {

enum class DType { f32, i64, i32, boolean, i8, u8 };

std::string to_string(DType t);
DType dtype_from_string(const std::string& name);
size_t dtype_size(DType t);

}  // namespace nee
