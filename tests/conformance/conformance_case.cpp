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
#include "runtime/session.h"
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

// Import errors that say NEE lacks something, as opposed to NEE getting it wrong. "NEE
// needs static shapes": a shape decided by a graph input, which NEE does not plan yet.
static bool is_unsupported(const std::string& message) {
  for (const char* phrase : {"unsupported", "not supported", "NEE supports opsets", "is not a tensor",
                             "inference mode only", "training_mode", "older version than NEE reads",
                             "NEE needs static shapes"}) {
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
// in order (test data files are numbered by this order), and the operators its nodes use.
struct ModelFacts {
  std::vector<std::string> input_names;
  std::vector<std::string> operators;
};

static ModelFacts model_facts(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  onnx::ModelProto model;
  ModelFacts facts;
  if (!model.ParseFromIstream(&in)) return facts;
  std::set<std::string> initialized, operators;
  for (const auto& init : model.graph().initializer()) initialized.insert(init.name());
  for (const auto& input : model.graph().input()) {
    if (!initialized.count(input.name())) facts.input_names.push_back(input.name());
  }
  for (const auto& node : model.graph().node()) operators.insert(node.op_type());
  facts.operators.assign(operators.begin(), operators.end());
  return facts;
}

// NEE compiles for static shapes, so inputs that decide shapes (axes, pads, scales,
// target shapes) must be known at import. The node tests feed them as graph inputs;
// each one the importer names as "not a constant" is bound to the first data set's
// value and the import retried, which is what a user does with NEE for such a model.
static Graph import_specialized(const std::string& dir, const std::vector<std::string>& input_names,
                                ConstantInputs& constants) {
  static const std::regex not_constant("'([^']+)'\\)? is not a constant");
  for (;;) {
    try {
      return import_onnx(dir + "/model.onnx", {}, constants);
    } catch (const Error& e) {
      std::smatch m;
      const std::string message = e.what();
      if (!std::regex_search(message, m, not_constant)) throw;
      const auto at = std::find(input_names.begin(), input_names.end(), m[1].str());
      if (at == input_names.end() || constants.count(*at)) throw;
      const std::string file = dir + "/test_data_set_0/input_" + std::to_string(at - input_names.begin()) + ".pb";
      constants[*at] = read_tensor_pb(file);
    }
  }
}

// onnx 1.12's backend tests store bfloat16 tensors as UINT16 bit patterns (numpy has no
// bfloat16): read as the bf16 the model declares.
static Tensor as_bf16_if_declared(const Tensor& t, DType declared) {
  if (t.dtype() != DType::u16 || declared != DType::bf16) return t;
  Tensor bf16(TensorType{DType::bf16, t.shape()});
  if (t.bytes()) std::memcpy(bf16.data(), t.data(), t.bytes());
  return bf16;
}

CaseResult run_conformance_case(const std::string& dir, double rtol, double atol) {
  CaseResult r;
  r.name = fs::path(dir).filename().string();
  std::unique_ptr<Session> session;
  const ModelFacts facts = model_facts(dir + "/model.onnx");
  const std::vector<std::string>& input_names = facts.input_names;
  r.operators = facts.operators;
  ConstantInputs constants;
  try {
    Graph graph = import_specialized(dir, input_names, constants);
    session = std::make_unique<Session>(std::move(graph), std::vector<std::unique_ptr<KernelProvider>>{});
    session->prepare();
  } catch (const std::exception& e) {
    r.status = is_unsupported(e.what()) ? CaseStatus::unsupported : CaseStatus::fail;
    r.detail = e.what();
    return r;
  }
  std::vector<fs::path> data_sets;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0) {
      data_sets.push_back(entry.path());
    }
  }
  std::sort(data_sets.begin(), data_sets.end());
  try {
    const Graph& g = session->graph();
    for (const fs::path& data : data_sets) {
      const std::vector<Tensor> inputs = read_numbered(data, "input_");
      const std::vector<Tensor> expected = read_numbered(data, "output_");
      // Inputs that the model feeds from initializers are not graph inputs here.
      // Inputs are matched by position among the model's inputs; specialized ones are
      // constants now and are skipped.
      std::map<std::string, Tensor> feed;
      for (size_t i = 0; i < inputs.size() && i < input_names.size(); ++i) {
        if (!constants.count(input_names[i])) {
          feed[input_names[i]] = as_bf16_if_declared(inputs[i], g.type_of(input_names[i]).dtype);
        }
      }
      const auto outputs = session->run(feed);
      if (expected.size() != g.outputs().size()) throw Error("the test expects another number of outputs");
      for (size_t i = 0; i < expected.size(); ++i) {
        const Tensor& got = outputs.at(g.outputs()[i]);
        const Comparison c = compare_tensors(got, as_bf16_if_declared(expected[i], got.dtype()), rtol, atol);
        r.max_abs_error = std::max(r.max_abs_error, c.max_abs_error);
        if (!c.ok) {
          r.status = CaseStatus::fail;
          r.detail = fmt::format("{} output {} ({}): {}", data.filename().string(), i, g.outputs()[i], c.problem);
          return r;
        }
      }
    }
  } catch (const std::exception& e) {
    // A few tests feed data of another shape than their model declares (onnx 1.12's
    // CastLike tests: 'like' is declared 3x4 and fed 1 value). NEE's sessions check every
    // input against the declared shape, so they refuse such a call.
    static const std::regex contradicts("input '[^']+' has shape .*, expected ");
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
