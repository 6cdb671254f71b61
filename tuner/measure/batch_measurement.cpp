#include "tuner/measure/batch_measurement.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/error.h"
#include "core/isa_level.h"
#include "core/median.h"
#include "core/synced_file.h"
#include "core/utc_time.h"
#include "tuner/measure/batch_manifest.h"
#include "tuner/measure/child_measurement.h"
#include "tuner/measure/measurement.h"
#include "tuner/measure/reference_file.h"

namespace nee {

namespace fs = std::filesystem;

namespace {

// Drops a last line without its newline (cut by a kill), so appends start a fresh line.
void cut_partial_tail(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return;
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t last_newline = text.rfind('\n');
  const size_t keep = last_newline == std::string::npos ? 0 : last_newline + 1;
  if (keep != text.size()) fs::resize_file(path, keep);
}

// One or more lines, each complete and on disk before the next task starts.
void append_synced(const std::string& path, const std::string& lines) { write_synced(path, lines + "\n", true); }

}  // namespace

BatchRunCounts run_batch(const std::string& folder_arg, const std::vector<std::string>& command) {
  const std::string folder = fs::absolute(folder_arg).lexically_normal().string();
  const BatchManifest manifest = BatchManifest::read(folder);
  require_cpu_runs(manifest.halide_target, "batch '" + folder + "'");
  const std::string results_path = batch_results_path(folder);
  // The best median per workload so far, from the tuner's database and this batch.
  std::map<std::string, double> best_us;
  const auto observe = [&best_us](const BatchTask& task, const MeasureResult& r) {
    double& best = best_us[task.workload.key()];
    if (best == 0 || (task.best_us > 0 && task.best_us < best)) best = task.best_us;
    if (r.status == MeasureStatus::ok && (best == 0 || r.median_us < best)) best = r.median_us;
  };
  for (const BatchTask& task : manifest.tasks) observe(task, MeasureResult{});
  std::set<std::string> done;
  for (const BatchResult& r : read_batch_results(folder, /*tolerate_cut_tail=*/true)) {
    observe(manifest.task(r.task), r.result);  // task() throws for a result of another batch
    done.insert(r.task);
  }
  cut_partial_tail(results_path);

  const DeviceFingerprint device = measuring_device(Target{manifest.halide_target, {}}.kind());
  BatchRunCounts counts;
  counts.already_measured = static_cast<int>(done.size());
  // One reference per workload and seed, named after the first task of the manifest
  // that has them, so a rerun finds what an earlier run wrote; computed when first
  // needed, or again where the stored one is missing or of the wrong size.
  std::map<std::pair<std::string, uint64_t>, std::string> references;
  for (const BatchTask& task : manifest.tasks) {
    references.emplace(std::make_pair(task.workload.key(), task.seed), folder + "/references/" + task.id + ".f32");
  }
  std::set<std::string> references_checked;
  const auto reference_for = [&](const BatchTask& task) {
    const std::string& path = references.at({task.workload.key(), task.seed});
    if (references_checked.insert(path).second) {
      fs::create_directories(folder + "/references");
      try {
        read_reference_file(path, task.workload.output);
      } catch (const Error&) {
        write_reference_file(path, reference_output(task.workload, task.seed));
      }
    }
    return path;
  };
  const auto child_for = [&](const BatchTask& task, double best) {
    return ChildMeasurement{folder + "/" + task.library, task.symbol, folder + "/" + task.workload_file, task.seed,
                            best, reference_for(task)};
  };
  for (const BatchTask& task : manifest.tasks) {
    if (done.count(task.id)) continue;
    BatchResult line{task.id, device, "",
                     measure_in_child(command, child_for(task, best_us[task.workload.key()]), manifest.settings)};
    line.measured_at = utc_now_iso8601();
    append_synced(results_path, line.to_json().dump());
    observe(task, line.result);
    ++counts.measured;
  }
  if (manifest.confirmation.top == 0) return counts;

  // Confirmation: per workload, the default point and the fastest others, re-measured
  // in rotated rounds. A workload's lines are appended together once its rounds end, so
  // a kill redoes that workload only.
  std::map<std::string, MeasureResult> measured;
  for (const BatchResult& r : read_batch_results(folder)) measured[r.task] = r.result;
  const std::string confirmations_path = batch_confirmations_path(folder);
  std::set<std::string> confirmed;
  for (const ConfirmedTime& c : read_batch_confirmations(folder, /*tolerate_cut_tail=*/true)) confirmed.insert(c.task);
  cut_partial_tail(confirmations_path);
  std::vector<std::string> workload_order;
  std::map<std::string, std::vector<const BatchTask*>> by_workload;
  for (const BatchTask& task : manifest.tasks) {
    if (measured[task.id].status != MeasureStatus::ok) continue;
    const std::string key = task.workload.key();
    if (!by_workload.count(key)) workload_order.push_back(key);
    by_workload[key].push_back(&task);
  }
  for (const std::string& key : workload_order) {
    std::vector<const BatchTask*> ok = by_workload[key];
    std::stable_sort(ok.begin(), ok.end(), [&](const BatchTask* a, const BatchTask* b) {
      return measured[a->id].median_us < measured[b->id].median_us;
    });
    std::vector<const BatchTask*> chosen;
    for (const BatchTask* t : ok) {
      if (t->strategy == "default") chosen.push_back(t);
    }
    int others = 0;
    for (const BatchTask* t : ok) {
      if (t->strategy == "default" || others == manifest.confirmation.top) continue;
      chosen.push_back(t);
      ++others;
    }
    const bool all_done = std::all_of(chosen.begin(), chosen.end(), [&](const BatchTask* t) { return confirmed.count(t->id); });
    if (chosen.size() < 2 || all_done) continue;
    std::vector<ConfirmedTime> lines(chosen.size());
    for (ConfirmedTime& line : lines) line.result.status = MeasureStatus::ok;  // until a round fails it
    for (int round = 0; round < manifest.confirmation.rounds; ++round) {
      for (size_t j = 0; j < chosen.size(); ++j) {
        const size_t i = (j + static_cast<size_t>(round)) % chosen.size();
        ConfirmedTime& line = lines[i];
        if (line.result.status != MeasureStatus::ok) continue;  // failed an earlier round
        const MeasureResult r = measure_in_child(command, child_for(*chosen[i], 0), manifest.settings);
        if (r.status != MeasureStatus::ok) {
          line.result = r;
          continue;
        }
        line.round_medians_us.push_back(r.median_us);
        line.result.max_abs_error = std::max(line.result.max_abs_error, r.max_abs_error);
      }
    }
    std::string text;
    for (size_t i = 0; i < chosen.size(); ++i) {
      ConfirmedTime& line = lines[i];
      line.task = chosen[i]->id;
      if (line.result.status == MeasureStatus::ok) {
        line.result.median_us = median(line.round_medians_us);
        line.result.min_us = *std::min_element(line.round_medians_us.begin(), line.round_medians_us.end());
        line.result.repeats = static_cast<int>(line.round_medians_us.size());
      }
      text += (text.empty() ? "" : "\n") + line.to_json().dump();
      ++counts.confirmed;
    }
    append_synced(confirmations_path, text);
  }
  return counts;
}

}  // namespace nee
