#pragma once
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "runtime/staged_session.h"

namespace nee {

// A deploy artifact's graph as a StagedModel, so that a StagedSession (the C API's
// sessions) runs it like a model: one stage, its graph already optimized (give the
// StagedSession SessionOptions whose `optimize` is off), its inputs declared with the
// static shapes the artifact was written for. A run of other shapes is refused, naming
// the input and both shapes.
class DeployedStagedModel : public StagedModel {
 public:
  explicit DeployedStagedModel(Graph graph) : graph_(std::move(graph)) {}
  std::vector<std::string> input_names() const override { return graph_.inputs(); }
  std::vector<std::string> output_names() const override { return graph_.outputs(); }
  std::vector<DeclaredValue> declared_inputs() const override { return declared(graph_.inputs()); }
  std::vector<DeclaredValue> declared_outputs() const override { return declared(graph_.outputs()); }
  Stage stage(const KnownValues& known) const override;

 private:
  std::vector<DeclaredValue> declared(const std::vector<std::string>& names) const;
  Graph graph_;
};

}  // namespace nee
