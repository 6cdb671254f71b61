#include "tuner/compile/bundle_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "core/content_hash.h"
#include "core/error.h"
#include "core/isa_level.h"
#include "core/subprocess.h"
#include "core/version.h"
#include "runtime/bundle/bundle_signature.h"
#include "schedules/schedule_space.h"
#include "tuner/compile/builder.h"
#include "tuner/compile/forked_jobs.h"
#include "tuner/compile/kernel_compiler.h"
#include "tuner/compile/usable_record.h"

namespace nee {

namespace fs = std::filesystem;

static std::string c_string_literal(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

static void write_kernel_table(const std::string& path, const BundleVariant& v) {
  std::ofstream out(path);
  out << "#include " << c_string_literal(NEE_BUNDLE_ABI_HEADER) << "\n\n";
  for (const BundleKernelEntry& k : v.kernels) {
    out << "int " << k.symbol << "_argv(void**);\n";
    out << "const struct halide_filter_metadata_t* " << k.symbol << "_metadata(void);\n";
  }
  out << "\nstatic const nee_bundle_kernel kernels[] = {\n";
  for (const BundleKernelEntry& k : v.kernels) {
    out << "  {" << c_string_literal(k.workload.key()) << ", " << c_string_literal(k.symbol) << ", " << k.symbol
        << "_argv, " << k.symbol << "_metadata},\n";
  }
  if (v.kernels.empty()) out << "  {0, 0, 0, 0},\n";
  out << "};\n\n";
  out << "int nee_bundle_abi_version(void) { return NEE_BUNDLE_ABI_VERSION; }\n";
  out << "const char* nee_bundle_target(void) { return " << c_string_literal(v.halide) << "; }\n";
  out << "int nee_bundle_kernel_count(void) { return " << v.kernels.size() << "; }\n";
  out << "const nee_bundle_kernel* nee_bundle_kernels(void) { return kernels; }\n";
}

std::vector<std::string> bundle_isa_levels(const std::string& text) {
  std::vector<std::string> names;
  if (text.empty() || text == "all") {
    for (const IsaLevel* l : host_isa_levels()) names.push_back(l->name);
    return names;
  }
  std::stringstream ss(text);
  std::string name;
  while (std::getline(ss, name, ',')) {
    const std::string level = name == "host" ? host_isa_level().name : isa_level_named(name).name;
    if (std::find(names.begin(), names.end(), level) == names.end()) names.push_back(level);
  }
  return names;
}

// The levels a request builds, ascending: those it names, or its target's own. A GPU
// bundle has one variant, named after the level of its host code.
static std::vector<const IsaLevel*> levels_to_build(const BundleRequest& request) {
  if (request.isa_levels.empty() || request.target.kind() != TargetKind::cpu) {
    if (!request.isa_levels.empty()) {
      throw Error(fmt::format("ISA levels choose the variants of a CPU bundle; a {} bundle has one",
                              to_string(request.target.kind())));
    }
    const IsaLevel* own = isa_level_of_target(request.target.halide);
    if (!own) throw Error("'" + request.target.halide + "' is at none of NEE's ISA levels");
    return {own};
  }
  std::vector<const IsaLevel*> levels;
  for (const IsaLevel& level : isa_levels()) {
    for (const std::string& name : request.isa_levels) {
      if (&isa_level_named(name) == &level) {
        levels.push_back(&level);
        break;
      }
    }
  }
  return levels;
}

// A level this machine cannot run, and a GPU target (whose GPU is often on another
// machine), was measured elsewhere (pack here, nee-measure --batch there, db
// import-results here): its records are those of the device that measured the most of the
// request's workloads for the level's target.
static std::optional<DeviceFingerprint> device_measuring_level(const TuningDatabase& db, const BundleRequest& request,
                                                               const Target& level_target) {
  std::optional<DeviceFingerprint> best;
  int best_covered = 0;
  std::set<std::string> seen;
  for (const Target& t : db.targets()) {
    if (t.halide != level_target.halide || t.halide_major != level_target.halide_major) continue;
    if (!seen.insert(t.device.hash()).second) continue;  // one device, two cache states
    Target on_device = level_target;
    on_device.device = t.device;
    int covered = 0;
    for (const Workload& w : request.workloads) covered += record_to_build(db, w, on_device).has_value();
    if (covered > best_covered) {
      best = t.device;
      best_covered = covered;
    }
  }
  return best;
}

// The kernels of one level: each workload's best record for that level's target, else
// its default schedule there.
static BundleVariant plan_variant(const TuningDatabase* db, const BundleRequest& request, const IsaLevel& level,
                                  Target* level_target) {
  BundleVariant v;
  v.isa = level.name;
  v.halide = request.target.kind() == TargetKind::cpu ? level.halide : request.target.halide;
  v.library_file = fmt::format("kernels-{}.so", level.name);
  *level_target = request.target;
  level_target->halide = v.halide;
  const bool use_records = request.use_database && db;
  const bool measured_elsewhere = request.target.kind() != TargetKind::cpu || !missing_cpu_flags(level).empty();
  if (use_records && measured_elsewhere) {
    if (std::optional<DeviceFingerprint> device = device_measuring_level(*db, request, *level_target)) {
      level_target->device = *device;
    }
  }
  for (const Workload& w : request.workloads) {
    BundleKernelEntry e;
    e.workload = w;
    e.symbol = Builder::symbol_for(w, *level_target);
    std::optional<TuningRecord> best = use_records ? record_to_build(*db, w, *level_target) : std::nullopt;
    // Its kernel ran slower in a model than the default schedule's: the default is built.
    if (best && best->slower_in_model()) best.reset();
    if (best) {
      e.source = "tuned";
      e.record_id = best->id;
      e.schedule = best->config;
      e.median_us = best->ranked_us();
    } else {
      e.source = "default";
      e.schedule = make_schedule_space(w, *level_target)->default_config();
    }
    v.kernels.push_back(std::move(e));
  }
  return v;
}

// Each level's target and kernels, as the database stands.
struct BundlePlan {
  std::vector<const IsaLevel*> levels;
  std::vector<Target> targets;
  std::vector<BundleVariant> variants;
};

static BundlePlan plan_bundle(const TuningDatabase* db, const BundleRequest& request) {
  std::set<std::string> keys;
  for (const Workload& w : request.workloads) {
    // A kernel's symbol is its workload's (Builder::symbol_for), unique in a library.
    if (!keys.insert(w.key()).second) throw Error("a bundle lists each workload once; twice: " + w.key());
  }
  BundlePlan plan;
  plan.levels = levels_to_build(request);
  plan.targets.resize(plan.levels.size());
  for (size_t i = 0; i < plan.levels.size(); ++i) {
    plan.variants.push_back(plan_variant(db, request, *plan.levels[i], &plan.targets[i]));
  }
  return plan;
}

// Every level's runtime and kernels in one pool of forked jobs, their logs in `staging`;
// what the cache holds is only linked. Returns each level's objects: in the cache, or in
// `staging` where the cache is off.
static std::vector<std::vector<std::string>> compile_objects(const BundlePlan& plan, const BundleRequest& request,
                                                             const fs::path& staging) {
  const ObjectCache& cache = request.object_cache;
  std::vector<ForkedJob> jobs;
  std::vector<std::string> what;
  std::vector<std::vector<std::string>> objects(plan.levels.size());
  const auto add_job = [&](const std::string& object, const std::string& name,
                           std::function<void(const std::string&)> compile) {
    if (cache.on() && ObjectCache::take(object)) return;
    jobs.push_back({[object, compile] { ObjectCache::store(object, compile); },
                    (staging / (fs::path(object).stem().string() + ".log")).string()});
    what.push_back(name);
  };
  for (size_t i = 0; i < plan.levels.size(); ++i) {
    const Target& target = plan.targets[i];
    const std::string runtime_object =
        cache.on() ? cache.runtime_path(target)
                   : (staging / fmt::format("halide_runtime_{}.o", plan.levels[i]->name)).string();
    objects[i].push_back(runtime_object);
    add_job(runtime_object, "the Halide runtime for " + plan.levels[i]->name,
            [&target](const std::string& to) { compile_runtime_object(target, to); });
    for (const BundleKernelEntry& k : plan.variants[i].kernels) {
      const std::string object = cache.on() ? cache.kernel_path(target, k.workload, k.schedule, k.symbol)
                                            : (staging / (k.symbol + ".o")).string();
      objects[i].push_back(object);
      add_job(object, k.symbol, [&k, &target](const std::string& to) {
        compile_kernel_object(k.workload, target, k.schedule, k.symbol, to);
      });
    }
  }
  const auto results = run_forked_jobs(jobs, request.jobs, request.timeout_s);
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].error.empty()) {
      fs::remove_all(staging);
      throw Error(fmt::format("building the bundle failed at {}: {}", what[i], results[i].error));
    }
  }
  return objects;
}

void compile_bundle_objects(const TuningDatabase* db, const BundleRequest& request) {
  if (!request.object_cache.on()) throw Error("compiling a bundle's objects ahead needs the object cache");
  const BundlePlan plan = plan_bundle(db, request);
  const fs::path staging = fs::absolute(request.output_dir).string() + ".compiling";
  fs::remove_all(staging);
  fs::create_directories(staging);
  compile_objects(plan, request, staging);
  fs::remove_all(staging);
}

BundleManifest build_bundle(const TuningDatabase* db, const BundleRequest& request) {
  BundleManifest m;
  m.nee_version = kVersion;
  m.abi_version = kBundleAbiVersion;
  m.target = request.target;
  m.graph = request.graph;
  if (!request.model_path.empty()) {
    m.model_file = fs::path(request.model_path).filename().string();
    m.model_sha256 = sha256_file(request.model_path);
  }
  std::optional<BundleSigningKey> key;
  if (!request.signing_key.empty()) key = BundleSigningKey::load(request.signing_key);
  BundlePlan plan = plan_bundle(db, request);

  const fs::path out_dir = fs::absolute(request.output_dir);
  const fs::path staging = out_dir.string() + ".building";
  fs::remove_all(staging);
  fs::create_directories(staging);
  std::vector<std::vector<std::string>> objects = compile_objects(plan, request, staging);
  const std::vector<const IsaLevel*>& levels = plan.levels;
  m.variants = std::move(plan.variants);
  for (size_t i = 0; i < levels.size(); ++i) {
    BundleVariant& v = m.variants[i];
    const std::string table_c = (staging / fmt::format("kernel_table_{}.c", v.isa)).string();
    const std::string table_o = (staging / fmt::format("kernel_table_{}.o", v.isa)).string();
    write_kernel_table(table_c, v);
    const ProcessResult cc =
        run_process({c_compiler_for(levels[i]->arch), "-c", "-fPIC", "-O2", "-o", table_o, table_c}, 60, true);
    if (!cc.exited || cc.exit_code != 0) {
      fs::remove_all(staging);
      throw Error("compiling the bundle's kernel table failed: " + cc.output);
    }
    objects[i].push_back(table_o);
    const std::string library = (staging / v.library_file).string();
    link_shared_library(objects[i], library, levels[i]->arch);
    for (const std::string& o : objects[i]) {
      if (fs::path(o).parent_path() == staging) fs::remove(o);
    }
    v.library_sha256 = sha256_file(library);
  }
  for (const auto& entry : fs::directory_iterator(staging)) {
    if (entry.path().extension() == ".log" || entry.path().extension() == ".c") fs::remove(entry.path());
  }
  m.save(staging.string());
  if (key) {
    try {
      sign_bundle(staging.string(), *key);
    } catch (const Error&) {
      fs::remove_all(staging);
      throw;
    }
  }

  // Swap the finished bundle in; the previous one is removed only after that.
  const fs::path previous = out_dir.string() + ".previous";
  fs::remove_all(previous);
  if (fs::exists(out_dir)) fs::rename(out_dir, previous);
  fs::rename(staging, out_dir);
  fs::remove_all(previous);
  return m;
}

}  // namespace nee
