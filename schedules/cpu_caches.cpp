#include "schedules/cpu_caches.h"

namespace nee {

CpuCaches CpuCaches::of_device(const DeviceFingerprint& device) {
  CpuCaches caches;
  if (device.l2_bytes > 0) caches.l2_bytes = device.l2_bytes;
  return caches;
}

}  // namespace nee
