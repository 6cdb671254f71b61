#include "core/half_float.h"

#include <cmath>
#include <cstring>

namespace nee {

namespace {

uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

float float_of(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

}  // namespace

float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return float_of(sign | 0x7f800000u | (mantissa << 13));  // infinity, NaN
  if (exponent != 0) return float_of(sign | ((exponent + 112) << 23) | (mantissa << 13));  // rebias 15 -> 127
  const float subnormal = std::ldexp(static_cast<float>(mantissa), -24);
  return sign ? -subnormal : subnormal;
}

uint16_t f32_to_f16(float value) {
  const uint32_t x = bits_of(value);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00u | ((magnitude >> 13) & 0x1ffu);  // quiet NaN
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;  // 65520 and up round to infinity
  if (magnitude < 0x38800000u) {
    // Below 2^-14: a subnormal (or zero) in units of 2^-24. Scaling by 2^24 is exact, and
    // nearbyint rounds to nearest even; 0x400 is then the smallest normal, encoded right.
    return sign | static_cast<uint16_t>(std::nearbyint(float_of(magnitude) * 16777216.0f));
  }
  const uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);  // ties to even
  return sign | static_cast<uint16_t>((rounded - 0x38000000u) >> 13);       // rebias 127 -> 15
}

uint16_t f64_to_f16(double value) {
  // Rounding to f32 first could round twice. Truncating toward zero and setting the
  // lowest bit when inexact ("round to odd") keeps the information the second rounding
  // needs, since f32 has 13 more mantissa bits than f16.
  float f = static_cast<float>(value);
  if (std::isnan(value) || static_cast<double>(f) == value) return f32_to_f16(f);
  if (std::fabs(static_cast<double>(f)) > std::fabs(value)) f = std::nextafter(f, 0.0f);
  return f32_to_f16(float_of(bits_of(f) | 1u));
}

float bf16_to_f32(uint16_t bits) { return float_of(static_cast<uint32_t>(bits) << 16); }

uint16_t f32_to_bf16(float value) {
  if (std::isnan(value)) return static_cast<uint16_t>((bits_of(value) >> 16) | 0x40u);  // stays quiet NaN
  return static_cast<uint16_t>(bits_of(value) >> 16);
}

}  // namespace nee
