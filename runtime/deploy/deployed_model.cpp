#include "runtime/deploy/deployed_model.h"

#include <fmt/format.h>

#include <map>

#include "core/error.h"
#include "runtime/deploy/deploy_artifact.h"

namespace nee {

DeployedStagedModel::DeployedStagedModel(std::vector<Graph> graphs) : graphs_(std::move(graphs)) {
  if (graphs_.empty()) throw Error("a deploy artifact without graphs");
}

std::vector<DeclaredValue> DeployedStagedModel::declared(const std::vector<std::string>& names) const {
  std::vector<DeclaredValue> values;
  for (const std::string& name : names) {
    const TensorType& t = graphs_[0].type_of(name);
    std::vector<int64_t> dims = t.shape;
    for (const Graph& g : graphs_) {
      const std::vector<int64_t>& other = g.type_of(name).shape;
      for (size_t d = 0; d < dims.size() && d < other.size(); ++d) {
        if (other[d] != dims[d]) dims[d] = -1;
      }
    }
    values.push_back({name, t.dtype, true, dims, std::vector<std::string>(dims.size())});
  }
  return values;
}

Stage DeployedStagedModel::stage(const KnownValues& known) const {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const std::string& name : graphs_[0].inputs()) {
    const auto given = known.typed.find(name);
    if (given == known.typed.end()) throw Error(fmt::format("input '{}' is missing", name));
    const TensorType& want = graphs_[0].type_of(name);
    if (given->second.dtype != want.dtype) {
      throw Error(fmt::format("input '{}' is {}; the deploy artifact takes {}", name, given->second.to_string(),
                              to_string(want.dtype)));
    }
    shapes[name] = given->second.shape;
  }
  return Stage{graphs_[deployed_graph_for(graphs_, shapes)], {}};
}

}  // namespace nee
