#pragma once
#include <cstdint>

#include "core/target.h"

namespace nee {

// The L2 cache of one core, which the Winograd conv's default sizes its tasks by. Its
// bounds were measured on an Intel Xeon (Sapphire Rapids level) with 2 MB of L2 per core
// and are written in that machine's bytes; on another core they scale by the ratio of
// the L2s: 1 MB of that L2 is 0.5 MB of AMD Zen 4's 1 MB, where the scaled bound was
// measured to pay. The blocked conv's bounds stay as measured: its L1-sized ones lost on
// Zen 4 when scaled, and its 1 MB window bound was not measured there (docs/DESIGN-NOTES.md,
// "Conv byte bounds on a core with smaller caches").
struct CpuCaches {
  static constexpr int64_t kMeasuredL2Bytes = 2 * 1024 * 1024;

  int64_t l2_bytes = kMeasuredL2Bytes;

  // The device's caches; a size it does not know (0: a GPU target, or a file from before
  // fingerprints held caches) stays the measured machine's.
  static CpuCaches of_device(const DeviceFingerprint& device);

  // `measured_bytes` of the measured machine's L2 as bytes of this core's.
  int64_t l2(int64_t measured_bytes) const { return measured_bytes * l2_bytes / kMeasuredL2Bytes; }
};

}  // namespace nee
