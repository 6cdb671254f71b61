#pragma once
#include <cmath>

#include "core/records.h"
#include "core/schedule_config.h"
#include "core/target.h"

namespace nee::tuner_test {

// A made-up time for a CPU matmul point, monotone in each knob it reads: bigger register
// blocks and a moderate reduction block are faster. Stands in for measurements.
inline double synthetic_us(const ScheduleConfig& c) {
  const double nr = static_cast<double>(c.at("vec") * c.at("nr_vecs"));
  const double mr = static_cast<double>(c.at("mr"));
  const double kc = static_cast<double>(c.at("kc"));
  return 100.0 * (1 + 8 / (mr * nr)) * (1 + 0.3 * static_cast<double>(c.at("parallel") == 0)) *
         (1 + std::abs(std::log2(1 + kc) - 7) / 8);
}

// A successful measurement of `us` microseconds, as a runner would report it.
inline MeasureResult ok_result(double us) {
  MeasureResult r;
  r.status = MeasureStatus::ok;
  r.median_us = r.min_us = us;
  r.repeats = 3;
  return r;
}

// A fixed machine, so that tests whose outcome depends on the schedule space (whose
// register blocks follow the vector unit) do not depend on the host: AVX2, 16 registers.
inline Target synthetic_target() {
  Target t;
  t.halide = "x86-64-linux-avx-avx2-f16c-fma-sse41";
  t.device.cpu_model = "Test CPU";
  t.device.cores = 8;
  t.device.l1d_bytes = 32 * 1024;
  t.device.l2_bytes = 1024 * 1024;
  t.device.l3_bytes = 32 * 1024 * 1024;
  return t;
}

// The same machine with AVX-512: 32 registers of 16 lanes.
inline Target synthetic_avx512_target() {
  Target t = synthetic_target();
  t.halide = "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41";
  return t;
}

}  // namespace nee::tuner_test
