#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "core/records.h"
#include "runtime/bundle/halide_kernel.h"

namespace nee {

// How much slower than the best a candidate is before its timing is cut short
// (MeasureOptions::best_us).
inline constexpr double kSlowFactor = 3.0;
inline constexpr double kLosingFactor = 1.2;
// Timing stops before `repeats` samples once this many lie within this spread of their
// fastest: their median is known to that precision. Of ResNeXt-50's 7-sample records
// here, 79% had a coefficient of variation of 2% or less.
inline constexpr size_t kSettledSamples = 3;
inline constexpr double kSettledSpread = 0.02;

struct MeasureOptions {
  uint64_t seed = 1;          // inputs are fresh random values from this seed
  int repeats = 7;            // timed samples at most (kSettledSamples); the median is reported
  int number = 1;             // calls per sample, at least
  double min_sample_ms = 20;  // calls per sample grow until a sample lasts this long
  // cold: each timed call starts with the kernel's inputs, weights and output evicted
  // from every cache level (untimed), and a sample is the mean of such calls.
  CacheState cache = CacheState::warm;
  double warmup_ms = 50;      // untimed calls first (caches, thread pool start)
  double rtol = 1e-4;         // tolerance against the reference: |d| <= atol + rtol*|ref|
  double atol_per_k = 2e-6;   // absolute tolerance per reduction step (fp32 summation order)
  // The best median of the workload so far (0: none). A candidate that cannot become the
  // best needs no precision, and a search proposes many: one whose first call takes
  // more than kSlowFactor times this gets three one-call samples, and one whose fastest
  // of its first two samples is above kLosingFactor times this stops there.
  double best_us = 0;
};

// Uniform values in [-1, 1) for a float tensor: the fresh inputs of every check.
Tensor random_input(const TensorType& type, std::mt19937_64& rng);
// Random inputs of every operand of `workload`, each valid for it.
std::vector<Tensor> random_inputs(const Workload& workload, std::mt19937_64& rng);
// compute_reference()'s output on the random inputs of `seed`: what a kernel measured
// with that seed must give.
Tensor reference_output(const Workload& workload, uint64_t seed);

// Whether the samples taken so far are enough: two whose fastest is above kLosingFactor
// times the best so far (best_us, 0: none), or kSettledSamples or more within
// kSettledSpread of their fastest.
bool timing_is_enough(const std::vector<double>& samples_us, double best_us);

// Verify, then time: checks the kernel's output against compute_reference() on fresh
// random inputs, and only then times it. A wrong answer is reported as wrong_result
// with its largest error and is never timed. `expected`, when given, is
// reference_output(workload, options.seed), computed once for several candidates.
MeasureResult measure_kernel(const HalideKernel& kernel, const Workload& workload, const MeasureOptions& options,
                             const Tensor* expected = nullptr);

}  // namespace nee
