// nee-bench --quick end to end: the reports' structure, and every ratio in them
// recomputed from the medians of the same run (not speed: the machine is shared).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/subprocess.h"

namespace {

namespace fs = std::filesystem;

TEST(NeeBenchQuick, ReportsAreCompleteAndRatiosComeFromTheSameRun) {
  const fs::path dir = fs::temp_directory_path() / ("nee_bench_quick_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // A fresh database: nee-tuned must say it fell back to the default schedule.
  const nee::ProcessResult r = nee::run_process(
      {NEE_BENCH_EXE, "--quick", "--db", (dir / "empty.db").string(), "--json", (dir / "run.json").string(),
       "--markdown", (dir / "run.md").string(), "--plots", (dir / "plots").string()},
      600, true);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.output;

  const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir / "run.json"));
  for (const char* key : {"nee", "halide", "openblas", "onednn"}) {
    EXPECT_FALSE(j.at("versions").at(key).get<std::string>().empty()) << key;
  }
  EXPECT_TRUE(j.at("machine").is_object());
  const double peak = j.at("peaks").at("fma_gflops").get<double>();
  EXPECT_GT(peak, 0);
  EXPECT_GT(j.at("peaks").at("triad_gbs").get<double>(), 0);
  EXPECT_TRUE(j.at("errors").empty());

  const auto& workloads = j.at("workloads");
  ASSERT_EQ(workloads.size(), 2u);
  EXPECT_EQ(workloads[0].at("op"), "matmul");
  EXPECT_EQ(workloads[1].at("op"), "conv2d");
  EXPECT_TRUE(j.at("peaks_machine_load").at("loaded").is_boolean());
  for (const auto& w : workloads) {
    EXPECT_GT(w.at("arithmetic_intensity").get<double>(), 0);
    EXPECT_EQ(w.at("machine_load").at("samples").get<int>(), 1 + 3);  // before the warm-up, after each round
    double tuned_ms = 0;
    for (const auto& e : w.at("engines")) {
      if (e.at("engine") == "nee-tuned") {
        tuned_ms = e.at("median_ms").get<double>();
        EXPECT_EQ(e.at("provenance").get<std::string>().rfind("default schedule - run nee-tune --op", 0), 0u);
      }
    }
    ASSERT_GT(tuned_ms, 0) << w.at("shape");
    std::vector<std::string> names;
    for (const auto& e : w.at("engines")) {
      names.push_back(e.at("engine"));
      const double median = e.at("median_ms").get<double>();
      ASSERT_EQ(e.at("samples_ms").size(), 3u);
      EXPECT_NEAR(e.at("speed_ratio_nee_tuned_over_engine").get<double>(), median / tuned_ms, 1e-9 * median / tuned_ms);
      EXPECT_NEAR(e.at("gflops_median").get<double>(), w.at("flops").get<double>() / (median * 1e6), 1e-6);
      // The share of peak counts the executed FLOPs, and is never above 1.
      const double executed = e.at("executed_gflops_median").get<double>();
      EXPECT_NEAR(executed, e.at("executed_flops").get<double>() / (median * 1e6), 1e-6);
      if (e.at("fraction_of_peak").is_null()) {
        EXPECT_GT(executed, peak);
      } else {
        EXPECT_LE(e.at("fraction_of_peak").get<double>(), 1.0);
        EXPECT_NEAR(e.at("fraction_of_peak").get<double>(), executed / peak, 1e-9);
      }
      // NEE runs the 3x3 conv as Winograd F(4x4, 3x3): 0.28 of the direct FLOPs.
      const bool winograd = w.at("op") == "conv2d" && e.at("engine").get<std::string>().rfind("nee-", 0) == 0;
      EXPECT_EQ(e.at("executed_method"), winograd ? "Winograd F(4x4,3x3)" : "direct") << e.at("engine");
      EXPECT_NEAR(e.at("executed_flops").get<double>() / w.at("flops").get<double>(), winograd ? 0.279 : 1.0, 0.001);
      if (e.at("engine") == "onednn") {
        EXPECT_NE(e.at("implementation").get<std::string>().find("(oneDNN verbose"), std::string::npos);
      }
    }
    EXPECT_NE(std::find(names.begin(), names.end(), "onednn"), names.end()) << w.at("shape");
    EXPECT_NE(std::find(names.begin(), names.end(), "nee-default"), names.end()) << w.at("shape");
  }

  std::ifstream md(dir / "run.md");
  const std::string markdown((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(markdown.find("## conv2d 1x64x56x56,64x3x3,p1"), std::string::npos);
  EXPECT_NE(markdown.find("](plots/roofline.svg)"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "plots" / "ratios.svg"));
  EXPECT_TRUE(fs::exists(dir / "plots" / "roofline.svg"));
  fs::remove_all(dir);
}

TEST(NeeBenchGpu, SaysWhyItSkippedOrMeasures) {
  const nee::ProcessResult r = nee::run_process({NEE_BENCH_EXE, "--gpu", "--quick"}, 600, true);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.output;
  // Without a device: one line saying why, and no figure.
  if (r.output.find("skipped") != std::string::npos) {
    EXPECT_NE(r.output.find("no GPU figures are reported"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("GFLOP/s"), std::string::npos) << r.output;
  } else {
    EXPECT_NE(r.output.find("cublas"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("cudnn"), std::string::npos) << r.output;
  }
}

}  // namespace
