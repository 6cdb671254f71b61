#include "bench/engines/engine_factory.h"

#include "bench/engines/autoscheduler_engine.h"
#include "bench/engines/kernel_workspace.h"
#include "bench/engines/nee_engine.h"
#include "bench/engines/onednn_engine.h"
#include "bench/engines/openblas_engine.h"
#include "core/error.h"
#include "core/family.h"

namespace nee::bench {

std::vector<std::string> engine_names() {
  return {"nee-tuned", "nee-default", "adams2019", "openblas", "onednn", "mullapudi2016"};
}

std::vector<std::string> default_engine_names(const std::string& op) {
  if (family_named(op).id == FamilyId::conv2d) return {"nee-tuned", "nee-default", "onednn"};
  return {"nee-tuned", "nee-default", "adams2019", "openblas", "onednn"};
}

std::vector<std::unique_ptr<Engine>> make_engines(const std::vector<std::string>& names, int threads,
                                                  const TuningDatabase* db) {
  auto workspace = std::make_shared<KernelWorkspace>(threads);
  std::vector<std::unique_ptr<Engine>> engines;
  for (const std::string& name : names) {
    if (name == "nee-tuned") {
      engines.push_back(std::make_unique<NeeEngine>(workspace, NeeSchedule::tuned, db));
    } else if (name == "nee-default") {
      engines.push_back(std::make_unique<NeeEngine>(workspace, NeeSchedule::default_schedule, nullptr));
    } else if (name == "adams2019") {
      engines.push_back(std::make_unique<AutoschedulerEngine>(workspace, "Adams2019"));
    } else if (name == "mullapudi2016") {
      engines.push_back(std::make_unique<AutoschedulerEngine>(workspace, "Mullapudi2016"));
    } else if (name == "onednn") {
      engines.push_back(std::make_unique<OneDnnEngine>(threads));
    } else if (name == "openblas") {
      engines.push_back(std::make_unique<OpenBlasEngine>(threads));
    } else {
      std::string known;
      for (const std::string& n : engine_names()) known += (known.empty() ? "" : ", ") + n;
      throw Error("unknown engine '" + name + "' (known: " + known + ")");
    }
  }
  return engines;
}

}  // namespace nee::bench
