// nee-conformance: runs the ONNX backend node tests (Debian's libonnx-testdata) through
// NEE's importer and reference provider and reports pass, fail (with the largest
// error) or unsupported (naming the operator) per test, with totals and a JSON summary.
// Each test runs in its own process (this program re-run with --case), so a crash or a
// hang costs only that test.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>

#include "core/subprocess.h"
#include "tests/conformance/conformance_case.h"

namespace fs = std::filesystem;

static std::set<std::string> read_list(const std::string& path) {
  std::set<std::string> names;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read list '" + path + "'");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') names.insert(line);
  }
  return names;
}

int main(int argc, char** argv) {
  CLI::App app{"nee-conformance: ONNX backend node tests through NEE's reference provider"};
  std::string data = "/usr/include/onnx/backend/test/data/node", filter, json_path, must_pass, write_pass, one_case;
  double rtol = 1e-3, atol = 1e-5, timeout = 60;
  bool verbose = false;
  app.add_option("--data", data, "folder of node tests");
  app.add_option("--filter", filter, "only tests whose name matches this regex");
  app.add_option("--json", json_path, "write the per-test results and totals here");
  app.add_option("--must-pass", must_pass, "file listing tests that must pass: exit 1 if one does not");
  app.add_option("--write-pass-list", write_pass, "write the names of passing tests here");
  app.add_option("--rtol", rtol, "relative tolerance (the ONNX backend tests use 1e-3)");
  app.add_option("--atol", atol, "absolute tolerance");
  app.add_option("--timeout", timeout, "seconds per test");
  app.add_flag("-v,--verbose", verbose, "print every test, not only failures");
  app.add_option("--case", one_case, "run one test folder and print its JSON result (used internally)");
  CLI11_PARSE(app, argc, argv);

  if (!one_case.empty()) {
    std::cout << nee::run_conformance_case(one_case, rtol, atol).to_json().dump() << std::endl;
    return 0;
  }
  if (!fs::is_directory(data)) {
    fmt::print(stderr, "nee-conformance: '{}' is not a folder (install libonnx-testdata)\n", data);
    return 1;
  }
  std::vector<fs::path> cases;
  const std::regex pattern(filter.empty() ? ".*" : filter);
  for (const auto& entry : fs::directory_iterator(data)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && fs::exists(entry.path() / "model.onnx") && std::regex_search(name, pattern)) {
      cases.push_back(entry.path());
    }
  }
  std::sort(cases.begin(), cases.end());

  std::vector<nee::CaseResult> results;
  std::map<nee::CaseStatus, int> totals;
  std::map<std::string, int> unsupported_ops;
  const std::string self = nee::executable_dir() + "/nee-conformance";
  for (const fs::path& c : cases) {
    const nee::ProcessResult p = nee::run_process(
        {self, "--case", c.string(), "--rtol", std::to_string(rtol), "--atol", std::to_string(atol)}, timeout);
    nee::CaseResult r;
    r.name = c.filename().string();
    const size_t brace = p.output.rfind("{\"");
    if (p.timed_out) {
      r.detail = "timed out";
    } else if (!p.exited) {
      r.detail = "crashed (signal " + std::to_string(p.signal) + ")";
    } else if (brace == std::string::npos) {
      r.detail = "no result";
    } else {
      const auto j = nlohmann::json::parse(p.output.substr(brace));
      const std::string status = j.at("status");
      r.status = status == "pass" ? nee::CaseStatus::pass
                 : status == "unsupported" ? nee::CaseStatus::unsupported : nee::CaseStatus::fail;
      r.max_abs_error = j.at("max_abs_error");
      r.detail = j.at("detail");
    }
    ++totals[r.status];
    if (r.status == nee::CaseStatus::unsupported) {
      static const std::regex op_pattern("unsupported operator '([^']+)'");
      std::smatch m;
      ++unsupported_ops[std::regex_search(r.detail, m, op_pattern) ? m[1].str() : std::string("(dtype or attribute)")];
    }
    if (verbose || r.status == nee::CaseStatus::fail) {
      fmt::print("{:<12} {:<60} {}\n", nee::to_string(r.status), r.name,
                 r.status == nee::CaseStatus::pass ? fmt::format("max abs error {:.2g}", r.max_abs_error) : r.detail.substr(0, 200));
    }
    results.push_back(r);
  }
  const int total = static_cast<int>(results.size());
  fmt::print("\n{} tests: {} passed, {} failed, {} unsupported; pass rate {:.1f}%\n", total,
             totals[nee::CaseStatus::pass], totals[nee::CaseStatus::fail], totals[nee::CaseStatus::unsupported],
             total ? 100.0 * totals[nee::CaseStatus::pass] / total : 0.0);
  if (!unsupported_ops.empty()) {
    std::vector<std::pair<int, std::string>> by_count;
    for (const auto& [op, n] : unsupported_ops) by_count.emplace_back(-n, op);
    std::sort(by_count.begin(), by_count.end());
    std::string line;
    for (size_t i = 0; i < std::min<size_t>(by_count.size(), 25); ++i) {
      line += fmt::format("{}{} ({})", i ? ", " : "", by_count[i].second, -by_count[i].first);
    }
    fmt::print("most common unsupported: {}\n", line);
  }

  if (!json_path.empty()) {
    nlohmann::json j = {{"total", total},
                        {"passed", totals[nee::CaseStatus::pass]},
                        {"failed", totals[nee::CaseStatus::fail]},
                        {"unsupported", totals[nee::CaseStatus::unsupported]},
                        {"tests", nlohmann::json::array()}};
    for (const auto& r : results) j["tests"].push_back(r.to_json());
    std::ofstream(json_path) << j.dump(1) << "\n";
  }
  if (!write_pass.empty()) {
    std::ofstream out(write_pass);
    out << "# ONNX backend node tests that NEE's reference provider must pass (nee-conformance --must-pass).\n";
    for (const auto& r : results) {
      if (r.status == nee::CaseStatus::pass) out << r.name << "\n";
    }
  }
  if (!must_pass.empty()) {
    int regressions = 0;
    std::set<std::string> seen;
    for (const auto& r : results) {
      seen.insert(r.name);
      if (read_list(must_pass).count(r.name) && r.status != nee::CaseStatus::pass) {
        fmt::print("REGRESSION {}: {}\n", r.name, r.detail.substr(0, 300));
        ++regressions;
      }
    }
    for (const std::string& name : read_list(must_pass)) {
      if (!seen.count(name)) {
        fmt::print("REGRESSION {}: listed as must-pass but not found under {}\n", name, data);
        ++regressions;
      }
    }
    fmt::print("must-pass: {} listed, {} regressed\n", read_list(must_pass).size(), regressions);
    return regressions ? 1 : 0;
  }
  return 0;
}
