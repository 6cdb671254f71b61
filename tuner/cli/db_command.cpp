#include "tuner/cli/db_command.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.h"
#include "core/workload_speed.h"
#include "tuner/runners/batch_folder.h"

namespace nee {

namespace {

// Why a record from elsewhere must not be stored, or empty: a time that would rank it
// (an ok record's median, a confirmed time) must be a positive finite number, so that a
// poisoned export cannot make its record the best.
std::string record_problem(const TuningRecord& r) {
  const auto bad = [](double us) { return !std::isfinite(us) || us <= 0; };
  if (r.result.status == MeasureStatus::ok && bad(r.result.median_us)) {
    return fmt::format("an ok record with median time {} us", r.result.median_us);
  }
  if (r.confirmed_us && bad(*r.confirmed_us)) return fmt::format("a confirmed time of {} us", *r.confirmed_us);
  return "";
}

ImportCounts add_all(TuningDatabase& db, std::vector<TuningRecord> records) {
  ImportCounts counts;
  for (TuningRecord& r : records) {
    if (db.contains_record(r)) {
      ++counts.already_present;
      continue;
    }
    r.parent_record.reset();
    db.add_record(r);
    ++counts.added;
  }
  return counts;
}

void print_list(const TuningDatabase& db) {
  for (const Target& t : db.targets()) {
    fmt::print("target {}\n", t.key());
    fmt::print("  {:<16} {:>7} {:>5} {:>12} {:>15}  {}\n", "hash", "records", "ok", "best us", "speed", "workload");
    for (const auto& s : db.workloads(t)) {
      fmt::print("  {:<16} {:>7} {:>5} {:>12} {:>15}  {}\n", s.workload.hash(), s.records, s.ok_records,
                 s.best_us ? fmt::format("{:.2f}", *s.best_us) : "-",
                 s.best_us ? speed_text(s.workload, *s.best_us) : "-", s.workload.key());
    }
  }
}

void print_show(const TuningDatabase& db, const std::string& hash) {
  const std::optional<Workload> w = db.find_workload(hash);
  if (!w) throw Error(fmt::format("no workload with hash '{}' in {}", hash, db.path()));
  fmt::print("workload {} {}\n", w->hash(), w->key());
  for (const Target& t : db.targets()) {
    const std::vector<TuningRecord> history = db.history(*w, t);
    if (history.empty()) continue;
    fmt::print("target {}\n", t.key());
    fmt::print("  {:>6} {:>6} {:<13} {:<13} {:>11} {:>11} {:>11}  {}\n", "id", "trial", "strategy", "status",
               "median us", "confirmed", "predicted", "schedule");
    for (const TuningRecord& r : history) {
      fmt::print("  {:>6} {:>6} {:<13} {:<13} {:>11.2f} {:>11} {:>11}  {}\n", r.id, r.trial, r.strategy,
                 to_string(r.result.status), r.result.median_us,
                 r.confirmed_us ? fmt::format("{:.2f}", *r.confirmed_us) : "-",
                 r.predicted_us ? fmt::format("{:.2f}", *r.predicted_us) : "-", r.config.to_string());
    }
  }
}

void print_best(const TuningDatabase& db) {
  for (const Target& t : db.targets()) {
    fmt::print("target {}\n", t.key());
    for (const auto& s : db.workloads(t)) {
      const std::optional<TuningRecord> best = db.best(s.workload, t);
      if (!best) continue;
      fmt::print("  {:<16} {:>11.2f} us {:>15} {:<9}  {}\n", s.workload.hash(), best->ranked_us(),
                 speed_text(s.workload, best->ranked_us()), best->confirmed_us ? "confirmed" : "",
                 best->config.to_string());
    }
  }
}

void print_removed(const std::vector<TuningRecord>& removed, const std::string& why) {
  fmt::print("removed {} record(s) ({})\n", removed.size(), why);
  std::map<std::pair<std::string, std::string>, int> by_workload_status;
  for (const TuningRecord& r : removed) ++by_workload_status[{r.workload.hash(), to_string(r.result.status)}];
  for (const auto& [key, n] : by_workload_status) fmt::print("  {} {}: {}\n", key.first, key.second, n);
}

}  // namespace

nlohmann::json record_to_json(const TuningRecord& r) {
  nlohmann::json provenance = {{"id", r.id},
                               {"strategy", r.strategy},
                               {"trial", r.trial},
                               {"parent_record", r.parent_record ? nlohmann::json(*r.parent_record) : nlohmann::json()},
                               {"predicted_us", r.predicted_us ? nlohmann::json(*r.predicted_us) : nlohmann::json()},
                               {"created_at", r.created_at},
                               {"nee_version", r.nee_version},
                               {"halide_version", r.halide_version}};
  return {{"workload", r.workload.to_json()},
          {"target", r.target.to_json()},
          {"schedule", r.config.to_json()},
          {"result", r.result.to_json()},
          {"confirmed_us", r.confirmed_us ? nlohmann::json(*r.confirmed_us) : nlohmann::json()},
          {"provenance", provenance}};
}

TuningRecord record_from_json(const nlohmann::json& j) {
  TuningRecord r;
  r.workload = Workload::from_json(j.at("workload"));
  r.target = Target::from_json(j.at("target"));
  r.config = ScheduleConfig::from_json(j.at("schedule"));
  r.result = MeasureResult::from_json(j.at("result"));
  if (j.contains("confirmed_us") && !j["confirmed_us"].is_null()) r.confirmed_us = j["confirmed_us"].get<double>();
  const nlohmann::json& p = j.at("provenance");
  r.id = p.value("id", int64_t{0});
  r.strategy = p.at("strategy").get<std::string>();
  r.trial = p.at("trial").get<int>();
  if (p.contains("parent_record") && !p["parent_record"].is_null()) r.parent_record = p["parent_record"].get<int64_t>();
  if (p.contains("predicted_us") && !p["predicted_us"].is_null()) r.predicted_us = p["predicted_us"].get<double>();
  r.created_at = p.at("created_at").get<std::string>();
  r.nee_version = p.at("nee_version").get<std::string>();
  r.halide_version = p.at("halide_version").get<std::string>();
  return r;
}

int export_records(const TuningDatabase& db, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw Error("cannot write " + path);
  int n = 0;
  for (const TuningRecord& r : db.all_records()) {
    out << record_to_json(r).dump() << '\n';
    ++n;
  }
  out.close();
  if (!out) throw Error("writing " + path + " failed");
  return n;
}

ImportCounts import_records(TuningDatabase& db, const std::string& path) {
  std::error_code ec;
  // A device or a FIFO (/dev/zero) would be read without end.
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(path + " is not a regular file of tuning records");
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path);
  std::vector<TuningRecord> records;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      records.push_back(record_from_json(nlohmann::json::parse(line)));
    } catch (const std::exception& e) {
      throw Error(fmt::format("{}:{}: not a tuning record: {}", path, number, e.what()));
    }
    const std::string problem = record_problem(records.back());
    if (!problem.empty()) throw Error(fmt::format("{}:{}: refused: {}", path, number, problem));
  }
  // Everything is parsed before anything is added, so a malformed file adds nothing.
  return add_all(db, std::move(records));
}

ImportCounts merge_database(TuningDatabase& db, const std::string& other_path) {
  const TuningDatabase other(other_path);
  std::vector<TuningRecord> records = other.all_records();
  for (const TuningRecord& r : records) {
    const std::string problem = record_problem(r);
    if (!problem.empty()) throw Error(fmt::format("{}: record {} refused: {}", other_path, r.id, problem));
  }
  return add_all(db, std::move(records));
}

CLI::App* add_db_command(CLI::App& app, DbCommand& command) {
  CLI::App* db = app.add_subcommand("db", "inspect, export, import, merge and prune tuning records");
  db->add_option("--db", command.db_path, "tuning database (default: nee-tune's --db, $NEE_DB or ~/.local/share/nee/tuning.db)");
  db->require_subcommand(1);
  const auto action = [&command](const char* name) { return [&command, name] { command.action = name; }; };
  db->add_subcommand("list", "workloads with record counts and best time, per target")->callback(action("list"));
  CLI::App* show = db->add_subcommand("show", "every record of one workload");
  show->add_option("hash", command.argument, "workload hash (a unique prefix is enough)")->required();
  show->callback(action("show"));
  db->add_subcommand("best", "the best record of each workload, per target")->callback(action("best"));
  CLI::App* exp = db->add_subcommand("export", "write every record as JSON lines");
  exp->add_option("file", command.argument, "output file")->required();
  exp->callback(action("export"));
  CLI::App* imp = db->add_subcommand("import", "add the records of a JSON-lines export (kept with their own target)");
  imp->add_option("file", command.argument, "exported file")->required()->check(CLI::ExistingFile);
  imp->callback(action("import"));
  CLI::App* results = db->add_subcommand(
      "import-results", "add what a batch folder's nee-measure --batch measured (kept with the measuring device)");
  results->add_option("folder", command.argument, "batch folder (from nee-tune pack)")->required();
  results->callback(action("import-results"));
  CLI::App* merge = db->add_subcommand("merge", "add the records of another tuning database");
  merge->add_option("other", command.argument, "the other database")->required()->check(CLI::ExistingFile);
  merge->callback(action("merge"));
  CLI::App* prune = db->add_subcommand("prune", "delete records, printing what was removed");
  auto* older = prune->add_option("--failed-older-than", command.failed_older_than_days,
                                  "delete failed records older than this many days")
                    ->check(CLI::NonNegativeNumber);
  auto* top = prune->add_option("--keep-top", command.keep_top,
                                "keep only the K fastest ok records per workload and target")
                  ->check(CLI::PositiveNumber);
  older->excludes(top);
  prune->callback(action("prune"));
  return db;
}

int run_db_command(const DbCommand& command, const std::string& default_db_path) {
  const std::string db_path = command.db_path.empty() ? default_db_path : command.db_path;
  if (command.action == "import-results") {
    // The whole folder is read and checked before the database is opened.
    const std::vector<BatchRecord> records = batch_records(command.argument);
    TuningDatabase db(db_path);
    const BatchImportCounts c = import_batch_records(db, records);
    fmt::print("{}: added {} record(s), {} already present, {} confirmation(s) applied\n", command.argument, c.added,
               c.already_present, c.confirmed);
    return 0;
  }
  TuningDatabase db(db_path);
  if (command.action == "list") {
    print_list(db);
  } else if (command.action == "show") {
    print_show(db, command.argument);
  } else if (command.action == "best") {
    print_best(db);
  } else if (command.action == "export") {
    const int n = export_records(db, command.argument);
    fmt::print("exported {} record(s) to {}\n", n, command.argument);
  } else if (command.action == "import" || command.action == "merge") {
    const ImportCounts c = command.action == "import" ? import_records(db, command.argument)
                                                      : merge_database(db, command.argument);
    fmt::print("{}: added {} record(s), {} already present\n", command.argument, c.added, c.already_present);
  } else if (command.action == "prune") {
    if (command.failed_older_than_days >= 0) {
      print_removed(db.prune_failed_older_than(command.failed_older_than_days),
                    fmt::format("failed, older than {} days", command.failed_older_than_days));
    } else if (command.keep_top > 0) {
      print_removed(db.prune_keep_top_k(command.keep_top),
                    fmt::format("beyond the {} fastest ok per workload and target", command.keep_top));
    } else {
      throw Error("db prune needs --failed-older-than DAYS or --keep-top K");
    }
  } else {
    throw Error("unknown db command '" + command.action + "'");
  }
  return 0;
}

}  // namespace nee
