#include "tuner/runners/batch_folder.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "core/error.h"
#include "core/isa_level.h"
#include "core/subprocess.h"
#include "core/version.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee {

namespace fs = std::filesystem;

BatchManifest pack_batch_folder(const std::string& folder, const std::vector<MeasureTask>& tasks,
                                const std::string& halide_target, const RunnerOptions& options,
                                const std::map<std::string, double>& best_us, const std::string& measure_program) {
  if (fs::exists(folder) && !fs::is_empty(folder)) {
    throw Error("batch folder '" + folder + "' already exists and is not empty");
  }
  const std::string program = measure_program.empty() ? executable_dir() + "/nee-measure" : measure_program;
  if (!fs::exists(program)) throw Error("measuring program '" + program + "' not found");
  // The folder's nee-measure runs where its kernels run, so it is of their architecture.
  const IsaLevel* level = isa_level_of_target(halide_target);
  const std::string kernels_arch = level ? level->arch : host_arch();
  const std::string program_arch = elf_arch(program);
  if (program_arch != kernels_arch) {
    throw Error(fmt::format("measuring program '{}' is {}, but the batch's kernels are for {}: give pack "
                            "--measure-program a nee-measure built for {}{}",
                            program, program_arch.empty() ? "no program NEE knows" : "built for " + program_arch,
                            kernels_arch, kernels_arch,
                            kernels_arch == "arm-64" ? " (make build-arm64 builds build/arm64/build/tuner/nee-measure)" : ""));
  }
  fs::create_directories(folder + "/bin");
  fs::copy_file(program, folder + "/bin/nee-measure");

  BatchManifest manifest;
  manifest.nee_version = kVersion;
  manifest.halide_version = halide_version();
  manifest.halide_target = halide_target;
  manifest.settings = options;
  for (const MeasureTask& t : tasks) {
    if (!t.build.ok()) continue;
    BatchTask task;
    task.id = "c" + std::to_string(manifest.tasks.size());
    const std::string dir = "candidates/" + task.id;
    fs::create_directories(folder + "/" + dir);
    task.library = dir + "/kernel.so";
    task.workload_file = dir + "/workload.json";
    fs::copy_file(t.build.artifact, folder + "/" + task.library);
    {
      std::ofstream out(folder + "/" + task.workload_file);
      out << t.candidate.workload.to_json().dump();
      if (!out) throw Error("writing " + folder + "/" + task.workload_file + " failed");
    }
    task.workload = t.candidate.workload;
    task.config = t.candidate.config;
    task.symbol = t.build.symbol;
    task.seed = t.seed;
    const auto best = best_us.find(t.candidate.workload.key());
    task.best_us = best == best_us.end() ? 0 : best->second;
    task.strategy = t.candidate.strategy;
    task.trial = t.candidate.trial;
    task.parent_record = t.candidate.parent_record;
    manifest.tasks.push_back(std::move(task));
  }
  manifest.write(folder);
  return manifest;
}

std::vector<BatchRecord> batch_records(const std::string& folder) {
  const BatchManifest manifest = BatchManifest::read(folder);
  if (!fs::exists(batch_results_path(folder))) {
    throw Error("batch folder '" + folder + "' has no results.jsonl: run `bin/nee-measure --batch " + folder +
                "` where the kernels can run");
  }
  // A task re-measured twice (a kill between a workload's lines) keeps its last line.
  std::map<std::string, MeasureResult> confirmations;
  for (const ConfirmedTime& c : read_batch_confirmations(folder)) {
    manifest.task(c.task);  // throws for a line of another batch
    confirmations[c.task] = c.result;
  }
  std::vector<BatchRecord> records;
  for (const BatchResult& r : read_batch_results(folder)) {
    const BatchTask& task = manifest.task(r.task);
    BatchRecord b;
    TuningRecord& record = b.record;
    record.workload = task.workload;
    record.target = Target{manifest.halide_target, r.device, manifest.settings.cache,
                           halide_major_of(manifest.halide_version)};
    record.config = task.config;
    record.result = r.result;
    record.strategy = task.strategy;
    record.trial = task.trial;
    record.parent_record = task.parent_record;
    record.created_at = r.measured_at;
    record.nee_version = manifest.nee_version;
    record.halide_version = manifest.halide_version;
    const auto confirmation = confirmations.find(r.task);
    if (confirmation != confirmations.end()) b.confirmation = confirmation->second;
    records.push_back(std::move(b));
  }
  return records;
}

BatchImportCounts import_batch_records(TuningDatabase& db, const std::vector<BatchRecord>& records) {
  BatchImportCounts counts;
  for (const BatchRecord& b : records) {
    std::optional<int64_t> id = db.find_measurement(b.record);
    if (id) {
      ++counts.already_present;
    } else {
      TuningRecord fresh = b.record;
      fresh.parent_record.reset();  // an id of the packing database, not of this one
      id = db.add_record(fresh);
      ++counts.added;
    }
    if (!b.confirmation) continue;
    if (b.confirmation->status == MeasureStatus::ok) {
      db.set_confirmed_us(*id, b.confirmation->median_us);
    } else {
      db.set_failed_on_recheck(*id, *b.confirmation);
    }
    ++counts.confirmed;
  }
  return counts;
}

}  // namespace nee
