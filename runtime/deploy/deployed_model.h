#pragma once
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "runtime/staged_session.h"

namespace nee {

// A deploy artifact's graphs as a StagedModel, so that a StagedSession (the C API's
// sessions) runs it like a model: one stage, its graph the one written for the inputs'
// shapes, already optimized (give the StagedSession SessionOptions without an
// optimizer). Inputs are declared with the dims all its graphs share, -1 where they differ
// (a batch dim written for 1 and 8). A run of shapes no graph was written for is
// refused, naming the shapes and the sets it holds.
class DeployedStagedModel : public StagedModel {
 public:
  explicit DeployedStagedModel(std::vector<Graph> graphs);
  std::vector<std::string> input_names() const override { return graphs_[0].inputs(); }
  std::vector<std::string> output_names() const override { return graphs_[0].outputs(); }
  std::vector<DeclaredValue> declared_inputs() const override { return declared(graphs_[0].inputs()); }
  std::vector<DeclaredValue> declared_outputs() const override { return declared(graphs_[0].outputs()); }
  Stage stage(const KnownValues& known) const override;

 private:
  std::vector<DeclaredValue> declared(const std::vector<std::string>& names) const;
  std::vector<Graph> graphs_;
};

}  // namespace nee
