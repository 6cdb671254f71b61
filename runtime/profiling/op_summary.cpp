#include "runtime/profiling/op_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "runtime/profiling/run_statistics.h"

namespace nee {

OpSummary summarize_ops(const RunProfile& profile) {
  OpSummary summary;
  summary.runs = static_cast<int>(profile.runs.size());
  std::map<std::string, OpTime> by_op;
  for (const NodeProfile& n : profile.nodes) {
    OpTime& row = by_op[n.op];
    row.op = n.op;
    row.count += 1;
    row.flops += n.flops;
  }
  std::map<std::string, std::vector<double>> op_ms_per_run;
  std::vector<double> run_ms;
  for (const RunTimes& run : profile.runs) {
    std::map<std::string, double> ms;
    for (size_t i = 0; i < profile.nodes.size(); ++i) ms[profile.nodes[i].op] += run.node_duration_us[i] * 1e-3;
    for (const auto& [op, t] : ms) op_ms_per_run[op].push_back(t);
    run_ms.push_back(run.duration_us * 1e-3);
  }
  for (auto& [op, row] : by_op) {
    row.ms = summarize_timings(op_ms_per_run[op]).median_ms;
    summary.node_ms += row.ms;
    summary.ops.push_back(row);
  }
  for (OpTime& row : summary.ops) row.share = summary.node_ms > 0 ? row.ms / summary.node_ms : 0.0;
  std::stable_sort(summary.ops.begin(), summary.ops.end(), [](const OpTime& a, const OpTime& b) { return a.ms > b.ms; });
  summary.run_ms = summarize_timings(run_ms).median_ms;
  return summary;
}

std::string format_op_summary(const OpSummary& s) {
  const auto rate = [](double flops, double ms) {
    return flops > 0 && ms > 0 ? fmt::format("{:.2f}", flops / (ms * 1e6)) : std::string("-");
  };
  std::string text = fmt::format("time per operator, median over {} run{} of each op's time per run:\n", s.runs,
                                 s.runs == 1 ? "" : "s");
  text += fmt::format("  {:<20} {:>6} {:>10} {:>7} {:>9}\n", "op", "count", "ms", "share", "GFLOP/s");
  int count = 0;
  double flops = 0;
  for (const OpTime& row : s.ops) {
    text += fmt::format("  {:<20} {:>6} {:>10.3f} {:>6.1f}% {:>9}\n", row.op, row.count, row.ms, 100.0 * row.share,
                        rate(row.flops, row.ms));
    count += row.count;
    flops += row.flops;
  }
  text += fmt::format("  {:<20} {:>6} {:>10.3f} {:>6.1f}% {:>9}\n", "total", count, s.node_ms,
                      s.ops.empty() ? 0.0 : 100.0, rate(flops, s.node_ms));
  text += fmt::format("a whole run took {:.3f} ms (median); the rest is the runtime's own work (input checks, "
                      "zeroing planned outputs)\n", s.run_ms);
  return text;
}

}  // namespace nee
