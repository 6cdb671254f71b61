#include "tuner/cli/pack_command.h"

#include <fmt/format.h>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>

#include "core/error.h"
#include "schedules/schedule_space.h"
#include "tuner/compile/builder.h"
#include "tuner/runners/batch_folder.h"
#include "tuner/search/search_strategy.h"

namespace nee {

namespace fs = std::filesystem;

PackReport pack_candidates(const TuningDatabase& db, const PackRequest& request) {
  if (fs::exists(request.folder) && !fs::is_empty(request.folder)) {
    throw Error("batch folder '" + request.folder + "' already exists and is not empty");
  }
  if (request.count < 1) throw Error("pack needs --count of at least 1");
  const Target target{request.halide_target, {}};
  std::vector<Target> same_code;  // every stored device of this Halide target and release
  for (const Target& t : db.targets()) {
    if (t.halide == request.halide_target && t.halide_major == target.halide_major) same_code.push_back(t);
  }
  std::mt19937_64 rng(request.seed);
  const std::string build_dir = (fs::temp_directory_path() / fmt::format("nee-pack-{}", getpid())).string();
  Builder builder(build_dir, request.build_jobs, request.build_timeout_s, request.object_cache);
  std::vector<MeasureTask> tasks;
  std::map<std::string, double> best_us;
  for (const Workload& w : request.workloads) {
    const auto space = make_schedule_space(w, target);
    auto strategy = make_search_strategy(request.strategy, *space, rng(), w, target);
    int trial = 0;
    for (const Target& t : same_code) {
      for (const TuningRecord& r : db.history(w, t)) {
        strategy->observe(r.config, r.result);
        ++trial;
        if (r.result.status == MeasureStatus::ok && (!best_us.count(w.key()) || r.ranked_us() < best_us[w.key()])) {
          best_us[w.key()] = r.ranked_us();
        }
      }
    }
    std::vector<Candidate> batch;
    const ScheduleConfig default_config = space->default_config();
    if (!strategy->seen(default_config)) {
      batch.push_back({w, target, default_config, "default", 0, std::nullopt});
      strategy->start_from(default_config);
    }
    for (ScheduleConfig& c : strategy->propose(request.count - static_cast<int>(batch.size()))) {
      batch.push_back({w, target, std::move(c), strategy->name(), 0, std::nullopt});
    }
    const std::vector<BuildResult> builds = builder.build(batch);
    // One seed for all of a workload's candidates: fresh inputs for this batch, and
    // nee-measure --batch computes their reference once.
    const uint64_t seed = rng();
    for (size_t i = 0; i < batch.size(); ++i) {
      batch[i].trial = trial++;
      tasks.push_back({builds[i], batch[i], seed});
    }
  }
  PackReport report;
  for (const MeasureTask& t : tasks) {
    if (t.build.ok()) continue;
    ++report.build_errors;
    fmt::print(stderr, "nee-tune pack: {} {} did not build: {}\n", t.candidate.workload.key(),
               t.candidate.config.to_string(), t.build.error);
  }
  BatchManifest manifest = pack_batch_folder(request.folder, tasks, request.halide_target, request.runner, best_us,
                                               request.measure_program);
  manifest.confirmation = request.confirmation;
  manifest.write(request.folder);
  report.packed = static_cast<int>(manifest.tasks.size());
  fs::remove_all(build_dir);
  return report;
}

}  // namespace nee
