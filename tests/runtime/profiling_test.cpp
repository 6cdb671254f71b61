// Profiles of a small session on the reference kernels: FLOP accounting with exact counts,
// the Chrome trace (valid JSON, one span per node and run, nested in time), the per-op
// table on runs with known times, and clear errors for a path a trace cannot be written to.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "graph_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/profiling/chrome_trace.h"
#include "runtime/profiling/flop_account.h"
#include "runtime/profiling/op_summary.h"
#include "runtime/profiling/run_profile.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

namespace fs = std::filesystem;
using test::add_node;
using test::f32;
using ::testing::HasSubstr;
using ::testing::Not;

// x[4,8] -MatMul-> [4,3] -Relu-> -Softmax-> y, kept unfused: 192 + 12 + 60 FLOPs (the
// softmax family counts 5 per element).
Graph small_graph() {
  Graph g;
  g.add_value("x", f32({4, 8}));
  g.add_input("x");
  g.add_constant("w", random_tensor(f32({8, 3}), 7));
  add_node(g, "MatMul", "project", {"x", "w"}, "h", f32({4, 3}));
  add_node(g, "Relu", "act", {"h"}, "a", f32({4, 3}));
  Attributes axis;
  axis.set("axis", int64_t{1});
  add_node(g, "Softmax", "normalize", {"a"}, "y", f32({4, 3}), axis);
  g.add_output("y");
  return g;
}

// A session on the small graph, run `runs` times with every run recorded.
RunProfile profile_small_graph(int runs) {
  Session session(small_graph(), {});
  session.prepare();
  RunProfile profile = start_profile(session);
  const std::map<std::string, Tensor> inputs = {{"x", random_tensor(f32({4, 8}), 3)}};
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    session.run(inputs);
    record_run(profile, session, start, std::chrono::steady_clock::now());
  }
  return profile;
}

std::string temp_dir() {
  std::string pattern = ::testing::TempDir() + "nee-profile-XXXXXX";
  if (!mkdtemp(pattern.data())) ADD_FAILURE() << "mkdtemp failed";
  return pattern;
}

TEST(FlopAccount, CountsEveryNodeAndListsReferenceNodesLargestFirst) {
  const FlopAccount account = account_flops(profile_small_graph(0));
  EXPECT_EQ(account.total, 264.0);
  EXPECT_EQ(account.by_provider.at("reference"), 264.0);
  EXPECT_EQ(account.share("reference"), 1.0);
  EXPECT_EQ(account.share("bundle"), 0.0);
  ASSERT_EQ(account.reference_nodes.size(), 3u);
  EXPECT_EQ(account.reference_nodes[0].node, "project");
  EXPECT_EQ(account.reference_nodes[0].op, "MatMul");
  EXPECT_EQ(account.reference_nodes[0].flops, 192.0);
  EXPECT_EQ(account.reference_nodes[1].node, "normalize");
  EXPECT_EQ(account.reference_nodes[2].node, "act");

  const std::string text = format_flop_account(account, 1);
  EXPECT_THAT(text, HasSubstr("100.0% on reference kernels"));
  EXPECT_THAT(text, HasSubstr("project"));
  EXPECT_THAT(text, Not(HasSubstr("normalize")));
  EXPECT_THAT(text, HasSubstr("2 more nodes, 0.000 MFLOP"));
}

TEST(FlopAccount, FusedGraphCountsTheFusedWorkload) {
  Session session(small_graph(), {}, SessionOptions{optimize_graph});
  session.prepare();
  const FlopAccount account = account_flops(start_profile(session));
  ASSERT_EQ(account.reference_nodes.size(), 2u);  // MatMul + Relu became one NeeMatMul
  EXPECT_EQ(account.reference_nodes[0].op, "NeeMatMul");
  EXPECT_EQ(account.total, 192.0 + 60.0);
}

TEST(ChromeTrace, OneSpanPerNodeAndRunNestedInTime) {
  const RunProfile profile = profile_small_graph(3);
  const nlohmann::json trace = nlohmann::json::parse(chrome_trace(profile).dump());
  std::vector<nlohmann::json> runs, nodes;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    (e.at("cat") == "run" ? runs : nodes).push_back(e);
  }
  ASSERT_EQ(runs.size(), 3u);
  ASSERT_EQ(nodes.size(), 9u);
  const std::vector<std::string> names = {"project", "act", "normalize"};
  const std::vector<std::string> ops = {"MatMul", "Relu", "Softmax"};
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& e = nodes[i];
    const auto& run = runs[i / 3];
    EXPECT_EQ(e.at("name"), names[i % 3]);
    EXPECT_EQ(e.at("cat"), ops[i % 3]);
    EXPECT_EQ(e.at("args").at("provider"), "reference");
    EXPECT_EQ(e.at("args").at("run"), i / 3);
    EXPECT_EQ(e.at("args").at("outputs"), nlohmann::json::array({"f32[4,3]"}));
    // Times are whole nanoseconds turned into µs, so sums may round by far less than 1e-6.
    EXPECT_GE(e.at("ts").get<double>(), run.at("ts").get<double>());
    EXPECT_LE(e.at("ts").get<double>() + e.at("dur").get<double>(),
              run.at("ts").get<double>() + run.at("dur").get<double>() + 1e-6);
    if (i % 3 > 0) {
      EXPECT_GE(e.at("ts").get<double>() + 1e-6, nodes[i - 1].at("ts").get<double>() + nodes[i - 1].at("dur").get<double>());
    }
  }
  EXPECT_EQ(nodes[0].at("args").at("inputs"), nlohmann::json::array({"f32[4,8]", "f32[8,3]"}));
  EXPECT_EQ(nodes[0].at("args").at("flops"), 192.0);
  EXPECT_EQ(nodes[0].at("args").at("kernel"), profile.nodes[0].kernel);
  EXPECT_EQ(runs[0].at("ts"), 0.0);
  EXPECT_GT(runs[1].at("ts").get<double>(), runs[0].at("ts").get<double>());
}

TEST(ChromeTrace, WrittenFileIsValidJson) {
  const std::string dir = temp_dir();
  const RunProfile profile = profile_small_graph(2);
  write_chrome_trace(profile, dir + "/trace.json");
  std::ifstream in(dir + "/trace.json");
  const nlohmann::json trace = nlohmann::json::parse(in);
  EXPECT_EQ(trace, chrome_trace(profile));
  fs::remove_all(dir);
}

std::string write_error(const std::string& path) {
  try {
    write_chrome_trace(profile_small_graph(1), path);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "the trace was written to " << path;
  return "";
}

TEST(ChromeTrace, BadPathsAreNamed) {
  const std::string dir = temp_dir();
  EXPECT_THAT(write_error(dir + "/missing/trace.json"), HasSubstr("folder '" + dir + "/missing' does not exist"));
  EXPECT_THAT(write_error(dir), HasSubstr("'" + dir + "': it is a folder"));
  EXPECT_FALSE(fs::exists(dir + "/missing"));
  fs::remove_all(dir);
}

TEST(RunProfile, RefusesASessionOfAnotherGraph) {
  RunProfile profile = profile_small_graph(0);
  profile.nodes.pop_back();
  Session session(small_graph(), {});
  session.run({{"x", random_tensor(f32({4, 8}), 5)}});
  const auto now = std::chrono::steady_clock::now();
  EXPECT_THROW(record_run(profile, session, now, now), Error);
}

// Three runs with chosen times: each op's row is the median of its per-run totals.
TEST(OpSummary, MediansOfPerRunTotalsAddUp) {
  RunProfile profile;
  profile.nodes = {{"a", "Conv", "bundle", "k1", {}, {}, 4e6},
                   {"b", "Relu", "reference", "relu", {}, {}, 1e3},
                   {"c", "Conv", "bundle", "k2", {}, {}, 2e6}};
  const std::vector<std::vector<double>> node_us = {{1000, 100, 500}, {3000, 300, 1000}, {2000, 200, 9000}};
  const std::vector<double> run_us = {1700, 4400, 11300};
  for (size_t r = 0; r < 3; ++r) profile.runs.push_back({0, run_us[r], {0, 0, 0}, node_us[r]});

  const OpSummary s = summarize_ops(profile);
  ASSERT_EQ(s.ops.size(), 2u);
  EXPECT_EQ(s.runs, 3);
  EXPECT_EQ(s.ops[0].op, "Conv");  // per-run totals 1.5, 4, 11 ms: median 4
  EXPECT_EQ(s.ops[0].count, 2);
  EXPECT_DOUBLE_EQ(s.ops[0].ms, 4.0);
  EXPECT_EQ(s.ops[0].flops, 6e6);
  EXPECT_EQ(s.ops[1].op, "Relu");  // 0.1, 0.3, 0.2 ms: median 0.2
  EXPECT_DOUBLE_EQ(s.ops[1].ms, 0.2);
  EXPECT_DOUBLE_EQ(s.node_ms, 4.2);
  EXPECT_DOUBLE_EQ(s.ops[0].share + s.ops[1].share, 1.0);
  EXPECT_DOUBLE_EQ(s.ops[0].share, 4.0 / 4.2);
  EXPECT_DOUBLE_EQ(s.run_ms, 4.4);

  const std::string table = format_op_summary(s);
  EXPECT_THAT(table, HasSubstr("median over 3 runs"));
  EXPECT_THAT(table, testing::ContainsRegex("Conv +2 +4.000 +95.2% +1.50"));  // 6 MFLOP in 4 ms
  EXPECT_THAT(table, testing::ContainsRegex("total +3 +4.200 +100.0%"));
}

TEST(OpSummary, RealRunsSumToTheNodeTimes) {
  const RunProfile profile = profile_small_graph(1);
  const OpSummary s = summarize_ops(profile);
  double node_ms = 0;
  for (double us : profile.runs[0].node_duration_us) node_ms += us * 1e-3;
  double rows = 0;
  int count = 0;
  for (const OpTime& row : s.ops) {
    rows += row.ms;
    count += row.count;
  }
  EXPECT_EQ(count, 3);
  EXPECT_NEAR(rows, node_ms, 1e-9);
  EXPECT_NEAR(s.node_ms, node_ms, 1e-9);
  EXPECT_LE(s.node_ms, s.run_ms);
}

}  // namespace
}  // namespace nee
