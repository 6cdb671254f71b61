#pragma once
#include <cstddef>

namespace nee {

// Evicts every cache line of [data, data + bytes) from every cache level of this CPU,
// writing dirty lines back: on x86 with clflushopt (clflush where the CPU lacks it), on
// 64-bit ARM with `dc civac` per line, which Linux lets user code run.
void evict_from_caches(const void* data, size_t bytes);
// Waits until the evictions issued so far are complete, so a timed call that follows
// meets its buffers in memory.
void wait_for_evictions();

}  // namespace nee
