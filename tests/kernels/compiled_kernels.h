#pragma once
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/records.h"
#include "runtime/tensor.h"
#include "tests/tuner/temp_dir.h"
#include "tuner/measure/measurement.h"

namespace nee::test {

// One named kernel: the candidate asked for and what the Builder made of it.
struct CompiledKernel {
  Candidate candidate;
  BuildResult build;
};

// |got - reference| <= atol_per_k * K + rtol * |reference|, with K the family's reduction_length:
// nee-measure's rule and defaults, so a kernel that passes here also passes its check.
struct Tolerance {
  double atol_per_k = MeasureOptions{}.atol_per_k;
  double rtol = MeasureOptions{}.rtol;
};

// A kernel's output on random inputs, and compute_reference()'s on the same inputs.
struct KernelRun {
  Tensor output;
  Tensor reference;
};

// Named kernels compiled by the Builder in one parallel run (compiling is most of a
// kernel test's time, so a test suite builds all of its kernels once and shares them),
// and the checks every compiled-kernel test makes on them.
class CompiledKernels {
 public:
  explicit CompiledKernels(const std::string& work_dir_tag);

  void add(const std::string& name, const Candidate& candidate);
  // The workload's default point on the target, under `name`.
  void add_default(const std::string& name, const Workload& workload, const Target& target);
  // `name`/default and `n_random` seeded random points that differ from the default,
  // `name`/random0, `name`/random1, ...
  void add_points(const std::string& name, const Workload& workload, const Target& target, int n_random,
                  std::mt19937_64& rng);
  // The default point with `changes` made to it, checked with `name`'s points as
  // `name`/`label` (throws if the result is not a valid point).
  void add_changed_default(const std::string& name, const std::string& label, const Workload& workload,
                           const Target& target, const std::map<std::string, int64_t>& changes);
  // Compiles everything added, two builds at a time.
  void build();

  // Throws when `name` was not built.
  const CompiledKernel& get(const std::string& name) const;

  // Loads the kernel, checks its signature and runs it on `inputs` into a NaN-filled
  // output, so an element the kernel does not write shows.
  Tensor run(const std::string& name, const std::vector<const Tensor*>& inputs) const;
  // Runs the kernel and compute_reference() on fresh random inputs from `seed`.
  KernelRun run_random(const std::string& name, uint64_t seed) const;

  // The build succeeded and the kernel matches compute_reference() on two sets of
  // random inputs whose references are not all zero.
  void check_against_reference(const std::string& name, const Tolerance& tolerance = {}) const;
  // check_against_reference() on every point add_points() added under `name`.
  void check_points(const std::string& name, const Tolerance& tolerance = {}) const;

  // Verifies and times the kernel in nee-measure (one short sample), through LocalRunner:
  // the only way to run an OpenCL kernel, since PoCL cannot run in a process holding
  // libHalide.
  MeasureResult measure(const std::string& name) const;

 private:
  tuner_test::TempDir work_dir_;
  std::vector<std::pair<std::string, Candidate>> wanted_;
  std::map<std::string, CompiledKernel> built_;
  std::map<std::string, std::vector<std::string>> points_;  // add_points() name -> its kernels
};

// A fixture whose test suite shares one CompiledKernels: Derived names its work folder
// (`static constexpr char kWorkDirTag[]`) and adds its kernels
// (`static void add_kernels(CompiledKernels&)`); they are built before the first test.
template <class Derived>
class CompiledKernelsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    kernels_ = std::make_unique<CompiledKernels>(Derived::kWorkDirTag);
    Derived::add_kernels(*kernels_);
    kernels_->build();
  }
  static void TearDownTestSuite() { kernels_.reset(); }

  static const CompiledKernels& kernels() { return *kernels_; }

 private:
  inline static std::unique_ptr<CompiledKernels> kernels_;
};

}  // namespace nee::test
