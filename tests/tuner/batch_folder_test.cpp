// Measuring where the tuner cannot run: candidates packed into a batch folder, the
// folder copied elsewhere and measured by its own nee-measure (each candidate in a child,
// so a crashing one costs only itself), the results imported into a database under the
// measuring machine's fingerprint, twice without duplicates. A cut results file resumes
// without measuring again; corrupt or missing folders are refused and the database is
// left as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/cuda_device.h"
#include "core/error.h"
#include "core/matmul_workload.h"
#include "core/subprocess.h"
#include "schedules/schedule_space.h"
#include "temp_dir.h"
#include "tuner/cli/db_command.h"
#include "tuner/cli/pack_command.h"
#include "tuner/compile/builder.h"
#include "tuner/compile/kernel_compiler.h"
#include "tuner/measure/measurement.h"
#include "tuner/measure/reference_file.h"
#include "tuner/runners/batch_folder.h"
#include "tuner/search/search_strategy.h"

namespace nee {
namespace {

namespace fs = std::filesystem;
using tuner_test::TempDir;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int line_count(const std::string& path) {
  const std::string text = read_text(path);
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

ProcessResult run_batch_program(const std::string& folder) {
  return run_process({folder + "/bin/nee-measure", "--batch", folder}, 300, true);
}

int import_results(const std::string& db_path, const std::string& folder) {
  DbCommand command;
  command.action = "import-results";
  command.argument = folder;
  command.db_path = db_path;
  return run_db_command(command, "");
}

// A library whose loading kills the process: what a kernel that segfaults does to its
// measuring process.
BuildResult crashing_library(const TempDir& dir) {
  const std::string source = dir.file("crash.c");
  {
    std::ofstream out(source);
    out << "#include <signal.h>\n__attribute__((constructor)) static void crash(void) { raise(SIGSEGV); }\n";
  }
  BuildResult b;
  b.artifact = dir.file("crash.so");
  b.symbol = "nee_crash";
  const ProcessResult r = run_process({"cc", "-shared", "-fPIC", "-o", b.artifact, source}, 120, true);
  if (!r.exited || r.exit_code != 0) throw Error("compiling the crashing library failed: " + r.output);
  return b;
}

class BatchFolder : public ::testing::Test {
 protected:
  BatchFolder() : dir_("batch") {}

  // Two real candidates (default point first), one that crashes, one that did not build.
  std::string pack() {
    const Workload w = matmul_workload_from_shape("16x8x24");
    const auto space = make_schedule_space(w, TargetKind::cpu);
    auto strategy = make_search_strategy("random", *space, 3);
    std::vector<Candidate> candidates = {{w, target_, space->default_config(), "default", 0, {}}};
    strategy->observe(space->default_config(), MeasureResult{});
    candidates.push_back({w, target_, strategy->propose(1).at(0), "random", 1, {}});
    Builder builder(dir_.file("build"), 2, 120);
    const std::vector<BuildResult> builds = builder.build(candidates);
    std::vector<MeasureTask> tasks;
    for (size_t i = 0; i < builds.size(); ++i) {
      EXPECT_TRUE(builds[i].ok()) << builds[i].error;
      tasks.push_back({builds[i], candidates[i], 10});  // as pack gives a workload's candidates
    }
    Candidate crash = candidates[1];
    strategy->observe(candidates[1].config, MeasureResult{});
    crash.config = strategy->propose(1).at(0);  // a point of its own, in the space: imports screen it
    crash.trial = 2;
    tasks.push_back({crashing_library(dir_), crash, 12});
    BuildResult failed;
    failed.error = "Halide said no";
    tasks.push_back({failed, candidates[0], 13});

    RunnerOptions options;
    options.repeats = 3;
    options.min_sample_ms = 1;
    options.timeout_seconds = 60;
    const std::string folder = dir_.file("packed");
    BatchManifest m = pack_batch_folder(folder, tasks, target_.halide, options, {}, NEE_MEASURE_PATH);
    EXPECT_EQ(m.tasks.size(), 3u) << "the failed build is left out";
    // Re-measure the default and the fastest other candidate in 2 rounds at the end.
    m.confirmation = {1, 2};
    m.write(folder);
    return folder;
  }

  TempDir dir_;
  Target target_ = host_target(TargetKind::cpu);
};

TEST_F(BatchFolder, CopiedFolderMeasuresAndImportsOnce) {
  const std::string packed = pack();
  // Measured from a copy at another path, with the original gone: nothing points back.
  const std::string moved = dir_.file("elsewhere/batch");
  fs::create_directories(fs::path(moved).parent_path());
  fs::copy(packed, moved, fs::copy_options::recursive);
  fs::remove_all(packed);
  ProcessResult run = run_batch_program(moved);
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.output;
  EXPECT_NE(run.output.find("3 measured"), std::string::npos) << run.output;
  EXPECT_EQ(line_count(batch_results_path(moved)), 3);

  const std::vector<BatchRecord> batch = batch_records(moved);
  ASSERT_EQ(batch.size(), 3u);
  std::vector<TuningRecord> records;
  for (const BatchRecord& b : batch) records.push_back(b.record);
  const std::string here = measuring_device(TargetKind::cpu).hash();
  for (const TuningRecord& r : records) {
    EXPECT_EQ(r.target.halide, target_.halide);
    EXPECT_EQ(r.target.device.hash(), here);
  }
  EXPECT_EQ(records[0].strategy, "default");
  EXPECT_EQ(records[0].result.status, MeasureStatus::ok) << records[0].result.error;
  EXPECT_EQ(records[1].result.status, MeasureStatus::ok) << records[1].result.error;
  EXPECT_GT(records[0].result.median_us, 0);
  EXPECT_EQ(records[0].result.repeats, 3);
  EXPECT_EQ(records[2].result.status, MeasureStatus::crash) << records[2].result.error;
  // The two that ran were re-measured in 2 rounds; their medians rank them.
  EXPECT_NE(run.output.find("2 re-measured to confirm"), std::string::npos) << run.output;
  const std::vector<ConfirmedTime> confirmations = read_batch_confirmations(moved);
  ASSERT_EQ(confirmations.size(), 2u);
  for (const ConfirmedTime& c : confirmations) {
    EXPECT_EQ(c.round_medians_us.size(), 2u) << c.task;
    EXPECT_EQ(c.result.status, MeasureStatus::ok) << c.result.error;
  }
  ASSERT_TRUE(batch[0].confirmation.has_value());
  ASSERT_TRUE(batch[1].confirmation.has_value());
  EXPECT_FALSE(batch[2].confirmation.has_value());
  EXPECT_GT(batch[0].confirmation->median_us, 0);

  // A second run finds everything measured and confirmed.
  run = run_batch_program(moved);
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.output;
  EXPECT_NE(run.output.find("0 measured, 3 already measured, 0 re-measured"), std::string::npos) << run.output;
  EXPECT_EQ(line_count(batch_results_path(moved)), 3);
  EXPECT_EQ(line_count(batch_confirmations_path(moved)), 2);

  const std::string db_path = dir_.file("tuning.db");
  ASSERT_EQ(import_results(db_path, moved), 0);
  ASSERT_EQ(import_results(db_path, moved), 0);
  TuningDatabase db(db_path);
  const std::vector<TuningRecord> stored = db.all_records();
  ASSERT_EQ(stored.size(), 3u) << "a second import adds nothing";
  EXPECT_EQ(db.targets().size(), 1u);
  EXPECT_EQ(db.targets()[0].device.hash(), here);
  const auto best = db.best(records[0].workload, stored[0].target);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->result.status, MeasureStatus::ok);
  ASSERT_TRUE(best->confirmed_us.has_value()) << "a confirmed record ranks first";
  EXPECT_DOUBLE_EQ(*best->confirmed_us, std::min(batch[0].confirmation->median_us, batch[1].confirmation->median_us));
}

// The two candidates of one workload and seed are checked against one reference, which
// the batch computes before the first of them; the crashing one has a seed of its own.
// The children compare against the stored file: altered, it fails them; cut short, it
// is computed again.
TEST_F(BatchFolder, CandidatesOfAWorkloadShareOneReference) {
  const std::string folder = pack();
  ASSERT_EQ(run_batch_program(folder).exit_code, 0);
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(folder + "/references")) files.push_back(entry.path().filename());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"c0.f32", "c2.f32"}));
  const std::string shared = folder + "/references/c0.f32";
  const Workload w = matmul_workload_from_shape("16x8x24");
  const Tensor stored = read_reference_file(shared, w.output);
  const Tensor recomputed = reference_output(w, 10);
  ASSERT_EQ(stored.bytes(), recomputed.bytes());
  EXPECT_EQ(std::memcmp(stored.data(), recomputed.data(), stored.bytes()), 0);

  Tensor altered = recomputed.clone();
  altered.data_as<float>()[5] += 0.5f;
  write_reference_file(shared, altered);
  fs::remove(batch_results_path(folder));
  ASSERT_EQ(run_batch_program(folder).exit_code, 0);
  std::vector<BatchRecord> records = batch_records(folder);
  ASSERT_EQ(records.size(), 3u);
  for (int i : {0, 1}) {
    const MeasureResult& r = records[i].record.result;
    EXPECT_EQ(r.status, MeasureStatus::wrong_result) << r.error;
    EXPECT_NEAR(r.max_abs_error, 0.5, 1e-3);
  }

  fs::resize_file(shared, 8);
  fs::remove(batch_results_path(folder));
  ASSERT_EQ(run_batch_program(folder).exit_code, 0);
  records = batch_records(folder);
  EXPECT_EQ(records[0].record.result.status, MeasureStatus::ok) << records[0].record.result.error;
  EXPECT_EQ(records[1].record.result.status, MeasureStatus::ok) << records[1].record.result.error;
  EXPECT_EQ(fs::file_size(shared), recomputed.bytes());
}

// A folder imported before its confirmation rounds ran (a device call cut short) gets
// them on the next import, without a second copy of any record; a failed
// re-measurement takes its record out of the ranking and keeps its timings, as the
// tuner's does.
TEST_F(BatchFolder, ConfirmationsReachWhatAnEarlierImportStored) {
  const std::string folder = pack();
  ASSERT_EQ(run_batch_program(folder).exit_code, 0);
  const std::string confirmations = batch_confirmations_path(folder);
  const std::string text = read_text(confirmations);
  ASSERT_EQ(line_count(confirmations), 2);
  fs::remove(confirmations);
  const std::string db_path = dir_.file("tuning.db");
  ASSERT_EQ(import_results(db_path, folder), 0);
  {
    TuningDatabase db(db_path);
    for (const TuningRecord& r : db.all_records()) EXPECT_FALSE(r.confirmed_us.has_value());
  }

  // c0 confirmed as measured; c1 failed a round.
  std::vector<ConfirmedTime> lines;
  {
    std::ofstream out(confirmations);
    out << text;
  }
  lines = read_batch_confirmations(folder);
  ASSERT_EQ(lines.size(), 2u);
  for (ConfirmedTime& c : lines) {
    if (c.task != "c1") continue;
    c.result = MeasureResult{};
    c.result.status = MeasureStatus::timeout;
    c.result.error = "measurement exceeded 60 s";
  }
  {
    std::ofstream out(confirmations, std::ios::trunc);
    for (const ConfirmedTime& c : lines) out << c.to_json().dump() << "\n";
  }
  ASSERT_EQ(import_results(db_path, folder), 0);
  ASSERT_EQ(import_results(db_path, folder), 0);
  TuningDatabase db(db_path);
  const std::vector<TuningRecord> stored = db.all_records();
  ASSERT_EQ(stored.size(), 3u) << "no import adds a second copy";
  const std::vector<BatchRecord> batch = batch_records(folder);
  for (const TuningRecord& r : stored) {
    if (r.config == batch[0].record.config) {
      ASSERT_TRUE(r.confirmed_us.has_value());
      EXPECT_EQ(r.result.status, MeasureStatus::ok);
    } else if (r.config == batch[1].record.config) {
      EXPECT_FALSE(r.confirmed_us.has_value());
      EXPECT_EQ(r.result.status, MeasureStatus::timeout);
      EXPECT_NE(r.result.error.find("on re-measurement: measurement exceeded"), std::string::npos) << r.result.error;
      EXPECT_DOUBLE_EQ(r.result.median_us, batch[1].record.result.median_us) << "its timings stay";
    }
  }
}

// A folder comes back from another machine: its times are screened as an export's
// records are, so a negative median or an impossible confirmed speed is refused by name
// (exit 2) and the rest is stored.
TEST_F(BatchFolder, PoisonedTimesAreRefusedAndTheRestImported) {
  const std::string folder = pack();
  ASSERT_EQ(run_batch_program(folder).exit_code, 0);
  const auto rewrite = [](const std::string& path, const std::string& task,
                          const std::function<void(nlohmann::json&)>& edit) {
    std::istringstream in(read_text(path));
    std::string out, line;
    while (std::getline(in, line)) {
      nlohmann::json j = nlohmann::json::parse(line);
      if (j["task"] == task) edit(j);
      out += j.dump() + "\n";
    }
    std::ofstream(path, std::ios::trunc) << out;
  };
  rewrite(batch_results_path(folder), "c1", [](nlohmann::json& j) { j["result"]["median_us"] = -5.0; });
  rewrite(batch_confirmations_path(folder), "c0", [](nlohmann::json& j) { j["result"]["median_us"] = 1e-6; });
  const std::string db_path = dir_.file("tuning.db");
  DbCommand dry{"import-results", folder, db_path};
  dry.dry_run = true;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  EXPECT_EQ(run_db_command(dry, ""), 2);
  testing::internal::GetCapturedStderr();
  const std::string counted = testing::internal::GetCapturedStdout();
  EXPECT_NE(counted.find("would add 1 record(s), 0 already present, 0 confirmation(s) to apply, 2 refused (dry run"),
            std::string::npos)
      << counted;
  EXPECT_FALSE(std::filesystem::exists(db_path)) << "a dry run created the database";
  testing::internal::CaptureStderr();
  EXPECT_EQ(import_results(db_path, folder), 2);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("an ok record with median time -5 us"), std::string::npos) << said;
  EXPECT_NE(said.find("an impossible speed"), std::string::npos) << said;
  TuningDatabase db(db_path);
  const std::vector<TuningRecord> stored = db.all_records();
  ASSERT_EQ(stored.size(), 1u) << "only the crashed candidate's record is stored";
  EXPECT_EQ(stored[0].result.status, MeasureStatus::crash);
}

TEST_F(BatchFolder, CutResultsResumeWithoutMeasuringAgain) {
  const std::string folder = pack();
  ASSERT_EQ(run_batch_program(folder).exit_code, 0);
  // As if killed while writing the last line: it is half there.
  const std::string path = batch_results_path(folder);
  std::string text = read_text(path);
  const size_t last = text.rfind('\n', text.size() - 2);
  const std::string first_two = text.substr(0, last + 1);
  const std::string third = text.substr(last + 1);
  {
    std::ofstream out(path, std::ios::trunc);
    out << first_two << third.substr(0, third.size() / 2);
  }
  const ProcessResult run = run_batch_program(folder);
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.output;
  EXPECT_NE(run.output.find("1 measured, 2 already measured"), std::string::npos) << run.output;
  EXPECT_EQ(line_count(path), 3);
  EXPECT_EQ(read_text(path).substr(0, first_two.size()), first_two);
  EXPECT_EQ(batch_records(folder).size(), 3u);
}

TEST_F(BatchFolder, CorruptOrMissingFoldersLeaveTheDatabaseAlone) {
  const std::string db_path = dir_.file("tuning.db");
  {
    TuningDatabase db(db_path);
    TuningRecord r;
    r.workload = matmul_workload_from_shape("8x8x8");
    r.target = target_;
    r.config.knobs = {{"mr", 1}};
    r.result.status = MeasureStatus::ok;
    r.result.median_us = 5;
    r.strategy = "random";
    db.add_record(r);
  }
  const auto records_in_db = [&] { return TuningDatabase(db_path).all_records().size(); };
  const auto import_error = [&](const std::string& folder) {
    try {
      import_results(db_path, folder);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("imported");
  };
  EXPECT_NE(import_error(dir_.file("nowhere")).find("does not exist"), std::string::npos);
  EXPECT_EQ(records_in_db(), 1u);

  const std::string folder = pack();
  EXPECT_NE(import_error(folder).find("no results.jsonl"), std::string::npos);
  ASSERT_EQ(run_batch_program(folder).exit_code, 0);
  {
    std::ofstream out(batch_results_path(folder), std::ios::app);
    out << "{\"task\": \"c0\", \"this is\": not json}\n";
  }
  const std::string corrupt = import_error(folder);
  EXPECT_NE(corrupt.find("results.jsonl:4"), std::string::npos) << corrupt;
  EXPECT_EQ(records_in_db(), 1u) << "nothing of a corrupt file is imported";

  {
    std::ofstream out(folder + "/manifest.json", std::ios::trunc);
    out << "{\"format\": \"something else\"}";
  }
  EXPECT_NE(import_error(folder).find("not a nee-measure batch manifest"), std::string::npos);
  const ProcessResult run = run_batch_program(folder);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("manifest.json"), std::string::npos) << run.output;
  EXPECT_EQ(records_in_db(), 1u);
}

// pack proposes points no device has measured yet (records of other devices steer the
// search), the default point first when it is new.
TEST(PackCandidates, SkipsPointsMeasuredOnAnyDevice) {
  TempDir dir("pack");
  const Workload w = matmul_workload_from_shape("8x16x8");
  const Target here = host_target(TargetKind::cpu);
  Target elsewhere = here;
  elsewhere.device.cpu_model = "A board far away";
  const ScheduleConfig default_config = make_schedule_space(w, TargetKind::cpu)->default_config();
  TuningDatabase db(dir.file("tuning.db"));
  TuningRecord r;
  r.workload = w;
  r.target = elsewhere;
  r.config = default_config;
  r.result.status = MeasureStatus::ok;
  r.result.median_us = 3;
  r.strategy = "default";
  db.add_record(r);

  PackRequest request;
  request.workloads = {w};
  request.halide_target = here.halide;
  request.count = 2;
  request.folder = dir.file("out");
  request.strategy = "random";
  request.runner.repeats = 2;
  const PackReport report = pack_candidates(db, request);
  EXPECT_EQ(report.packed, 2);
  EXPECT_EQ(report.build_errors, 0);
  const BatchManifest m = BatchManifest::read(request.folder);
  ASSERT_EQ(m.tasks.size(), 2u);
  for (const BatchTask& t : m.tasks) {
    EXPECT_FALSE(t.config == default_config) << "measured elsewhere already";
    EXPECT_EQ(t.best_us, 3);
    EXPECT_TRUE(fs::exists(request.folder + "/" + t.library));
    EXPECT_EQ(t.trial, &t == &m.tasks[0] ? 1 : 2);
  }
  EXPECT_EQ(m.settings.repeats, 2);
  EXPECT_TRUE(fs::exists(request.folder + "/bin/nee-measure"));
  EXPECT_THROW(pack_candidates(db, request), Error) << "an existing folder is not overwritten";
}

// A bad runner URL stops nee-tune before it creates or opens the database.
TEST(NeeTuneCli, BadRunnerUrlLeavesNoDatabase) {
  TempDir dir("cli");
  const std::string db_path = dir.file("tuning.db");
  const ProcessResult r = run_process(
      {NEE_TUNE_PATH, "--op", "matmul", "--shape", "8x8x8", "--trials", "1", "--db", db_path, "--runner", "ssh:/x"}, 60,
      true);
  EXPECT_TRUE(r.exited && r.exit_code == 1) << r.output;
  EXPECT_NE(r.output.find("unknown runner 'ssh:/x'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db_path));
}

// Cold caches are a host-CPU state: a GPU target refuses them before opening the database.
TEST(NeeTuneCli, ColdCachesOnAGpuTargetAreRefused) {
  TempDir dir("cli-cold");
  const std::string db_path = dir.file("tuning.db");
  const ProcessResult r = run_process({NEE_TUNE_PATH, "--op", "matmul", "--shape", "8x8x8", "--trials", "1", "--target",
                                       "opencl", "--cache", "cold", "--db", db_path},
                                      60, true);
  EXPECT_TRUE(r.exited && r.exit_code == 1) << r.output;
  EXPECT_NE(r.output.find("--cache cold"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db_path));
}

// A device gets the highest capability Halide 14 compiles for that it runs.
TEST(CudaCapability, DevicesGetTheHighestHalideCompilesFor) {
  EXPECT_EQ(halide_cuda_capability(9, 0), 86) << "an H200";
  EXPECT_EQ(halide_cuda_capability(8, 9), 86);
  EXPECT_EQ(halide_cuda_capability(8, 6), 86);
  EXPECT_EQ(halide_cuda_capability(8, 0), 80) << "an A100";
  EXPECT_EQ(halide_cuda_capability(7, 5), 75);
  EXPECT_EQ(halide_cuda_capability(6, 0), 50) << "6.1 code does not run on 6.0";
  EXPECT_EQ(halide_cuda_capability(3, 0), 30);
}

// --cuda-capability picks the capability CUDA candidates are compiled for, and only for
// --target cuda.
TEST(NeeTuneCli, CudaCapabilityChoosesTheCompiledTarget) {
  TempDir dir("cli-capability");
  const std::string folder = dir.file("batch");
  const ProcessResult r =
      run_process({NEE_TUNE_PATH, "--op", "matmul", "--shape", "64x64x64", "--target", "cuda", "--cuda-capability", "86",
                   "--db", dir.file("tuning.db"), "pack", "--count", "1", "--out", folder},
                  300, true);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.output;
  const BatchManifest manifest = BatchManifest::read(folder);
  EXPECT_TRUE(Target({manifest.halide_target, {}}).has_feature("cuda_capability_86")) << manifest.halide_target;
  EXPECT_FALSE(Target({manifest.halide_target, {}}).has_feature("cuda_capability_80")) << manifest.halide_target;

  const ProcessResult cpu = run_process({NEE_TUNE_PATH, "--op", "matmul", "--shape", "8x8x8", "--cuda-capability", "86",
                                         "--db", dir.file("other.db")},
                                        60, true);
  EXPECT_TRUE(cpu.exited && cpu.exit_code == 1) << cpu.output;
  EXPECT_NE(cpu.output.find("--cuda-capability needs --target cuda"), std::string::npos) << cpu.output;
  const ProcessResult unknown = run_process({NEE_TUNE_PATH, "--op", "matmul", "--shape", "8x8x8", "--target", "cuda",
                                             "--cuda-capability", "90", "--db", dir.file("other.db")},
                                            60, true);
  EXPECT_FALSE(unknown.exited && unknown.exit_code == 0) << unknown.output;
  EXPECT_NE(unknown.output.find("--cuda-capability"), std::string::npos) << unknown.output;
  EXPECT_FALSE(fs::exists(dir.file("other.db")));
}

// Without a GPU the tuner refuses to measure CUDA candidates here, and says where else.
TEST(NeeTuneCli, CudaMeasuringNeedsAGpuHere) {
  if (cuda_device()) GTEST_SKIP() << "this machine has a CUDA GPU: " << cuda_device()->label();
  TempDir dir("cli-no-gpu");
  const ProcessResult r = run_process({NEE_TUNE_PATH, "--op", "matmul", "--shape", "8x8x8", "--target", "cuda",
                                       "--trials", "1", "--db", dir.file("tuning.db")},
                                      60, true);
  EXPECT_TRUE(r.exited && r.exit_code == 1) << r.output;
  EXPECT_NE(r.output.find("sees no GPU to measure CUDA candidates on"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nee-tune pack"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir.file("tuning.db")));
}

// nee-measure goes where NEE's dependencies are not: it may need the C library only.
TEST(NeeMeasure, NeedsOnlyTheCLibrary) {
  const ProcessResult r = run_process({"ldd", NEE_MEASURE_PATH}, 30, true);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.output;
  std::stringstream lines(r.output);
  std::string line;
  int libraries = 0;
  while (std::getline(lines, line)) {
    const std::string name = line.substr(0, line.find(" ("));
    const std::string lib = name.substr(name.find_first_not_of(" \t"));
    const std::string base = lib.substr(0, lib.find(' '));
    ++libraries;
    const bool allowed = base.rfind("linux-vdso", 0) == 0 || base.find("ld-linux") != std::string::npos ||
                         base == "libc.so.6" || base == "libm.so.6" || base == "libdl.so.2" ||
                         base == "libpthread.so.0" || base == "librt.so.1";
    EXPECT_TRUE(allowed) << "nee-measure needs " << line;
  }
  EXPECT_GT(libraries, 0) << r.output;
}

}  // namespace
}  // namespace nee
