#pragma once
#include <cstdint>
#include <string>

namespace nee {

// The memory this process can have, and what set it: the least of the machine's
// physical memory, the memory.max of its cgroup and of every cgroup above it (v2; v1's
// memory.limit_in_bytes), and the address-space and data-segment limits (ulimit -v, -d).
// Read once per process. An allocation past it can only fail, or bring the kernel's
// OOM killer, so NEE's default memory caps (MemoryCaps) are this limit.
struct ProcessMemoryLimit {
  int64_t bytes;
  std::string source;  // "physical memory", "cgroup /user.slice (memory.max)", "ulimit -v"
};
const ProcessMemoryLimit& process_memory_limit();

// The same reading from given files and limits (tests): `proc_self_cgroup` the text of
// /proc/self/cgroup, `cgroup_root` where the cgroup hierarchies are mounted
// (/sys/fs/cgroup), `rlimit_bytes` the least of RLIMIT_AS and RLIMIT_DATA (negative: none).
ProcessMemoryLimit read_process_memory_limit(int64_t physical_bytes, const std::string& proc_self_cgroup,
                                             const std::string& cgroup_root, int64_t rlimit_bytes);

}  // namespace nee
