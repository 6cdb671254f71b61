#include "tests/kernels/compiled_kernels.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/error.h"
#include "core/family.h"
#include "runtime/bundle/halide_kernel.h"
#include "runtime/bundle/shared_library.h"
#include "runtime/reference/family_reference.h"
#include "runtime/tensor_io.h"
#include "schedules/schedule_space.h"
#include "tuner/compile/builder.h"
#include "tuner/runners/local_runner.h"

namespace nee::test {

CompiledKernels::CompiledKernels(const std::string& work_dir_tag) : work_dir_(work_dir_tag) {}

void CompiledKernels::add(const std::string& name, const Candidate& candidate) {
  wanted_.push_back({name, candidate});
}

void CompiledKernels::add_default(const std::string& name, const Workload& workload, const Target& target) {
  add(name, Candidate{workload, target, make_schedule_space(workload, target.kind())->default_config(), "default",
                      0, {}});
}

void CompiledKernels::add_changed_default(const std::string& name, const std::string& label, const Workload& workload,
                                          const Target& target, const std::map<std::string, int64_t>& changes) {
  const auto space = make_schedule_space(workload, target.kind());
  ScheduleConfig point = space->default_config();
  for (const auto& [knob, value] : changes) point.knobs[knob] = value;
  const std::string why = space->check(point);
  if (!why.empty()) throw Error(name + "/" + label + ": " + why);
  points_[name].push_back(name + "/" + label);
  add(points_[name].back(), Candidate{workload, target, point, "hand", 0, {}});
}

void CompiledKernels::add_points(const std::string& name, const Workload& workload, const Target& target,
                                 int n_random, std::mt19937_64& rng) {
  const auto space = make_schedule_space(workload, target.kind());
  const ScheduleConfig def = space->default_config();
  std::vector<std::string>& points = points_[name];
  points.push_back(name + "/default");
  add(points.back(), Candidate{workload, target, def, "default", 0, {}});
  for (int i = 0; i < n_random; ++i) {
    ScheduleConfig point = space->random_config(rng);
    for (int tries = 0; tries < 100 && point == def; ++tries) point = space->random_config(rng);
    points.push_back(name + "/random" + std::to_string(i));
    add(points.back(), Candidate{workload, target, point, "random", 0, {}});
  }
}

void CompiledKernels::build() {
  std::vector<Candidate> candidates;
  for (const auto& named : wanted_) candidates.push_back(named.second);
  Builder builder(work_dir_.path(), 2, 240);
  const std::vector<BuildResult> results = builder.build(candidates);
  for (size_t i = 0; i < wanted_.size(); ++i) built_[wanted_[i].first] = CompiledKernel{candidates[i], results[i]};
  wanted_.clear();
}

const CompiledKernel& CompiledKernels::get(const std::string& name) const {
  const auto it = built_.find(name);
  if (it == built_.end()) throw std::runtime_error("kernel '" + name + "' was not built");
  return it->second;
}

Tensor CompiledKernels::run(const std::string& name, const std::vector<const Tensor*>& inputs) const {
  const CompiledKernel& b = get(name);
  const Workload& w = b.candidate.workload;
  SharedLibrary lib(b.build.artifact);
  HalideKernel kernel(lib, b.build.symbol);
  kernel.check_signature(w.inputs, w.output);
  Tensor out(w.output);
  std::fill(out.data_as<float>(), out.data_as<float>() + out.elements(), NAN);
  kernel.run(inputs, out);
  return out;
}

KernelRun CompiledKernels::run_random(const std::string& name, uint64_t seed) const {
  const Workload& w = get(name).candidate.workload;
  std::mt19937_64 rng(seed);
  const std::vector<Tensor> inputs = random_inputs(w, rng);
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : inputs) ptrs.push_back(&t);
  KernelRun result{run(name, ptrs), Tensor(w.output)};
  compute_reference(w, ptrs, result.reference);
  return result;
}

void CompiledKernels::check_against_reference(const std::string& name, const Tolerance& tolerance) const {
  const CompiledKernel& b = get(name);
  const std::string label = name + " [" + b.candidate.config.to_string() + "]";
  ASSERT_TRUE(b.build.ok()) << label << ": " << b.build.error;
  const double atol = tolerance.atol_per_k * static_cast<double>(family_of(b.candidate.workload).reduction_length(b.candidate.workload));
  double sum = 0;  // the references are not all zero
  for (uint64_t seed = 100; seed < 102; ++seed) {
    const KernelRun r = run_random(name, seed);
    const float* got = r.output.data_as<float>();
    const float* want = r.reference.data_as<float>();
    int bad = 0;
    for (int64_t i = 0; i < r.output.elements() && bad < 5; ++i) {
      if (!(std::fabs(got[i] - want[i]) <= atol + tolerance.rtol * std::fabs(want[i]))) {
        ADD_FAILURE() << label << " element " << i << ": got " << got[i] << ", reference " << want[i];
        ++bad;
      }
    }
    for (int64_t i = 0; i < r.reference.elements(); ++i) sum += std::fabs(want[i]);
  }
  EXPECT_GT(sum, 0) << name;
}

void CompiledKernels::check_points(const std::string& name, const Tolerance& tolerance) const {
  const auto it = points_.find(name);
  ASSERT_NE(it, points_.end()) << "no points were added under '" << name << "'";
  for (const std::string& point : it->second) check_against_reference(point, tolerance);
}

MeasureResult CompiledKernels::measure(const std::string& name) const {
  const CompiledKernel& b = get(name);
  EXPECT_TRUE(b.build.ok()) << name << ": " << b.build.error;
  RunnerOptions options;
  options.timeout_seconds = 120;
  options.repeats = 1;
  options.min_sample_ms = 1;
  LocalRunner runner(options, NEE_MEASURE_PATH);
  return runner.measure(b.build, b.candidate, 11);
}

}  // namespace nee::test
