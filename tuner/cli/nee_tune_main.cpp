// nee-tune: tunes the kernels of a model (or one operator at one shape) for a target,
// stores every measurement in the tuning database, and optionally builds a bundle.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <unistd.h>

#include "core/conv2d_workload.h"
#include "core/cuda_device.h"
#include "core/error.h"
#include "core/family.h"
#include "core/isa_level.h"
#include "core/matmul_weight_layout.h"
#include "importer/import_onnx.h"
#include "importer/input_shape_text.h"
#include "runtime/bundle/bundle_signature.h"
#include "runtime/deploy/deploy_artifact.h"
#include "runtime/node_workload.h"
#include "runtime/passes/passes.h"
#include "runtime/tensor_limits.h"
#include "tuner/cli/bundle_stage.h"
#include "tuner/cli/compare_command.h"
#include "tuner/cli/db_command.h"
#include "tuner/cli/pack_command.h"
#include "tuner/compile/bundle_builder.h"
#include "tuner/compile/kernel_compiler.h"
#include "tuner/report/tuning_summary.h"
#include "tuner/runners/runner.h"
#include "tuner/scheduling/interrupt.h"
#include "tuner/scheduling/model_tuning.h"
#include "tuner/scheduling/progress_bar.h"
#include "tuner/scheduling/tuning_loop.h"

namespace {

// Whether a CPU bundle built for `target` with --isa `isa_text` holds a level with VNNI, where
// integer products pay (GraphOptions::quantize_matmul_activations, quantize_conv_activations); its lesser levels sum
// them in f32 (CpuVectorIsa::byte_dot_products): on Zen 4 the bundle of a dynamically
// quantized GPT decoder ran 1.6 ms, its avx2 kernels 4.9-5.2 ms where an avx2 bundle of f32
// products ran 4.5.
bool bundle_has_vnni(const nee::Target& target, const std::string& isa_text) {
  if (target.kind() != nee::TargetKind::cpu) return false;
  std::vector<const nee::IsaLevel*> levels;
  if (isa_text.empty()) {
    levels.push_back(nee::isa_level_of_target(target.halide));
  } else {
    for (const std::string& name : nee::bundle_isa_levels(isa_text)) levels.push_back(&nee::isa_level_named(name));
  }
  return std::any_of(levels.begin(), levels.end(), [](const nee::IsaLevel* l) {
    return l && std::find(l->cpu_flags.begin(), l->cpu_flags.end(), "avx512_vnni") != l->cpu_flags.end();
  });
}

// A candidate conv's object is 20 KB here, the Halide runtime's 170 KB: 1 GiB keeps tens
// of thousands of schedules.
constexpr uint64_t kObjectCacheBytes = uint64_t{1} << 30;

// "300", "90s", "5m", "1h" -> seconds.
double parse_duration(const std::string& text) {
  static const std::regex pattern(R"(^\s*([0-9]+(\.[0-9]+)?)\s*([smh]?)\s*$)");
  std::smatch match;
  if (!std::regex_match(text, match, pattern)) {
    throw nee::Error("bad duration '" + text + "': use seconds or a number with s, m or h (e.g. 90s, 5m)");
  }
  const double value = std::stod(match[1]);
  const std::string unit = match[3];
  return unit == "h" ? value * 3600 : unit == "m" ? value * 60 : value;
}

// The workloads of the model at every set of input shapes (one bundle serves them all),
// counted over the sets.
std::vector<nee::WorkloadCount> model_workloads(const std::string& model_path,
                                                const std::vector<nee::InputShapes>& shape_sets,
                                                const nee::GraphOptions& graph_options) {
  std::vector<nee::WorkloadCount> all;
  std::map<std::string, size_t> index_of;
  for (const nee::InputShapes& shapes : shape_sets) {
    bool complete = true;
    nee::Graph graph = nee::import_onnx_first_stage(model_path, shapes, complete);
    if (!complete) {
      fmt::print("the model's shapes depend on values it computes (it runs in stages); tuning the workloads of the "
                 "part its input shapes decide\n");
    }
    nee::optimize_graph(graph, graph_options);
    for (const nee::WorkloadCount& w : nee::count_workloads(graph)) {
      auto [at, added] = index_of.emplace(w.workload.key(), all.size());
      if (added) {
        all.push_back(w);
      } else {
        all[at->second].count += w.count;
      }
    }
  }
  if (shape_sets.size() > 1) {
    fmt::print("{} distinct workloads over {} sets of input shapes\n", all.size(), shape_sets.size());
  }
  return all;
}

// Removes a run's scratch folder (candidates, batches, the default bundle) however the run ends.
struct ScratchFolder {
  std::string path;
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

void print_workloads(const std::vector<nee::WorkloadCount>& workloads) {
  double total = 0;
  for (const nee::WorkloadCount& w : workloads) total += w.count * w.workload.flops();
  fmt::print("{:>5} {:>10} {:>7}  {}\n", "count", "GFLOP", "share", "workload");
  for (const nee::WorkloadCount& w : workloads) {
    const double flops = w.count * w.workload.flops();
    fmt::print("{:>5} {:>10.3f} {:>6.1f}%  {}\n", w.count, flops / 1e9, total > 0 ? 100 * flops / total : 0.0,
               w.workload.key());
  }
}

}  // namespace

// The conv of `--op conv2d --shape` in the form the runtime gives it, or with the tile
// --winograd-tile asks for (0: direct; throws nee::Error where Winograd cannot run it).
nee::Workload conv_in_runtime_form(const nee::Workload& plain, const nee::GraphOptions& graph_options,
                                   int64_t winograd_tile) {
  if (winograd_tile < 0) {
    return nee::conv2d_runtime_layout(plain, graph_options.block_activations, graph_options.winograd);
  }
  const nee::Workload direct = nee::conv2d_runtime_layout(plain, graph_options.block_activations);
  return winograd_tile == 0 ? direct : nee::conv2d_with_winograd(direct, winograd_tile);
}

int main(int argc, char** argv) {
  CLI::App app{"nee-tune: tune NEE kernels for a target device and build a kernel bundle"};
  std::string model, op, shape, target_kind = "cpu", db_path, bundle_dir, time_text, work_dir;
  std::vector<std::string> input_shape_texts;
  nee::TuneOptions options;
  app.add_option("model", model, "ONNX model whose workloads to tune")->check(CLI::ExistingFile);
  app.add_option("--input-shape", input_shape_texts,
                 "with a model: shape of a graph input with symbolic dims, NAME=DxDx...xD (e.g. input=8x3x224x224 "
                 "tunes and bundles the workloads of batch 8); repeatable; an input named again starts another set of "
                 "shapes, and the bundle serves every set (--input-shape input=1x16 --input-shape input=1x64: two "
                 "sequence-length buckets); a symbolic batch dim not given is 1")
      ->allow_extra_args(false);  // one value per --input-shape, so a model path after it stays the model
  std::vector<std::string> shape_help;
  for (const nee::Family& f : nee::families()) shape_help.push_back(f.name + " " + f.shape_help);
  app.add_option("--op", op,
                 fmt::format("tune one operator family instead of a model ({})", fmt::join(nee::family_names(), ", ")));
  app.add_option("--shape", shape, fmt::format("with --op: {}", fmt::join(shape_help, "; ")));
  app.add_option("--target", target_kind,
                 "cpu (this machine's CPU), opencl (through PoCL on this machine), cuda, or a CPU ISA level by name "
                 "or Halide target (avx2, arm64 or arm-64-linux, arm64_dotprod or arm-64-linux-arm_dot_prod): "
                 "compile for that level, and bundle it with its architecture's lesser levels; another "
                 "architecture's kernels are measured on a machine of it (pack, then nee-measure --batch there), "
                 "so there --trials defaults to 0")
      ->check([](const std::string& text) {
        if (text == "cpu" || text == "opencl" || text == "cuda" || nee::isa_level_spelled(text)) return std::string();
        std::vector<std::string> levels;
        for (const nee::IsaLevel& l : nee::isa_levels()) levels.push_back(l.name);
        return fmt::format("unknown target '{}' (known: cpu, opencl, cuda, or an ISA level: {})", text,
                           fmt::join(levels, ", "));
      });
  int cuda_capability = 0;
  app.add_option("--cuda-capability", cuda_capability,
                 fmt::format("with --target cuda: the compute capability to compile for, one Halide 14 knows ({}; "
                             "e.g. 86 for an H200, whose driver compiles that PTX for its 9.0) (default: this "
                             "machine's GPU's, else 80)",
                             fmt::join(nee::halide_cuda_capabilities(), ", ")))
      ->check(CLI::IsMember(nee::halide_cuda_capabilities()));
  app.add_option("--trials", options.trials, "measured candidates per workload (0: none, just bundle; default 64, unbounded with --time)")
      ->check(CLI::Range(0, 1000000));
  nee::ModelTuneOptions model_options;
  app.add_option("--total-trials", model_options.total_trials,
                 "a model's measured candidates in all, given in rounds where they pay most (default: --trials per workload)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--time", time_text, "time budget for the whole run, e.g. 90s, 5m");
  app.add_option("--strategy", options.strategy, "search strategy")->check(CLI::IsMember({"evolutionary", "random", "model"}));
  app.add_option("--batch", options.batch, "candidates per round (built together, then measured)")->check(CLI::Range(1, 1024));
  bool no_baselines = false, baselines = false;
  app.add_flag("--no-baselines", no_baselines, "skip Halide's Adams2019 and Mullapudi2016 baselines");
  app.add_flag("--baselines", baselines,
               "measure Halide's Adams2019 and Mullapudi2016 baselines also under --time, where they are off by default")
      ->excludes("--no-baselines");
  app.add_flag("!--no-default-point", options.measure_default,
               "do not measure the space's default schedule first, so the search starts from nothing (the pure "
               "random-search baseline of a convergence study)");
  app.add_option("--transfer-seeds", options.transfer_seeds,
                 "points taken from similar workloads and other machines' records (0: none, and the model strategy "
                 "then learns from this workload's results only)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--confirm", options.confirm_top,
                 "at the end, re-measure this many best schedules of each workload, and its default, in interleaved "
                 "rounds; the re-measured times rank them (0: none, and a search's picks then rank below the default and "
                 "the baselines, so bundles do not use them; default 3); with pack, the batch's nee-measure does this "
                 "after measuring every candidate")
      ->check(CLI::Range(0, 64));
  app.add_option("--confirm-rounds", options.confirm_rounds, "rounds of that re-measurement (default 3)")
      ->check(CLI::Range(1, 100));
  app.add_option("--early-stop", model_options.scheduler.early_stop_threshold,
                 "model: stop before the budget only when no workload is still improving: every workload of 1% or "
                 "more of the model's estimated time has had --early-stop-rounds rounds and its best improved by less "
                 "than this fraction over them (default 0.01)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--early-stop-rounds", model_options.scheduler.early_stop_rounds,
                 "model: the rounds of each workload the early stop looks back over (default 3)")
      ->check(CLI::Range(1, 100000));
  bool no_early_stop = false;
  app.add_flag("--no-early-stop", no_early_stop, "model: spend the whole budget");
  bool no_winograd = false;
  app.add_flag("--no-winograd", no_winograd, "CPU: run every 3x3 conv as direct sums, none as Winograd");
  bool no_pad_channels = false;
  app.add_flag("--no-pad-channels", no_pad_channels,
               "CPU: keep conv outputs whose channels are not a multiple of 16 at their own width, in NCHW, instead "
               "of widening them with zero channels to block them");
  bool fuse_attention = true;
  app.add_flag("--fuse-attention,!--no-fuse-attention", fuse_attention,
               "CPU: run attention's two products and softmax as one kernel (the attention family), also over "
               "[batch, heads, ...] operands; on by default (ten transformers ran at 1.00-1.09x of their unfused "
               "default bundles, docs/DESIGN-NOTES.md); --no-fuse-attention runs them as separate kernels");
  int64_t winograd_tile = -1;
  app.add_option("--winograd-tile", winograd_tile,
                 "--op conv2d on the CPU: 0 direct sums, 2 or 4 Winograd F(m x m, 3x3) (default: the runtime's choice)")
      ->check(CLI::IsMember({0, 2, 4}))
      ->excludes("--no-winograd");
  app.add_option("--db", db_path, "tuning database (default: $NEE_DB or ~/.local/share/nee/tuning.db)");
  app.add_option("--bundle", bundle_dir, "after tuning, build the model's kernel bundle into this folder");
  std::string deploy_dir;
  app.add_option("--deploy", deploy_dir,
                 "with --bundle: also write a deploy artifact into this new folder: the graph as optimized for the "
                 "bundle, its weights in the kernels' layouts (mapped at load) and the bundle, with the sha256 of "
                 "each; `nee-run FOLDER` runs it with no import and no graph pass (one graph per set of "
                 "--input-shape, their weights stored once)")
      ->needs("--bundle");
  int bundle_timing_runs = 20;
  app.add_option("--bundle-timing-runs", bundle_timing_runs,
                 "CPU, after tuning a model with --bundle: runs of the whole model on the tuned bundle and on a "
                 "default one, alternating, whose medians end the summary (0: none)")
      ->check(CLI::Range(0, 10000));
  std::string sign_key;
  app.add_option("--sign", sign_key,
                 "sign the bundle, and the deploy artifact's deploy.json with --deploy, with this Ed25519 private key "
                 "(PEM; make one with `openssl genpkey -algorithm ed25519 -out key.pem`), so that `nee-run --trust` "
                 "with its public half loads them (docs/TRUST.md)")
      ->needs("--bundle");
  std::string isa_text;
  app.add_option("--isa", isa_text,
                 "CPU bundles: the ISA levels to build a variant of every kernel for, comma-separated (sse41, avx2, "
                 "avx512_skylake, avx512_cannonlake, avx512_zen4, avx512_sapphirerapids, arm64, arm64_dotprod), 'host' for this "
                 "machine's own level (also in a list: sse41,host), or 'all' (the default): every level this machine runs, so the bundle also runs "
                 "on lesser CPUs; the runtime picks per kernel the best level the CPU it runs on has");
  app.add_option("--jobs", options.build_jobs, "parallel compiles")->check(CLI::Range(1, 256));
  app.add_option("--threads", options.runner.threads, "kernel threads while measuring (0: all cores)");
  app.add_option("--seed", options.seed, "search seed (0: from the clock)");
  app.add_option("--work-dir", work_dir, "scratch folder for candidate libraries");
  std::string object_cache_dir = nee::default_object_cache_dir();
  app.add_option("--object-cache", object_cache_dir,
                 "folder of compiled kernel objects kept by what made them (program, Halide, target, workload, "
                 "schedule), so no schedule is compiled twice, within a run or across runs; 'none': compile "
                 "everything (default: $NEE_CACHE_DIR, else $XDG_CACHE_HOME/nee/objects, else ~/.cache/nee/objects; "
                 "pruned to 1 GiB, least recently used first)")
      ->capture_default_str();
  app.add_option("--report", options.report_dir, "write convergence curves (SVG plot and CSV) per workload, and for a model its estimated time, into this folder");
  std::string runner_url;
  nee::SshSettings ssh;
  app.add_option("--runner", runner_url, "where to measure: local (default) or ssh://[user@]host[:port]");
  app.add_option("--ssh-identity", ssh.identity, "with an ssh runner: private key file")->check(CLI::ExistingFile);
  app.add_option("--ssh-option", ssh.options, "with an ssh runner: an ssh -o option (NAME=VALUE), repeatable");
  app.add_option("--repeat", options.runner.repeats,
                 "timed samples per candidate at most, fewer once 3 lie within 2% of each other (the median is kept)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--number", options.runner.number, "calls per sample, at least")->check(CLI::Range(1, 1000000));
  app.add_option("--min-repeat-ms", options.runner.min_sample_ms, "calls per sample grow until a sample lasts this long")
      ->check(CLI::NonNegativeNumber);
  std::string cache;
  app.add_option("--cache", cache,
                 "cache state of the timed calls: cold evicts a kernel's buffers before each call, as a layer meets "
                 "them in a model run; warm keeps them cached, as a kernel benchmark does (default: cold for a model "
                 "on the CPU, warm otherwise); records of the two are kept apart")
      ->check(CLI::IsMember({"warm", "cold"}));
  app.add_option("--measure-timeout", options.runner.timeout_seconds, "seconds per candidate: check plus timing")
      ->check(CLI::PositiveNumber);
  nee::PackRequest pack;
  CLI::App* pack_app = app.add_subcommand("pack", "build candidates into a self-contained batch folder to measure elsewhere");
  pack_app->add_option("--count", pack.count, "candidates per workload, the default point first")->check(CLI::Range(1, 100000));
  pack_app->add_option("--out", pack.folder, "the batch folder to create")->required();
  pack_app->add_option("--measure-program", pack.measure_program,
                       "the nee-measure to put in the folder, built for the kernels' architecture (default: the one "
                       "beside nee-tune; for arm64 kernels, make build-arm64 builds build/arm64/build/tuner/nee-measure)")
      ->check(CLI::ExistingFile);
  pack_app->fallthrough();
  nee::DbCommand db_command;
  CLI::App* db_app = nee::add_db_command(app, db_command);
  nee::CompareCommand compare_command;
  CLI::App* compare_app = nee::add_compare_command(app, compare_command);
  CLI11_PARSE(app, argc, argv);

  const auto run_start = std::chrono::steady_clock::now();
  const auto run_seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  };
  try {
    if (compare_app->parsed()) return nee::run_compare_command(compare_command);
    if (db_app->parsed()) {
      return nee::run_db_command(db_command, db_path.empty() ? nee::TuningDatabase::default_path() : db_path);
    }
    if (model.empty() == op.empty()) throw nee::Error("give either a model file or --op with --shape");
    if (!runner_url.empty() && pack_app->parsed()) throw nee::Error("pack builds a folder to measure elsewhere; --runner does not apply");
    const nee::Family* family = op.empty() ? nullptr : &nee::family_named(op);
    if (!op.empty() && shape.empty()) throw nee::Error("--op needs --shape");
    if (!bundle_dir.empty() && model.empty()) throw nee::Error("--bundle needs a model");
    if (!deploy_dir.empty() && std::filesystem::exists(deploy_dir) && !std::filesystem::is_empty(deploy_dir)) {
      throw nee::Error(fmt::format("the deploy folder '{}' exists and is not empty: give a new folder", deploy_dir));
    }
    // Read now: a bad key fails before the tuning, not after it.
    const std::optional<nee::BundleSigningKey> signing_key =
        sign_key.empty() ? std::nullopt : std::optional(nee::BundleSigningKey::load(sign_key));
    if (!input_shape_texts.empty() && model.empty()) throw nee::Error("--input-shape needs a model");
    // A model's estimate and its bundle start from every workload's default record.
    if (!options.measure_default && !model.empty()) throw nee::Error("--no-default-point needs --op, not a model");
    const double budget = time_text.empty() ? 0 : parse_duration(time_text);
    // --time alone bounds the run by time only.
    if (budget > 0 && app.count("--trials") == 0) options.trials = 1000000;
    const nee::IsaLevel* cpu_level = nee::isa_level_spelled(target_kind);
    if (cpu_level) {
      target_kind = "cpu";
      const std::vector<const nee::IsaLevel*> runs = nee::host_isa_levels();
      if (std::find(runs.begin(), runs.end(), cpu_level) == runs.end() && !pack_app->parsed()) {
        if (app.count("--trials") == 0 && budget == 0) options.trials = 0;
        if (options.trials > 0) {
          throw nee::Error(fmt::format(
              "this machine cannot run {} kernels ({}); measure them where they run: `nee-tune ... --target {} pack "
              "--out DIR`, `DIR/bin/nee-measure --batch DIR` there, `nee-tune db import-results DIR` here; or build "
              "a bundle from what the database holds with --trials 0",
              cpu_level->name,
              cpu_level->arch != nee::host_arch()
                  ? "it is " + nee::host_arch()
                  : fmt::format("it lacks {}", fmt::join(nee::missing_cpu_flags(*cpu_level), " ")),
              cpu_level->name));
        }
      }
    }

    if (cuda_capability != 0 && target_kind != "cuda") throw nee::Error("--cuda-capability needs --target cuda");
    if (!isa_text.empty() && target_kind != "cpu") throw nee::Error("--isa chooses the levels of CPU bundles");
    if (!isa_text.empty() && bundle_dir.empty()) throw nee::Error("--isa chooses a bundle's levels; it needs --bundle");
    nee::Target target = nee::host_target(nee::target_kind_from_string(target_kind), cuda_capability);
    if (cpu_level) target.halide = cpu_level->halide;
    target.cache = !cache.empty() ? nee::cache_state_from_string(cache)
                   : !model.empty() && target.kind() == nee::TargetKind::cpu ? nee::CacheState::cold
                                                                             : nee::CacheState::warm;
    if (target.cache == nee::CacheState::cold && target.kind() != nee::TargetKind::cpu) {
      throw nee::Error("--cache cold evicts host caches, which a GPU kernel's device buffers are not in; use --cache warm");
    }
    options.runner.cache = target.cache;
    const bool remote = !runner_url.empty() && runner_url != "local";
    if (target.kind() == nee::TargetKind::cuda && options.trials > 0 && !remote && !pack_app->parsed() &&
        !nee::cuda_device()) {
      throw nee::Error("this machine's CUDA driver sees no GPU to measure CUDA candidates on; measure them on a GPU "
                       "machine with --runner ssh://host or `nee-tune pack`, or use --trials 0 to bundle default "
                       "schedules");
    }
    if (no_early_stop) model_options.scheduler.early_stop_threshold = 0;
    if (options.confirm_top == 0 && options.trials > 0 && !pack_app->parsed()) {
      fmt::print(stderr,
                 "nee-tune: --confirm 0: this run's search picks will not be re-measured, so they rank below the "
                 "default and the baselines and bundles will not use them until a later run confirms them\n");
    }
    // Only CPU kernels schedule channel-blocked activations, packed matmul weights, Winograd convs and fused
    // attention (the attention family's GPU space is a first, correct one, not yet timed on a GPU); gates folded
    // into conv weights were measured on CPUs only.
    nee::GraphOptions graph_options;
    graph_options.block_activations = target.kind() == nee::TargetKind::cpu;
    graph_options.block_pools = graph_options.block_activations;
    graph_options.block_pads = graph_options.block_activations;
    graph_options.block_elementwise = graph_options.block_activations;
    graph_options.block_global_pool_inputs = graph_options.block_activations;
    graph_options.block_grouped_convs = graph_options.block_activations;
    graph_options.pad_channels = graph_options.block_activations && !no_pad_channels;
    graph_options.fold_channel_gates = target.kind() == nee::TargetKind::cpu;
    graph_options.widen_conv_groups = graph_options.block_grouped_convs ? nee::kWidenedGroupMinWidth : 0;
    graph_options.merge_conv_groups = graph_options.block_grouped_convs;
    graph_options.record_group_widths = graph_options.merge_conv_groups;
    graph_options.fuse_group_norms = true;
    graph_options.fuse_rms_norms = true;
    graph_options.remove_same_type_casts = true;
    graph_options.fold_pads_into_convs = true;
    graph_options.split_conv_channels = true;
    graph_options.elementwise_over_rows = true;
    graph_options.lower_1d_conv_transposes = true;
    graph_options.group_norms_over_rows = true;
    graph_options.drop_padding_taps = true;
    graph_options.means_as_global_pools = true;
    graph_options.block_resizes = graph_options.block_activations;
    graph_options.layouts_as_transposes = graph_options.block_activations;
    graph_options.compose_transposes = true;
    graph_options.remove_whole_slices = true;
    graph_options.batch_norms_of_matrices = true;
    graph_options.fold_transposes_into_products = true;
    graph_options.fold_batch_norms_into_products = true;
    graph_options.group_norm_affine_into_elementwise = true;
    graph_options.convs_read_frames = target.kind() == nee::TargetKind::cpu;
    graph_options.pack_matmul_weights = target.kind() == nee::TargetKind::cpu;
    graph_options.pad_matmul_panels = graph_options.pack_matmul_weights;
    graph_options.quantize_matmul_weights = graph_options.pack_matmul_weights;
    graph_options.quantize_pairs_as_elementwise = true;
    graph_options.requantize_conv_outputs = true;
    graph_options.quantize_matmul_activations =
        graph_options.quantize_matmul_weights && bundle_has_vnni(target, isa_text);
    graph_options.quantize_conv_activations = graph_options.quantize_matmul_activations;
    graph_options.convs_read_shared_pairs = graph_options.quantize_conv_activations;
    graph_options.fold_operand_scales = true;
    graph_options.split_matmul_columns = true;
    graph_options.fuse_attention = target.kind() == nee::TargetKind::cpu && fuse_attention;
    graph_options.fuse_attention_over_heads = graph_options.fuse_attention;
    graph_options.attention_through_head_transposes = graph_options.fuse_attention;
    graph_options.winograd = target.kind() == nee::TargetKind::cpu && !no_winograd;
    graph_options.winograd_weight_bound = graph_options.winograd;
    const std::vector<nee::WorkloadCount> counted =
        !model.empty() ? model_workloads(model, nee::parse_input_shape_sets(input_shape_texts), graph_options)
        : family->id == nee::FamilyId::conv2d
            ? std::vector<nee::WorkloadCount>{{conv_in_runtime_form(family->from_shape(shape), graph_options, winograd_tile), 1}}
        // A product by a constant B, as a model's Linear layers are.
        : family->id == nee::FamilyId::matmul && graph_options.pack_matmul_weights
            ? std::vector<nee::WorkloadCount>{{nee::matmul_runtime_layout(family->from_shape(shape)), 1}}
            : std::vector<nee::WorkloadCount>{{family->from_shape(shape), 1}};
    std::vector<nee::Workload> workloads;
    std::vector<int> counts;
    for (const nee::WorkloadCount& w : counted) {
      workloads.push_back(w.workload);
      counts.push_back(w.count);
    }
    if (object_cache_dir != "none") {
      options.object_cache = nee::ObjectCache(object_cache_dir);
      options.object_cache.prune(kObjectCacheBytes);
    }
    options.work_dir = work_dir.empty() ? (std::filesystem::temp_directory_path() / fmt::format("nee-tune-{}", getpid())).string()
                                        : work_dir;
    // A bad runner URL is refused before the database is opened.
    if (!pack_app->parsed()) options.measurer = nee::make_runner(runner_url, options.runner, ssh, options.work_dir + "/batches");
    if (db_path.empty()) db_path = nee::TuningDatabase::default_path();
    nee::TuningDatabase db(db_path);
    if (pack_app->parsed()) {
      pack.workloads = workloads;
      pack.halide_target = target.halide;
      pack.strategy = options.strategy;
      pack.seed = options.seed ? options.seed : static_cast<uint64_t>(getpid());
      pack.build_jobs = options.build_jobs;
      pack.object_cache = options.object_cache;
      pack.runner = options.runner;
      pack.confirmation = {options.confirm_top, options.confirm_rounds};
      const nee::PackReport r = nee::pack_candidates(db, pack);
      fmt::print("packed {0} candidate(s) ({1} did not build) into {2}: run `{2}/bin/nee-measure --batch {2}` where "
                 "they can run, then `nee-tune db import-results {2}`\n",
                 r.packed, r.build_errors, pack.folder);
      return 0;
    }
    const ScratchFolder scratch{options.work_dir};
    // Under a time budget the baselines are off unless asked for: in a 10-minute run of
    // ResNeXt-50 their compiles (Adams2019 up to 75 s a conv) took most of the time, and
    // none won (3x to 17x slower than the search's best on the 9 convs measured).
    options.baselines = baselines || (!no_baselines && budget <= 0);
    // Records are stored under the device that measures them.
    if (options.trials > 0) target.device = options.measurer->device(target.kind());
    if (options.trials > 0) {
      fmt::print(stderr, "nee-tune: {} workload(s) on {} measured by {} with {} caches | database {}\n",
                 workloads.size(), target.halide, options.measurer->name(), nee::to_string(target.cache), db_path);
    } else {
      fmt::print(stderr, "nee-tune: {} workload(s) on {}, none measured (--trials 0) | database {}\n", workloads.size(),
                 target.halide, db_path);
    }
    if (!model.empty()) print_workloads(counted);
    std::fflush(stdout);  // the list comes before the progress lines on stderr

    nee::install_interrupt_handler();
    std::optional<nee::BundleStage> bundle;
    if (!bundle_dir.empty()) {
      nee::BundleRequest request;
      request.workloads = workloads;
      request.target = target;
      request.model_path = model;
      request.output_dir = bundle_dir;
      request.jobs = options.build_jobs;
      request.graph = graph_options;
      request.signing_key = sign_key;
      request.object_cache = options.object_cache;
      if (target.kind() == nee::TargetKind::cpu && cpu_level && isa_text.empty()) {
        for (const nee::IsaLevel* l : nee::isa_levels_up_to(*cpu_level)) request.isa_levels.push_back(l->name);
      } else if (target.kind() == nee::TargetKind::cpu) {
        request.isa_levels = nee::bundle_isa_levels(isa_text);
      }
      const std::vector<nee::InputShapes> shape_sets = nee::parse_input_shape_sets(input_shape_texts);
      // The tuned bundle is timed against a default one on CPUs.
      bundle.emplace(request, shape_sets.empty() ? nee::InputShapes{} : shape_sets.front(),
                     target.kind() == nee::TargetKind::cpu ? bundle_timing_runs : 0, options.work_dir);
    }
    // --time bounds the whole run: what came before the search, and the bundle stage after it.
    const bool tuning = options.trials > 0 && !workloads.empty();
    double after_search_s = 0;
    if (budget > 0 && tuning && bundle && options.object_cache.on()) after_search_s = bundle->prepare(db);
    options.time_budget_s = budget > 0 ? std::max(1.0, budget - run_seconds() - after_search_s) : 0;
    std::vector<nee::TuneReport> reports;
    if (tuning) {
      reports = !model.empty() ? nee::tune_model(db, workloads, counts, target, options, model_options).workloads
                               : std::vector<nee::TuneReport>{nee::tune_workload(db, workloads[0], target, options)};
    }
    if (!reports.empty()) fmt::print("\n{}", nee::tuning_summary(reports, !model.empty()));
    int measured = 0, failed = 0;
    for (const nee::TuneReport& r : reports) {
      measured += r.measured;
      failed += r.failed;
    }
    if (measured > 0 && failed == measured) {
      const std::vector<nee::TuningRecord> history = db.history(reports.back().workload, target);
      std::string last = history.empty() ? "" : history.back().result.error.substr(0, 300);
      std::replace(last.begin(), last.end(), '\n', ' ');
      throw nee::Error(fmt::format("no candidate ran: all {} measured candidate(s) failed{}", measured,
                                   last.empty() ? "" : "; the last: " + last));
    }

    if (bundle) {
      bundle->finish(db, !reports.empty() && !nee::interrupted());
      if (signing_key) fmt::print("bundle {}: signed with {} (key id {})\n", bundle_dir, sign_key, signing_key->id());
      if (!deploy_dir.empty()) {
        // One graph per set of input shapes the bundle was built for, their weights shared.
        std::vector<nee::InputShapes> shape_sets = nee::parse_input_shape_sets(input_shape_texts);
        if (shape_sets.empty()) shape_sets.emplace_back();
        std::vector<nee::Graph> graphs;
        for (const nee::InputShapes& shapes : shape_sets) {
          bool complete = true;
          graphs.push_back(nee::import_onnx_first_stage(model, shapes, complete));
          if (!complete) {
            throw nee::Error("the model's shapes depend on values it computes, so it runs in stages: a deploy "
                             "artifact holds graphs of static shapes; deploy the model with its bundle instead");
          }
          nee::optimize_graph(graphs.back(), graph_options);
        }
        nee::write_deploy_artifact(graphs, bundle_dir, deploy_dir, signing_key ? &*signing_key : nullptr);
        fmt::print("deploy artifact {}: {} graph(s) of {} nodes, weights {} (run it with `nee-run {}`)\n", deploy_dir,
                   graphs.size(), graphs[0].nodes().size(),
                   nee::format_bytes(static_cast<int64_t>(std::filesystem::file_size(deploy_dir + "/weights.bin"))),
                   deploy_dir);
      }
    }
    if (budget > 0) {
      fmt::print("the run took {} of its {} budget\n", nee::format_duration(run_seconds()),
                 nee::format_duration(budget));
    }
    return nee::interrupted() ? 130 : 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "nee-tune: error: {}\n", e.what());
    return 1;
  }
}
