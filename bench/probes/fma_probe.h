#pragma once
#include <cstdint>

namespace nee::bench {

// The FMA-throughput probe: `threads` threads each run `iterations` steps of
// kFmaChains independent 8-wide AVX2 fused multiply-adds. Returns the FLOPs done
// (2 per lane per FMA). Throws nee::Error when the CPU lacks AVX2 or FMA.
constexpr int kFmaChains = 12;
double run_fma_probe(int threads, int64_t iterations);

}  // namespace nee::bench
