#pragma once
#include <string>
#include <vector>

#include "tuner/report/convergence_svg.h"

namespace nee {

// Writes a run's convergence as CSV, one line per step after the header
// "trial,seconds,best_us,trial_us" (trial_us empty where the step has none), for figures
// and plots made elsewhere. Throws nee::Error when it cannot write.
void write_convergence_csv(const std::string& path, const std::vector<ConvergenceStep>& steps);
// Reads what write_convergence_csv writes, and the "trial,seconds,best_us" CSVs of NEE
// before trial_us. Throws nee::Error naming the file and line when the header or a line
// is not one of those.
std::vector<ConvergenceStep> read_convergence_csv(const std::string& path);

}  // namespace nee
