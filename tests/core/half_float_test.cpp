// f16 and bf16 conversions: every f16 bit pattern round-trips through f32, rounding is to
// nearest even at the boundaries worked out by hand, and bf16 keeps f32's upper half.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/half_float.h"

namespace nee {
namespace {

bool is_f16_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

TEST(HalfFloat, EveryF16RoundTripsThroughF32) {
  for (uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const uint16_t h = static_cast<uint16_t>(bits);
    const float f = f16_to_f32(h);
    if (is_f16_nan(h)) {
      EXPECT_TRUE(std::isnan(f)) << bits;
      EXPECT_TRUE(is_f16_nan(f32_to_f16(f))) << bits;
      continue;
    }
    EXPECT_EQ(f32_to_f16(f), h) << bits;
    EXPECT_EQ(f64_to_f16(static_cast<double>(f)), h) << bits;
  }
}

TEST(HalfFloat, F16ValuesAreTheIeeeOnes) {
  EXPECT_EQ(f16_to_f32(0x3c00), 1.0f);
  EXPECT_EQ(f16_to_f32(0xc000), -2.0f);
  EXPECT_EQ(f16_to_f32(0x7bff), 65504.0f);
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(f16_to_f32(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_EQ(f16_to_f32(0x7c00), std::numeric_limits<float>::infinity());
}

TEST(HalfFloat, F32ToF16RoundsToNearestEven) {
  const float ulp_at_one = std::ldexp(1.0f, -10);
  EXPECT_EQ(f32_to_f16(1.0f + ulp_at_one / 2), 0x3c00);          // tie, to the even 1.0
  EXPECT_EQ(f32_to_f16(1.0f + 3 * ulp_at_one / 2), 0x3c02);      // tie, to the even 1 + 2 ulp
  EXPECT_EQ(f32_to_f16(1.0f + ulp_at_one * 0.5001f), 0x3c01);    // above the tie
  EXPECT_EQ(f32_to_f16(65519.0f), 0x7bff);                        // below 65520 stays finite
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);                        // the tie above 65504 overflows
  EXPECT_EQ(f32_to_f16(-1e9f), 0xfc00);
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);           // half the smallest subnormal: to even 0
  EXPECT_EQ(f32_to_f16(std::ldexp(3.0f, -26)), 0x0001);           // 0.75 of it rounds up
  EXPECT_EQ(f32_to_f16(-0.0f), 0x8000);
}

// Rounding a double to f32 first would round twice: 1 + 2^-11 + 2^-40 is just above the
// tie between 1 and 1 + 2^-10, but as f32 it is exactly the tie, which goes to even 1.0.
TEST(HalfFloat, F64ToF16RoundsOnce) {
  const double above_tie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(f32_to_f16(static_cast<float>(above_tie)), 0x3c00);
  EXPECT_EQ(f64_to_f16(above_tie), 0x3c01);
  EXPECT_EQ(f64_to_f16(1e300), 0x7c00);
  EXPECT_TRUE(is_f16_nan(f64_to_f16(std::nan(""))));
}

TEST(HalfFloat, Bf16KeepsTheUpperHalfOfF32) {
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(bf16_to_f32(0x3f80), 1.0f);
  EXPECT_EQ(f32_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);  // truncated, as ONNX's reference up to opset 17
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  uint32_t nan_bits = 0x7f800001u;  // a NaN whose upper half alone would read as infinity
  float nan;
  std::memcpy(&nan, &nan_bits, sizeof nan);
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(nan))));
}

}  // namespace
}  // namespace nee
