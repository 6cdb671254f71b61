#include "tuner/cli/compare_command.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>

#include "tuner/report/convergence_comparison.h"
#include "tuner/report/convergence_csv.h"

namespace nee {

CLI::App* add_compare_command(CLI::App& app, CompareCommand& command) {
  CLI::App* compare = app.add_subcommand(
      "compare", "compare tuning runs of one workload or model from the CSVs --report writes (e.g. one per strategy)");
  compare->add_option("runs", command.runs, "NAME=FILE.csv or FILE.csv (named by its stem), one per run")
      ->required();
  compare->add_option("--within", command.within, "the level: within this fraction of a best (default 0.1)")
      ->check(CLI::Range(0.0, 10.0));
  compare->add_option("--uniform", command.uniform,
                      "runs (by name) of uniform random draws (--strategy random --no-default-point): also give the "
                      "median trials such draws need for the level, from the run's hit rate, and from all of them pooled "
                      "when two or more are named (--uniform a --uniform b)");
  compare->add_option("--svg", command.svg_path, "also plot every run's curve into this SVG file");
  compare->add_option("--title", command.title, "the plot's title");
  return compare;
}

int run_compare_command(const CompareCommand& command) {
  std::vector<NamedRun> runs;
  for (const std::string& run : command.runs) {
    const size_t eq = run.find('=');
    const std::string path = eq == std::string::npos ? run : run.substr(eq + 1);
    const std::string name = eq == std::string::npos ? std::filesystem::path(path).stem().string() : run.substr(0, eq);
    runs.push_back({name, read_convergence_csv(path)});
  }
  fmt::print("{}", comparison_table(compare_convergence(runs, command.within, command.uniform)));
  if (!command.svg_path.empty()) write_convergence_svg(command.svg_path, command.title, runs);
  return 0;
}

}  // namespace nee
