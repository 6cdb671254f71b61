#pragma once
#include "runtime/tensor_limits.h"

namespace nee::fuzz {

// The memory caps the fuzz targets import and run with: far below the defaults (4 GiB a
// tensor, the machine's memory in all), for the same checks, so that an input that passes them stays
// within libFuzzer's memory limits (scripts/fuzz.sh: -malloc_limit_mb=256,
// -rss_limit_mb=2048). An allocation over those limits is then a finding, never a model
// that legitimately sits at the default caps.
inline MemoryCaps fuzz_caps() {
  MemoryCaps caps;
  caps.tensor_bytes = int64_t{16} << 20;
  caps.weights_bytes = int64_t{64} << 20;
  caps.plan_bytes = int64_t{64} << 20;
  caps.total_bytes = int64_t{128} << 20;
  return caps;
}

}  // namespace nee::fuzz
