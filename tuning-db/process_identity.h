#pragma once
#include <cstdint>
#include <string>

namespace nee::db {

// A process as the owner of a claim: a pid alone is reused, so it is told apart by the
// host, the boot (Linux's random boot id) and the process's start time.
struct ProcessIdentity {
  std::string host;
  std::string boot_id;      // /proc/sys/kernel/random/boot_id; empty where unknown
  int64_t pid = 0;
  int64_t start_ticks = 0;  // /proc/<pid>/stat starttime: clock ticks after boot; 0 where unknown

  // Read afresh at each call, so that a forked child is itself.
  static ProcessIdentity of_this_process();
  // Whether the process `pid` that started at `start_ticks` still runs on this host (a
  // start of 0 checks the pid alone).
  static bool running_here(int64_t pid, int64_t start_ticks);
};

}  // namespace nee::db
