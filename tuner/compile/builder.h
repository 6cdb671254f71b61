#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/records.h"
#include "tuner/compile/object_cache.h"

namespace nee {

// Builds candidates ahead of time into shared libraries, each in a forked child process
// with a time limit: a schedule that crashes or hangs Halide's compiler costs only its
// own candidate. Up to `jobs` builds run at once. With an object cache, a candidate
// compiled before (by this run or another) is only linked.
class Builder {
 public:
  Builder(std::string work_dir, int jobs, double timeout_seconds, ObjectCache cache = {});
  std::vector<BuildResult> build(const std::vector<Candidate>& candidates);

  // Candidates of this builder whose object came from the cache.
  int cache_hits() const { return cache_hits_; }

  // The kernel symbol a candidate library, and a bundle's library for the target's ISA
  // level, exports: one object serves both (a bundle links the objects its search built).
  static std::string symbol_for(const Workload& workload, const Target& target);

 private:
  std::string runtime_object(const Target& target);

  std::string work_dir_;
  int jobs_;
  double timeout_seconds_;
  ObjectCache cache_;
  int next_id_ = 0;
  int cache_hits_ = 0;
  std::map<std::string, std::string> runtime_objects_;  // Halide target -> object path
};

}  // namespace nee
