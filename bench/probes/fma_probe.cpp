#include "bench/probes/fma_probe.h"

#include <immintrin.h>

#include <thread>
#include <vector>

#include "core/error.h"

namespace nee::bench {

namespace {

// An FMA has a 4-cycle latency and two issue ports, so at least 8 independent chains
// are needed to keep both ports busy; 12 leaves slack and still fits the 16 AVX2
// registers with the two constants.
__attribute__((target("avx2,fma"))) float fma_chains_avx2(int64_t iterations, float seed) {
  __m256 acc[kFmaChains];
  for (int j = 0; j < kFmaChains; ++j) acc[j] = _mm256_set1_ps(seed + 0.01f * static_cast<float>(j));
  // x * m + a converges towards a / (1 - m) = 1: no overflow, no denormals.
  const __m256 m = _mm256_set1_ps(0.999f), a = _mm256_set1_ps(0.001f);
  for (int64_t i = 0; i < iterations; ++i) {
    for (int j = 0; j < kFmaChains; ++j) acc[j] = _mm256_fmadd_ps(acc[j], m, a);
  }
  __m256 sum = acc[0];
  for (int j = 1; j < kFmaChains; ++j) sum = _mm256_add_ps(sum, acc[j]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  return lanes[0];
}

// The same chains 16 lanes wide: an AVX-512 machine's peak is twice its AVX2 FMA rate
// per instruction, and the kernels use 16-wide vectors there (schedules/cpu_vector_isa.h).
__attribute__((target("avx512f"))) float fma_chains_avx512(int64_t iterations, float seed) {
  __m512 acc[kFmaChains];
  for (int j = 0; j < kFmaChains; ++j) acc[j] = _mm512_set1_ps(seed + 0.01f * static_cast<float>(j));
  const __m512 m = _mm512_set1_ps(0.999f), a = _mm512_set1_ps(0.001f);
  for (int64_t i = 0; i < iterations; ++i) {
    for (int j = 0; j < kFmaChains; ++j) acc[j] = _mm512_fmadd_ps(acc[j], m, a);
  }
  __m512 sum = acc[0];
  for (int j = 1; j < kFmaChains; ++j) sum = _mm512_add_ps(sum, acc[j]);
  return _mm512_reduce_add_ps(sum);
}

}  // namespace

int fma_probe_lanes() { return __builtin_cpu_supports("avx512f") ? 16 : 8; }

double run_fma_probe(int threads, int64_t iterations) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    throw Error("the FMA probe needs a CPU with AVX2 and FMA");
  }
  const int lanes = fma_probe_lanes();
  std::vector<float> results(static_cast<size_t>(threads));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      const float seed = 0.5f + 0.001f * static_cast<float>(t);
      results[t] = lanes == 16 ? fma_chains_avx512(iterations, seed) : fma_chains_avx2(iterations, seed);
    });
  }
  for (std::thread& w : workers) w.join();
  // The results are consumed so the loops cannot be dropped as dead code.
  volatile float sink = 0;
  for (float r : results) sink = sink + r;
  return 2.0 * lanes * kFmaChains * static_cast<double>(iterations) * threads;
}

}  // namespace nee::bench
