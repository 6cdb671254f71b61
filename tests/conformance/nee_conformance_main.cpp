// nee-conformance: runs the ONNX backend test suites (Debian's libonnx-testdata: node,
// pytorch-converted, pytorch-operator, simple) through NEE's importer and reference
// provider and reports pass, fail (with the largest error) or unsupported (with the
// reason) per test and per operator, with totals, JSON and a Markdown table. Each test
// runs in its own process (this program re-run with --case), so a crash or a hang costs
// only that test.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
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

// The operator a refusal or failure names: "unsupported operator 'X'", or the node
// "(X)" or "(X of opset N)" the importer prefixes to its message; empty when none.
static std::string blamed_operator(const std::string& detail) {
  static const std::regex unsupported("unsupported operator '([^']+)'"), node("node '[^']*' \\(([A-Za-z]+)[ )]");
  std::smatch m;
  if (std::regex_search(detail, m, unsupported) || std::regex_search(detail, m, node)) return m[1].str();
  return "";
}

// Per operator: the tests whose model uses it, by outcome, and the refusals and failures
// that name it, with the first such message.
struct OperatorRow {
  int tests = 0, passed = 0, failed = 0, unsupported = 0, blamed = 0;
  std::string first_reason;
};

static void write_markdown(const std::string& path, const std::vector<nee::CaseResult>& results,
                           const std::map<nee::CaseStatus, int>& totals) {
  std::map<std::string, OperatorRow> rows;
  for (const nee::CaseResult& r : results) {
    for (const std::string& op : r.operators) {
      OperatorRow& row = rows[op];
      ++row.tests;
      row.passed += r.status == nee::CaseStatus::pass;
      row.failed += r.status == nee::CaseStatus::fail;
      row.unsupported += r.status == nee::CaseStatus::unsupported;
    }
    if (r.status == nee::CaseStatus::pass) continue;
    const std::string op = blamed_operator(r.detail);
    OperatorRow& row = rows[op.empty() ? "(model)" : op];
    if (row.blamed++ == 0) {
      const size_t path_end = r.detail.find("model.onnx: ");  // the message after the model's path
      row.first_reason = r.detail.substr(path_end == std::string::npos ? 0 : path_end + 12, 160);
    }
  }
  std::ofstream out(path);
  out << "# nee-conformance: ONNX backend tests by operator\n\n";
  out << fmt::format("{} tests: {} passed, {} failed, {} unsupported.\n\n", results.size(),
                     totals.count(nee::CaseStatus::pass) ? totals.at(nee::CaseStatus::pass) : 0,
                     totals.count(nee::CaseStatus::fail) ? totals.at(nee::CaseStatus::fail) : 0,
                     totals.count(nee::CaseStatus::unsupported) ? totals.at(nee::CaseStatus::unsupported) : 0);
  out << "A test counts for every operator its model uses; *named by* counts the refusals and failures whose "
         "message names the operator, with the first such message.\n\n";
  out << "| operator | tests | passed | failed | unsupported | named by | first reason |\n";
  out << "|---|---:|---:|---:|---:|---:|---|\n";
  for (const auto& [op, row] : rows) {
    std::string reason = row.first_reason;
    std::replace(reason.begin(), reason.end(), '|', '/');
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    out << fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", op, row.tests, row.passed, row.failed,
                       row.unsupported, row.blamed, reason);
  }
}

// The suites of Debian's libonnx-testdata that hold model.onnx folders.
static std::vector<std::string> default_suites() {
  std::vector<std::string> suites;
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    const std::string path = std::string("/usr/include/onnx/backend/test/data/") + suite;
    if (fs::is_directory(path)) suites.push_back(path);
  }
  return suites;
}

int main(int argc, char** argv) {
  CLI::App app{"nee-conformance: ONNX backend tests through NEE's reference provider"};
  std::vector<std::string> data = default_suites();
  std::string filter, json_path, markdown_path, must_pass, write_pass, one_case;
  double rtol = 1e-3, atol = 1e-5, timeout = 60;
  bool verbose = false;
  app.add_option("--data", data, "suite folders of test folders (default: libonnx-testdata's node, "
                                  "pytorch-converted, pytorch-operator and simple)");
  app.add_option("--filter", filter, "only tests whose <suite>/<test> name matches this regex");
  app.add_option("--json", json_path, "write the per-test results and totals here");
  app.add_option("--markdown", markdown_path, "write a table of results by operator here");
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
  std::vector<std::pair<std::string, fs::path>> cases;  // <suite>/<test>, folder
  const std::regex pattern(filter.empty() ? ".*" : filter);
  for (const std::string& suite : data) {
    if (!fs::is_directory(suite)) {
      fmt::print(stderr, "nee-conformance: '{}' is not a folder (install libonnx-testdata)\n", suite);
      return 1;
    }
    fs::path folder = fs::path(suite).lexically_normal();
    if (!folder.has_filename()) folder = folder.parent_path();  // a trailing '/'
    const std::string suite_name = folder.filename().string();
    for (const auto& entry : fs::directory_iterator(suite)) {
      const std::string name = suite_name + "/" + entry.path().filename().string();
      if (entry.is_directory() && fs::exists(entry.path() / "model.onnx") && std::regex_search(name, pattern)) {
        cases.emplace_back(name, entry.path());
      }
    }
  }
  std::sort(cases.begin(), cases.end());

  std::vector<nee::CaseResult> results;
  std::map<nee::CaseStatus, int> totals;
  std::map<std::string, int> unsupported_ops;
  const std::string self = nee::executable_dir() + "/nee-conformance";
  for (const auto& [name, folder] : cases) {
    const nee::ProcessResult p = nee::run_process(
        {self, "--case", folder.string(), "--rtol", std::to_string(rtol), "--atol", std::to_string(atol)}, timeout);
    nee::CaseResult r;
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
      r.operators = j.at("operators").get<std::vector<std::string>>();
    }
    r.name = name;
    ++totals[r.status];
    if (r.status == nee::CaseStatus::unsupported) {
      const std::string op = blamed_operator(r.detail);
      ++unsupported_ops[op.empty() ? std::string("(model)") : op];
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
    fmt::print("unsupported, by the operator the refusal names: {}\n", line);
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
  if (!markdown_path.empty()) write_markdown(markdown_path, results, totals);
  if (!write_pass.empty()) {
    std::ofstream out(write_pass);
    out << "# ONNX backend tests (<suite>/<test>) that NEE's reference provider must pass "
           "(nee-conformance --must-pass).\n";
    for (const auto& r : results) {
      if (r.status == nee::CaseStatus::pass) out << r.name << "\n";
    }
  }
  if (!must_pass.empty()) {
    const std::set<std::string> listed = read_list(must_pass);
    int regressions = 0;
    std::set<std::string> seen;
    for (const auto& r : results) {
      seen.insert(r.name);
      if (listed.count(r.name) && r.status != nee::CaseStatus::pass) {
        fmt::print("REGRESSION {}: {}\n", r.name, r.detail.substr(0, 300));
        ++regressions;
      }
    }
    for (const std::string& name : listed) {
      if (!seen.count(name)) {
        fmt::print("REGRESSION {}: listed as must-pass but not among the suites run\n", name);
        ++regressions;
      }
    }
    fmt::print("must-pass: {} listed, {} regressed\n", listed.size(), regressions);
    return regressions ? 1 : 0;
  }
  return 0;
}
