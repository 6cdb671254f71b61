#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/kernel_provider.h"
#include "runtime/session.h"

namespace nee {

// What a stage of a model starts from: every value computed so far (the graph inputs
// first), those whose contents decide shapes as constants, the rest by type alone.
struct KnownValues {
  std::map<std::string, TensorType> typed;
  std::map<std::string, Tensor> constants;
};

// The part of a model whose shapes are static once some values are known.
struct Stage {
  // Inputs: known values it reads; outputs: the model outputs and the values later stages
  // read that it computes.
  Graph graph;
  // Values the next stage needs as constants: an output's shape depends on them (If's
  // condition, a Loop's trip count, NonZero's data, Reshape to a computed shape).
  std::set<std::string> values_needed;
};

// A graph input or output as the model declares it: each dim -1 where it is symbolic or
// unknown, with the symbolic dim's name where it has one ("" otherwise); no dims at all
// when the model declares no shape.
struct DeclaredValue {
  std::string name;
  std::optional<DType> dtype;  // none where the model does not declare it
  bool has_shape = false;
  std::vector<int64_t> dims;
  std::vector<std::string> dim_names;
};

// A model that can be imported stage by stage (the importer's side).
class StagedModel {
 public:
  virtual ~StagedModel() = default;
  virtual std::vector<std::string> input_names() const = 0;
  virtual std::vector<std::string> output_names() const = 0;
  // The same in order, with what the model declares of each.
  virtual std::vector<DeclaredValue> declared_inputs() const = 0;
  virtual std::vector<DeclaredValue> declared_outputs() const = 0;
  // The stage that computes what can be computed from `known`; throws nee::Error for a
  // model that cannot run.
  virtual Stage stage(const KnownValues& known) const = 0;
};

// Runs a model whose shapes depend on its inputs' shapes or on values it computes.
// NEE plans memory and binds kernels for static shapes, so the model runs in stages: the
// first computes everything its input shapes decide; where a shape depends on a computed
// value, the next stage is specialized on that value (If's branch is inlined, a Loop
// unrolled one more iteration, NonZero's count known). Each stage is a static Session
// (optimized, bound to a bundle's kernels where it holds the workloads, memory planned),
// kept by what it was specialized on: the input shapes and the deciding values. A call
// whose shapes and deciding values were seen before costs lookups only; the least recently
// used stage goes past `capacity`. A model of static shapes is one stage. Runs may
// overlap (Session::run): a stage is made once, under a lock, and the stages a run uses
// stay alive until it ends.
class StagedSession {
 public:
  // Makes the providers of one new Session (a bundle's, for instance).
  using ProviderMaker = std::function<std::vector<std::unique_ptr<KernelProvider>>()>;

  // Each stage's Session gets `session_options`: its optimizer (optimize_graph for the
  // stages of an imported model) and memory caps.
  StagedSession(std::shared_ptr<const StagedModel> model, ProviderMaker make_providers, SessionOptions session_options,
                size_t capacity = 16);

  using Stages = std::vector<std::shared_ptr<const Session>>;

  // Every graph input must be given. Returns the model's outputs by name; those named in
  // `into` are written into the given tensors (Session::run). `stages`, if given, gets
  // the stages this run went through, in order.
  std::map<std::string, Tensor> run(const std::map<std::string, Tensor>& inputs,
                                    const std::map<std::string, Tensor>& into = {}, Stages* stages = nullptr);

  // The stages the last run to finish went through, in order.
  Stages last_stages() const;
  // How many stages were made, and how many are kept now.
  size_t made() const;
  size_t kept() const;

 private:
  // Each typed value's type text and each constant's type text and bytes.
  using Key = std::pair<std::map<std::string, std::string>, std::map<std::string, std::string>>;
  struct Entry {
    std::shared_ptr<Session> session;
    std::set<std::string> values_needed;
    size_t last_use;
  };
  // A copy: the entry may be dropped (past `capacity`) while the run uses it.
  Entry entry_for(const KnownValues& known);

  std::shared_ptr<const StagedModel> model_;
  ProviderMaker make_providers_;
  SessionOptions session_options_;
  mutable std::mutex mutex_;  // guards what follows
  size_t capacity_, made_ = 0, uses_ = 0;
  std::map<Key, Entry> stages_;
  Stages last_stages_;
};

}  // namespace nee
