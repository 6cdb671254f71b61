// `nee-tune db` export -> import reproduces records with their targets; merge and a
// second import add nothing twice. Imports and merges screen what they take: a schedule
// outside its space or a time faster than the target can run is refused by line or
// record id while the rest go in, and a damaged or oversized file adds nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>

#include "core/error.h"
#include "core/matmul_workload.h"
#include "schedules/schedule_space.h"
#include "temp_dir.h"
#include "tests/tuner/synthetic_timing.h"
#include "tuner/cli/db_command.h"
#include "tuner/compile/autoscheduler_config.h"

namespace nee {
namespace {

namespace fs = std::filesystem;
using tuner_test::TempDir;

// The index-th valid point of the workload's space: the default point (0), then the
// default with one knob changed to another value of its domain, as a search stores them.
ScheduleConfig valid_point(const Workload& w, const Target& t, size_t index) {
  const std::unique_ptr<ScheduleSpace> space = make_schedule_space(w, t);
  const ScheduleConfig base = space->default_config();
  std::vector<ScheduleConfig> points = {base};
  for (const Knob& knob : space->knobs()) {
    for (const int64_t value : knob.values) {
      ScheduleConfig c = base;
      c.knobs[knob.name] = value;
      if (value != base.at(knob.name) && space->check(c).empty()) points.push_back(c);
    }
  }
  return points.at(index);
}

TuningRecord record(const Workload& w, const Target& t, int64_t point, double us, MeasureStatus status) {
  TuningRecord r;
  r.workload = w;
  r.target = t;
  r.config = valid_point(w, t, static_cast<size_t>(point));
  r.result.status = status;
  r.result.median_us = us;
  r.result.min_us = us * 0.9;
  r.result.stddev_us = 0.5;
  r.result.repeats = 5;
  r.result.error = status == MeasureStatus::ok ? "" : "it broke";
  r.strategy = "model";
  r.trial = static_cast<int>(point);
  r.halide_version = "14.0.0";
  return r;
}

void expect_same(const TuningRecord& a, const TuningRecord& b) {
  EXPECT_EQ(a.workload.key(), b.workload.key());
  EXPECT_EQ(a.target.key(), b.target.key());
  EXPECT_EQ(a.target.device.cpu_model, b.target.device.cpu_model);
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.result.status, b.result.status);
  EXPECT_EQ(a.result.median_us, b.result.median_us);
  EXPECT_EQ(a.result.min_us, b.result.min_us);
  EXPECT_EQ(a.result.stddev_us, b.result.stddev_us);
  EXPECT_EQ(a.result.repeats, b.result.repeats);
  EXPECT_EQ(a.result.error, b.result.error);
  EXPECT_EQ(a.strategy, b.strategy);
  EXPECT_EQ(a.trial, b.trial);
  EXPECT_EQ(a.predicted_us, b.predicted_us);
  ASSERT_EQ(a.in_model.has_value(), b.in_model.has_value());
  if (a.in_model) {
    EXPECT_EQ(a.in_model->tuned_us, b.in_model->tuned_us);
    EXPECT_EQ(a.in_model->default_us, b.in_model->default_us);
  }
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.nee_version, b.nee_version);
  EXPECT_EQ(a.halide_version, b.halide_version);
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// The message of the nee::Error that `f` must throw.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(DbCommand, ExportImportRoundTripKeepsRecordsAndTargets) {
  TempDir dir("db-command");
  const Workload a = matmul_workload_from_shape("8x8x8"), b = matmul_workload_from_shape("16x16x32");
  const Target here = tuner_test::synthetic_target();
  Target there = here;
  there.device.cpu_model = "Another CPU";
  TuningDatabase source(dir.file("source.db"));
  const int64_t first = source.add_record(record(a, here, 1, 10.0, MeasureStatus::ok));
  TuningRecord child = record(a, here, 2, 8.0, MeasureStatus::ok);
  child.parent_record = first;
  child.predicted_us = 7.5;
  child.in_model = InModelTimes{8.8, 8.5};
  source.add_record(child);
  source.add_record(record(a, there, 3, 0.0, MeasureStatus::crash));
  source.add_record(record(b, there, 4, 30.0, MeasureStatus::ok));

  const std::string file = dir.file("records.jsonl");
  EXPECT_EQ(export_records(source, file), 4);
  const std::vector<std::string> lines = lines_of(file);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(nlohmann::json::parse(lines[0]),
            (nlohmann::json{{"format", "nee-tuning-records"}, {"version", 1}, {"records", 4}}));
  TuningDatabase copy(dir.file("copy.db"));
  const ImportCounts counts = import_records(copy, file);
  EXPECT_EQ(counts.added, 4);
  EXPECT_EQ(counts.already_present, 0);
  EXPECT_TRUE(counts.refused.empty());

  const std::vector<TuningRecord> before = source.all_records(), after = copy.all_records();
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) expect_same(before[i], after[i]);
  EXPECT_FALSE(after[1].parent_record) << "ids of another file are not kept";
  EXPECT_EQ(copy.targets().size(), 2u);
  // The crashed point on `there` does not make `there`'s best, nor does `there` count here.
  EXPECT_EQ(copy.best(a, here)->result.median_us, 8.0);
  EXPECT_FALSE(copy.best(a, there));

  const ImportCounts again = import_records(copy, file);
  EXPECT_EQ(again.added, 0);
  EXPECT_EQ(again.already_present, 4);
  const ImportCounts merged = merge_database(copy, dir.file("source.db"));
  EXPECT_EQ(merged.added, 0);
  EXPECT_EQ(copy.all_records().size(), 4u);

  TuningDatabase fresh(dir.file("fresh.db"));
  EXPECT_EQ(merge_database(fresh, dir.file("source.db")).added, 4);

  // An export from before the header existed: its records alone.
  write_file(dir.file("headerless.jsonl"), lines[1] + "\n" + lines[2] + "\n");
  TuningDatabase old(dir.file("old.db"));
  EXPECT_EQ(import_records(old, dir.file("headerless.jsonl")).added, 2);
}

TEST(DbCommand, DamagedExportsNameTheLineAndAddNothing) {
  TempDir dir("db-command");
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = tuner_test::synthetic_target();
  TuningDatabase source(dir.file("source.db"));
  for (int i = 1; i <= 3; ++i) source.add_record(record(w, t, i, 10.0 * i, MeasureStatus::ok));
  const std::string whole = dir.file("whole.jsonl");
  export_records(source, whole);
  const std::vector<std::string> lines = lines_of(whole);
  ASSERT_EQ(lines.size(), 4u);
  const std::string text = lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\n" + lines[3] + "\n";
  const std::string line3_cut = lines[2].substr(0, lines[2].size() / 2);

  const std::vector<std::pair<std::string, std::string>> damaged = {
      // cut inside the last line
      {text.substr(0, text.size() - 40), "damaged.jsonl:4: damaged: the last line has no line end"},
      // cut at a line end: only the header's count tells
      {lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\n",
       "damaged.jsonl:1: damaged: the header promises 3 record(s), 2 follow it"},
      // a line cut short in the middle of the file
      {lines[0] + "\n" + lines[1] + "\n" + line3_cut + "\n" + lines[3] + "\n", "damaged.jsonl:3: damaged: not JSON"},
      // a stray line appended
      {text + "{\"workload\": 1}\n", "damaged.jsonl:1: damaged: the header promises 3 record(s), 4 follow it"},
      {"", "damaged.jsonl: damaged: no header and no record"},
      {"{\"format\":\"nee-tuning-records\",\"version\":2,\"records\":0}\n",
       "damaged.jsonl:1: written by a newer NEE (export format version 2; this build reads up to 1)"},
      {"[1, 2]\n", "damaged.jsonl:1: damaged: not a JSON object"},
  };
  TuningDatabase copy(dir.file("copy.db"));
  for (const auto& [contents, expected] : damaged) {
    write_file(dir.file("damaged.jsonl"), contents);
    const std::string error = error_of([&] { import_records(copy, dir.file("damaged.jsonl")); });
    EXPECT_NE(error.find(expected), std::string::npos) << error;
    // The command reads the file before it opens the database: no new database either.
    DbCommand command{"import", dir.file("damaged.jsonl"), dir.file("never.db")};
    EXPECT_THROW(run_db_command(command, ""), Error);
    EXPECT_FALSE(fs::exists(dir.file("never.db")));
  }
  EXPECT_TRUE(copy.all_records().empty());
}

TEST(DbCommand, ImportsAreBoundedInSize) {
  TempDir dir("db-command");
  TuningDatabase copy(dir.file("copy.db"));
  const std::string long_file = dir.file("long.jsonl");
  const std::string line = "{\"workload\": \"" + std::string(kImportLineCap, 'x') + "\"}";
  write_file(long_file, "{\"format\":\"nee-tuning-records\",\"version\":1,\"records\":1}\n" + line + "\n");
  std::string error = error_of([&] { import_records(copy, long_file); });
  EXPECT_NE(error.find("long.jsonl:2: damaged: a line of " + std::to_string(line.size()) +
                       " bytes, over the 65536 bytes one record may take"),
            std::string::npos)
      << error;
  // A sparse file one byte over the cap.
  const std::string huge = dir.file("huge.jsonl");
  write_file(huge, "");
  fs::resize_file(huge, static_cast<uintmax_t>(kImportFileCap) + 1);
  error = error_of([&] { import_records(copy, huge); });
  EXPECT_NE(error.find("huge.jsonl: more than 268435456 bytes (256 MiB), the most an import reads"), std::string::npos)
      << error;
  error = error_of([&] { import_records(copy, "/dev/zero"); });
  EXPECT_NE(error.find("/dev/zero is not a regular file"), std::string::npos) << error;
  EXPECT_TRUE(copy.all_records().empty());
}

TEST(DbCommand, RecordsOutsideTheirSpaceOrFasterThanTheTargetAreRefusedAndTheRestAdded) {
  TempDir dir("db-command");
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = tuner_test::synthetic_target();  // AVX2, 8 cores: at most 1536 GFLOP/s
  TuningDatabase source(dir.file("source.db"));
  // The database stores what it is given; the screening is the import's.
  TuningRecord good = record(w, t, 0, 10.0, MeasureStatus::ok);
  good.strategy = "default";  // ranked by its time, ahead of the 20 us baseline
  TuningRecord huge_kc = record(w, t, 2, 1.0, MeasureStatus::ok);
  huge_kc.config.knobs["kc"] = int64_t{1} << 40;
  TuningRecord loop_order = record(w, t, 3, 1.0, MeasureStatus::ok);
  loop_order.config.knobs["loop_order"] = 99;
  TuningRecord unknown_knob = record(w, t, 4, 1.0, MeasureStatus::ok);
  unknown_knob.config.knobs["turbo"] = 1;
  // The 262,144 GFLOP/s.
  const TuningRecord too_fast = record(w, t, 5, w.flops() / 262144.0 / 1e3, MeasureStatus::ok);
  TuningRecord confirmed_too_fast = record(w, t, 6, 10.0, MeasureStatus::ok);
  confirmed_too_fast.confirmed_us = w.flops() / 1e6 / 1e3;
  const TuningRecord negative = record(w, t, 7, -5.0, MeasureStatus::ok);
  TuningRecord confirmed_zero = record(w, t, 8, 10.0, MeasureStatus::ok);
  confirmed_zero.confirmed_us = 0.0;
  TuningRecord in_model_negative = record(w, t, 10, 10.0, MeasureStatus::ok);
  in_model_negative.in_model = InModelTimes{-1.0, 10.0};
  // A failed measurement carries no time to rank, so its median may be anything; an
  // autoscheduler baseline is no point of the space and is kept.
  const TuningRecord failed = record(w, t, 9, 0.0, MeasureStatus::build_error);
  TuningRecord baseline = record(w, t, 1, 20.0, MeasureStatus::ok);
  baseline.config = autoscheduler_config("Adams2019");
  baseline.strategy = "adams2019";
  std::vector<int64_t> ids;
  for (const TuningRecord& r : {good, huge_kc, loop_order, unknown_knob, too_fast, confirmed_too_fast, negative,
                                confirmed_zero, in_model_negative, failed, baseline}) {
    ids.push_back(source.add_record(r));
  }
  // Line of each refused record in the export (the header is line 1) or its id, and why.
  const std::vector<std::pair<size_t, std::string>> refused = {
      {1, "knob 'kc' = 1099511627776 is outside its domain"},
      {2, "knob 'loop_order' = 99 is outside its domain"},
      {3, "the schedule has knobs this space does not know"},
      {4, "an impossible speed: "},
      {5, "an impossible speed: "},
      {6, "an ok record with median time -5 us"},
      {7, "a confirmed time of 0 us"},
      {8, "in-model times of -1 and 10 us"},
  };
  const auto expect_refusals = [&](const ImportCounts& c, const std::function<std::string(size_t)>& where) {
    EXPECT_EQ(c.added, 3);
    EXPECT_EQ(c.already_present, 0);
    ASSERT_EQ(c.refused.size(), refused.size());
    for (size_t i = 0; i < refused.size(); ++i) {
      EXPECT_EQ(c.refused[i].where, where(refused[i].first));
      EXPECT_NE(c.refused[i].reason.find(refused[i].second), std::string::npos) << c.refused[i].reason;
    }
  };
  const std::string file = dir.file("hostile.jsonl");
  export_records(source, file);
  TuningDatabase imported(dir.file("imported.db"));
  expect_refusals(import_records(imported, file),
                  [&](size_t index) { return file + ":" + std::to_string(index + 2); });
  TuningDatabase merged(dir.file("merged.db"));
  expect_refusals(merge_database(merged, dir.file("source.db")),
                  [&](size_t index) { return dir.file("source.db") + ": record " + std::to_string(ids[index]); });
  for (const TuningDatabase* db : {&imported, &merged}) {
    ASSERT_EQ(db->all_records().size(), 3u);
    EXPECT_EQ(db->best(w, t)->config, good.config) << "the refused fast records do not rank";
  }
  // The command adds the rest and says some were refused with exit status 2.
  DbCommand command{"import", file, dir.file("cli.db")};
  EXPECT_EQ(run_db_command(command, ""), 2);
  EXPECT_EQ(TuningDatabase(dir.file("cli.db"), DbAccess::read_only).all_records().size(), 3u);
  command.action = "merge";
  command.argument = dir.file("imported.db");
  EXPECT_EQ(run_db_command(command, ""), 0);
}

TEST(DbCommand, ReadingCommandsOpenTheDatabaseReadOnly) {
  TempDir dir("db-command");
  const std::string path = dir.file("tuning.db");
  DbCommand list{"list", "", path};
  const std::string missing = error_of([&] { run_db_command(list, ""); });
  EXPECT_NE(missing.find(path + ": no such file"), std::string::npos) << missing;
  EXPECT_FALSE(fs::exists(path)) << "listing created a database";
  { TuningDatabase(path).add_record(record(matmul_workload_from_shape("8x8x8"), tuner_test::synthetic_target(), 1,
                                           10.0, MeasureStatus::ok)); }
  std::ifstream in(path, std::ios::binary);
  const std::string before((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* action : {"list", "best"}) {
    DbCommand command{action, "", path};
    EXPECT_EQ(run_db_command(command, ""), 0);
  }
  DbCommand exp{"export", dir.file("out.jsonl"), path};
  EXPECT_EQ(run_db_command(exp, ""), 0);
  EXPECT_EQ(lines_of(dir.file("out.jsonl")).size(), 2u);
  std::ifstream again(path, std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>()), before);
}

// What fuzzing found for matmul, screened for every family: a record's workload must be
// what its family makes of its inputs, or the algorithm would index past its shapes.
TEST(DbCommand, WorkloadsTheirInputsDoNotMakeAreRefused) {
  TempDir dir("db-command");
  const Target t = tuner_test::synthetic_target();
  const Workload w = matmul_workload_from_shape("2x8x8x8");
  TuningRecord cut = record(w, t, 0, 10.0, MeasureStatus::ok);
  cut.workload.output.shape = {8, 8};  // B's batch dim dropped
  const std::string file = dir.file("cut.jsonl");
  {
    TuningDatabase source(dir.file("source.db"));
    source.add_record(record(w, t, 1, 10.0, MeasureStatus::ok));
    source.add_record(cut);
    export_records(source, file);
  }
  TuningDatabase db(dir.file("tuning.db"));
  const ImportCounts c = import_records(db, file);
  EXPECT_EQ(c.added, 1);
  ASSERT_EQ(c.refused.size(), 1u);
  EXPECT_EQ(c.refused[0].where, file + ":3");
  EXPECT_NE(c.refused[0].reason.find("is not what its inputs make (matmul(f32[2,8,8],f32[2,8,8])->f32[2,8,8]"),
            std::string::npos)
      << c.refused[0].reason;
}

// A db command's exit status and what it printed.
struct CommandRun {
  int status;
  std::string out, err;
};

CommandRun run_captured(const DbCommand& command) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int status = run_db_command(command, "");
  std::string out = testing::internal::GetCapturedStdout();
  return {status, std::move(out), testing::internal::GetCapturedStderr()};
}

// `--dry-run` screens and counts against the database, prints what would be stored and
// stores nothing: an existing database is unchanged, a missing one is not created.
// `--all-or-nothing` does the same once a record is refused, and stores a clean file.
TEST(DbCommand, DryRunsCountAndStoreNothing) {
  TempDir dir("db-command");
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = tuner_test::synthetic_target();
  const std::string file = dir.file("export.jsonl");
  TuningRecord negative = record(w, t, 3, -5.0, MeasureStatus::ok);
  {
    TuningDatabase source(dir.file("source.db"));
    for (const TuningRecord& r : {record(w, t, 1, 10.0, MeasureStatus::ok), record(w, t, 2, 12.0, MeasureStatus::ok),
                                  negative}) {
      source.add_record(r);
    }
    export_records(source, file);
  }
  const std::string missing = dir.file("missing.db");
  DbCommand dry{"import", file, missing};
  dry.dry_run = true;
  const CommandRun said = run_captured(dry);
  EXPECT_EQ(said.status, 2);
  EXPECT_NE(said.err.find("median time -5 us"), std::string::npos) << said.err;
  EXPECT_NE(said.out.find("would add 2 record(s), 0 already present, 1 refused (dry run: nothing was stored)"),
            std::string::npos)
      << said.out;
  EXPECT_FALSE(fs::exists(missing)) << "a dry run created the database";

  const std::string existing = dir.file("existing.db");
  { TuningDatabase(existing).add_new_records({record_from_json(nlohmann::json::parse(lines_of(file)[1]))}); }
  for (const char* action : {"import", "merge"}) {
    DbCommand command{action, std::string(action) == "import" ? file : dir.file("source.db"), existing};
    command.dry_run = true;
    const CommandRun counted = run_captured(command);
    EXPECT_EQ(counted.status, 2) << action;
    EXPECT_NE(counted.out.find("would add 1 record(s), 1 already present, 1 refused"), std::string::npos)
        << counted.out;
    EXPECT_EQ(TuningDatabase(existing, DbAccess::read_only).all_records().size(), 1u) << action;
  }

  DbCommand strict{"import", file, existing};
  strict.all_or_nothing = true;
  const CommandRun refused = run_captured(strict);
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(
      refused.out.find("would add 1 record(s), 1 already present, 1 refused (--all-or-nothing: nothing was stored)"),
      std::string::npos)
      << refused.out;
  EXPECT_EQ(TuningDatabase(existing, DbAccess::read_only).all_records().size(), 1u);
  const std::vector<std::string> lines = lines_of(file);
  const std::string clean = dir.file("clean.jsonl");  // the records without the refused one, and no header
  write_file(clean, lines[1] + "\n" + lines[2] + "\n");
  strict.argument = clean;
  const CommandRun stored = run_captured(strict);
  EXPECT_EQ(stored.status, 0);
  EXPECT_NE(stored.out.find("added 1 record(s), 1 already present, 0 refused\n"), std::string::npos) << stored.out;
  EXPECT_EQ(TuningDatabase(existing, DbAccess::read_only).all_records().size(), 2u);
}

}  // namespace
}  // namespace nee
