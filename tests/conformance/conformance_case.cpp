#include "tests/conformance/conformance_case.h"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "core/error.h"
#include "importer/import_onnx.h"
#include "runtime/onnx_tensor.h"
#include "runtime/output_comparison.h"
#include "runtime/passes/passes.h"
#include "runtime/staged_session.h"
#include "runtime/tensor_io.h"

namespace nee {

namespace fs = std::filesystem;

std::string to_string(CaseStatus s) {
  switch (s) {
    case CaseStatus::pass: return "pass";
    case CaseStatus::fail: return "fail";
    case CaseStatus::unsupported: return "unsupported";
  }
  return "?";
}

nlohmann::json CaseResult::to_json() const {
  return {{"name", name},     {"status", to_string(status)}, {"max_abs_error", max_abs_error},
          {"detail", detail}, {"operators", operators}};
}

// Import errors that say NEE lacks something, as opposed to NEE getting it wrong.
static bool is_unsupported(const std::string& message) {
  for (const char* phrase : {"unsupported", "not supported", "NEE supports opsets", "is not a tensor",
                             "inference mode only", "training_mode", "older version than NEE reads"}) {
    if (message.find(phrase) != std::string::npos) return true;
  }
  return false;
}

static std::vector<Tensor> read_numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<Tensor> tensors;
  for (int i = 0;; ++i) {
    const fs::path p = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    tensors.push_back(read_tensor_pb(p.string()));
  }
  return tensors;
}

// What the runner reads from the model itself: its graph inputs without initializers,
// in order (test data files are numbered by this order), the ones declared bfloat16, and
// the operators its nodes use (subgraphs' included).
struct ModelFacts {
  std::vector<std::string> input_names;
  std::set<std::string> bf16_inputs;
  std::vector<std::string> operators;
};

static void collect_operators(const onnx::GraphProto& graph, std::set<std::string>& operators) {
  for (const auto& node : graph.node()) {
    operators.insert(node.op_type());
    for (const auto& a : node.attribute()) {
      if (a.type() == onnx::AttributeProto::GRAPH) collect_operators(a.g(), operators);
    }
  }
}

static ModelFacts model_facts(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  onnx::ModelProto model;
  ModelFacts facts;
  if (!model.ParseFromIstream(&in)) return facts;
  std::set<std::string> initialized, operators;
  for (const auto& init : model.graph().initializer()) initialized.insert(init.name());
  for (const auto& input : model.graph().input()) {
    if (initialized.count(input.name())) continue;
    facts.input_names.push_back(input.name());
    if (input.type().tensor_type().elem_type() == onnx::TensorProto::BFLOAT16) facts.bf16_inputs.insert(input.name());
  }
  collect_operators(model.graph(), operators);
  facts.operators.assign(operators.begin(), operators.end());
  return facts;
}

// onnx 1.12's backend tests store bfloat16 tensors as UINT16 bit patterns (numpy has no
// bfloat16): read as the bf16 the model declares.
static Tensor as_bf16(const Tensor& t) {
  if (t.dtype() != DType::u16) return t;
  Tensor bf16(TensorType{DType::bf16, t.shape()});
  if (t.bytes()) std::memcpy(bf16.data(), t.data(), t.bytes());
  return bf16;
}

// Every data set runs through one StagedSession, as nee-run runs them: shapes come
// from the data, and inputs that decide shapes (axes, pads, target shapes, which the
// node tests feed as graph inputs) are specialized on, as are values the model computes
// that decide shapes (If's condition, NonZero's data).
CaseResult run_conformance_case(const std::string& dir, double rtol, double atol) {
  CaseResult r;
  r.name = fs::path(dir).filename().string();
  const ModelFacts facts = model_facts(dir + "/model.onnx");
  r.operators = facts.operators;
  std::vector<fs::path> data_sets;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0) {
      data_sets.push_back(entry.path());
    }
  }
  std::sort(data_sets.begin(), data_sets.end());
  try {
    const std::shared_ptr<const StagedModel> model = load_staged_onnx(dir + "/model.onnx");
    StagedSession session(model, [] { return std::vector<std::unique_ptr<KernelProvider>>{}; },
                          SessionOptions{optimize_graph});
    const std::vector<std::string> output_names = model->output_names();
    for (const fs::path& data : data_sets) {
      const std::vector<Tensor> inputs = read_numbered(data, "input_");
      const std::vector<Tensor> expected = read_numbered(data, "output_");
      std::map<std::string, Tensor> feed;
      for (size_t i = 0; i < inputs.size() && i < facts.input_names.size(); ++i) {
        const std::string& name = facts.input_names[i];
        feed[name] = facts.bf16_inputs.count(name) ? as_bf16(inputs[i]) : inputs[i];
      }
      const auto outputs = session.run(feed);
      if (expected.size() != output_names.size()) throw Error("the test expects another number of outputs");
      for (size_t i = 0; i < expected.size(); ++i) {
        const Tensor& got = outputs.at(output_names[i]);
        const Comparison c =
            compare_tensors(got, got.dtype() == DType::bf16 ? as_bf16(expected[i]) : expected[i], rtol, atol);
        r.max_abs_error = std::max(r.max_abs_error, c.max_abs_error);
        if (!c.ok) {
          r.status = CaseStatus::fail;
          r.detail = fmt::format("{} output {} ({}): {}", data.filename().string(), i, output_names[i], c.problem);
          return r;
        }
      }
    }
  } catch (const std::exception& e) {
    // A few tests feed data of another shape than their model declares (onnx 1.12's
    // CastLike tests: 'like' is declared 3x4 and fed 1 value). NEE checks every input
    // against the declared shape, so it refuses such a call.
    static const std::regex contradicts("given for graph input '[^']+' (has rank|contradicts)");
    const std::string message = e.what();
    const bool refused_input = std::regex_search(message, contradicts);
    r.status = is_unsupported(message) || refused_input ? CaseStatus::unsupported : CaseStatus::fail;
    r.detail = refused_input ? "the test feeds a shape its model does not declare: " + message : message;
    return r;
  }
  r.status = CaseStatus::pass;
  return r;
}

}  // namespace nee
