// The machine's load is sampled around every measurement, and a loaded machine is
// reported beside the figures it touched, never beside the others.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "bench/comparison.h"
#include "bench/engines/openblas_engine.h"
#include "bench/kernel_markdown.h"
#include "bench/machine_load.h"
#include "bench/models/model_bench.h"
#include "bench/models/model_report.h"
#include "bench/report.h"
#include "core/error.h"
#include "core/matmul_workload.h"

namespace nee::bench {
namespace {
using ::testing::HasSubstr;
using ::testing::Not;

// A 2-CPU machine played back to a LoadWatch: the load average `loads` (one per call,
// the last repeated); between calls 1000 ticks pass, of which `steal_per_call` are
// stolen, `busy_per_call` busy and `own_per_call` this process's. Counts its calls.
struct ScriptedSampler {
  std::vector<double> loads;
  uint64_t steal_per_call = 0, busy_per_call = 0, own_per_call = 0;
  int calls = 0;
  LoadSampler sampler() {
    return [this] {
      const uint64_t n = static_cast<uint64_t>(calls);
      LoadSample s;
      s.load1 = loads[std::min<size_t>(static_cast<size_t>(calls), loads.size() - 1)];
      s.total_ticks = 1000 * n;
      s.steal_ticks = steal_per_call * n;
      s.busy_ticks = busy_per_call * n;
      s.own_ticks = static_cast<double>(own_per_call * n);
      s.cpus = 2;
      ++calls;
      return s;
    };
  }
};

TEST(MachineLoad, ParsesTheProcFiles) {
  EXPECT_DOUBLE_EQ(parse_loadavg("3.15 2.95 2.16 4/119 2203\n"), 3.15);
  const LoadSample s = parse_proc_stat(
      "cpu  250465 5931 34063 81720 1062 0 288 277 0 0\ncpu0 123088 3251 15876 44229 251 0 11 132 0 0\n"
      "cpu1 127376 2680 18186 37491 811 0 277 145 0 0\nintr 1 2 3\n");
  EXPECT_EQ(s.total_ticks, 250465u + 5931 + 34063 + 81720 + 1062 + 0 + 288 + 277);
  EXPECT_EQ(s.busy_ticks, 250465u + 5931 + 34063 + 0 + 288);
  EXPECT_EQ(s.steal_ticks, 277u);
  EXPECT_EQ(s.cpus, 2);
  try {
    parse_proc_stat("intr 1 2 3\n");
    FAIL() << "a /proc/stat without its cpu line was read";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/proc/stat"));
    EXPECT_THAT(e.what(), HasSubstr("intr 1 2 3"));
  }
  EXPECT_THROW(parse_loadavg("busy"), Error);
  // This machine's own files read, and this process's CPU time with them.
  const LoadSample here = read_machine_load();
  EXPECT_GT(here.total_ticks, here.busy_ticks);
  EXPECT_GT(here.own_ticks, 0);
}

TEST(MachineLoad, WarnsAboveTheThreadsOrOnStolenTimeOnly) {
  ScriptedSampler quiet{{1.0, 1.9}, 10};
  LoadWatch q(quiet.sampler(), 2);
  q.sample();
  EXPECT_FALSE(q.reading().loaded());
  EXPECT_EQ(q.reading().warning(), "");
  EXPECT_DOUBLE_EQ(q.reading().steal_fraction(), 0.01);

  ScriptedSampler busy{{0.5, 3.5, 1.0}, 0};
  LoadWatch b(busy.sampler(), 2);
  b.sample();
  b.sample();
  EXPECT_EQ(b.reading().samples, 3);
  EXPECT_DOUBLE_EQ(b.reading().max_load1, 3.5);  // the highest sample, not the last
  EXPECT_THAT(b.reading().warning(), HasSubstr("load average up to 3.50, above the 2 threads measuring"));

  ScriptedSampler stolen{{0.2}, 100};
  LoadWatch s(stolen.sampler(), 2);
  s.sample();
  EXPECT_THAT(s.reading().warning(), HasSubstr("10.0% of CPU time stolen"));
  EXPECT_THAT(s.reading().warning(), Not(HasSubstr("load average")));

  // Half a second of ticks or less is too coarse to judge a share by: 5 of 50 is not 10%.
  LoadReading brief;
  brief.samples = 2;
  brief.threads = 2;
  brief.cpus = 2;
  brief.total_ticks = 50;
  brief.steal_ticks = 5;
  EXPECT_FALSE(brief.loaded());
  LoadReading longer = brief;
  longer.total_ticks = 500;
  longer.steal_ticks = 50;
  EXPECT_TRUE(longer.loaded());
}

TEST(MachineLoad, OtherProcessesCpuTimeWarnsWhereTheLaggingLoadAverageDoesNot) {
  // Others kept 1.6 CPUs busy (800 of every 1000 ticks are neither idle nor this
  // process's) while the load average still read 1.0.
  ScriptedSampler shared{{1.0}, 0, 900, 100};
  LoadWatch busy(shared.sampler(), 2);
  busy.sample();
  EXPECT_DOUBLE_EQ(busy.reading().others_cores(), 1.6);
  EXPECT_THAT(busy.reading().warning(),
              HasSubstr("(other processes kept 1.60 of the 2 CPUs busy beside 2 threads measuring)"));
  // With one thread measuring, others may use the other CPU: 1.1 is quiet, 1.3 is not.
  ScriptedSampler spare{{0.5}, 0, 650, 100};
  LoadWatch one(spare.sampler(), 1);
  one.sample();
  EXPECT_DOUBLE_EQ(one.reading().others_cores(), 1.1);
  EXPECT_FALSE(one.reading().loaded());
  ScriptedSampler crowded{{0.5}, 0, 750, 100};
  LoadWatch one_crowded(crowded.sampler(), 1);
  one_crowded.sample();
  EXPECT_TRUE(one_crowded.reading().loaded());
  // The bench's own work is not others'.
  ScriptedSampler alone{{1.9}, 0, 990, 960};
  LoadWatch own(alone.sampler(), 2);
  own.sample();
  EXPECT_FALSE(own.reading().loaded());
}

CompareOptions fast_options() {
  CompareOptions o;
  o.repeats = 3;
  o.min_sample_ms = 0.1;
  o.warmup_ms = 0.1;
  o.settle_ms = 0;
  o.threads = 1;
  return o;
}

TEST(MachineLoad, KernelTableWarnsWhenTheSampledLoadIsHighAndNotWhenLow) {
  const Workload w = matmul_workload_from_shape("33x17x45");
  OpenBlasEngine a(1), b(1);
  ScriptedSampler low{{0.4, 0.9}, 0};
  const WorkloadComparison quiet = compare_engines("33x17x45", w, {&a, &b}, fast_options(), low.sampler());
  EXPECT_EQ(low.calls, 1 + 3);  // before the warm-up, after each round
  EXPECT_THAT(format_table(quiet, std::nullopt), Not(HasSubstr("machine loaded")));

  ScriptedSampler high{{0.4, 2.5}, 0};
  const WorkloadComparison loaded = compare_engines("33x17x45", w, {&a, &b}, fast_options(), high.sampler());
  EXPECT_THAT(format_table(loaded, std::nullopt),
              HasSubstr("WARNING: machine loaded while measuring (load average up to 2.50, above the 1 thread "
                        "measuring)"));
  RunInfo info;
  const nlohmann::json j = to_json(info, {quiet, loaded}, {}, {});
  EXPECT_FALSE(j["workloads"][0]["machine_load"]["loaded"].get<bool>());
  EXPECT_TRUE(j["workloads"][1]["machine_load"]["loaded"].get<bool>());
  EXPECT_DOUBLE_EQ(j["workloads"][1]["machine_load"]["max_load_average_1min"].get<double>(), 2.5);
  const std::string md = format_kernel_markdown(info, {quiet, loaded}, {}, {}, "");
  EXPECT_EQ(md.find("**Warning:** machine loaded"), md.rfind("**Warning:** machine loaded"));  // one workload only
  EXPECT_GT(md.find("**Warning:** machine loaded"), md.find("## matmul 33x17x45", md.find("## matmul") + 1));
}

TEST(MachineLoad, ModelTableWarnsBesideTheEngineMeasuredUnderLoad) {
  RunSettings settings;
  settings.threads = 2;
  settings.rounds = 1;
  // nee is measured between samples 0 and 1, onnxruntime between 2 and 3.
  ScriptedSampler sampler{{0.5, 0.7, 1.0, 4.0}, 0};
  std::vector<EngineRun> runs = run_in_rounds(
      {"nee", "onnxruntime"}, settings,
      [](const std::string& engine, const RunSettings&) {
        EngineRun r;
        r.engine = engine;
        r.latencies_ms = {2, 2};
        r.latency = summarize_latencies(r.latencies_ms);
        return r;
      },
      sampler.sampler());
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_FALSE(runs[0].load.loaded());
  EXPECT_TRUE(runs[1].load.loaded());

  ModelResult m;
  m.model = "fake";
  m.engines = runs;
  m.throughput.not_measured = "--no-batch8";
  const std::string table = format_model_table(m);
  const size_t warning = table.find("WARNING: machine loaded");
  ASSERT_NE(warning, std::string::npos) << table;
  EXPECT_GT(warning, table.find("  onnxruntime "));  // under its row, after nee's
  EXPECT_EQ(warning, table.rfind("WARNING"));
  const nlohmann::json j = models_to_json({m}, nlohmann::json::object());
  EXPECT_FALSE(j["models"][0]["engines"][0]["machine_load"]["loaded"].get<bool>());
  EXPECT_TRUE(j["models"][0]["engines"][1]["machine_load"]["loaded"].get<bool>());
  EXPECT_THAT(format_markdown({m}, nlohmann::json::object()),
              HasSubstr("| fake | onnxruntime | 2.000 | 2.000 | 2.000 | 0.0 | 0.0 | 0.0 | 1.00 | **Warning:** "
                        "machine loaded while measuring (load average up to 4.00"));
}

}  // namespace
}  // namespace nee::bench
