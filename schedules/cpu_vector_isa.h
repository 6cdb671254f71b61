#pragma once
#include <string>

namespace nee {

// What a CPU's vector unit offers a register-blocked kernel: f32 lanes per native vector
// and the number of vector registers. The CPU spaces size their register blocks and
// default points from it, so one space serves AVX2 (8 lanes, 16 ymm registers) and
// AVX-512 (16 lanes, 32 zmm registers) machines.
struct CpuVectorIsa {
  int lanes = 8;
  int registers = 16;
  // Dot products of four unsigned by four signed bytes into an i32 lane (VNNI's vpdpbusd,
  // at NEE's avx512_zen4 and avx512_sapphirerapids levels). Without them an integer
  // product sums in f32: summing bytes in i32 at avx2 (vpmaddwd after widening), a
  // dynamically quantized GPT decoder ran 21.7 ms, its f32 products 4.4.
  bool byte_dot_products = false;

  static CpuVectorIsa of_target(const std::string& halide_target);

  // A 16-lane unit with 32 registers (AVX-512), on which the spaces' wide defaults were
  // measured. NEON has 32 registers too, but of 4 lanes: a 16-channel weight block takes
  // 4 of them, so the wide register blocks would spill there.
  bool wide() const { return lanes >= 16 && registers >= 32; }
  // Registers one vector of `width` floats takes (at least one).
  int registers_per_vector(int64_t width) const;
  // The most broadcast columns a default register block of `blocks` 16-channel weight
  // vectors takes: accumulators in at most 3/4 of the registers (the measured defaults'
  // rule) and at most 20, and never more than fit beside one weight vector per block and
  // the broadcast value (on SSE's 16 registers of 4 lanes that is 2 columns, not 3). At
  // least one. The 20: ResNet's fastest blocks held 16-20 accumulators; 2 blocks by 12
  // columns (24), the default on planes 12, 24 or 48 wide, ran HRNet's 128-channel 3x3
  // conv onto 16x12 at 406 us where 2 by 4 ran 259-279 (nee-tune's records, Zen 4).
  int64_t default_block_columns(int64_t blocks) const;
  // Empty when a register block of `columns` broadcast columns by `blocks` 16-channel
  // weight vectors fits (its accumulators, one weight vector per block and the broadcast
  // value); otherwise why it would spill.
  std::string channel_block_misfit(int64_t blocks, int64_t columns) const;
};

}  // namespace nee
