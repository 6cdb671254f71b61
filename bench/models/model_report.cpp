#include "bench/models/model_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "bench/plots/bar_chart_svg.h"

namespace nee::bench {
namespace {

const EngineRun* find_engine(const std::vector<EngineRun>& runs, const std::string& name) {
  for (const EngineRun& r : runs) {
    if (r.engine == name) return &r;
  }
  return nullptr;
}

std::string status_of(const EngineRun& r) {
  if (!r.skipped.empty()) return "skipped: " + r.skipped;
  if (!r.disagreement.empty()) return "DISAGREES: " + r.disagreement;
  return "";
}

// A peer's version; for NEE, where its bundle came from and the share of the model's
// FLOPs its kernels ran (a bundle built for another batch finds none of its kernels).
std::string note_of(const EngineRun& r) {
  if (r.engine != "nee") return r.version;
  if (r.bundle_flop_share < 0) return r.provenance;
  return fmt::format("{}; {:.1f}% of FLOPs in bundle kernels", r.provenance, 100 * r.bundle_flop_share);
}

// One engine's entry in models.json; `ratio_key` names its NEE/peer ratio when it has one.
nlohmann::json engine_json(const EngineRun& r, const std::string& ratio_key, double ratio) {
  nlohmann::json e = {{"engine", r.engine}, {"version", r.version}, {"batch", r.batch}};
  if (!r.provenance.empty()) e["bundle"] = r.provenance;
  if (r.bundle_flop_share >= 0) e["bundle_flop_share"] = r.bundle_flop_share;
  if (r.error_vs_pytorch >= 0) e["peak_rel_error_vs_pytorch"] = r.error_vs_pytorch;
  if (!r.timed()) {
    e["status"] = status_of(r);
    return e;
  }
  e["status"] = "ok";
  e["latency_ms"] = {{"p50", r.latency.p50}, {"p90", r.latency.p90}, {"p99", r.latency.p99},
                     {"min", r.latency.min},  {"max", r.latency.max}, {"runs", r.latency.count},
                     {"samples", r.latencies_ms}};
  e["samples_per_s"] = throughput(r);
  e["pid"] = r.pid;
  e["process_startup_ms"] = r.process_startup_ms;
  e["session_startup_ms"] = r.session_startup_ms;
  e["peak_rss_mib"] = r.peak_rss_mib;
  e["machine_load"] = to_json(r.load);
  if (r.engine != "nee" && ratio > 0) e[ratio_key] = ratio;
  return e;
}

// The terminal table's line under an engine measured on a loaded machine; empty otherwise.
std::string load_line(const EngineRun& r) {
  return r.load.loaded() ? fmt::format("  {:<12} WARNING: {}\n", "", r.load.warning()) : "";
}

// The Markdown status cell: the note, and a warning when the machine was loaded.
std::string markdown_note(const EngineRun& r) {
  const std::string note = note_of(r);
  if (!r.load.loaded()) return note;
  return note + (note.empty() ? "" : " ") + "**Warning:** " + r.load.warning();
}

std::vector<std::string> peer_names(const std::vector<ModelResult>& results) {
  std::vector<std::string> names;
  for (const ModelResult& m : results) {
    for (const EngineRun& r : m.engines) {
      if (r.engine != "nee" && std::find(names.begin(), names.end(), r.engine) == names.end()) names.push_back(r.engine);
    }
  }
  return names;
}

}  // namespace

double latency_ratio(const ModelResult& m, const std::string& peer) {
  const EngineRun* nee = find_engine(m.engines, "nee");
  const EngineRun* other = find_engine(m.engines, peer);
  if (!nee || !other || !nee->timed() || !other->timed() || other->latency.p50 <= 0) return 0;
  return nee->latency.p50 / other->latency.p50;
}

double throughput_ratio(const ModelResult& m, const std::string& peer) {
  const EngineRun* nee = find_engine(m.throughput.engines, "nee");
  const EngineRun* other = find_engine(m.throughput.engines, peer);
  if (!nee || !other || throughput(*nee) <= 0 || throughput(*other) <= 0) return 0;
  return throughput(*nee) / throughput(*other);
}

std::string format_model_table(const ModelResult& m) {
  std::string s = fmt::format("{}\n", m.model);
  if (!m.error.empty()) return s + "  error: " + m.error + "\n";
  s += fmt::format("  {:<12} {:>9} {:>9} {:>9} {:>11} {:>10} {:>9} {:>9}  {}\n", "engine", "p50 ms", "p90 ms",
                   "p99 ms", "start-up ms", "session ms", "RSS MiB", "NEE/peer", "version / note");
  for (const EngineRun& r : m.engines) {
    const std::string note = note_of(r);
    if (!r.timed()) {
      s += fmt::format("  {:<12} {}\n", r.engine, status_of(r));
      continue;
    }
    const double ratio = r.engine == "nee" ? 1.0 : latency_ratio(m, r.engine);
    s += fmt::format("  {:<12} {:>9.3f} {:>9.3f} {:>9.3f} {:>11.1f} {:>10.1f} {:>9.1f} {:>9}  {}\n", r.engine,
                     r.latency.p50, r.latency.p90, r.latency.p99, r.process_startup_ms, r.session_startup_ms,
                     r.peak_rss_mib, ratio > 0 && r.engine != "nee" ? fmt::format("{:.2f}", ratio) : "-", note);
    s += load_line(r);
  }
  s += "  (start-up: process start to the first outputs; session: engine session created to the first outputs; "
       "RSS: the measuring process's peak; every engine in a process of its own)\n";
  s += fmt::format("  outputs: largest pairwise error {:.3g} of the peak\n", m.max_pairwise_error);
  // Quantized models round differently in every engine: onnxruntime's optimized session
  // differed from its own unoptimized one by 1.1% of the peak on a QDQ ResNet-18 and 3.1%
  // on a QDQ BERT (docs/DESIGN-NOTES.md, "Quantized models").
  const bool near_miss = std::any_of(m.engines.begin(), m.engines.end(), [](const EngineRun& r) {
    return !r.disagreement.empty() && r.error_vs_pytorch > 0 && r.error_vs_pytorch <= 0.05;
  });
  if (near_miss) {
    s += "  outputs: an engine missed the agreement by under 5% of the peak; a quantized model rounds differently "
         "in every engine, and --peak-rtol sets the agreement it is held to\n";
  }
  const ThroughputResult& t = m.throughput;
  const std::string batch = fmt::format("batch {}", t.batch);
  if (!t.not_measured.empty()) return s + fmt::format("  {}: not measured: {}\n", batch, t.not_measured);
  s += fmt::format("  {:<12} {:>9} {:>9} {:>9} {:>9}  {}\n", batch, "samples/s", "p50 ms", "p90 ms", "NEE/peer",
                   "version / note (NEE/peer: throughput ratio, > 1: NEE faster)");
  for (const EngineRun& r : t.engines) {
    if (!r.timed()) {
      s += fmt::format("  {:<12} {}\n", r.engine, status_of(r));
      continue;
    }
    const double ratio = throughput_ratio(m, r.engine);
    s += fmt::format("  {:<12} {:>9.1f} {:>9.3f} {:>9.3f} {:>9}  {}\n", r.engine, throughput(r), r.latency.p50,
                     r.latency.p90, ratio > 0 && r.engine != "nee" ? fmt::format("{:.2f}", ratio) : "-",
                     note_of(r));
    s += load_line(r);
  }
  s += fmt::format("  {} outputs: each sample checked against PyTorch's batch-1 output; largest pairwise "
                   "error {:.3g} of the peak\n", batch, t.max_pairwise_error);
  return s;
}

nlohmann::json models_to_json(const std::vector<ModelResult>& results, const nlohmann::json& info) {
  nlohmann::json j = info;
  j["models"] = nlohmann::json::array();
  for (const ModelResult& m : results) {
    nlohmann::json jm = {{"model", m.model}, {"max_pairwise_peak_rel_error", m.max_pairwise_error},
                         {"engines", nlohmann::json::array()}};
    if (!m.error.empty()) jm["error"] = m.error;
    for (const EngineRun& r : m.engines) {
      jm["engines"].push_back(engine_json(r, "nee_over_peer_latency", latency_ratio(m, r.engine)));
    }
    nlohmann::json jt = {{"batch", m.throughput.batch}};
    if (!m.throughput.not_measured.empty()) {
      jt["not_measured"] = m.throughput.not_measured;
    } else {
      jt["max_pairwise_peak_rel_error"] = m.throughput.max_pairwise_error;
      jt["engines"] = nlohmann::json::array();
      for (const EngineRun& r : m.throughput.engines) {
        jt["engines"].push_back(engine_json(r, "nee_over_peer_throughput", throughput_ratio(m, r.engine)));
      }
    }
    jm["throughput"] = jt;
    j["models"].push_back(jm);
  }
  return j;
}

std::string format_markdown(const std::vector<ModelResult>& results, const nlohmann::json& info) {
  std::string s = "# nee-bench --models\n\n";
  s += fmt::format("Machine: `{}`  \nThreads: {} for every engine; {} timed runs at batch 1 in {} rounds (every "
                   "engine once per round, in a rotated order, {} warm-up runs each time); outputs checked against "
                   "PyTorch and each other (peak-relative error <= {}) before any time. Every engine runs in a "
                   "process of its own (NEE in nee-model-runner, which links the runtime only): start-up counts "
                   "from that process's start to its first outputs, session from the engine's session (NEE: "
                   "bundle load) to the same point, and peak RSS is that process's.\n\n",
                   info.value("machine", nlohmann::json::object()).dump(), info.value("threads", 0),
                   info.value("runs", 0), info.value("rounds", 1), info.value("warmup", 0),
                   info.value("peak_rtol", 0.0));
  s += "| model | engine | p50 ms | p90 ms | p99 ms | start-up ms | session ms | peak RSS MiB | NEE/peer p50 | "
       "version / status |\n";
  s += "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const ModelResult& m : results) {
    if (!m.error.empty()) {
      s += fmt::format("| {} | | | | | | | | | error: {} |\n", m.model, m.error);
      continue;
    }
    for (const EngineRun& r : m.engines) {
      if (!r.timed()) {
        s += fmt::format("| {} | {} | | | | | | | | {} |\n", m.model, r.engine, status_of(r));
        continue;
      }
      const double ratio = latency_ratio(m, r.engine);
      s += fmt::format("| {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.1f} | {:.1f} | {:.1f} | {} | {} |\n", m.model,
                       r.engine, r.latency.p50, r.latency.p90, r.latency.p99, r.process_startup_ms,
                       r.session_startup_ms, r.peak_rss_mib, ratio > 0 ? fmt::format("{:.2f}", ratio) : "-",
                       markdown_note(r));
    }
  }
  s += "\n![NEE/peer latency ratio](latency_ratios.svg)\n";
  s += "\n## Throughput at a larger batch\n\n"
       "Samples per second at the p50 of the timed runs (the batch-1 test sample repeated along dim 0; every "
       "sample of every engine checked against PyTorch's batch-1 output first). NEE/peer > 1: NEE is faster.\n\n";
  s += "| model | batch | engine | samples/s | p50 ms | p90 ms | NEE/peer throughput | version / status |\n";
  s += "|---|---:|---|---:|---:|---:|---:|---|\n";
  for (const ModelResult& m : results) {
    const ThroughputResult& t = m.throughput;
    if (!m.error.empty()) continue;
    if (!t.not_measured.empty()) {
      s += fmt::format("| {} | {} | | | | | | not measured: {} |\n", m.model, t.batch, t.not_measured);
      continue;
    }
    for (const EngineRun& r : t.engines) {
      if (!r.timed()) {
        s += fmt::format("| {} | {} | {} | | | | | {} |\n", m.model, t.batch, r.engine, status_of(r));
        continue;
      }
      const double ratio = throughput_ratio(m, r.engine);
      s += fmt::format("| {} | {} | {} | {:.1f} | {:.3f} | {:.3f} | {} | {} |\n", m.model, t.batch, r.engine,
                       throughput(r), r.latency.p50, r.latency.p90,
                       ratio > 0 && r.engine != "nee" ? fmt::format("{:.2f}", ratio) : "-", markdown_note(r));
    }
  }
  return s;
}

std::string ratio_chart_svg(const std::vector<ModelResult>& results) {
  BarChart chart;
  chart.title = "NEE p50 latency / peer p50 latency (below 1: NEE faster)";
  for (const std::string& p : peer_names(results)) chart.series.push_back("vs " + p);
  for (const ModelResult& m : results) {
    BarGroup g{m.model, {}};
    for (const std::string& p : peer_names(results)) {
      const double r = latency_ratio(m, p);
      g.values.push_back(r > 0 ? std::optional<double>(r) : std::nullopt);
    }
    chart.groups.push_back(std::move(g));
  }
  return bar_chart_svg(chart);
}

}  // namespace nee::bench
