#pragma once
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "core/records.h"
#include "tuning-db/schema.h"
#include "tuning-db/sqlite.h"

namespace nee::testing_support {

// A fresh folder under the test temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "nee-tuning-db-XXXXXX";
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Sets or unsets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline Target make_target(const std::string& cpu_model = "Test CPU 3000") {
  Target t;
  t.halide = "x86-64-linux-avx-avx2-f16c-fma-sse41";
  t.device.cpu_model = cpu_model;
  t.device.cores = 8;
  t.device.l1d_bytes = 32 * 1024;
  t.device.l2_bytes = 1024 * 1024;
  t.device.l3_bytes = 32 * 1024 * 1024;
  return t;
}

inline TuningRecord make_record(const Workload& w, const Target& t, int64_t knob, double median_us,
                                MeasureStatus status = MeasureStatus::ok) {
  TuningRecord r;
  r.workload = w;
  r.target = t;
  r.config.knobs = {{"mr", 4}, {"nr", knob}};
  r.result.status = status;
  r.result.median_us = median_us;
  r.result.min_us = median_us * 0.9;
  r.result.repeats = 5;
  r.strategy = "random";
  r.trial = static_cast<int>(knob);
  return r;
}

// Stores a target made by make_target() and a matmul workload by plain SQL, in the
// columns every schema version has, as an older release would have: a test of a
// migration fills a file at an earlier version with them (ids 1 and 1).
inline void insert_target_and_workload(db::Connection& c, const Target& t, const Workload& w) {
  db::Statement target(c, R"sql(INSERT INTO targets (key, halide, fingerprint_json, fingerprint_hash, cpu_model,
                                   cores, l1d_bytes, l2_bytes, l3_bytes, device)
                                VALUES (?1, ?2, ?3, ?4, 'Test CPU 3000', 8, 32768, 1048576, 33554432, ''))sql");
  target.bind_text(1, t.key()).bind_text(2, t.halide).bind_text(3, t.device.to_json().dump()).bind_text(4, t.device.hash());
  target.step();
  db::Statement workload(c, "INSERT INTO workloads (key, hash, op, json) VALUES (?1, ?2, 'matmul', ?3)");
  workload.bind_text(1, w.key()).bind_text(2, w.hash()).bind_text(3, w.to_json().dump());
  workload.step();
}

// A v1 file as the first release wrote it: only migration 1, then the target, the
// workload and one ok record (12.5 us, schedule {"mr":4,"nr":1}, by `strategy` at
// `trial`) by plain SQL.
inline void write_v1_file(const std::string& path, const Target& t, const Workload& w, const std::string& strategy,
                          int trial) {
  db::Connection c(path);
  ASSERT_EQ(db::migrate(c, {db::migrations().front()}), 1);
  insert_target_and_workload(c, t, w);
  c.exec(R"sql(INSERT INTO records (workload_id, target_id, schedule_json, status, median_us, min_us, stddev_us,
                 repeats, max_abs_error, error, strategy, trial, parent_record, created_at, nee_version,
                 halide_version)
               VALUES (1, 1, '{"mr":4,"nr":1}', 'ok', 12.5, 12.0, 0.1, 5, 0, '', ')sql" +
         strategy + "', " + std::to_string(trial) + R"sql(, NULL, '2026-01-01T00:00:00Z', '0.1.0', '14.0.0'))sql");
  ASSERT_EQ(c.query_int("PRAGMA user_version"), 1);
}

}  // namespace nee::testing_support
