#pragma once
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace nee {

// `nee-tune compare RUN.csv...`: runs of one workload (or model) side by side, from the
// CSVs that `--report` writes: trials each needed to come within a fraction of its own
// best and of the best of all (and, for runs of uniform draws, the median trials such
// draws need, from each run's hit rate and from two or more runs pooled), and one plot
// of every curve.
struct CompareCommand {
  std::vector<std::string> runs;     // NAME=FILE or FILE (named by the file's stem)
  std::vector<std::string> uniform;  // names of runs that drew uniform random points
  double within = 0.1;
  std::string svg_path;  // empty: no plot
  std::string title = "convergence";
};

// Adds the `compare` subcommand to `app`; the parsed values land in `command`.
CLI::App* add_compare_command(CLI::App& app, CompareCommand& command);
// Runs a parsed `compare` command, printing the table to stdout; returns the exit status.
int run_compare_command(const CompareCommand& command);

}  // namespace nee
