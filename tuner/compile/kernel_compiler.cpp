#include "tuner/compile/kernel_compiler.h"

#include <algorithm>
#include <optional>

#include <Halide.h>
#include <fmt/format.h>

#include "core/cuda_device.h"
#include "core/error.h"
#include "core/isa_level.h"
#include "core/subprocess.h"
#include "core/version.h"
#include "schedules/schedule_space.h"
#include "schedules/static_output.h"
#include "tuner/compile/autoscheduler_config.h"
#include "tuner/compile/autoscheduler_input.h"

namespace nee {

static_assert(HALIDE_VERSION_MAJOR == kHalideMajor, "core/version.h's kHalideMajor is not the Halide NEE builds with");

std::string halide_target_for(TargetKind kind, int cuda_capability) {
  // The host part from the levels the CPU confirms, never Halide's own reading of it.
  Halide::Target t(host_isa_level().halide);
  if (kind == TargetKind::opencl) t = t.with_feature(Halide::Target::OpenCL);
  if (kind == TargetKind::cuda) {
    if (cuda_capability == 0) {
      const std::optional<CudaDevice> device = cuda_device();
      cuda_capability = device ? halide_cuda_capability(device->major, device->minor) : 80;
    }
    const std::vector<int>& known = halide_cuda_capabilities();
    if (std::find(known.begin(), known.end(), cuda_capability) == known.end()) {
      throw Error(fmt::format("Halide compiles for CUDA capabilities {}, not {}", fmt::join(known, ", "),
                              cuda_capability));
    }
    t = t.with_feature(Halide::Target::CUDA)
            .with_feature(Halide::Target::feature_from_name(fmt::format("cuda_capability_{}", cuda_capability)));
  }
  return t.to_string();
}

Target host_target(TargetKind kind, int cuda_capability) {
  Target t;
  t.halide = halide_target_for(kind, cuda_capability);
  t.device = measuring_device(kind);
  return t;
}

static Halide::Target without_runtime(const Target& target) {
  if (!Halide::Target::validate_target_string(target.halide)) {
    throw Error("'" + target.halide + "' is not a Halide target string");
  }
  return Halide::Target(target.halide).with_feature(Halide::Target::NoRuntime);
}

void compile_kernel_object(const Workload& workload, const Target& target, const ScheduleConfig& config,
                           const std::string& symbol, const std::string& object_path) {
  if (const std::optional<std::string> autoscheduler = autoscheduler_of(config)) {
    compile_autoscheduled_object(workload, target, *autoscheduler, symbol, object_path);
    return;
  }
  const auto space = make_schedule_space(workload, target);
  ScheduledKernel kernel = space->schedule(config);
  kernel.pipeline.compile_to_object(object_path, kernel.arguments, symbol, without_runtime(target));
}

void compile_autoscheduled_object(const Workload& workload, const Target& target,
                                  const std::string& autoscheduler, const std::string& symbol,
                                  const std::string& object_path) {
  if (target.kind() != TargetKind::cpu) throw Error("autoscheduler baselines are CPU-only");
  static bool loaded = false;
  if (!loaded) {
    for (const char* plugin : {"libautoschedule_adams2019.so", "libautoschedule_mullapudi2016.so"}) {
      Halide::load_plugin(std::string(HALIDE_PLUGIN_DIR) + "/" + plugin);
    }
    loaded = true;
  }
  AutoschedulerInput in = autoscheduler_input(workload);
  constrain_dense_output(in.output, workload.output.shape);
  // Autoschedulers need estimates of every buffer's extent; they equal the static shapes.
  std::vector<Halide::Argument> arguments;
  for (size_t i = 0; i < in.inputs.size(); ++i) {
    const std::vector<int64_t>& shape = workload.inputs.at(i).shape;
    const int rank = static_cast<int>(shape.size());
    for (int d = 0; d < rank; ++d) in.inputs[i].dim(d).set_estimate(0, static_cast<int>(shape[rank - 1 - d]));
    arguments.push_back(in.inputs[i]);
  }
  const std::vector<Halide::Var> vars = in.output.args();
  const std::vector<int64_t>& out_shape = workload.output.shape;
  const int rank = static_cast<int>(out_shape.size());
  for (int d = 0; d < rank; ++d) in.output.set_estimate(vars[d], 0, static_cast<int>(out_shape[rank - 1 - d]));

  Halide::Pipeline pipeline(in.output);
  const Halide::Target t = without_runtime(target);
  Halide::AutoschedulerParams params{autoscheduler,
                                     {{"parallelism", std::to_string(target.device.cores > 0 ? target.device.cores : 1)}}};
  // What Halide 14's MachineParams::generic() gave Mullapudi2016 besides the parallelism.
  if (autoscheduler == "Mullapudi2016") {
    params.extra["last_level_cache_size"] = std::to_string(16 * 1024 * 1024);
    params.extra["balance"] = "40";
  }
  pipeline.apply_autoscheduler(t, params);
  pipeline.compile_to_object(object_path, arguments, symbol, t);
}

void compile_runtime_object(const Target& target, const std::string& object_path) {
  if (!Halide::Target::validate_target_string(target.halide)) {
    throw Error("'" + target.halide + "' is not a Halide target string");
  }
  Halide::compile_standalone_runtime(object_path, Halide::Target(target.halide));
}

std::string c_compiler_for(const std::string& arch) {
  if (arch == host_arch()) return "cc";
  // Debian's cross compilers, e.g. gcc-aarch64-linux-gnu for arm-64.
  const std::string cross = arch == "arm-64" ? "aarch64-linux-gnu-gcc" : "";
  if (cross.empty()) throw Error("no C compiler known for " + arch);
  const ProcessResult found = run_process({"sh", "-c", "command -v " + cross}, 10, true);
  if (!found.exited || found.exit_code != 0) {
    throw Error(fmt::format("linking kernels for {} needs the cross compiler {} (Debian: apt-get install gcc-{})", arch,
                            cross, cross.substr(0, cross.size() - 4)));
  }
  return cross;
}

void link_shared_library(const std::vector<std::string>& objects, const std::string& library_path,
                         const std::string& arch) {
  std::vector<std::string> argv = {arch == host_arch() ? "c++" : c_compiler_for(arch), "-shared", "-o", library_path};
  argv.insert(argv.end(), objects.begin(), objects.end());
  argv.insert(argv.end(), {"-lpthread", "-ldl"});
  const ProcessResult r = run_process(argv, 120, true);
  if (!r.exited || r.exit_code != 0) throw Error("linking " + library_path + " failed: " + r.output);
}

std::string halide_version() { return NEE_HALIDE_VERSION; }

}  // namespace nee
