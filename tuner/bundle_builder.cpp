#include "tuner/bundle_builder.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "core/content_hash.h"
#include "core/error.h"
#include "core/version.h"
#include "schedules/schedule_space.h"
#include "tuner/forked_jobs.h"
#include "tuner/kernel_compiler.h"
#include "tuner/usable_record.h"
#include "core/subprocess.h"

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

static void write_kernel_table(const std::string& path, const BundleManifest& m) {
  std::ofstream out(path);
  out << "#include " << c_string_literal(NEE_BUNDLE_ABI_HEADER) << "\n\n";
  for (const BundleKernelEntry& k : m.kernels) {
    out << "int " << k.symbol << "_argv(void**);\n";
    out << "const struct halide_filter_metadata_t* " << k.symbol << "_metadata(void);\n";
  }
  out << "\nstatic const nee_bundle_kernel kernels[] = {\n";
  for (const BundleKernelEntry& k : m.kernels) {
    out << "  {" << c_string_literal(k.workload.key()) << ", " << c_string_literal(k.symbol) << ", " << k.symbol
        << "_argv, " << k.symbol << "_metadata},\n";
  }
  if (m.kernels.empty()) out << "  {0, 0, 0, 0},\n";
  out << "};\n\n";
  out << "int nee_bundle_abi_version(void) { return NEE_BUNDLE_ABI_VERSION; }\n";
  out << "const char* nee_bundle_target(void) { return " << c_string_literal(m.target.halide) << "; }\n";
  out << "int nee_bundle_kernel_count(void) { return " << m.kernels.size() << "; }\n";
  out << "const nee_bundle_kernel* nee_bundle_kernels(void) { return kernels; }\n";
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
  for (size_t i = 0; i < request.workloads.size(); ++i) {
    const Workload& w = request.workloads[i];
    BundleKernelEntry e;
    e.workload = w;
    e.symbol = fmt::format("nee_k{}_{}", i, w.hash());
    const std::optional<TuningRecord> best =
        request.use_database && db ? record_to_build(*db, w, request.target) : std::nullopt;
    if (best) {
      e.source = "tuned";
      e.record_id = best->id;
      e.schedule = best->config;
      e.median_us = best->ranked_us();
    } else {
      e.source = "default";
      e.schedule = make_schedule_space(w, request.target)->default_config();
    }
    m.kernels.push_back(std::move(e));
  }

  const fs::path out_dir = fs::absolute(request.output_dir);
  const fs::path staging = out_dir.string() + ".building";
  fs::remove_all(staging);
  fs::create_directories(staging);

  std::vector<ForkedJob> jobs;
  std::vector<std::string> objects;
  const std::string runtime_object = (staging / "halide_runtime.o").string();
  jobs.push_back({[&] { compile_runtime_object(request.target, runtime_object); }, runtime_object + ".log"});
  objects.push_back(runtime_object);
  for (const BundleKernelEntry& k : m.kernels) {
    const std::string object = (staging / (k.symbol + ".o")).string();
    objects.push_back(object);
    jobs.push_back({[&k, &request, object] {
                      compile_kernel_object(k.workload, request.target, k.schedule, k.symbol, object);
                    },
                    object + ".log"});
  }
  const auto results = run_forked_jobs(jobs, request.jobs, request.timeout_s);
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].error.empty()) {
      fs::remove_all(staging);
      throw Error(fmt::format("building the bundle failed at {}: {}", i == 0 ? "the Halide runtime" : m.kernels[i - 1].symbol,
                              results[i].error));
    }
  }
  const std::string table_c = (staging / "kernel_table.c").string();
  const std::string table_o = (staging / "kernel_table.o").string();
  write_kernel_table(table_c, m);
  const ProcessResult cc = run_process({"cc", "-c", "-fPIC", "-O2", "-o", table_o, table_c}, 60, true);
  if (!cc.exited || cc.exit_code != 0) {
    fs::remove_all(staging);
    throw Error("compiling the bundle's kernel table failed: " + cc.output);
  }
  objects.push_back(table_o);
  const std::string library = (staging / m.library_file).string();
  link_shared_library(objects, library);
  for (const std::string& o : objects) fs::remove(o);
  for (const auto& entry : fs::directory_iterator(staging)) {
    if (entry.path().extension() == ".log" || entry.path().extension() == ".c") fs::remove(entry.path());
  }
  m.library_sha256 = sha256_file(library);
  m.save(staging.string());

  // Swap the finished bundle in; the previous one is removed only after that.
  const fs::path previous = out_dir.string() + ".previous";
  fs::remove_all(previous);
  if (fs::exists(out_dir)) fs::rename(out_dir, previous);
  fs::rename(staging, out_dir);
  fs::remove_all(previous);
  return m;
}

}  // namespace nee
