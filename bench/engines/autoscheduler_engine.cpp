#include "bench/engines/autoscheduler_engine.h"

#include "core/error.h"
#include "core/family.h"
#include "tuner/compile/autoscheduler_config.h"
#include "tuner/compile/forked_jobs.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee::bench {

// Adams2019's search over a large matmul takes minutes on a slow machine.
constexpr double kCompileTimeoutSeconds = 900;

AutoschedulerEngine::AutoschedulerEngine(std::shared_ptr<KernelWorkspace> workspace, std::string autoscheduler)
    : workspace_(std::move(workspace)), autoscheduler_(std::move(autoscheduler)) {}

std::string AutoschedulerEngine::name() const { return autoscheduler_strategy(autoscheduler_); }

void AutoschedulerEngine::prepare(const Workload& workload) {
  kernel_.reset();
  // The tuner stores conv2d baselines too, but Adams2019's search over ResNet-50's larger
  // convolutions takes minutes each (it stretched a 12-minute model tune to 16m47s here),
  // too long for a bench suite of 23 layers.
  if (family_of(workload).id != FamilyId::matmul) {
    throw Error(name() + ": the bench builds autoscheduler baselines for matmul only, not " + workload.op);
  }
  const std::string dir = workspace_->new_folder(name());
  const std::string symbol = "bench_" + name() + "_" + workload.hash();
  const std::string library = dir + "/kernel.so";
  const Target& target = workspace_->target();
  const ForkedJob job{[&] {
                        compile_autoscheduled_object(workload, target, autoscheduler_, symbol, dir + "/kernel.o");
                        compile_runtime_object(target, dir + "/runtime.o");
                        link_shared_library({dir + "/kernel.o", dir + "/runtime.o"}, library);
                      },
                      dir + "/build.log"};
  const ForkedJobResult result = run_forked_jobs({job}, 1, kCompileTimeoutSeconds).at(0);
  if (!result.error.empty()) throw Error(name() + ": building the kernel failed: " + result.error);
  kernel_ = std::make_unique<LoadedKernel>(library, symbol, workload, workspace_->threads());
}

}  // namespace nee::bench
