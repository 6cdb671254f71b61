#include "tuner/cli/db_command.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>

#include "core/error.h"
#include "core/json_numbers.h"
#include "core/workload_speed.h"
#include "tuner/cli/record_screen.h"
#include "tuner/runners/batch_folder.h"

namespace nee {

namespace {

// The bytes of an import file, refusing what is not a regular file (a device or a FIFO
// such as /dev/zero would be read without end) and stopping at kImportFileCap.
std::string read_import_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(path + " is not a regular file of tuning records");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path);
  std::string text;
  // 64 KiB: a 1 MiB buffer was a fresh mapping per import under AddressSanitizer, most
  // of the import fuzzer's time.
  std::vector<char> chunk(64 << 10);
  // Read, not sized from the file's length first: a file still growing is stopped too.
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    text.append(chunk.data(), static_cast<size_t>(in.gcount()));
    if (static_cast<int64_t>(text.size()) > kImportFileCap) {
      throw Error(fmt::format("{}: more than {} bytes ({} MiB), the most an import reads; nothing was added (split "
                              "the export, or merge the database it came from)",
                              path, kImportFileCap, kImportFileCap >> 20));
    }
  }
  return text;
}

// A record line of an import: its line number, and the record or why it is not one.
struct ImportLine {
  int number;
  std::optional<TuningRecord> record;
  std::string unreadable;
};

// The record lines of an export's text; throws nee::Error naming the line where the file
// is damaged (see import_records).
std::vector<ImportLine> parse_export(const std::string& path, const std::string& text) {
  std::vector<ImportLine> lines;
  int header_line = 0;
  std::optional<int64_t> promised;  // by the header of the current section
  int64_t in_section = 0;
  const auto close_section = [&] {
    if (promised && *promised != in_section) {
      throw Error(fmt::format("{}:{}: damaged: the header promises {} record(s), {} follow it (a file cut short or "
                              "spliced); nothing was added",
                              path, header_line, *promised, in_section));
    }
  };
  bool any = false;
  size_t start = 0;
  for (int number = 1; start < text.size(); ++number) {
    const size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    if (static_cast<int64_t>(line.size()) > kImportLineCap) {
      throw Error(fmt::format("{}:{}: damaged: a line of {} bytes, over the {} bytes one record may take; nothing was "
                              "added",
                              path, number, line.size(), kImportLineCap));
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (end == std::string::npos) {
      throw Error(fmt::format("{}:{}: damaged: the last line has no line end (the file was cut short); nothing was "
                              "added",
                              path, number));
    }
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const std::exception& e) {
      throw Error(fmt::format("{}:{}: damaged: not JSON ({}); nothing was added", path, number, e.what()));
    }
    if (!j.is_object()) throw Error(fmt::format("{}:{}: damaged: not a JSON object; nothing was added", path, number));
    if (j.contains("format")) {
      const nlohmann::json& format = j["format"];
      const nlohmann::json& version = j.value("version", nlohmann::json());
      const nlohmann::json& records = j.value("records", nlohmann::json());
      if (format != kExportFormat || !version.is_number_integer() || !records.is_number_integer() || records < 0) {
        throw Error(fmt::format("{}:{}: not the header of an export of NEE tuning records: {}", path, number,
                                line.substr(0, 200)));
      }
      if (version > kExportVersion) {
        throw Error(fmt::format("{}:{}: written by a newer NEE (export format version {}; this build reads up to {})",
                                path, number, version.get<int64_t>(), kExportVersion));
      }
      close_section();
      header_line = number;
      promised = records.get<int64_t>();
      in_section = 0;
      any = true;
      continue;
    }
    any = true;
    ++in_section;
    ImportLine parsed{number, std::nullopt, ""};
    try {
      parsed.record = record_from_json(j);
    } catch (const std::exception& e) {
      parsed.unreadable = fmt::format("not a tuning record this build reads: {}", e.what());
    }
    lines.push_back(std::move(parsed));
  }
  close_section();
  if (!any) {
    throw Error(fmt::format("{}: damaged: no header and no record (nee-tune db export always writes its header "
                            "line)",
                            path));
  }
  return lines;
}

// Records from elsewhere, screened: those to add, and those refused with their reason.
struct Screened {
  std::vector<TuningRecord> accepted;
  std::vector<RefusedRecord> refused;
};

Screened screen_lines(const std::string& path, const std::vector<ImportLine>& lines) {
  Screened screened;
  RecordScreen screen;
  for (const ImportLine& line : lines) {
    const std::string problem = line.record ? screen.problem(*line.record) : line.unreadable;
    if (problem.empty()) {
      screened.accepted.push_back(*line.record);
    } else {
      screened.refused.push_back({fmt::format("{}:{}", path, line.number), problem});
    }
  }
  return screened;
}

// Every record of another database, opened read-only (never migrated nor written).
Screened screen_database(const std::string& path) {
  const TuningDatabase other(path, DbAccess::read_only);
  Screened screened;
  RecordScreen screen;
  for (TuningRecord& r : other.all_records()) {
    const std::string problem = screen.problem(r);
    if (problem.empty()) {
      screened.accepted.push_back(std::move(r));
    } else {
      screened.refused.push_back({fmt::format("{}: record {}", path, r.id), problem});
    }
  }
  return screened;
}

ImportCounts add_screened(TuningDatabase& db, Screened screened) {
  const TuningDatabase::AddCounts added = db.add_new_records(screened.accepted);
  ImportCounts counts;
  counts.added = added.added;
  counts.already_present = added.already_present;
  counts.refused = std::move(screened.refused);
  return counts;
}

// Whether an import, import-results or merge stores what it accepted, or counts it and
// undoes it: a dry run, or --all-or-nothing once a record was refused.
struct Storing {
  bool store;
  const char* note;  // said after the counts
};

Storing storing(const DbCommand& command, bool any_refused) {
  if (command.dry_run) return {false, " (dry run: nothing was stored)"};
  if (command.all_or_nothing && any_refused) return {false, " (--all-or-nothing: nothing was stored)"};
  return {true, ""};
}

// The database that change is made in. Counting against a database that does not exist
// yet is done in an empty one in memory: it must not create the file.
TuningDatabase open_for_change(const std::string& path, const Storing& how) {
  std::error_code ec;
  if (!how.store && !std::filesystem::exists(path, ec)) return TuningDatabase(":memory:");
  return TuningDatabase(path);
}

// Runs `body` in one transaction: stored, or counted and undone.
void change(TuningDatabase& db, const Storing& how, const std::function<void()>& body) {
  if (how.store) {
    db.atomically(body);
  } else {
    db.rehearse(body);
  }
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
    fmt::print("  {:>6} {:>6} {:<13} {:<13} {:>11} {:>11} {:>11} {:>17}  {}\n", "id", "trial", "strategy", "status",
               "median us", "confirmed", "predicted", "in model/default", "schedule");
    for (const TuningRecord& r : history) {
      fmt::print("  {:>6} {:>6} {:<13} {:<13} {:>11.2f} {:>11} {:>11} {:>17}  {}\n", r.id, r.trial, r.strategy,
                 to_string(r.result.status), r.result.median_us,
                 r.confirmed_us ? fmt::format("{:.2f}", *r.confirmed_us) : "-",
                 r.predicted_us ? fmt::format("{:.2f}", *r.predicted_us) : "-",
                 r.in_model ? fmt::format("{:.2f}/{:.2f}", r.in_model->tuned_us, r.in_model->default_us) : "-",
                 r.config.to_string());
    }
  }
}

void print_best(const TuningDatabase& db) {
  for (const Target& t : db.targets()) {
    fmt::print("target {}\n", t.key());
    for (const auto& s : db.workloads(t)) {
      const std::optional<TuningRecord> best = db.best(s.workload, t);
      if (!best) continue;
      fmt::print("  {:<16} {:>11.2f} us {:>15} {:<9} {:<18}  {}\n", s.workload.hash(), best->ranked_us(),
                 speed_text(s.workload, best->ranked_us()), best->confirmed_us ? "confirmed" : "",
                 best->slower_in_model() ? "slower in the model" : "", best->config.to_string());
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
          {"in_model", r.in_model ? nlohmann::json{{"tuned_us", r.in_model->tuned_us},
                                                   {"default_us", r.in_model->default_us}}
                                  : nlohmann::json()},
          {"provenance", provenance}};
}

TuningRecord record_from_json(const nlohmann::json& j) {
  TuningRecord r;
  r.workload = Workload::from_json(j.at("workload"));
  r.target = Target::from_json(j.at("target"));
  r.config = ScheduleConfig::from_json(j.at("schedule"));
  r.result = MeasureResult::from_json(j.at("result"));
  if (j.contains("confirmed_us") && !j["confirmed_us"].is_null()) r.confirmed_us = j["confirmed_us"].get<double>();
  if (j.contains("in_model") && !j["in_model"].is_null()) {
    r.in_model = InModelTimes{j["in_model"].at("tuned_us").get<double>(), j["in_model"].at("default_us").get<double>()};
  }
  const nlohmann::json& p = j.at("provenance");
  r.id = json_int_or(p, "id", 0);
  r.strategy = p.at("strategy").get<std::string>();
  r.trial = json_int32(p.at("trial"), "trial");
  if (p.contains("parent_record") && !p["parent_record"].is_null()) {
    r.parent_record = json_int(p["parent_record"], "parent_record");
  }
  if (p.contains("predicted_us") && !p["predicted_us"].is_null()) r.predicted_us = p["predicted_us"].get<double>();
  r.created_at = p.at("created_at").get<std::string>();
  r.nee_version = p.at("nee_version").get<std::string>();
  r.halide_version = p.at("halide_version").get<std::string>();
  return r;
}

int export_records(const TuningDatabase& db, const std::string& path) {
  const std::vector<TuningRecord> records = db.all_records();
  std::ofstream out(path);
  if (!out) throw Error("cannot write " + path);
  const nlohmann::json header = {{"format", kExportFormat}, {"version", kExportVersion}, {"records", records.size()}};
  out << header.dump() << '\n';
  for (const TuningRecord& r : records) out << record_to_json(r).dump() << '\n';
  out.close();
  if (!out) throw Error("writing " + path + " failed");
  return static_cast<int>(records.size());
}

ImportCounts import_records(TuningDatabase& db, const std::string& path) {
  // Everything is read, parsed and screened before anything is added, so a damaged file
  // adds nothing.
  return add_screened(db, screen_lines(path, parse_export(path, read_import_file(path))));
}

ImportCounts merge_database(TuningDatabase& db, const std::string& other_path) {
  return add_screened(db, screen_database(other_path));
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
  CLI::App* imp = db->add_subcommand(
      "import",
      "add the records of a JSON-lines export (kept with their own target); records with a schedule outside its "
      "space or an impossible time are refused and named, the rest added (exit status 2 when any was refused); a "
      "damaged file adds nothing");
  imp->add_option("file", command.argument, "exported file")->required()->check(CLI::ExistingFile);
  imp->callback(action("import"));
  const char* dry_run_help = "read, screen and count against the database, then store nothing";
  const char* all_or_nothing_help = "store nothing when any record is refused (exit status 2, counts printed)";
  imp->add_flag("--dry-run", command.dry_run, dry_run_help);
  imp->add_flag("--all-or-nothing", command.all_or_nothing, all_or_nothing_help);
  CLI::App* results = db->add_subcommand(
      "import-results", "add what a batch folder's nee-measure --batch measured (kept with the measuring device; "
      "screened as an import's records are: a refused one is named and the exit status is 2; what is accepted is "
      "stored in one transaction)");
  results->add_option("folder", command.argument, "batch folder (from nee-tune pack)")->required();
  results->callback(action("import-results"));
  results->add_flag("--dry-run", command.dry_run, dry_run_help);
  results->add_flag("--all-or-nothing", command.all_or_nothing, all_or_nothing_help);
  CLI::App* merge = db->add_subcommand(
      "merge", "add the records of another tuning database (read, never written), screened as import screens them");
  merge->add_option("other", command.argument, "the other database")->required()->check(CLI::ExistingFile);
  merge->callback(action("merge"));
  merge->add_flag("--dry-run", command.dry_run, dry_run_help);
  merge->add_flag("--all-or-nothing", command.all_or_nothing, all_or_nothing_help);
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
    // Screened as an export's records are: the folder came back from another machine.
    std::vector<BatchRecord> records;
    std::vector<RefusedRecord> refused;
    RecordScreen screen;
    for (BatchRecord& b : batch_records(command.argument)) {
      TuningRecord ranked = b.record;
      if (b.confirmation && b.confirmation->status == MeasureStatus::ok) {
        ranked.confirmed_us = b.confirmation->median_us;
      }
      const std::string problem = screen.problem(ranked);
      if (problem.empty()) {
        records.push_back(std::move(b));
      } else {
        refused.push_back({fmt::format("{}: candidate {}", command.argument, b.record.config.to_string()), problem});
      }
    }
    const Storing how = storing(command, !refused.empty());
    TuningDatabase db = open_for_change(db_path, how);
    BatchImportCounts c;
    change(db, how, [&] { c = import_batch_records(db, records); });
    for (const RefusedRecord& r : refused) fmt::print(stderr, "nee-tune: {}: refused: {}\n", r.where, r.reason);
    fmt::print("{}: {} {} record(s), {} already present, {} confirmation(s) {}, {} refused{}\n", command.argument,
               how.store ? "added" : "would add", c.added, c.already_present, c.confirmed,
               how.store ? "applied" : "to apply", refused.size(), how.note);
    return refused.empty() ? 0 : 2;
  }
  if (command.action == "import" || command.action == "merge") {
    // Read and screened before the database is opened: a damaged file or a missing
    // other database leaves no trace, not even a new empty database.
    const std::string& file = command.argument;
    Screened screened = command.action == "import" ? screen_lines(file, parse_export(file, read_import_file(file)))
                                                   : screen_database(file);
    const Storing how = storing(command, !screened.refused.empty());
    TuningDatabase db = open_for_change(db_path, how);
    ImportCounts c;
    change(db, how, [&] { c = add_screened(db, std::move(screened)); });
    for (const RefusedRecord& r : c.refused) fmt::print(stderr, "nee-tune: {}: refused: {}\n", r.where, r.reason);
    fmt::print("{}: {} {} record(s), {} already present, {} refused{}\n", command.argument,
               how.store ? "added" : "would add", c.added, c.already_present, c.refused.size(), how.note);
    // 2, not 1: the file was read, and the other records added or counted.
    return c.refused.empty() ? 0 : 2;
  }
  const bool reads_only = command.action == "list" || command.action == "show" || command.action == "best" ||
                          command.action == "export";
  TuningDatabase db(db_path, reads_only ? DbAccess::read_only : DbAccess::read_write);
  if (command.action == "list") {
    print_list(db);
  } else if (command.action == "show") {
    print_show(db, command.argument);
  } else if (command.action == "best") {
    print_best(db);
  } else if (command.action == "export") {
    const int n = export_records(db, command.argument);
    fmt::print("exported {} record(s) to {}\n", n, command.argument);
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
