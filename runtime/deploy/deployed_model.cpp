#include "runtime/deploy/deployed_model.h"

#include <fmt/format.h>

#include "core/error.h"

namespace nee {

std::vector<DeclaredValue> DeployedStagedModel::declared(const std::vector<std::string>& names) const {
  std::vector<DeclaredValue> values;
  for (const std::string& name : names) {
    const TensorType& t = graph_.type_of(name);
    values.push_back({name, t.dtype, true, t.shape, std::vector<std::string>(t.shape.size())});
  }
  return values;
}

Stage DeployedStagedModel::stage(const KnownValues& known) const {
  for (const std::string& name : graph_.inputs()) {
    const TensorType& want = graph_.type_of(name);
    const auto given = known.typed.find(name);
    if (given == known.typed.end()) throw Error(fmt::format("input '{}' is missing", name));
    if (given->second.dtype != want.dtype || given->second.shape != want.shape) {
      throw Error(fmt::format("input '{}' is {}; the deploy artifact was written for {} (write one for these shapes "
                              "with nee-tune --input-shape)",
                              name, given->second.to_string(), want.to_string()));
    }
  }
  return Stage{graph_, {}};
}

}  // namespace nee
