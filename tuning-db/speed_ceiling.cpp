#include "tuning-db/speed_ceiling.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/dtype.h"
#include "core/family.h"
#include "core/workload_speed.h"

namespace nee {

namespace {

// A clock no CPU sustains: the fastest x86 parts boost to about 6 GHz on one core.
constexpr double kCeilingGhz = 6.0;
// A fingerprint without a core count (0) is bounded as a machine of this many cores.
constexpr int kUnknownCores = 1024;
// GPU targets record no SM count or clock: an H200 peaks at about 67 TFLOP/s of f32
// FMA and 4.8 TB/s of HBM, and its L1 and shared memory at about 33 TB/s in all (132 SMs
// x 128 B x 1.98 GHz). Halide's f32 kernels use no tensor cores, so 1 PFLOP/s and
// 100 TB/s bound every GPU NEE targets with room to spare.
constexpr double kGpuGflops = 1e6;
constexpr double kGpuGbytes = 1e5;

// f32 lanes of one vector register on a CPU target.
int f32_lanes(const Target& t) {
  if (t.has_feature("avx512")) return 16;
  if (t.has_feature("avx") || t.has_feature("avx2")) return 8;
  return 4;  // SSE and NEON: 128-bit registers
}

// Vector FMA pipes per core: two on every x86 core NEE targets; four 128-bit pipes on
// the widest Arm cores (Neoverse V1 and V2, Apple's).
int fma_units(const Target& t) { return t.halide.rfind("arm-", 0) == 0 ? 4 : 2; }

}  // namespace

double speed_ceiling(const Workload& w, const Target& t) {
  const bool moves_data = family_of(w).speed_unit == SpeedUnit::gbytes;
  if (t.kind() != TargetKind::cpu) return moves_data ? kGpuGbytes : kGpuGflops;
  const double cores = t.device.cores > 0 ? t.device.cores : kUnknownCores;
  // Narrower elements fill more lanes (f16, int8 dot products): up to 4x f32's.
  const double packing = 4.0 / static_cast<double>(std::clamp<size_t>(dtype_size(w.output.dtype), 1, 4));
  const double lanes = f32_lanes(t) * packing;
  // Every lane of every FMA unit doing a fused multiply-add (2 flops) each cycle; for
  // data, two loads and one store of a full vector per cycle.
  if (moves_data) return cores * lanes * 4 * 3 * kCeilingGhz;
  return cores * lanes * fma_units(t) * 2 * kCeilingGhz;
}

std::string impossible_speed(const Workload& w, const Target& t, double us) {
  const double ceiling = speed_ceiling(w, t);
  const double achieved = speed(w, us);
  if (achieved <= ceiling) return "";
  return fmt::format("{} us is {:.6g} {}, above the {:.6g} {} this target can reach ({} cores)", us, achieved,
                     speed_unit(w), ceiling, speed_unit(w), t.device.cores);
}

}  // namespace nee
