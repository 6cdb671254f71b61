#include "schedules/cpu_vector_isa.h"

#include <algorithm>

#include <Halide.h>

#include "core/conv_weight_layout.h"
#include "core/error.h"

namespace nee {

CpuVectorIsa CpuVectorIsa::of_target(const std::string& halide_target) {
  if (!Halide::Target::validate_target_string(halide_target)) {
    throw Error("'" + halide_target + "' is not a Halide target string");
  }
  const Halide::Target t(halide_target);
  if (t.has_feature(Halide::Target::AVX512)) {
    return {16, 32,
            t.has_feature(Halide::Target::AVX512_Zen4) || t.has_feature(Halide::Target::AVX512_SapphireRapids)};
  }
  if (t.has_feature(Halide::Target::AVX) || t.has_feature(Halide::Target::AVX2)) return {8, 16};
  if (t.arch == Halide::Target::ARM) return {4, 32};  // NEON: 32 128-bit registers
  return {4, 16};                                     // SSE: 16 128-bit registers
}

int CpuVectorIsa::registers_per_vector(int64_t width) const {
  return static_cast<int>(std::max<int64_t>(1, (width + lanes - 1) / lanes));
}

int64_t CpuVectorIsa::default_block_columns(int64_t blocks) const {
  const int64_t block_regs = registers_per_vector(kConvWeightBlock) * blocks;
  const int64_t accumulators = std::min<int64_t>({registers * 3 / 4, 20, registers - block_regs - 1});
  return std::max<int64_t>(1, accumulators / block_regs);
}

std::string CpuVectorIsa::channel_block_misfit(int64_t blocks, int64_t columns) const {
  const int64_t block_regs = registers_per_vector(kConvWeightBlock) * blocks;
  if (block_regs * columns + block_regs + 1 <= registers) return "";
  return "register block does not fit in " + std::to_string(registers) + " vector registers";
}

}  // namespace nee
