#include "bench/report.h"

#include <fmt/format.h>

#include "bench/roofline_figures.h"
#include "bench/slow_peer_check.h"
#include "bench/suites.h"
#include "core/matmul_workload.h"
#include "core/version.h"

namespace nee::bench {

namespace {

const EngineTiming* find_timing(const WorkloadComparison& c, const std::string& engine) {
  for (const EngineTiming& t : c.engines) {
    if (t.engine == engine && t.ms.count > 0) return &t;
  }
  return nullptr;
}

const WorkloadComparison* find_comparison(const std::vector<WorkloadComparison>& comparisons, const std::string& shape) {
  const std::string key = matmul_workload_from_shape(shape).key();
  for (const WorkloadComparison& c : comparisons) {
    if (c.workload.key() == key) return &c;
  }
  return nullptr;
}

TargetCheck check(const std::vector<WorkloadComparison>& comparisons, const std::string& shape,
                  const std::string& peer, double threshold) {
  TargetCheck ch;
  ch.description = fmt::format("nee-tuned vs {} at {} >= {:.1f}", peer, shape, threshold);
  ch.threshold = threshold;
  const WorkloadComparison* c = find_comparison(comparisons, shape);
  if (!c) {
    ch.note = "shape not run";
    return ch;
  }
  ch.ratio = speed_ratio(*c, "nee-tuned", peer);
  if (!ch.ratio) {
    ch.note = "nee-tuned or " + peer + " not timed";
  } else if (const EngineTiming* tuned = find_timing(*c, "nee-tuned"); tuned->provenance.rfind("tuned", 0) != 0) {
    ch.note = "nee-tuned ran the default schedule";
  }
  return ch;
}

double gflops(double flops, double ms) { return flops / (ms * 1e6); }

}  // namespace

double executed_gflops(const EngineTiming& t) { return gflops(t.executed_flops, t.ms.median); }

std::optional<double> share_of_peak(const EngineTiming& t, const MachinePeaks& peaks) {
  const double share = executed_gflops(t) / peaks.fma_gflops;
  if (!(share <= 1.0)) return std::nullopt;
  return share;
}

std::string share_of_peak_text(const EngineTiming& t, const std::optional<MachinePeaks>& peaks) {
  if (!peaks) return "-";
  const std::optional<double> share = share_of_peak(t, *peaks);
  return share ? fmt::format("{:.1f}", 100 * *share) : "above";
}

std::vector<TableNote> table_notes(const WorkloadComparison& c, const std::optional<MachinePeaks>& peaks) {
  std::vector<TableNote> notes;
  const double flops = c.workload.flops();
  for (const EngineTiming& t : c.engines) {
    if (t.executed_flops != flops) {
      notes.push_back({false, fmt::format("{} executes {}: {:.4f} GFLOP per call, {:.2f}x the direct count; exec "
                                          "GFLOP/s and % peak count those",
                                          t.engine, t.executed_method, t.executed_flops / 1e9,
                                          t.executed_flops / flops)});
    }
    if (peaks && t.ms.count > 0 && !share_of_peak(t, *peaks)) {
      notes.push_back({true, fmt::format("{}'s executed rate {:.1f} GFLOP/s is above the measured FMA peak {:.1f}: "
                                         "the peak probe ran slow (a loaded machine?) or the FLOP count is wrong; no "
                                         "share is given",
                                         t.engine, executed_gflops(t), peaks->fma_gflops)});
    }
    if (peaks) {
      if (std::string w = slow_peer_warning(c, t, *peaks); !w.empty()) notes.push_back({true, std::move(w)});
    }
  }
  if (c.load.loaded()) notes.push_back({true, c.load.warning()});
  return notes;
}

std::optional<double> speed_ratio(const WorkloadComparison& c, const std::string& a, const std::string& b) {
  const EngineTiming* ta = find_timing(c, a);
  const EngineTiming* tb = find_timing(c, b);
  if (!ta || !tb) return std::nullopt;
  return tb->ms.median / ta->ms.median;
}

bool is_nee_tuned(const std::string& engine) { return engine == "nee-tuned" || engine.rfind("nee-tuned-", 0) == 0; }

std::optional<double> nee_speed_ratio(const WorkloadComparison& c, const std::string& engine) {
  for (const EngineTiming& t : c.engines) {
    if (is_nee_tuned(t.engine)) return speed_ratio(c, t.engine, engine);
  }
  return std::nullopt;
}

std::vector<TargetCheck> target_checks(const std::vector<WorkloadComparison>& comparisons) {
  std::vector<TargetCheck> checks;
  checks.push_back(check(comparisons, "1024x1024x1024", "openblas", 1.0));
  for (const std::string& shape : find_suite("bert").shapes) checks.push_back(check(comparisons, shape, "openblas", 0.9));
  checks.push_back(check(comparisons, "1024x1024x1024", "adams2019", 3.0));
  return checks;
}

std::string format_table(const WorkloadComparison& c, const std::optional<MachinePeaks>& peaks) {
  const double flops = c.workload.flops();
  std::string out = fmt::format("{} {}  ({:.3f} GFLOP, {:.1f} FLOP/byte{}; largest difference between engines {:.2g})\n",
                                c.workload.op, c.label, flops / 1e9, arithmetic_intensity(c.workload),
                                peaks ? fmt::format(", roof {:.0f} GFLOP/s", roof_gflops(c.workload, *peaks)) : "",
                                c.max_pairwise_difference);
  out += fmt::format("  {:<14} {:>9} {:>17} {:>12} {:>7} {:>10} {:>17}   {}\n", "engine", "GFLOP/s",
                     "p10..p90 GFLOP/s", "exec GFLOP/s", "% peak", "time ms", "NEE-tuned/engine", "schedule");
  for (const EngineTiming& t : c.engines) {
    const std::optional<double> ratio = nee_speed_ratio(c, t.engine);
    const std::string spread = fmt::format("{:.1f}..{:.1f}", gflops(flops, t.ms.p90), gflops(flops, t.ms.p10));
    out += fmt::format("  {:<14} {:>9.1f} {:>17} {:>12.1f} {:>7} {:>10.3f} {:>17}   {}\n", t.engine,
                       gflops(flops, t.ms.median), spread, executed_gflops(t), share_of_peak_text(t, peaks),
                       t.ms.median, ratio ? fmt::format("{:.2f}", *ratio) : "-", t.provenance);
  }
  for (const EngineSkipped& s : c.skipped) out += fmt::format("  {:<14} skipped: {}\n", s.engine, s.reason);
  for (const TableNote& note : table_notes(c, peaks)) {
    out += (note.warning ? "  WARNING: " : "  ") + note.text + "\n";
  }
  return out;
}

std::string format_checks(const std::vector<TargetCheck>& checks) {
  std::string out = "Targets (reported, not asserted):\n";
  for (const TargetCheck& ch : checks) {
    const std::string ratio = ch.ratio ? fmt::format("{:.2f}", *ch.ratio) : "-";
    out += fmt::format("  {:<48} ratio {:>5}  {}{}\n", ch.description, ratio,
                       ch.ratio ? (ch.met() ? "met" : "not met") : "not measured",
                       ch.note.empty() ? "" : " (" + ch.note + ")");
  }
  return out;
}

nlohmann::json to_json(const RunInfo& info, const std::vector<WorkloadComparison>& comparisons,
                       const std::vector<std::string>& errors, const std::vector<TargetCheck>& checks) {
  nlohmann::json j;
  j["machine"] = info.machine;
  j["halide_target"] = info.halide_target;
  j["halide_version"] = info.halide_version;
  j["threads"] = info.threads;
  j["openblas_config"] = info.openblas_config;
  j["versions"] = {{"nee", kVersion},
                   {"halide", info.halide_version},
                   {"openblas", info.openblas_config},
                   {"onednn", info.onednn_version}};
  if (!info.gpu.is_null()) j["gpu"] = info.gpu;
  j["peaks"] = info.peaks ? to_json(*info.peaks) : nlohmann::json();
  j["peaks_machine_load"] = info.peaks ? to_json(info.peaks_load) : nlohmann::json();
  j["database"] = info.database;
  j["options"] = {{"seed", info.options.seed},
                  {"repeats", info.options.repeats},
                  {"min_sample_ms", info.options.min_sample_ms},
                  {"warmup_ms", info.options.warmup_ms},
                  {"rtol", info.options.rtol},
                  {"atol_per_k", info.options.atol_per_k}};
  j["workloads"] = nlohmann::json::array();
  for (const WorkloadComparison& c : comparisons) {
    const double flops = c.workload.flops();
    nlohmann::json w{{"shape", c.label},
                     {"workload", c.workload.key()},
                     {"op", c.workload.op},
                     {"flops", flops},
                     {"min_bytes", min_bytes(c.workload)},
                     {"arithmetic_intensity", arithmetic_intensity(c.workload)},
                     {"roof_gflops", info.peaks ? nlohmann::json(roof_gflops(c.workload, *info.peaks)) : nlohmann::json()},
                     {"max_pairwise_difference", c.max_pairwise_difference},
                     {"machine_load", to_json(c.load)},
                     {"engines", nlohmann::json::array()},
                     {"skipped", nlohmann::json::array()}};
    for (const EngineTiming& t : c.engines) {
      const std::optional<double> ratio = nee_speed_ratio(c, t.engine);
      const std::optional<double> share = info.peaks ? share_of_peak(t, *info.peaks) : std::nullopt;
      w["engines"].push_back({{"engine", t.engine},
                              {"provenance", t.provenance},
                              {"calls_per_sample", t.calls_per_sample},
                              {"samples_ms", t.samples_ms},
                              {"median_ms", t.ms.median},
                              {"p10_ms", t.ms.p10},
                              {"p90_ms", t.ms.p90},
                              {"min_ms", t.ms.min},
                              {"max_ms", t.ms.max},
                              {"gflops_median", gflops(flops, t.ms.median)},
                              {"gflops_p10", gflops(flops, t.ms.p90)},
                              {"gflops_p90", gflops(flops, t.ms.p10)},
                              {"executed_flops", t.executed_flops},
                              {"executed_method", t.executed_method},
                              {"executed_gflops_median", executed_gflops(t)},
                              {"implementation", t.implementation},
                              {"max_abs_error_vs_reference", t.max_abs_error},
                              {"fraction_of_peak", share ? nlohmann::json(*share) : nlohmann::json()},
                              {"speed_ratio_nee_tuned_over_engine", ratio ? nlohmann::json(*ratio) : nlohmann::json()},
                              {"warning", info.peaks ? slow_peer_warning(c, t, *info.peaks) : ""}});
    }
    for (const EngineSkipped& s : c.skipped) w["skipped"].push_back({{"engine", s.engine}, {"reason", s.reason}});
    j["workloads"].push_back(std::move(w));
  }
  j["errors"] = errors;
  j["targets"] = nlohmann::json::array();
  for (const TargetCheck& ch : checks) {
    j["targets"].push_back({{"check", ch.description},
                            {"ratio", ch.ratio ? nlohmann::json(*ch.ratio) : nlohmann::json()},
                            {"threshold", ch.threshold},
                            {"met", ch.met()},
                            {"note", ch.note}});
  }
  return j;
}

}  // namespace nee::bench
