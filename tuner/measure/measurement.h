#pragma once
#include <cstdint>
#include <random>

#include "core/records.h"
#include "runtime/bundle/halide_kernel.h"

namespace nee {

struct MeasureOptions {
  uint64_t seed = 1;          // inputs are fresh random values from this seed
  int repeats = 7;            // timed samples; the median is reported
  int number = 1;             // calls per sample, at least
  double min_sample_ms = 20;  // calls per sample grow until a sample lasts this long
  // cold: each timed call starts with the kernel's inputs, weights and output evicted
  // from every cache level (untimed), and a sample is the mean of such calls.
  CacheState cache = CacheState::warm;
  double warmup_ms = 50;      // untimed calls first (caches, thread pool start)
  double rtol = 1e-4;         // tolerance against the reference: |d| <= atol + rtol*|ref|
  double atol_per_k = 2e-6;   // absolute tolerance per reduction step (fp32 summation order)
  // A candidate whose first timed call is slower than this gets three one-call samples
  // instead of full repeats: it cannot become the best, so precision is not needed
  // there, and random search proposes many such points. 0: off.
  double slow_cutoff_us = 0;
};

// Uniform values in [-1, 1) for a float tensor: the fresh inputs of every check.
Tensor random_input(const TensorType& type, std::mt19937_64& rng);
// Random inputs of every operand of `workload`, each valid for it.
std::vector<Tensor> random_inputs(const Workload& workload, std::mt19937_64& rng);
// compute_reference()'s output on the random inputs of `seed`: what a kernel measured
// with that seed must give.
Tensor reference_output(const Workload& workload, uint64_t seed);

// Verify, then time: checks the kernel's output against compute_reference() on fresh
// random inputs, and only then times it. A wrong answer is reported as wrong_result
// with its largest error and is never timed. `expected`, when given, is
// reference_output(workload, options.seed), computed once for several candidates.
MeasureResult measure_kernel(const HalideKernel& kernel, const Workload& workload, const MeasureOptions& options,
                             const Tensor* expected = nullptr);

}  // namespace nee
