#pragma once
#include <string>

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
};

// Adds the `db` subcommand and its subcommands to `app`; the parsed values land in `command`.
CLI::App* add_db_command(CLI::App& app, DbCommand& command);
// Runs a parsed `db` command, printing to stdout; returns the exit status.
int run_db_command(const DbCommand& command, const std::string& default_db_path);

// One record as exported: {"workload", "target", "schedule", "result", "provenance"}.
// The provenance keeps the record's id and parent_record in the exporting file.
nlohmann::json record_to_json(const TuningRecord& record);
TuningRecord record_from_json(const nlohmann::json& j);

struct ImportCounts {
  int added = 0;
  int already_present = 0;  // same workload, target, schedule, time, status and median
};
// Writes every record as one JSON line; returns how many.
int export_records(const TuningDatabase& db, const std::string& path);
// Adds the records of a JSON-lines file (or of another database), each with its own
// target: records measured elsewhere never count as measured on this machine, since
// best() and history() are per target key. Ids are the other file's, so parent_record
// is not kept. A record whose ranking time is not a positive finite number, or a path
// that is not a regular file, is refused, and then nothing is added.
ImportCounts import_records(TuningDatabase& db, const std::string& path);
ImportCounts merge_database(TuningDatabase& db, const std::string& other_path);

}  // namespace nee
