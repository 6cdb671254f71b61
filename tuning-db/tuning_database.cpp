#include "tuning-db/tuning_database.h"

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <random>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "core/error.h"
#include "core/utc_time.h"
#include "core/version.h"
#include "tuning-db/schema.h"
#include "tuning-db/sqlite.h"

namespace nee {

namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// Switching a file to WAL needs it to itself, and SQLite answers SQLITE_BUSY at once,
// without waiting on busy_timeout, while another connection reads it: of 8 processes
// opening one new file together, 7 failed so in one round of 20. Retried for as long as
// busy_timeout (5 s) waits.
void switch_to_wal(db::Connection& db) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (true) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (const db::SqliteError& e) {
      if (e.code() != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

bool is_default_location(const std::string& path) {
  try {
    return path == TuningDatabase::default_location();
  } catch (const Error&) {
    return false;  // neither XDG_DATA_HOME nor HOME is set
  }
}

// Columns of a full record, in the order read_record expects them.
constexpr const char* kRecordColumns = R"sql(
  SELECT r.id, w.json, t.halide, t.fingerprint_json, r.schedule_json, r.status, r.median_us,
         r.min_us, r.stddev_us, r.repeats, r.max_abs_error, r.error, r.strategy, r.trial,
         r.parent_record, r.created_at, r.nee_version, r.halide_version, r.predicted_us,
         r.confirmed_us, t.cache, t.halide_major, r.in_model_us, r.in_model_default_us
  FROM records r
  JOIN workloads w ON w.id = r.workload_id
  JOIN targets t ON t.id = r.target_id
)sql";
const std::string kRecordSelect = std::string(kRecordColumns) + "WHERE w.key = ?1 AND t.key = ?2\n";

// The ranking of ok records: first every record whose time is not a search's pick (the
// default point, a baseline, a transferred point: measured once, not selected as the
// fastest of many noisy samples) or was re-measured, by that time; then the unconfirmed
// picks of a search, by their first median. `prefix` names the records table.
std::string rank_order(const std::string& prefix) {
  std::string picks;
  for (const std::string& s : search_pick_strategies()) picks += (picks.empty() ? "'" : ", '") + s + "'";
  return fmt::format("({0}confirmed_us IS NULL AND {0}strategy IN ({1})), coalesce({0}confirmed_us, {0}median_us), {0}id",
                     prefix, picks);
}

TuningRecord read_record(const db::Statement& s, const std::string& path) {
  TuningRecord r;
  r.id = s.column_int(0);
  try {
    r.workload = Workload::from_json(nlohmann::json::parse(s.column_text(1)));
    r.target.halide = s.column_text(2);
    r.target.device = DeviceFingerprint::from_json(nlohmann::json::parse(s.column_text(3)));
    r.target.cache = cache_state_from_string(s.column_text(20));
    r.target.halide_major = static_cast<int>(s.column_int(21));
    r.config = ScheduleConfig::from_json(nlohmann::json::parse(s.column_text(4)));
    r.result.status = measure_status_from_string(s.column_text(5));
  } catch (const std::exception& e) {
    throw Error(fmt::format("tuning database {}: record {} is unreadable: {}", path, r.id, e.what()));
  }
  r.result.median_us = s.column_double(6);
  r.result.min_us = s.column_double(7);
  r.result.stddev_us = s.column_double(8);
  r.result.repeats = static_cast<int>(s.column_int(9));
  r.result.max_abs_error = s.column_double(10);
  r.result.error = s.column_text(11);
  r.strategy = s.column_text(12);
  r.trial = static_cast<int>(s.column_int(13));
  r.parent_record = s.column_optional_int(14);
  r.created_at = s.column_text(15);
  r.nee_version = s.column_text(16);
  r.halide_version = s.column_text(17);
  if (!s.column_is_null(18)) r.predicted_us = s.column_double(18);
  if (!s.column_is_null(19)) r.confirmed_us = s.column_double(19);
  if (!s.column_is_null(22)) r.in_model = InModelTimes{s.column_double(22), s.column_double(23)};
  return r;
}

int64_t target_id(db::Connection& db, const Target& t) {
  const std::string key = t.key();
  const DeviceFingerprint& d = t.device;
  db::Statement insert(db, R"sql(
    INSERT INTO targets (key, halide, fingerprint_json, fingerprint_hash, cpu_model, cores,
                         l1d_bytes, l2_bytes, l3_bytes, device, cache, halide_major)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
    ON CONFLICT (key) DO NOTHING
  )sql");
  insert.bind_text(1, key).bind_text(2, t.halide).bind_text(3, d.to_json().dump()).bind_text(4, d.hash());
  insert.bind_text(5, d.cpu_model).bind_int(6, d.cores).bind_int(7, d.l1d_bytes).bind_int(8, d.l2_bytes);
  insert.bind_int(9, d.l3_bytes).bind_text(10, d.device).bind_text(11, to_string(t.cache)).bind_int(12, t.halide_major);
  insert.step();
  db::Statement select(db, "SELECT id FROM targets WHERE key = ?1");
  select.bind_text(1, key);
  select.step();
  return select.column_int(0);
}

int64_t workload_id(db::Connection& db, const Workload& w) {
  const std::string key = w.key();
  db::Statement insert(db, R"sql(
    INSERT INTO workloads (key, hash, op, json) VALUES (?1, ?2, ?3, ?4)
    ON CONFLICT (key) DO NOTHING
  )sql");
  insert.bind_text(1, key).bind_text(2, w.hash()).bind_text(3, w.op).bind_text(4, w.to_json().dump());
  insert.step();
  db::Statement select(db, "SELECT id FROM workloads WHERE key = ?1");
  select.bind_text(1, key);
  select.step();
  return select.column_int(0);
}

}  // namespace

std::string TuningDatabase::default_path() {
  const std::string explicit_path = env("NEE_DB");
  if (!explicit_path.empty()) return explicit_path;
  return default_location();
}

std::string TuningDatabase::default_location() {
  // The XDG base directory spec says to ignore a relative XDG_DATA_HOME.
  const std::string data_home = env("XDG_DATA_HOME");
  if (!data_home.empty() && data_home.front() == '/') return data_home + "/nee/tuning.db";
  const std::string home = env("HOME");
  if (home.empty()) {
    throw Error("cannot place the tuning database: none of NEE_DB, XDG_DATA_HOME or HOME is set");
  }
  return home + "/.local/share/nee/tuning.db";
}

TuningDatabase::TuningDatabase(const std::string& path, DbAccess access)
    : path_(path), read_only_(access == DbAccess::read_only), owner_(db::ProcessIdentity::of_this_process()) {
  std::random_device random;
  connection_id_ = static_cast<int64_t>((uint64_t{random()} << 31) ^ random());
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
    const bool exists = std::filesystem::exists(parent, ec);
    // A path the user named in a missing folder is more likely a typo than a wish for
    // new folders; only NEE's own default location is made.
    if (exists || read_only_ || !is_default_location(path)) {
      throw Error(fmt::format("tuning database {}: {} {}", path, parent.string(),
                              exists ? "is not a folder" : "is a folder that does not exist (create it first)"));
    }
    std::filesystem::create_directories(parent, ec);
    if (ec) {
      throw Error(fmt::format("tuning database {}: cannot create folder {}: {}", path, parent.string(),
                              ec.message()));
    }
  }
  if (read_only_) {
    open_for_reading();
  } else {
    open_for_writing();
  }
}

void TuningDatabase::open_for_writing() {
  db_ = std::make_unique<db::Connection>(path_);
  const std::string read_only_file = fmt::format(
      "tuning database {}: the file is read-only for this user, and this command writes to it (nee-tune db list, "
      "show, best and export only read)",
      path_);
  try {
    // Connection settings only; nothing below writes the file before check_database
    // has accepted it.
    db_->exec("PRAGMA busy_timeout = 5000");
    db_->exec("PRAGMA foreign_keys = ON");
    const int found = db::check_database(*db_, latest_schema_version());
    if (db_->read_only()) throw Error(read_only_file);
    // WAL: readers never block the writer, and a writer killed mid-transaction leaves
    // only an uncommitted WAL tail that the next open discards. The mode is stored in
    // the file, so it is set only on a file NEE has accepted.
    switch_to_wal(*db_);
    // FULL syncs the WAL at each commit: a committed record survives an OS crash too,
    // which costs little next to the time a measurement takes.
    db_->exec("PRAGMA synchronous = FULL");
    schema_version_ = found == latest_schema_version() ? found : db::migrate(*db_, db::migrations());
  } catch (const db::SqliteError& e) {
    // A WAL file this user cannot write, or whose folder it cannot write (SQLite makes
    // the -wal and -shm files there), fails its first read so.
    if (e.code() != SQLITE_READONLY && e.code() != SQLITE_CANTOPEN) throw;
    if (db_->read_only()) throw Error(read_only_file);
    const std::string folder = std::filesystem::path(path_).parent_path().string();
    throw Error(fmt::format("tuning database {}: cannot write to it: SQLite cannot make its -wal and -shm files in "
                            "folder {}, read-only for this user (nee-tune db list, show, best and export only read)",
                            path_, folder.empty() ? "." : folder));
  }
}

void TuningDatabase::open_for_reading() {
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) {
    throw Error(fmt::format("tuning database {}: no such file (reading never creates one)", path_));
  }
  db_ = std::make_unique<db::Connection>(path_, db::OpenMode::read_only);
  db_->exec("PRAGMA busy_timeout = 5000");
  int found = 0;
  try {
    found = db::check_database(*db_, latest_schema_version());
  } catch (const db::SqliteError& e) {
    // A WAL file whose folder this user cannot write: SQLite cannot make the -shm index
    // that WAL reads need (measured with SQLite 3.40: "attempt to write a readonly
    // database"), so the file is read as immutable.
    if (e.code() != SQLITE_READONLY && e.code() != SQLITE_CANTOPEN) throw;
    db_ = std::make_unique<db::Connection>(path_, db::OpenMode::immutable);
    found = db::check_database(*db_, latest_schema_version());
  }
  schema_version_ = found;
  if (found < latest_schema_version()) {
    db_ = db::Connection::memory_copy(*db_);
    db::migrate(*db_, db::migrations());
  }
}

TuningDatabase::~TuningDatabase() {
  if (!db_ || !holds_claims_) return;
  try {
    release_claims();
  } catch (const std::exception&) {
    // Left behind, they are taken over once this process has ended.
  }
}

TuningDatabase::TuningDatabase(TuningDatabase&&) noexcept = default;
TuningDatabase& TuningDatabase::operator=(TuningDatabase&&) noexcept = default;

int TuningDatabase::latest_schema_version() { return db::latest_schema_version(); }

void TuningDatabase::require_writable(const char* doing) const {
  if (read_only_) throw Error(fmt::format("tuning database {}: opened read-only; cannot {}", path_, doing));
}

int64_t TuningDatabase::add_record(const TuningRecord& record) {
  require_writable("add a record");
  db::Transaction transaction(*db_);
  const int64_t id = insert_record(record);
  transaction.commit();
  return id;
}

TuningDatabase::AddCounts TuningDatabase::add_new_records(const std::vector<TuningRecord>& records) {
  require_writable("add records");
  AddCounts counts;
  db::Transaction transaction(*db_);
  for (const TuningRecord& r : records) {
    // Also finds a record added earlier in this transaction: a file holding one record
    // twice adds it once.
    if (contains_record(r)) {
      ++counts.already_present;
      continue;
    }
    TuningRecord copy = r;
    copy.parent_record.reset();
    insert_record(copy);
    ++counts.added;
  }
  transaction.commit();
  return counts;
}

void TuningDatabase::atomically(const std::function<void()>& body) {
  require_writable("change records");
  db::Transaction transaction(*db_);
  body();
  transaction.commit();
}

void TuningDatabase::rehearse(const std::function<void()>& body) {
  require_writable("change records");
  const db::Transaction transaction(*db_);  // never committed
  body();
}

int64_t TuningDatabase::insert_record(const TuningRecord& record) {
  const MeasureResult& m = record.result;
  for (const auto& [name, value] : {std::pair<const char*, double>{"median_us", m.median_us},
                                    {"min_us", m.min_us},
                                    {"stddev_us", m.stddev_us},
                                    {"max_abs_error", m.max_abs_error},
                                    {"confirmed_us", record.confirmed_us.value_or(0)},
                                    {"in_model_us", record.in_model ? record.in_model->tuned_us : 1},
                                    {"in_model_default_us", record.in_model ? record.in_model->default_us : 1}}) {
    if (!std::isfinite(value)) {
      throw Error(fmt::format("tuning database {}: refusing a record whose {} is {} (workload {}, schedule {})",
                              path_, name, value, record.workload.key(), record.config.to_string()));
    }
  }
  const int64_t target = target_id(*db_, record.target);
  const int64_t workload = workload_id(*db_, record.workload);
  const std::string schedule = record.config.to_json().dump();
  db::Statement insert(*db_, R"sql(
    INSERT INTO records (workload_id, target_id, schedule_json, status, median_us, min_us, stddev_us,
                         repeats, max_abs_error, error, strategy, trial, parent_record, created_at,
                         nee_version, halide_version, predicted_us, confirmed_us, in_model_us,
                         in_model_default_us)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)
  )sql");
  insert.bind_int(1, workload).bind_int(2, target).bind_text(3, schedule);
  insert.bind_text(4, to_string(m.status)).bind_double(5, m.median_us).bind_double(6, m.min_us);
  insert.bind_double(7, m.stddev_us).bind_int(8, m.repeats).bind_double(9, m.max_abs_error);
  insert.bind_text(10, m.error).bind_text(11, record.strategy).bind_int(12, record.trial);
  insert.bind_optional_int(13, record.parent_record);
  insert.bind_text(14, record.created_at.empty() ? utc_now_iso8601() : record.created_at);
  insert.bind_text(15, record.nee_version.empty() ? std::string(kVersion) : record.nee_version);
  insert.bind_text(16, record.halide_version);
  if (record.predicted_us) insert.bind_double(17, *record.predicted_us);  // unbound stays NULL
  if (record.confirmed_us) insert.bind_double(18, *record.confirmed_us);
  if (record.in_model) insert.bind_double(19, record.in_model->tuned_us).bind_double(20, record.in_model->default_us);
  insert.step();
  const int64_t id = db_->last_insert_rowid();
  // Whoever claimed this schedule, it is measured now.
  db::Statement fulfilled(*db_,
                          "DELETE FROM claims WHERE workload_key = ?1 AND target_key = ?2 AND schedule_json = ?3");
  fulfilled.bind_text(1, record.workload.key()).bind_text(2, record.target.key()).bind_text(3, schedule);
  fulfilled.step();
  return id;
}

ScheduleClaim TuningDatabase::claim(const Workload& w, const Target& t, const ScheduleConfig& c) {
  require_writable("claim a schedule");
  const std::string schedule = c.to_json().dump();
  db::Transaction transaction(*db_);
  if (contains(w, t, c)) return ScheduleClaim::measured;  // the rollback undoes nothing
  {
    db::Statement held(*db_, R"sql(
      SELECT host, boot_id, pid, process_start, connection, claimed_at FROM claims
      WHERE workload_key = ?1 AND target_key = ?2 AND schedule_json = ?3
    )sql");
    held.bind_text(1, w.key()).bind_text(2, t.key()).bind_text(3, schedule);
    if (held.step()) {
      const bool mine = held.column_text(0) == owner_.host && held.column_text(1) == owner_.boot_id &&
                        held.column_int(2) == owner_.pid && held.column_int(4) == connection_id_;
      if (mine) return ScheduleClaim::claimed;
      if (claim_stands(held)) return ScheduleClaim::taken;
    }
  }
  db::Statement take(*db_, R"sql(
    INSERT OR REPLACE INTO claims (workload_key, target_key, schedule_json, host, boot_id, pid, process_start,
                                   connection, claimed_at)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
  )sql");
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  take.bind_text(1, w.key()).bind_text(2, t.key()).bind_text(3, schedule).bind_text(4, owner_.host);
  take.bind_text(5, owner_.boot_id).bind_int(6, owner_.pid).bind_int(7, owner_.start_ticks);
  take.bind_int(8, connection_id_).bind_double(9, now);
  take.step();
  transaction.commit();
  holds_claims_ = true;
  return ScheduleClaim::claimed;
}

bool TuningDatabase::claim_stands(const db::Statement& held) const {
  const std::string host = held.column_text(0), boot_id = held.column_text(1);
  if (host == owner_.host && boot_id == owner_.boot_id) {
    return db::ProcessIdentity::running_here(held.column_int(2), held.column_int(3));
  }
  // This host booted again since: every process of the earlier boot has ended.
  if (host == owner_.host && !boot_id.empty() && !owner_.boot_id.empty()) return false;
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return now - held.column_double(5) < kClaimLeaseSeconds;
}

void TuningDatabase::release_claims() {
  require_writable("release claims");
  db::Statement release(*db_, "DELETE FROM claims WHERE host = ?1 AND pid = ?2 AND connection = ?3");
  release.bind_text(1, owner_.host).bind_int(2, owner_.pid).bind_int(3, connection_id_);
  release.step();
  holds_claims_ = false;
}

void TuningDatabase::set_confirmed_us(int64_t record_id, double confirmed_us) {
  require_writable("confirm a record");
  if (!std::isfinite(confirmed_us) || confirmed_us <= 0) {
    throw Error(fmt::format("tuning database {}: refusing confirmed time {} for record {}", path_, confirmed_us,
                            record_id));
  }
  db::Statement s(*db_, "UPDATE records SET confirmed_us = ?1 WHERE id = ?2");
  s.bind_double(1, confirmed_us).bind_int(2, record_id);
  s.step();
  if (db_->changes() != 1) throw Error(fmt::format("tuning database {}: no record {}", path_, record_id));
}

void TuningDatabase::set_in_model_times(int64_t record_id, const InModelTimes& times) {
  require_writable("change a record");
  if (!(std::isfinite(times.tuned_us) && times.tuned_us > 0 && std::isfinite(times.default_us) &&
        times.default_us > 0)) {
    throw Error(fmt::format("tuning database {}: refusing in-model times {} and {} us for record {}", path_,
                            times.tuned_us, times.default_us, record_id));
  }
  db::Statement s(*db_, "UPDATE records SET in_model_us = ?1, in_model_default_us = ?2 WHERE id = ?3");
  s.bind_double(1, times.tuned_us).bind_double(2, times.default_us).bind_int(3, record_id);
  s.step();
  if (db_->changes() != 1) throw Error(fmt::format("tuning database {}: no record {}", path_, record_id));
}

void TuningDatabase::set_failed_on_recheck(int64_t record_id, const MeasureResult& failure) {
  require_writable("change a record");
  if (failure.status == MeasureStatus::ok) {
    throw Error(fmt::format("tuning database {}: record {} did not fail its re-measurement", path_, record_id));
  }
  db::Statement s(*db_, "UPDATE records SET status = ?1, error = ?2, confirmed_us = NULL WHERE id = ?3");
  s.bind_text(1, to_string(failure.status)).bind_text(2, "on re-measurement: " + failure.error).bind_int(3, record_id);
  s.step();
  if (db_->changes() != 1) throw Error(fmt::format("tuning database {}: no record {}", path_, record_id));
}

std::vector<TuningRecord> TuningDatabase::query_records(const char* clauses, const Workload& w,
                                                        const Target& t,
                                                        std::optional<int64_t> limit) const {
  db::Statement s(*db_, (kRecordSelect + clauses).c_str());
  s.bind_text(1, w.key()).bind_text(2, t.key());
  if (limit) s.bind_int(3, *limit);
  std::vector<TuningRecord> records;
  while (s.step()) records.push_back(read_record(s, path_));
  return records;
}

std::optional<TuningRecord> TuningDatabase::best(const Workload& w, const Target& t) const {
  std::vector<TuningRecord> one = top_k(w, t, 1);
  if (one.empty()) return std::nullopt;
  return std::move(one.front());
}

std::vector<TuningRecord> TuningDatabase::top_k(const Workload& w, const Target& t, int k) const {
  // Checked here because SQLite reads a negative LIMIT as no limit.
  if (k <= 0) return {};
  const std::string clauses = " AND r.status = 'ok' ORDER BY " + rank_order("r.") + " LIMIT ?3";
  return query_records(clauses.c_str(), w, t, k);
}

std::vector<TuningRecord> TuningDatabase::history(const Workload& w, const Target& t) const {
  return query_records(" ORDER BY r.id", w, t, std::nullopt);
}

bool TuningDatabase::contains(const Workload& w, const Target& t, const ScheduleConfig& c) const {
  // to_json() of a std::map is an object with sorted keys, so equal configs give equal text.
  db::Statement s(*db_, R"sql(
    SELECT EXISTS (
      SELECT 1 FROM records r
      JOIN workloads w ON w.id = r.workload_id
      JOIN targets t ON t.id = r.target_id
      WHERE w.key = ?1 AND t.key = ?2 AND r.schedule_json = ?3)
  )sql");
  s.bind_text(1, w.key()).bind_text(2, t.key()).bind_text(3, c.to_json().dump());
  s.step();
  return s.column_int(0) != 0;
}

std::vector<TuningDatabase::WorkloadSummary> TuningDatabase::workloads(const Target& t) const {
  db::Statement s(*db_, R"sql(
    SELECT w.json, count(*), sum(r.status = 'ok')
    FROM records r
    JOIN workloads w ON w.id = r.workload_id
    JOIN targets t ON t.id = r.target_id
    WHERE t.key = ?1
    GROUP BY w.id
    ORDER BY w.key
  )sql");
  s.bind_text(1, t.key());
  std::vector<WorkloadSummary> summaries;
  while (s.step()) {
    WorkloadSummary summary;
    try {
      summary.workload = Workload::from_json(nlohmann::json::parse(s.column_text(0)));
    } catch (const std::exception& e) {
      throw Error(fmt::format("tuning database {}: a workload is unreadable: {}", path_, e.what()));
    }
    summary.records = static_cast<int>(s.column_int(1));
    summary.ok_records = static_cast<int>(s.column_int(2));
    summaries.push_back(std::move(summary));
  }
  for (WorkloadSummary& summary : summaries) {
    if (const std::optional<TuningRecord> b = best(summary.workload, t)) summary.best_us = b->ranked_us();
  }
  return summaries;
}

std::vector<Target> TuningDatabase::targets() const {
  db::Statement s(*db_, "SELECT halide, fingerprint_json, cache, halide_major FROM targets ORDER BY id");
  std::vector<Target> targets;
  while (s.step()) {
    Target t;
    t.halide = s.column_text(0);
    try {
      t.device = DeviceFingerprint::from_json(nlohmann::json::parse(s.column_text(1)));
      t.cache = cache_state_from_string(s.column_text(2));
      t.halide_major = static_cast<int>(s.column_int(3));
    } catch (const std::exception& e) {
      throw Error(fmt::format("tuning database {}: target {} is unreadable: {}", path_, t.halide, e.what()));
    }
    targets.push_back(std::move(t));
  }
  return targets;
}

std::vector<TuningRecord> TuningDatabase::all_records() const {
  db::Statement s(*db_, (std::string(kRecordColumns) + "ORDER BY r.id").c_str());
  std::vector<TuningRecord> records;
  while (s.step()) records.push_back(read_record(s, path_));
  return records;
}

std::optional<Workload> TuningDatabase::find_workload(const std::string& hash_prefix) const {
  if (hash_prefix.empty()) return std::nullopt;
  // substr/length rather than LIKE: a hash prefix holds no LIKE wildcards to escape then.
  db::Statement s(*db_, "SELECT json FROM workloads WHERE substr(hash, 1, length(?1)) = ?1 ORDER BY key LIMIT 2");
  s.bind_text(1, hash_prefix);
  std::vector<std::string> found;
  while (s.step()) found.push_back(s.column_text(0));
  if (found.empty()) return std::nullopt;
  if (found.size() > 1) {
    throw Error(fmt::format("tuning database {}: workload hash prefix '{}' is ambiguous", path_, hash_prefix));
  }
  return Workload::from_json(nlohmann::json::parse(found.front()));
}

bool TuningDatabase::contains_record(const TuningRecord& r) const {
  db::Statement s(*db_, R"sql(
    SELECT EXISTS (
      SELECT 1 FROM records r
      JOIN workloads w ON w.id = r.workload_id
      JOIN targets t ON t.id = r.target_id
      WHERE w.key = ?1 AND t.key = ?2 AND r.schedule_json = ?3 AND r.created_at = ?4
        AND r.status = ?5 AND r.median_us = ?6)
  )sql");
  s.bind_text(1, r.workload.key()).bind_text(2, r.target.key()).bind_text(3, r.config.to_json().dump());
  s.bind_text(4, r.created_at).bind_text(5, to_string(r.result.status)).bind_double(6, r.result.median_us);
  s.step();
  return s.column_int(0) != 0;
}

std::optional<int64_t> TuningDatabase::find_measurement(const TuningRecord& r) const {
  db::Statement s(*db_, R"sql(
    SELECT r.id FROM records r
    JOIN workloads w ON w.id = r.workload_id
    JOIN targets t ON t.id = r.target_id
    WHERE w.key = ?1 AND t.key = ?2 AND r.schedule_json = ?3 AND r.created_at = ?4 AND r.median_us = ?5
    ORDER BY r.id LIMIT 1
  )sql");
  s.bind_text(1, r.workload.key()).bind_text(2, r.target.key()).bind_text(3, r.config.to_json().dump());
  s.bind_text(4, r.created_at).bind_double(5, r.result.median_us);
  if (!s.step()) return std::nullopt;
  return s.column_int(0);
}

std::vector<TuningRecord> TuningDatabase::remove_where(const std::string& condition,
                                                       const std::function<void(db::Statement&)>& bind) {
  require_writable("delete records");
  db::Transaction transaction(*db_);
  std::vector<TuningRecord> removed;
  {
    db::Statement s(*db_, (std::string(kRecordColumns) + "WHERE r.id IN (" + condition + ") ORDER BY r.id").c_str());
    bind(s);
    while (s.step()) removed.push_back(read_record(s, path_));
  }
  // The same condition under the same write lock deletes exactly the rows just read.
  db::Statement erase(*db_, ("DELETE FROM records WHERE id IN (" + condition + ")").c_str());
  bind(erase);
  erase.step();
  transaction.commit();
  return removed;
}

std::vector<TuningRecord> TuningDatabase::prune_failed_older_than(double days) {
  if (!(days >= 0)) throw Error(fmt::format("tuning database {}: prune age must be >= 0 days", path_));
  // created_at is ISO-8601 UTC text in one format, so text comparison orders by time.
  const std::string cutoff_text = utc_iso8601(std::time(nullptr) - static_cast<std::time_t>(days * 86400));
  return remove_where("SELECT id FROM records WHERE status != 'ok' AND created_at < ?1",
                      [&](db::Statement& s) { s.bind_text(1, cutoff_text); });
}

std::vector<TuningRecord> TuningDatabase::prune_keep_top_k(int k) {
  if (k < 1) throw Error(fmt::format("tuning database {}: prune must keep at least 1 record", path_));
  return remove_where(fmt::format(R"sql(
    SELECT id FROM (
      SELECT id, status, row_number() OVER (PARTITION BY workload_id, target_id
                                            ORDER BY status != 'ok', {}) AS rank
      FROM records)
    WHERE status != 'ok' OR rank > ?1)sql", rank_order("")),
                      [&](db::Statement& s) { s.bind_int(1, k); });
}

}  // namespace nee
