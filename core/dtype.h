#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace nee {

// Appended in the order they were added, so a stored enum value keeps its meaning.
enum class DType { f32, i64, i32, boolean, i8, u8, f64, i16, u16, u32, u64, f16, bf16 };

std::string to_string(DType t);
DType dtype_from_string(const std::string& name);
size_t dtype_size(DType t);

}  // namespace nee
