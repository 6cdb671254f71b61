#pragma once
#include <cstdint>

#include "core/target.h"

namespace nee {

// The data caches of one core, which the CPU spaces' defaults size their tiles by.
// Every cache threshold in a default was measured on an Intel Xeon (Sapphire Rapids
// level) with 48 KB of L1d and 2 MB of L2 per core, and is written in that machine's
// bytes; on another core it scales by the ratio of the caches: 32 KB of that L1 is
// 21.3 KB of a 32 KB one (AMD Zen 4, Intel Skylake-SP), 1 MB of that L2 is 0.5 MB of a
// 1 MB one. The scaled values were not measured on such cores: they keep each working
// set at the share of the cache it took where it was measured, and the tuner corrects them.
struct CpuCaches {
  static constexpr int64_t kMeasuredL1dBytes = 48 * 1024;
  static constexpr int64_t kMeasuredL2Bytes = 2 * 1024 * 1024;

  int64_t l1d_bytes = kMeasuredL1dBytes;
  int64_t l2_bytes = kMeasuredL2Bytes;

  // The device's caches; a size it does not know (0: a GPU target, or a file from before
  // fingerprints held caches) stays the measured machine's.
  static CpuCaches of_device(const DeviceFingerprint& device);

  // `measured_bytes` of the measured machine's L1d (L2) as bytes of this core's.
  int64_t l1d(int64_t measured_bytes) const { return measured_bytes * l1d_bytes / kMeasuredL1dBytes; }
  int64_t l2(int64_t measured_bytes) const { return measured_bytes * l2_bytes / kMeasuredL2Bytes; }
};

}  // namespace nee
