#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/records.h"
#include "tuning-db/process_identity.h"

namespace nee {

namespace db {
class Connection;
class Statement;
}

// Reading commands open a file read-only: it is never written (not even its journal
// mode or a migration), so a file this user cannot write can still be listed.
enum class DbAccess { read_write, read_only };

// What claim() found for a schedule.
enum class ScheduleClaim {
  claimed,   // this connection holds it now: measure it
  measured,  // a record of it is stored already
  taken,     // another tuner, still running, is measuring it
};

// The measurements of every schedule tried, per workload and target, in one SQLite file
// shared by tuner runs (and by several tuner processes at once: WAL mode, writers wait
// up to 5 s for each other). One object is one connection: use it from one thread at a time.
class TuningDatabase {
 public:
  // $NEE_DB if set, else default_location().
  static std::string default_path();
  // $XDG_DATA_HOME/nee/tuning.db, else $HOME/.local/share/nee/tuning.db: the one path
  // whose missing folders are created.
  static std::string default_location();

  // read_write: opens or creates the file and migrates an older schema in one
  // transaction; the folders of default_location() are created, but a folder missing
  // from any other path is an error naming it, and so is a file this user cannot write.
  // read_only: opens an existing file without writing to it; an older schema is read
  // through a copy in memory migrated there, and every write method throws. Throws
  // nee::Error if the file is not a SQLite database, belongs to another application,
  // or has a newer schema than this build reads; such a file is left untouched.
  explicit TuningDatabase(const std::string& path, DbAccess access = DbAccess::read_write);
  // Releases the claims this connection still holds.
  ~TuningDatabase();
  TuningDatabase(TuningDatabase&&) noexcept;
  TuningDatabase& operator=(TuningDatabase&&) noexcept;

  const std::string& path() const { return path_; }
  // The file's schema version (a read-only database of an older one is read at the
  // latest through its copy in memory).
  int schema_version() const { return schema_version_; }
  static int latest_schema_version();
  bool read_only() const { return read_only_; }

  // Stores the record, with its target and workload (each kept once, by key), in one
  // committed transaction, and drops any claim of its schedule. record.id is ignored;
  // created_at and nee_version are filled in when empty. Returns the new record's id.
  int64_t add_record(const TuningRecord& record);

  struct AddCounts {
    int added = 0;
    int already_present = 0;  // contains_record() was true
  };
  // Stores each record that contains_record() does not find, without its parent_record
  // (the ids of another file), all in ONE transaction: if any fails, none is stored.
  AddCounts add_new_records(const std::vector<TuningRecord>& records);

  // Runs `body`, which calls this object's writing methods, in ONE transaction: all of
  // it is stored, or none of it when body throws (the exception then propagates).
  void atomically(const std::function<void()>& body);
  // Runs `body` in one transaction and then undoes it, whatever it did: what a change
  // would do, counted against this database, with nothing stored (`db import --dry-run`).
  void rehearse(const std::function<void()>& body);

  // Claims a schedule before it is measured, so that tuners sharing the file measure
  // each point once: under the write lock (BEGIN IMMEDIATE) it is `measured` if a record
  // of it is stored, `taken` if another connection's claim stands, else this
  // connection's claim is stored and it is `claimed`. A claim stands while its process
  // runs: on this host that is checked by pid and start time, so a killed tuner's
  // claims are taken over at once; a claim from another host (a file shared over a
  // network) stands for kClaimLeaseSeconds. add_record() drops the claim it fulfils.
  ScheduleClaim claim(const Workload& w, const Target& t, const ScheduleConfig& c);
  // Drops every claim this connection still holds (points a stop left unmeasured).
  void release_claims();
  // The longest build and measurement of one batch: two baselines building in parallel
  // may take baseline_build_timeout_s (900 s) before they are measured.
  static constexpr double kClaimLeaseSeconds = 3600;

  // The outcome of re-measuring a stored record (WorkloadTuner::confirm), committed at
  // once. An ok re-measurement sets confirmed_us, which then ranks the record; a failed
  // one (a wrong result on fresh inputs, a crash, a timeout) gives the record that status,
  // with the error prefixed "on re-measurement: ", so it can never be best. Throws
  // nee::Error for an unknown id or a time that is not finite and positive.
  void set_confirmed_us(int64_t record_id, double confirmed_us);
  void set_failed_on_recheck(int64_t record_id, const MeasureResult& failure);
  // Its kernel's time in a model run against its default schedule's (TuningRecord::in_model),
  // replacing any earlier; committed at once. Throws nee::Error for an unknown id or a time
  // that is not finite and positive.
  void set_in_model_times(int64_t record_id, const InModelTimes& times);

  // Only records with status ok on exactly this target key (Halide string + fingerprint
  // hash) count. Ranked first: records re-measured (by confirmed_us) and records that are
  // no search's pick (default, baselines, transferred points: measured once, not the
  // fastest of many noisy samples; by median_us); then a search's unconfirmed picks, by
  // median_us. Ties go to the older record.
  std::optional<TuningRecord> best(const Workload& w, const Target& t) const;
  std::vector<TuningRecord> top_k(const Workload& w, const Target& t, int k) const;  // ascending rank
  std::vector<TuningRecord> history(const Workload& w, const Target& t) const;      // all statuses, by id

  // Whether this schedule was already measured (any status) for this workload and target.
  bool contains(const Workload& w, const Target& t, const ScheduleConfig& c) const;

  struct WorkloadSummary {
    Workload workload;
    int records;
    int ok_records;
    std::optional<double> best_us;
  };
  // Every workload with records on this target, ordered by workload key.
  std::vector<WorkloadSummary> workloads(const Target& t) const;
  // Every target in the file, in the order they were first stored.
  std::vector<Target> targets() const;

  // Every record of every workload and target, by id.
  std::vector<TuningRecord> all_records() const;
  // The workload whose hash starts with `hash_prefix`; nullopt if none; throws
  // nee::Error if several do.
  std::optional<Workload> find_workload(const std::string& hash_prefix) const;
  // Whether a record with the same workload, target, schedule, creation time, status
  // and median is stored: an import or merge of the same file twice adds nothing.
  bool contains_record(const TuningRecord& r) const;
  // The id of a stored record of the same measurement (workload, target, schedule,
  // creation time and median), whatever its status and confirmed time became since:
  // how a batch folder's import finds what an earlier import of it stored.
  std::optional<int64_t> find_measurement(const TuningRecord& r) const;

  // Each prune deletes in one transaction and returns the records it deleted, by id.
  // Records not ok whose created_at is more than `days` ago.
  std::vector<TuningRecord> prune_failed_older_than(double days);
  // Keeps, per workload and target, only the k fastest ok records (failed ones go too).
  std::vector<TuningRecord> prune_keep_top_k(int k);

 private:
  std::vector<TuningRecord> remove_where(const std::string& id_query,
                                         const std::function<void(db::Statement&)>& bind);
  std::vector<TuningRecord> query_records(const char* clauses, const Workload& w, const Target& t,
                                          std::optional<int64_t> limit) const;
  void open_for_writing();
  void open_for_reading();
  // Throws nee::Error naming the file and `doing` when opened read-only.
  void require_writable(const char* doing) const;
  // Inserts inside the caller's transaction; returns the new id.
  int64_t insert_record(const TuningRecord& record);
  bool claim_stands(const db::Statement& claim_row) const;

  std::string path_;
  std::unique_ptr<db::Connection> db_;
  int schema_version_ = 0;
  bool read_only_ = false;
  db::ProcessIdentity owner_;   // this connection's process, as the owner of its claims
  int64_t connection_id_ = 0;   // random: tells this connection's claims from the process's others
  bool holds_claims_ = false;
};

}  // namespace nee
