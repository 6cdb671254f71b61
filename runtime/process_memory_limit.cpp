#include "runtime/process_memory_limit.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

namespace nee {

namespace {

// A cgroup limit file's number; nullopt for "max" (v2's no limit), a missing file or
// anything else.
std::optional<int64_t> limit_in(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  // v1 writes "no limit" as a page-rounded LLONG_MAX; any value past int64 is none.
  if (errno != 0 || v > static_cast<unsigned long long>(INT64_MAX) - 4096) return std::nullopt;
  return static_cast<int64_t>(v);
}

int64_t rlimit_bytes() {
  int64_t least = -1;
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit r{};
    if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) continue;
    const int64_t v = r.rlim_cur > static_cast<rlim_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(r.rlim_cur);
    least = least < 0 ? v : std::min(least, v);
  }
  return least;
}

}  // namespace

ProcessMemoryLimit read_process_memory_limit(int64_t physical_bytes, const std::string& proc_self_cgroup,
                                             const std::string& cgroup_root, int64_t rlimit) {
  ProcessMemoryLimit limit{physical_bytes, "physical memory"};
  const auto consider = [&limit](std::optional<int64_t> bytes, const std::string& source) {
    if (bytes && *bytes > 0 && *bytes < limit.bytes) limit = {*bytes, source};
  };
  std::istringstream lines(proc_self_cgroup);
  std::string line;
  while (std::getline(lines, line)) {
    // "hierarchy-ID:controllers:path"; v2's line is "0::/path".
    const size_t first = line.find(':'), second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (path.empty() || path[0] != '/' || path.find("..") != std::string::npos) continue;
    // The cgroup and every one above it bound the process. The walk ends at the mount's
    // root, which is the process's own cgroup where a container namespaces them (its
    // /proc/self/cgroup may name a path this mount does not show).
    const auto walk = [&](const std::string& base, const std::string& file) {
      for (std::string at = path;;) {
        consider(limit_in(base + (at == "/" ? "" : at) + "/" + file), "cgroup " + at + " (" + file + ")");
        if (at == "/") break;
        at = at.substr(0, std::max<size_t>(1, at.rfind('/')));
      }
    };
    if (controllers.empty()) {
      walk(cgroup_root, "memory.max");
      walk(cgroup_root + "/unified", "memory.max");  // v2 beside v1 (a hybrid mount)
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      walk(cgroup_root + "/memory", "memory.limit_in_bytes");
    }
  }
  consider(rlimit >= 0 ? std::optional<int64_t>(rlimit) : std::nullopt, "ulimit -v or -d");
  return limit;
}

const ProcessMemoryLimit& process_memory_limit() {
  static const ProcessMemoryLimit limit = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    const int64_t physical = pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : INT64_MAX;
    std::ifstream in("/proc/self/cgroup");
    std::stringstream text;
    text << in.rdbuf();
    return read_process_memory_limit(physical, text.str(), "/sys/fs/cgroup", rlimit_bytes());
  }();
  return limit;
}

}  // namespace nee
