#pragma once
#include <cstdint>

namespace nee {

// IEEE binary16 (ONNX FLOAT16) and bfloat16 (ONNX BFLOAT16) are stored as their 16-bit
// patterns; NEE computes on them in f32 (importer/half_precision.h).

float f16_to_f32(uint16_t bits);
// Rounds to nearest, ties to even; beyond 65504 gives infinity; NaN stays NaN.
uint16_t f32_to_f16(float value);
// Rounds once, directly from the double (not through a rounded f32).
uint16_t f64_to_f16(double value);

float bf16_to_f32(uint16_t bits);
// Keeps the upper 16 bits (truncation), as ONNX's reference does for Cast up to opset 17
// (the backend tests of onnx 1.12 expect it); NaN stays NaN.
uint16_t f32_to_bf16(float value);

}  // namespace nee
