#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/records.h"
#include "tuning-db/tuning_database.h"

namespace CLI {
class App;
}

namespace nee {

// `nee-tune db ...`: inspect and move tuning records between databases.
struct DbCommand {
  std::string action;    // list, show, best, export, import, import-results, merge, prune
  std::string argument;  // show: workload hash (prefix); export/import: JSON-lines file; import-results:
                         // batch folder; merge: database
  std::string db_path;   // empty: the nee-tune --db value, else TuningDatabase::default_path()
  double failed_older_than_days = -1;  // prune: drop records not ok older than this
  int keep_top = 0;                    // prune: keep the k fastest ok records per workload and target
  bool dry_run = false;                // import, import-results, merge: count what would be stored, store nothing
  bool all_or_nothing = false;         // import, import-results, merge: store nothing when a record is refused
};

// Adds the `db` subcommand and its subcommands to `app`; the parsed values land in `command`.
CLI::App* add_db_command(CLI::App& app, DbCommand& command);
// Runs a parsed `db` command, printing to stdout; returns the exit status.
int run_db_command(const DbCommand& command, const std::string& default_db_path);

// One record as exported: {"workload", "target", "schedule", "result", "provenance"}.
// The provenance keeps the record's id and parent_record in the exporting file.
nlohmann::json record_to_json(const TuningRecord& record);
TuningRecord record_from_json(const nlohmann::json& j);

// The first line of an export: {"format": kExportFormat, "version": kExportVersion,
// "records": N}. Its count tells a file cut short at a line end from a whole one.
inline constexpr const char* kExportFormat = "nee-tuning-records";
inline constexpr int kExportVersion = 1;
// What an import reads at most. An exported record is about 1 KB (986 bytes for a
// matmul, 1079 for a Winograd conv2d, measured), so the file cap holds some 250,000
// records and the line cap 60 times the longest measured.
inline constexpr int64_t kImportFileCap = int64_t{256} << 20;
inline constexpr int64_t kImportLineCap = int64_t{64} << 10;

// A record of an import or merge that was not stored, and why.
struct RefusedRecord {
  std::string where;  // "FILE:LINE" for an import, "FILE: record ID" for a merge
  std::string reason;
};

struct ImportCounts {
  int added = 0;
  int already_present = 0;  // same workload, target, schedule, time, status and median
  std::vector<RefusedRecord> refused;
};
// Writes the header line and every record as one JSON line; returns how many records.
int export_records(const TuningDatabase& db, const std::string& path);
// Adds the records of an export (or of another database, opened read-only), each with
// its own target: records measured elsewhere never count as measured on this machine,
// since best() and history() are per target key. Ids are the other file's, so
// parent_record is not kept.
// Each record is screened: a ranking time (an ok record's median, a confirmed time) must
// be a positive number below the target's physical ceiling (speed_ceiling), and the
// schedule a point of its workload's space on its target (or an autoscheduler
// baseline). A record that fails is refused, named with its reason, and the rest are
// added in one transaction.
// A damaged file adds nothing and throws nee::Error naming the line: a line that is not
// JSON (a truncated line), a last line without its line end, a header whose count the
// records after it do not match, an empty file, a line over kImportLineCap, a file over
// kImportFileCap, a path that is not a regular file. A file without a header (exported
// before the header existed) is read as records only.
ImportCounts import_records(TuningDatabase& db, const std::string& path);
ImportCounts merge_database(TuningDatabase& db, const std::string& other_path);

}  // namespace nee
