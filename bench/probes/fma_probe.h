#pragma once
#include <cstdint>

namespace nee::bench {

// The FMA-throughput probe: `threads` threads each run `iterations` steps of
// kFmaChains independent fused multiply-adds, 16 lanes wide where the CPU has AVX-512,
// else 8 (AVX2). Returns the FLOPs done (2 per lane per FMA). Throws nee::Error when the
// CPU lacks AVX2 or FMA.
constexpr int kFmaChains = 12;
int fma_probe_lanes();
double run_fma_probe(int threads, int64_t iterations);

}  // namespace nee::bench
