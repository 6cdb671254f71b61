// nee-run: executes an ONNX model with a tuned kernel bundle (or the reference CPU
// kernels alone), checks outputs, times repeated runs, says which nodes ran where and
// how much of the model's work that is, and writes a trace of every node's span.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <new>

#include "core/error.h"
#include "core/isa_level.h"
#include "importer/import_onnx.h"
#include "importer/input_shape_text.h"
#include "runtime/bundle/kernel_bundle.h"
#include "runtime/deploy/deploy_artifact.h"
#include "runtime/deploy/verified_file_cache.h"
#include "runtime/npy_file.h"
#include "runtime/output_comparison.h"
#include "runtime/passes/passes.h"
#include "runtime/profiling/chrome_trace.h"
#include "runtime/profiling/flop_account.h"
#include "runtime/profiling/op_summary.h"
#include "runtime/profiling/run_profile.h"
#include "runtime/profiling/run_statistics.h"
#include "runtime/reference/reference_provider.h"
#include "runtime/session.h"
#include "runtime/staged_session.h"
#include "runtime/tensor_io.h"
#include "runtime/tensor_limits.h"

namespace fs = std::filesystem;

namespace {

struct Options {
  std::string model, bundle, compare_bundle, target = "cpu", profile;
  std::vector<std::string> inputs_dirs, expect_dirs;  // one data set per --inputs, checked against its --expect
  std::vector<std::string> input_shape_texts;
  nee::InputShapes input_shapes;  // parsed from input_shape_texts
  double rtol = 1e-4, atol = 1e-5;
  double peak_rtol = 0;
  bool check_reference = false, print_outputs = false, placement = false, stats = false;
  int repeat = 0, warmup = 3, threads = 0;
  int spin_us = nee::KernelPoolSettings{}.spin_us;
  uint64_t seed = 1;
  bool each_isa = false;
  bool skip_weights_check = false;  // DeployLoadOptions::verify_weights off
  std::string max_isa;  // BundleLoadOptions::max_isa
  std::vector<std::string> trust;                  // --trust: key files and folders
  std::shared_ptr<const nee::TrustedKeys> trusted;  // read from them
  std::string max_memory;  // --max-memory text; parsed into caps
  nee::MemoryCaps caps;
};

std::shared_ptr<nee::KernelBundle> load_bundle(const Options& o, const std::string& bundle_dir) {
  nee::BundleLoadOptions load{o.model, nee::target_kind_from_string(o.target), o.threads, o.spin_us, o.max_isa,
                              o.trusted};
  auto bundle = nee::KernelBundle::load(bundle_dir, load);
  for (const std::string& w : bundle->warnings()) fmt::print(stderr, "nee-run: warning: {}\n", w);
  std::vector<std::string> levels, runs;
  for (const auto& [isa, count] : bundle->kernels_by_level()) levels.push_back(fmt::format("{} {}", isa, count));
  for (const nee::IsaLevel* l : nee::host_isa_levels(o.max_isa)) runs.push_back(l->name);
  fmt::print("bundle {}: kernels by ISA level: {} (this CPU runs {})\n", bundle_dir, fmt::join(levels, ", "),
             fmt::join(runs, ", "));
  return bundle;
}

std::vector<std::unique_ptr<nee::KernelProvider>> providers_of(const std::shared_ptr<nee::KernelBundle>& bundle) {
  std::vector<std::unique_ptr<nee::KernelProvider>> providers;
  if (bundle) providers.push_back(nee::make_bundle_provider(bundle));
  return providers;
}

// `threads`, when given, receives the size of the bundle's thread pool.
std::unique_ptr<nee::Session> make_session(const Options& o, const std::string& bundle_dir, int* threads = nullptr) {
  if (nee::is_deploy_artifact(o.model)) {
    // Its own bundle (bundle_dir names the artifact), or none: the reference kernels on
    // its optimized graph.
    nee::DeployLoadOptions load;
    load.bundle = {"", nee::target_kind_from_string(o.target), o.threads, o.spin_us, o.max_isa, o.trusted};
    load.memory_caps = o.caps;
    load.verify_weights = !o.skip_weights_check;
    load.verified_cache_dir = nee::VerifiedFileCache::default_dir();
    nee::DeployedModel deployed = nee::load_deploy_artifact(o.model, load);
    if (threads) {
      fmt::print("weights.bin: {}\n", deployed.weights_hashed ? "hashed, matches deploy.json"
                                       : o.skip_weights_check ? "not hashed (--skip-weights-check)"
                                                              : "unchanged since a load verified it (" +
                                                                    load.verified_cache_dir + "), not hashed again");
    }
    if (bundle_dir.empty()) {
      nee::Graph& graph = deployed.graphs[nee::deployed_graph_for(deployed.graphs, o.input_shapes)];
      auto reference = std::make_unique<nee::Session>(std::move(graph),
                                                      std::vector<std::unique_ptr<nee::KernelProvider>>{},
                                                      nee::SessionOptions{nullptr, o.caps});
      reference->prepare();
      return reference;
    }
    if (threads) *threads = deployed.bundle->threads();
    return nee::make_deployed_session(std::move(deployed), o.caps, o.input_shapes);
  }
  std::shared_ptr<nee::KernelBundle> bundle;
  if (!bundle_dir.empty()) {
    bundle = load_bundle(o, bundle_dir);
    if (threads) *threads = bundle->threads();
  }
  const nee::SessionOptions options{nee::optimize_graph, o.caps};
  auto session = std::make_unique<nee::Session>(nee::import_onnx(o.model, o.input_shapes, {}, o.caps),
                                                providers_of(bundle), options);
  session->prepare();
  return session;
}

// A data set's tensor file STEM.pb (ONNX test-data layout, which may name its tensor) or
// STEM.npy (numpy.save), not both.
nee::Tensor read_data_file(const std::string& dir, const std::string& stem, const nee::MemoryCaps& caps,
                           std::string* name = nullptr) {
  const std::string pb = dir + "/" + stem + ".pb", npy = dir + "/" + stem + ".npy";
  const bool has_pb = fs::exists(pb), has_npy = fs::exists(npy);
  if (has_pb && has_npy) throw nee::Error(fmt::format("{0} holds both {1}.pb and {1}.npy; keep one", dir, stem));
  if (has_npy) return nee::read_npy(npy, caps.tensor_bytes);
  if (!has_pb) throw nee::Error(fmt::format("{0} holds neither {1}.pb nor {1}.npy", dir, stem));
  return nee::read_tensor_pb(pb, name);
}

// One data set's inputs from input_<i>.pb or .npy files, named by a .pb file or else by
// the model's input order.
std::map<std::string, nee::Tensor> read_data_set(const std::string& dir, const std::vector<std::string>& names,
                                                 const nee::MemoryCaps& caps) {
  std::map<std::string, nee::Tensor> inputs;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string name;
    nee::Tensor t = read_data_file(dir, "input_" + std::to_string(i), caps, &name);
    inputs[name.empty() ? names[i] : name] = t;
  }
  return inputs;
}

// Random inputs from the seed, of the graph's input types.
std::map<std::string, nee::Tensor> random_inputs(const Options& o, const nee::Graph& graph) {
  std::map<std::string, nee::Tensor> inputs;
  const auto& names = graph.inputs();
  for (size_t i = 0; i < names.size(); ++i) inputs[names[i]] = nee::random_tensor(graph.type_of(names[i]), o.seed + i);
  return inputs;
}

bool check_outputs(const std::map<std::string, nee::Tensor>& got, const std::vector<std::string>& names,
                   const std::function<nee::Tensor(size_t, const std::string&)>& expected, const Options& o,
                   const std::string& against) {
  bool all_ok = true;
  for (size_t i = 0; i < names.size(); ++i) {
    const nee::Tensor want = expected(i, names[i]);
    nee::Comparison c = nee::compare_tensors(got.at(names[i]), want, o.rtol, o.atol);
    if (o.peak_rtol > 0 && c.problem == "values differ") c.ok = c.peak_rel_error <= o.peak_rtol;
    fmt::print("check {} vs {}: {} (max abs error {:.3g}, max rel error {:.3g}, error / largest output {:.3g}){}\n",
               names[i], against, c.ok ? "ok" : "MISMATCH", c.max_abs_error, c.max_rel_error, c.peak_rel_error,
               c.ok ? "" : " - " + c.problem);
    all_ok = all_ok && c.ok;
  }
  return all_ok;
}

// One line on a device session's host-device copies, naming the nodes that forced a round
// trip through the host.
void print_device_traffic(const nee::Session& s, const char* which) {
  const std::optional<nee::DeviceTraffic> t = s.device_traffic();
  if (!t) return;
  std::string trips = "none";
  if (!t->round_trip_nodes.empty()) {
    trips = fmt::format("{} ({})", t->round_trip_nodes.size(), fmt::join(t->round_trip_nodes, ", "));
  }
  fmt::print("device copies, {} run: {:.3f} MiB to the device, {:.3f} MiB to the host; nodes that forced a host "
             "round trip: {}\n",
             which, t->bytes_to_device / 1048576.0, t->bytes_to_host / 1048576.0, trips);
  const nee::MemoryPlan& plan = s.memory_plan();
  fmt::print("device memory held: {:.3f} MiB, of which the arena {:.3f} MiB holds {:.3f} MiB of intermediates\n",
             t->resident_bytes / 1048576.0, plan.arena_bytes / 1048576.0, plan.unshared_bytes / 1048576.0);
}

// Times one run in ms; when `profile` is given, also records the run's node spans in it.
double time_run(nee::Session& s, const std::map<std::string, nee::Tensor>& inputs, nee::RunProfile* profile) {
  const auto start = std::chrono::steady_clock::now();
  s.run(inputs);
  const auto stop = std::chrono::steady_clock::now();
  if (profile) nee::record_run(*profile, s, start, stop);
  return std::chrono::duration<double, std::milli>(stop - start).count();
}

}  // namespace

// Several --inputs, or a model that runs in stages: every data set through one
// StagedSession (sharing one bundle), each checked against its --expect, with how its
// stages' nodes were placed.
bool run_data_sets(const Options& o, const std::shared_ptr<const nee::StagedModel>& model,
                   const std::vector<std::map<std::string, nee::Tensor>>& data_sets) {
  const std::shared_ptr<nee::KernelBundle> bundle = o.bundle.empty() ? nullptr : load_bundle(o, o.bundle);
  nee::StagedSession session(model, [&bundle] { return providers_of(bundle); },
                             nee::SessionOptions{nee::optimize_graph, o.caps});
  bool ok = true;
  for (size_t k = 0; k < data_sets.size(); ++k) {
    const size_t made_before = session.made();
    const auto start = std::chrono::steady_clock::now();
    const auto got = session.run(data_sets[k]);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::vector<std::string> shapes;
    for (const auto& [name, tensor] : data_sets[k]) shapes.push_back(name + " " + tensor.type().to_string());
    int bundled = 0, nodes = 0;
    const nee::StagedSession::Stages stages = session.last_stages();
    for (const std::shared_ptr<const nee::Session>& s : stages) {
      for (const nee::Placement& p : s->placements()) bundled += p.provider == "bundle";
      nodes += static_cast<int>(s->placements().size());
    }
    fmt::print("data set {} ({}): {} stage(s), {} new; specializations made so far {}; {} of {} nodes ran bundle "
               "kernels; {:.1f} ms with specializing\n",
               o.inputs_dirs.empty() ? "random" : o.inputs_dirs[k], fmt::join(shapes, ", "),
               stages.size(), session.made() - made_before, session.made(), bundled, nodes, ms);
    if (o.placement) {
      for (size_t stage = 0; stage < stages.size(); ++stage) {
        for (const nee::Placement& p : stages[stage]->placements()) {
          fmt::print("stage {:<3} {:<28} {:<14} {:<10} {}\n", stage + 1, p.node, p.op, p.provider, p.kernel);
        }
      }
    }
    if (!o.expect_dirs.empty()) {
      ok = check_outputs(got, model->output_names(), [&](size_t i, const std::string&) {
        return read_data_file(o.expect_dirs[k], "output_" + std::to_string(i), o.caps);
      }, o, o.expect_dirs[k]) && ok;
    }
  }
  if (o.repeat > 0) {
    for (int i = 0; i < o.warmup; ++i) session.run(data_sets[0]);
    std::vector<double> times;
    for (int i = 0; i < o.repeat; ++i) {
      const auto start = std::chrono::steady_clock::now();
      session.run(data_sets[0]);
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    fmt::print("time {} in stages: {}\n", o.bundle.empty() ? "reference" : o.bundle,
               nee::to_string(nee::summarize_timings(times)));
  }
  return ok;
}

// --each-isa: the bundle loaded once per ISA level this CPU runs, each session picking
// kernels as a CPU at most at that level would. Every level's outputs are checked
// against the uncapped run's, then the levels are timed in turn, run by run, in a
// rotating order, so that machine noise hits all alike.
bool time_each_isa(const Options& o, const std::map<std::string, nee::Tensor>& inputs,
                   const std::map<std::string, nee::Tensor>& outputs, const std::vector<std::string>& out_names) {
  bool ok = true;
  std::vector<std::string> levels;
  std::vector<std::unique_ptr<nee::Session>> sessions;
  for (const nee::IsaLevel* l : nee::host_isa_levels()) {
    Options capped = o;
    capped.max_isa = l->name;
    sessions.push_back(make_session(capped, o.bundle));
    levels.push_back(l->name);
    const auto got = sessions.back()->run(inputs);
    ok = check_outputs(got, out_names, [&](size_t, const std::string& n) { return outputs.at(n); }, o,
                       "the uncapped run, at " + l->name) && ok;
  }
  for (int i = 0; i < o.warmup; ++i) {
    for (auto& s : sessions) s->run(inputs);
  }
  std::vector<std::vector<double>> times(sessions.size());
  for (int i = 0; i < std::max(o.repeat, 1); ++i) {
    for (size_t k = 0; k < sessions.size(); ++k) {
      const size_t j = (i + k) % sessions.size();
      times[j].push_back(time_run(*sessions[j], inputs, nullptr));
    }
  }
  const nee::TimingSummary top = nee::summarize_timings(times.back());
  fmt::print("{:<24} {:>10} {:>10} {:>10} {:>15}\n", "capped at", "median ms", "p10 ms", "p90 ms", "time / highest");
  for (size_t j = 0; j < sessions.size(); ++j) {
    const nee::TimingSummary t = nee::summarize_timings(times[j]);
    fmt::print("{:<24} {:>10.3f} {:>10.3f} {:>10.3f} {:>14.2f}x\n", levels[j], t.median_ms, t.p10_ms, t.p90_ms,
               t.median_ms / top.median_ms);
  }
  return ok;
}

int main(int argc, char** argv) {
  CLI::App app{"nee-run: execute an ONNX model with a NEE kernel bundle"};
  Options o;
  app.add_option("model", o.model, "ONNX model, or a deploy artifact's folder (nee-tune --deploy)")->required();
  app.add_option("--bundle", o.bundle,
                 "kernel bundle folder (without: reference CPU kernels only); a deploy artifact (nee-tune --deploy), "
                 "given as the model, holds its own");
  app.add_option("--trust", o.trust,
                 "load only bundles and deploy artifacts signed (nee-tune --sign) by one of these Ed25519 public "
                 "keys: a PEM file, or a folder of *.pem files; repeatable; one unsigned or signed otherwise is "
                 "refused before any of its code or graph is read (docs/TRUST.md)")
      ->allow_extra_args(false);  // one value per --trust, so a model path after it stays the model
  app.add_option("--target", o.target, "kind of target the bundle was built for")
      ->check(CLI::IsMember({"cpu", "opencl", "cuda"}));
  app.add_option("--input-shape", o.input_shape_texts,
                 "shape of a graph input with symbolic dims, NAME=DxDx...xD (e.g. input=8x3x224x224 for batch 8); "
                 "repeatable; a symbolic batch dim not given is 1; for a deploy artifact, which of the sets of shapes "
                 "it was written for to run (default: the first)")
      ->allow_extra_args(false);  // one value per --input-shape, so a model path after it stays the model
  app.add_option("--inputs", o.inputs_dirs,
                 "folder with input_<i>.pb (ONNX TensorProto) or input_<i>.npy (numpy.save) tensors (default: random "
                 "inputs); repeatable: every data set runs in one "
                 "session, which specializes the model to each distinct set of input shapes, so symbolic dims need "
                 "no --input-shape")
      ->allow_extra_args(false);
  app.add_option("--seed", o.seed, "seed of the random inputs");
  app.add_option("--expect", o.expect_dirs, "folder with output_<i>.pb or .npy tensors to check against; one per --inputs")
      ->allow_extra_args(false);
  app.add_flag("--check-reference", o.check_reference, "also run the reference CPU kernels and compare");
  app.add_option("--rtol", o.rtol, "relative tolerance of checks");
  app.add_option("--atol", o.atol, "absolute tolerance of checks");
  app.add_option("--peak-rtol", o.peak_rtol,
                 "instead of element-wise tolerances: pass when max |error| <= this x max |expected|");
  app.add_option("--repeat", o.repeat, "time this many runs after warm-up")->check(CLI::Range(0, 1000000));
  app.add_option("--warmup", o.warmup, "untimed runs before timing")->check(CLI::Range(0, 1000000));
  app.add_flag("--each-isa", o.each_isa,
               "load the bundle once per ISA level this CPU runs, as a CPU at most at that level would pick its "
               "kernels, check each level's outputs against the uncapped run's, and time the levels side by side "
               "(--repeat runs each)")
      ->needs("--bundle");
  app.add_option("--compare-bundle", o.compare_bundle,
                 "time a second bundle in the same run, alternating, and print the speed-up over it");
  app.add_option("--threads", o.threads,
                 "threads of the bundle's kernel pool (0: all cores this process may use); the reference "
                 "kernels run on the calling thread")
      ->check(CLI::Range(0, 1024));
  app.add_option("--spin-us", o.spin_us,
                 "microseconds the kernel pool's threads stay awake after a parallel loop, so that the next "
                 "kernel finds them running (0: they sleep at once)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--profile", o.profile,
                 "write a Chrome trace (chrome://tracing, ui.perfetto.dev) of the timed runs (--repeat, "
                 "default 1) to this file and print the time per operator; a GPU bundle's kernels are then each "
                 "waited for, so that a node's span is its kernel's run, not its launch");
  app.add_flag("--skip-weights-check", o.skip_weights_check,
               "a deploy artifact: do not hash weights.bin against its manifest at load (its size is still checked); "
               "for artifacts whose integrity something else vouches for, such as a read-only verified image. "
               "Without it, a load that hashed the file remembers it (in $NEE_VERIFIED_CACHE, else "
               "~/.cache/nee/verified), and later loads skip the hash while the file is unchanged (inode, size, "
               "modification and change times)");
  app.add_flag("--print", o.print_outputs, "print the outputs");
  app.add_flag("--placement", o.placement,
               "list which provider and kernel ran each node, and every node left to the reference kernels");
  app.add_flag("--stats", o.stats,
               "print the memory plan's peak, the same tensors without reuse, the constants held and peak RSS");
  app.add_option("--max-memory", o.max_memory,
                 fmt::format("the most memory the model may make NEE allocate, weights, inputs and one run's "
                             "tensors together (e.g. 512M, 4G; default: what this process can have, the least of "
                             "physical memory, its cgroup's limit and ulimit, here {} from {}); no tensor may exceed "
                             "it or 4G, and a model over it is refused before the allocation, naming the tensor",
                             nee::format_bytes(nee::process_memory_limit().bytes), nee::process_memory_limit().source));
  CLI11_PARSE(app, argc, argv);

  try {
    if (!o.trust.empty()) o.trusted = std::make_shared<const nee::TrustedKeys>(nee::TrustedKeys::load(o.trust));
    if (!o.max_memory.empty()) o.caps = nee::memory_caps_within(nee::parse_byte_size(o.max_memory));
    if (!fs::exists(o.model)) throw nee::Error("model file '" + o.model + "' does not exist");
    const bool deployed = nee::is_deploy_artifact(o.model);
    if (deployed) {
      if (!o.bundle.empty()) throw nee::Error("a deploy artifact holds its own bundle: give no --bundle");
      if (o.each_isa || !o.compare_bundle.empty() || o.inputs_dirs.size() > 1) {
        throw nee::Error("--each-isa, --compare-bundle and several --inputs apply to a model and a bundle; a deploy "
                         "artifact runs the shapes it was written for (--input-shape picks one of its sets)");
      }
      o.bundle = o.model;  // its bundle runs it
    }
    if (!o.trust.empty() && o.bundle.empty()) throw nee::Error("--trust applies to a bundle: give --bundle");
    if (!o.profile.empty()) nee::check_trace_path(o.profile);
    o.input_shapes = nee::parse_input_shapes(o.input_shape_texts);
    if (!o.expect_dirs.empty() && o.expect_dirs.size() != o.inputs_dirs.size()) {
      throw nee::Error(fmt::format("{} --expect folders for {} --inputs folders; give one per data set",
                                   o.expect_dirs.size(), o.inputs_dirs.size()));
    }
    std::vector<std::map<std::string, nee::Tensor>> data_sets;
    if (!o.inputs_dirs.empty()) {
      const std::vector<std::string> names =
          deployed ? nee::deploy_artifact_inputs(o.model) : nee::onnx_graph_input_names(o.model);
      for (const std::string& dir : o.inputs_dirs) data_sets.push_back(read_data_set(dir, names, o.caps));
      // The data decides the shapes: a model with symbolic dims needs no --input-shape.
      for (const auto& [name, tensor] : data_sets[0]) o.input_shapes.emplace(name, tensor.shape());
    }
    int threads = 0;
    std::unique_ptr<nee::Session> session;
    const auto created_from = std::chrono::steady_clock::now();
    try {
      session = make_session(o, o.bundle, &threads);
    } catch (const nee::ValueNeeded& e) {
      fmt::print("{}\nthe model's shapes depend on values it computes: running it in stages\n", e.what());
      if (o.check_reference || o.each_isa || !o.compare_bundle.empty() || !o.profile.empty() || o.stats) {
        fmt::print(stderr, "nee-run: note: --check-reference, --each-isa, --compare-bundle, --profile and --stats "
                           "apply to models of one stage; a staged run checks --expect and times --repeat\n");
      }
      const std::shared_ptr<const nee::StagedModel> model = nee::load_staged_onnx(o.model, o.caps);
      if (data_sets.empty()) data_sets.push_back(random_inputs(o, model->stage({}).graph));
      return run_data_sets(o, model, data_sets) ? 0 : 2;
    }
    const auto created = std::chrono::steady_clock::now();
    const nee::Graph& graph = session->graph();
    const auto inputs = data_sets.empty() ? random_inputs(o, graph) : data_sets[0];
    const auto first_from = std::chrono::steady_clock::now();
    const auto outputs = session->run(inputs);
    const auto ms = [](auto from, auto to) { return std::chrono::duration<double, std::milli>(to - from).count(); };
    fmt::print("session created in {:.1f} ms (import or artifact load, graph passes, bundle load, memory plan); "
               "first run {:.2f} ms\n",
               ms(created_from, created), ms(first_from, std::chrono::steady_clock::now()));
    const auto& out_names = graph.outputs();
    print_device_traffic(*session, "first");
    // A profile's device nodes are timed to their kernels' ends, not their launches.
    if (!o.profile.empty()) session->wait_for_each_device_kernel(true);

    nee::RunProfile profile = nee::start_profile(*session);
    const nee::FlopAccount flops = nee::account_flops(profile);
    // Ten reference nodes show where the uncovered work is; --placement lists them all.
    fmt::print("{}", nee::format_flop_account(flops, o.placement ? flops.reference_nodes.size() : 10));
    if (o.placement) {
      int bundled = 0;
      const auto placements = session->placements();
      fmt::print("{:<28} {:<14} {:<10} {}\n", "node", "op", "provider", "kernel");
      for (const nee::Placement& p : placements) {
        fmt::print("{:<28} {:<14} {:<10} {}\n", p.node, p.op, p.provider, p.kernel);
        bundled += p.provider == "bundle";
      }
      fmt::print("{} of {} nodes ran bundle kernels\n", bundled, placements.size());
    }
    if (o.print_outputs) {
      for (const std::string& name : out_names) {
        const nee::Tensor& t = outputs.at(name);
        fmt::print("{} {}:", name, t.type().to_string());
        if (t.dtype() == nee::DType::f32) {
          for (int64_t i = 0; i < std::min<int64_t>(t.elements(), 16); ++i) fmt::print(" {:.6g}", t.data_as<float>()[i]);
          if (t.elements() > 16) fmt::print(" ...");
        }
        fmt::print("\n");
      }
    }
    if (o.stats) {
      const nee::MemoryPlan& plan = session->memory_plan();
      rusage usage{};
      getrusage(RUSAGE_SELF, &usage);
      // The weights as the prepared graph holds them (packed, quantized): what a session keeps
      // after its import's transients are gone, which peak RSS includes.
      size_t constant_bytes = 0;
      for (const std::string& name : session->graph().value_names()) {
        if (const nee::Tensor* t = session->graph().constant(name)) constant_bytes += t->bytes();
      }
      fmt::print("memory: planned peak of intermediates {:.2f} MiB ({} tensors), {:.2f} MiB without reuse; "
                 "constants held {:.2f} MiB; peak RSS {:.1f} MiB\n",
                 plan.arena_bytes / 1048576.0, plan.offsets.size(), plan.unshared_bytes / 1048576.0,
                 constant_bytes / 1048576.0, usage.ru_maxrss / 1024.0);
    }
    bool ok = true;
    if (!o.expect_dirs.empty()) {
      ok = check_outputs(outputs, out_names, [&](size_t i, const std::string&) {
        return read_data_file(o.expect_dirs[0], "output_" + std::to_string(i), o.caps);
      }, o, "expected") && ok;
    }
    if (data_sets.size() > 1) ok = run_data_sets(o, nee::load_staged_onnx(o.model, o.caps), data_sets) && ok;
    if (o.check_reference) {
      Options ref = o;
      auto reference = make_session(ref, "");
      const auto want = reference->run(inputs);
      ok = check_outputs(outputs, out_names, [&](size_t, const std::string& n) { return want.at(n); }, o,
                         "reference kernels") && ok;
    }
    if (o.each_isa) return time_each_isa(o, inputs, outputs, out_names) && ok ? 0 : 2;
    const int timed_runs = o.repeat > 0 ? o.repeat : (o.profile.empty() ? 0 : 1);
    if (timed_runs > 0) {
      std::unique_ptr<nee::Session> other;
      if (!o.compare_bundle.empty()) other = make_session(o, o.compare_bundle);
      for (int i = 0; i < o.warmup; ++i) {
        session->run(inputs);
        if (other) other->run(inputs);
      }
      // Alternate the two sessions run by run so that machine noise hits both alike.
      std::vector<double> mine, theirs;
      for (int i = 0; i < timed_runs; ++i) {
        mine.push_back(time_run(*session, inputs, o.profile.empty() ? nullptr : &profile));
        if (other) theirs.push_back(time_run(*other, inputs, nullptr));
      }
      print_device_traffic(*session, "last");
      const nee::TimingSummary a = nee::summarize_timings(mine);
      fmt::print("time {}: {}, {:.2f} GFLOP/s at the median{}\n", o.bundle.empty() ? "reference" : o.bundle,
                 nee::to_string(a), flops.total / (a.median_ms * 1e6),
                 o.bundle.empty() ? "" : fmt::format(" ({} kernel threads)", threads));
      if (other) {
        const nee::TimingSummary b = nee::summarize_timings(theirs);
        fmt::print("time {}: {}\n", o.compare_bundle, nee::to_string(b));
        fmt::print("speed-up of {} over {}: {:.2f}x (ratio of medians)\n", o.bundle.empty() ? "reference" : o.bundle,
                   o.compare_bundle, b.median_ms / a.median_ms);
      }
      if (!o.profile.empty()) {
        nee::write_chrome_trace(profile, o.profile);
        fmt::print("{}", nee::format_op_summary(nee::summarize_ops(profile)));
        fmt::print("profile: {} runs of {} nodes written to {}\n", profile.runs.size(), profile.nodes.size(),
                   o.profile);
      }
    }
    return ok ? 0 : 2;
  } catch (const std::bad_alloc&) {
    // The caps are checked before every allocation the importer and the session make;
    // this is left for a process limit (ulimit -v, a cgroup) below them.
    fmt::print(stderr, "nee-run: error: out of memory: an allocation failed within the memory caps ({} in all); "
                       "give --max-memory below what this process may allocate, and an oversized model is refused "
                       "with the tensor named\n",
               nee::format_bytes(o.caps.total_bytes));
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "nee-run: error: {}\n", e.what());
    return 1;
  }
}
