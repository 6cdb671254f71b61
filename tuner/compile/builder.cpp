#include "tuner/compile/builder.h"

#include <filesystem>

#include "core/error.h"
#include "core/isa_level.h"
#include "tuner/compile/forked_jobs.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee {

namespace fs = std::filesystem;

Builder::Builder(std::string work_dir, int jobs, double timeout_seconds, ObjectCache cache)
    : work_dir_(std::move(work_dir)),
      jobs_(std::max(1, jobs)),
      timeout_seconds_(timeout_seconds),
      cache_(std::move(cache)) {
  fs::create_directories(work_dir_);
}

std::string Builder::symbol_for(const Workload& workload, const Target& target) {
  const IsaLevel* level = isa_level_of_target(target.halide);
  return "nee_" + workload.hash() + (level ? "_" + level->name : "");
}

std::string Builder::runtime_object(const Target& target) {
  auto it = runtime_objects_.find(target.halide);
  if (it != runtime_objects_.end()) return it->second;
  const std::string path = cache_.on() ? cache_.runtime_path(target)
                                       : work_dir_ + "/runtime-" + std::to_string(runtime_objects_.size()) + ".o";
  if (!ObjectCache::take(path)) {
    const std::string log = work_dir_ + "/runtime-" + std::to_string(runtime_objects_.size()) + ".log";
    const auto result = run_forked_jobs(
        {{[&] { ObjectCache::store(path, [&](const std::string& to) { compile_runtime_object(target, to); }); },
          log}},
        1, timeout_seconds_);
    if (!result[0].error.empty()) {
      throw Error("building the Halide runtime for " + target.halide + " failed: " + result[0].error);
    }
  }
  runtime_objects_[target.halide] = path;
  return path;
}

std::vector<BuildResult> Builder::build(const std::vector<Candidate>& candidates) {
  std::vector<BuildResult> results(candidates.size());
  std::vector<ForkedJob> jobs;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const std::string dir = work_dir_ + "/candidate-" + std::to_string(next_id_++);
    fs::create_directories(dir);
    const std::string runtime = runtime_object(c.target);
    BuildResult& r = results[i];
    r.symbol = symbol_for(c.workload, c.target);
    r.artifact = dir + "/kernel.so";
    const std::string object =
        cache_.on() ? cache_.kernel_path(c.target, c.workload, c.config, r.symbol) : dir + "/kernel.o";
    const bool compiled = cache_.on() && ObjectCache::take(object);
    cache_hits_ += compiled;
    const IsaLevel* level = isa_level_of_target(c.target.halide);
    const std::string arch = level ? level->arch : host_arch();
    jobs.push_back({[&c, &r, object, runtime, arch, compiled] {
                      if (!compiled) {
                        ObjectCache::store(object, [&](const std::string& to) {
                          compile_kernel_object(c.workload, c.target, c.config, r.symbol, to);
                        });
                      }
                      link_shared_library({object, runtime}, r.artifact, arch);
                    },
                    dir + "/build.log"});
  }
  const std::vector<ForkedJobResult> done = run_forked_jobs(jobs, jobs_, timeout_seconds_);
  for (size_t i = 0; i < done.size(); ++i) {
    results[i].error = done[i].error;
    results[i].seconds = done[i].seconds;
  }
  return results;
}

}  // namespace nee
