#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace nee {

// Appended in the order they were added, so a stored enum value keeps its meaning.
// string: ONNX STRING, each element a std::string of UTF-8 text (runtime/tensor.h says
// how a tensor holds them).
enum class DType { f32, i64, i32, boolean, i8, u8, f64, i16, u16, u32, u64, f16, bf16, string };

std::string to_string(DType t);
DType dtype_from_string(const std::string& name);
// Bytes per element in a tensor's storage; sizeof(std::string) for strings.
size_t dtype_size(DType t);
bool is_floating(DType t);  // f32, f64, f16, bf16

}  // namespace nee
