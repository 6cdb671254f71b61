#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "core/records.h"

namespace nee {

// Compiled objects kept by what made them, so that a schedule compiled once is not
// compiled again: not by the re-measurement at the end of a run, a later run, or a
// bundle built again. A file's name is the SHA-256 of the program that compiled it (its
// own bytes: any change to NEE's schedules changes them), the Halide version, the Halide
// target, and the workload, schedule and symbol for a kernel. A default-constructed cache
// is off: every object is compiled into the caller's folder.
class ObjectCache {
 public:
  ObjectCache() = default;
  explicit ObjectCache(std::string dir);

  bool on() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }

  // Where the object of this kernel (or of the target's Halide runtime) is kept, made or not.
  std::string kernel_path(const Target& target, const Workload& workload, const ScheduleConfig& config,
                          const std::string& symbol) const;
  std::string runtime_path(const Target& target) const;

  // Whether `path` holds an object; a hit is marked used, so pruning keeps it.
  static bool take(const std::string& path);
  // Makes the object at `path` with `compile(temporary path)` and renames it into place,
  // so that a reader, in this process or another sharing the folder, never meets half a
  // file. Run in the forked compile job.
  static void store(const std::string& path, const std::function<void(const std::string&)>& compile);

  // Removes the least recently used objects until the folder holds at most max_bytes.
  void prune(uint64_t max_bytes) const;

 private:
  std::string path_for(const std::string& what) const;

  std::string dir_;
};

// The folder nee-tune keeps its objects in: $NEE_CACHE_DIR, else $XDG_CACHE_HOME/nee/objects,
// else ~/.cache/nee/objects.
std::string default_object_cache_dir();

}  // namespace nee
