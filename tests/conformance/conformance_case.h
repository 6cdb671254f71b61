#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nee {

enum class CaseStatus { pass, fail, unsupported };
std::string to_string(CaseStatus s);

// The outcome of one ONNX backend test.
struct CaseResult {
  std::string name;  // <suite>/<test>, e.g. node/test_abs
  std::vector<std::string> operators;  // the op types of the model's nodes
  CaseStatus status = CaseStatus::fail;
  double max_abs_error = 0;
  std::string detail;  // the unsupported operator or dtype, or what failed

  nlohmann::json to_json() const;
};

// Imports <dir>/model.onnx, runs every test_data_set_* through a session with the
// reference provider and compares each output with numpy's allclose rule.
CaseResult run_conformance_case(const std::string& dir, double rtol, double atol);

}  // namespace nee
