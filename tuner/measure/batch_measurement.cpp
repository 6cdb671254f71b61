#include "tuner/measure/batch_measurement.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/error.h"
#include "core/utc_time.h"
#include "tuner/measure/batch_manifest.h"
#include "tuner/measure/child_measurement.h"

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

void append_synced(const std::string& path, const std::string& line) {
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("cannot write " + path);
  const std::string text = line + "\n";
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const bool synced = fsync(fd) == 0;
  close(fd);
  if (!written || !synced) throw Error("writing " + path + " failed");
}

}  // namespace

BatchRunCounts run_batch(const std::string& folder_arg, const std::string& program) {
  const std::string folder = fs::absolute(folder_arg).lexically_normal().string();
  const BatchManifest manifest = BatchManifest::read(folder);
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
  for (const BatchTask& task : manifest.tasks) {
    if (done.count(task.id)) continue;
    ChildMeasurement m{folder + "/" + task.library, task.symbol, folder + "/" + task.workload_file, task.seed,
                       3 * best_us[task.workload.key()]};
    BatchResult line{task.id, device, "", measure_in_child(program, m, manifest.settings)};
    line.measured_at = utc_now_iso8601();
    append_synced(results_path, line.to_json().dump());
    observe(task, line.result);
    ++counts.measured;
  }
  return counts;
}

}  // namespace nee
