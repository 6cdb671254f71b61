#pragma once
#include <string>
#include <vector>

#include <Halide.h>

#include "core/workload.h"

namespace nee {

// A family's Halide algorithm as an autoscheduler takes it: the output stage and the
// input buffers in the workload's input order (compile_autoscheduled_object gives each
// its static shape as estimate). Adding a family is one function in the .cpp's table.
struct AutoschedulerInput {
  Halide::Func output;
  std::vector<Halide::ImageParam> inputs;
};

// Throws nee::Error for a family without an entry.
AutoschedulerInput autoscheduler_input(const Workload& workload);
bool has_autoscheduler_input(const std::string& op);

}  // namespace nee
