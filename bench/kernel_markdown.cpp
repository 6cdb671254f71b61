#include "bench/kernel_markdown.h"

#include <fmt/format.h>

#include "bench/roofline_figures.h"

namespace nee::bench {

std::string format_kernel_markdown(const RunInfo& info, const std::vector<WorkloadComparison>& comparisons,
                                   const std::vector<std::string>& errors, const std::vector<TargetCheck>& checks,
                                   const std::string& plots_dir) {
  std::string s = "# nee-bench: kernels\n\n";
  s += fmt::format("Machine: `{}`  \nHalide target: `{}`  \nThreads: {} for every engine  \n", info.machine.dump(),
                   info.halide_target, info.threads);
  if (info.gpu.is_null()) {
    s += fmt::format("Versions: Halide {}, {}, OpenBLAS `{}`  \n", info.halide_version, info.onednn_version,
                     info.openblas_config);
  } else {
    s += fmt::format("GPU: `{}`  \nVersions: Halide {}  \n", info.gpu.dump(), info.halide_version);
  }
  if (info.peaks) {
    s += fmt::format("Measured peaks ({} threads, best of {} Google Benchmark repetitions): FMA {:.1f} GFLOP/s, "
                     "triad {:.1f} GB/s over {} MiB arrays (last-level cache {} MiB)  \n",
                     info.peaks->threads, info.peaks->fma_gflops_samples.size(), info.peaks->fma_gflops,
                     info.peaks->triad_gbs, info.peaks->triad_bytes_per_array >> 20, info.peaks->llc_bytes >> 20);
    if (info.peaks_load.loaded()) s += "**Warning (peaks):** " + info.peaks_load.warning() + "  \n";
  }
  s += fmt::format("Timing: {} rounds, engines interleaved round-robin, samples >= {} ms, {} ms settle before each; "
                   "outputs checked against the reference before and after timing (inputs uniform [-1,1), seed {}).\n\n",
                   info.options.repeats, info.options.min_sample_ms, info.options.settle_ms, info.options.seed);
  s += "GFLOP/s counts the direct algorithm's FLOPs for every engine; exec GFLOP/s counts those the engine's kernel "
       "executes (fewer for a Winograd conv), and % peak is exec GFLOP/s over the FMA peak.\n\n";
  for (const WorkloadComparison& c : comparisons) {
    const double flops = c.workload.flops();
    s += fmt::format("## {} {}\n\n{:.3f} GFLOP, {:.1f} FLOP/byte{}; largest difference between engines {:.2g}\n\n",
                     c.workload.op, c.label, flops / 1e9, arithmetic_intensity(c.workload),
                     info.peaks ? fmt::format(", roof {:.0f} GFLOP/s", roof_gflops(c.workload, *info.peaks)) : "",
                     c.max_pairwise_difference);
    s += "| engine | GFLOP/s | p10..p90 GFLOP/s | exec GFLOP/s | % peak | time ms | NEE-tuned/engine | schedule |\n";
    s += "|---|---:|---:|---:|---:|---:|---:|---|\n";
    for (const EngineTiming& t : c.engines) {
      const std::optional<double> ratio = nee_speed_ratio(c, t.engine);
      s += fmt::format("| {} | {:.1f} | {:.1f}..{:.1f} | {:.1f} | {} | {:.3f} | {} | {} |\n", t.engine,
                       flops / (t.ms.median * 1e6), flops / (t.ms.p90 * 1e6), flops / (t.ms.p10 * 1e6),
                       executed_gflops(t), share_of_peak_text(t, info.peaks), t.ms.median,
                       ratio ? fmt::format("{:.2f}", *ratio) : "-", t.provenance);
    }
    for (const EngineSkipped& k : c.skipped) s += fmt::format("| {} | | | | | | | skipped: {} |\n", k.engine, k.reason);
    s += "\n";
    const std::vector<TableNote> notes = table_notes(c, info.peaks);
    for (const TableNote& note : notes) s += (note.warning ? "**Warning:** " : "") + note.text + "  \n";
    if (!notes.empty()) s += "\n";
  }
  for (const std::string& e : errors) s += "**Error:** " + e + "\n\n";
  if (!checks.empty()) s += "## Targets (reported, not asserted)\n\n| check | ratio | result |\n|---|---:|---|\n";
  for (const TargetCheck& ch : checks) {
    s += fmt::format("| {} | {} | {}{} |\n", ch.description, ch.ratio ? fmt::format("{:.2f}", *ch.ratio) : "-",
                     ch.ratio ? (ch.met() ? "met" : "not met") : "not measured",
                     ch.note.empty() ? "" : " (" + ch.note + ")");
  }
  if (!plots_dir.empty()) {
    s += fmt::format("\n![NEE-tuned speed ratios]({}/ratios.svg)\n", plots_dir);
    if (info.peaks) s += fmt::format("\n![Roofline]({}/roofline.svg)\n", plots_dir);
  }
  return s;
}

}  // namespace nee::bench
