#include "tuner/report/convergence_csv.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/error.h"

namespace nee {

void write_convergence_csv(const std::string& path, const std::vector<ConvergenceStep>& steps) {
  std::ofstream out(path);
  out << "trial,seconds,best_us\n";
  for (const ConvergenceStep& s : steps) out << fmt::format("{},{:.3f},{:.3f}\n", s.measured, s.seconds, s.best_us);
  out.close();
  if (!out) throw Error("cannot write " + path);
}

std::vector<ConvergenceStep> read_convergence_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path);
  std::string line;
  if (!std::getline(in, line) || line != "trial,seconds,best_us") {
    throw Error(path + ": not a convergence CSV (its first line is not trial,seconds,best_us)");
  }
  std::vector<ConvergenceStep> steps;
  for (int number = 2; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    ConvergenceStep s;
    char comma1 = 0, comma2 = 0;
    if (!(fields >> s.measured >> comma1 >> s.seconds >> comma2 >> s.best_us) || comma1 != ',' || comma2 != ',' ||
        !(fields >> std::ws).eof()) {
      throw Error(fmt::format("{}:{}: expected trial,seconds,best_us, got '{}'", path, number, line));
    }
    steps.push_back(s);
  }
  return steps;
}

}  // namespace nee
