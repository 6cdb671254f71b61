#include "tuner/report/convergence_csv.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/error.h"

namespace nee {

namespace {

constexpr const char* kHeader = "trial,seconds,best_us,trial_us";
constexpr const char* kHeaderBeforeTrialUs = "trial,seconds,best_us";

}  // namespace

void write_convergence_csv(const std::string& path, const std::vector<ConvergenceStep>& steps) {
  std::ofstream out(path);
  out << kHeader << '\n';
  for (const ConvergenceStep& s : steps) {
    out << fmt::format("{},{:.3f},{:.3f},{}\n", s.measured, s.seconds, s.best_us,
                       s.trial_us ? fmt::format("{:.3f}", *s.trial_us) : "");
  }
  out.close();
  if (!out) throw Error("cannot write " + path);
}

std::vector<ConvergenceStep> read_convergence_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path);
  std::string line;
  std::getline(in, line);
  const bool with_trial_us = line == kHeader;
  if (!with_trial_us && line != kHeaderBeforeTrialUs) {
    throw Error(path + ": not a convergence CSV (its first line is neither " + kHeader + " nor " +
                kHeaderBeforeTrialUs + ")");
  }
  std::vector<ConvergenceStep> steps;
  for (int number = 2; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    ConvergenceStep s;
    char comma1 = 0, comma2 = 0;
    bool good = (fields >> s.measured >> comma1 >> s.seconds >> comma2 >> s.best_us) && comma1 == ',' && comma2 == ',';
    if (good && with_trial_us) {
      char comma3 = 0;
      double trial_us = 0;
      good = fields >> comma3 && comma3 == ',';
      if (good && !(fields >> std::ws).eof()) {
        good = static_cast<bool>(fields >> trial_us);
        s.trial_us = trial_us;
      }
    }
    if (!good || !(fields >> std::ws).eof()) {
      throw Error(fmt::format("{}:{}: expected {}, got '{}'", path, number,
                              with_trial_us ? kHeader : kHeaderBeforeTrialUs, line));
    }
    steps.push_back(s);
  }
  return steps;
}

}  // namespace nee
