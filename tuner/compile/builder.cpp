#include "tuner/compile/builder.h"

#include <filesystem>

#include "core/error.h"
#include "tuner/compile/forked_jobs.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee {

namespace fs = std::filesystem;

Builder::Builder(std::string work_dir, int jobs, double timeout_seconds)
    : work_dir_(std::move(work_dir)), jobs_(std::max(1, jobs)), timeout_seconds_(timeout_seconds) {
  fs::create_directories(work_dir_);
}

std::string Builder::symbol_for(const Workload& workload) { return "nee_" + workload.hash(); }

std::string Builder::runtime_object(const Target& target) {
  auto it = runtime_objects_.find(target.halide);
  if (it != runtime_objects_.end()) return it->second;
  const std::string path = work_dir_ + "/runtime-" + std::to_string(runtime_objects_.size()) + ".o";
  const auto result = run_forked_jobs({{[&] { compile_runtime_object(target, path); }, path + ".log"}}, 1,
                                      timeout_seconds_);
  if (!result[0].error.empty()) {
    throw Error("building the Halide runtime for " + target.halide + " failed: " + result[0].error);
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
    r.symbol = symbol_for(c.workload);
    r.artifact = dir + "/kernel.so";
    const std::string object = dir + "/kernel.o";
    const IsaLevel* level = isa_level_of_target(c.target.halide);
    const std::string arch = level ? level->arch : host_arch();
    jobs.push_back({[&c, &r, object, runtime, arch] {
                      compile_kernel_object(c.workload, c.target, c.config, r.symbol, object);
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
