#include "tuner/measure/measurement.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "core/conv2d_workload.h"
#include "core/conv_weight_layout.h"
#include "core/family.h"
#include "core/matmul_workload.h"
#include "core/median.h"
#include "core/winograd_weights.h"
#include "runtime/reference/family_reference.h"
#include "tuner/measure/cache_eviction.h"

namespace nee {

namespace {

// An integer product's operands as a model gives them (MatmulAttrs::a_bits): A's scale a
// quantization step, 1/256 to 1/64, so that A in [-1, 1] spans the bytes and some saturate;
// the column sums those of the random panels, so the zero point's correction is checked.
void randomize_integer_product(std::vector<Tensor>& inputs, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> step(1.0f / 256, 1.0f / 64);
  inputs[3].data_as<float>()[0] = step(rng);
  const Tensor& panels = inputs[1];
  const int64_t count = panels.shape()[0], rows = panels.shape()[1] * 4, block = panels.shape()[2];
  for (int64_t p = 0; p < count; ++p) {
    for (int64_t lane = 0; lane < block; ++lane) {
      int64_t sum = 0;
      for (int64_t k = 0; k < rows; ++k) {
        sum += panels.data_as<int8_t>()[((p * (rows / 4) + k / 4) * block + lane) * 4 + k % 4];
      }
      inputs[2].data_as<float>()[(p * 2 + 1) * block + lane] = static_cast<float>(sum);
    }
  }
}

// An integer conv's operands as the runtime packs them (Conv2dAttrs::a_bits): random OIHW
// bytes packed with zeros past O and C, their weight sums, multipliers and X's scale of
// quantization steps as above.
void randomize_integer_conv(const Workload& workload, std::vector<Tensor>& inputs, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> step(1.0f / 256, 1.0f / 64);
  inputs[3].data_as<float>()[0] = step(rng);
  const Tensor weights = random_input(conv2d_oihw_weights(workload), rng);
  std::vector<float> multipliers(static_cast<size_t>(weights.shape()[0]));
  for (float& m : multipliers) m = step(rng);
  pack_integer_conv_weights(weights.data_as<int8_t>(), weights.shape(), multipliers.data(),
                            inputs[1].data_as<int8_t>(), inputs[2].data_as<float>());
}

}  // namespace

Tensor random_input(const TensorType& type, std::mt19937_64& rng) {
  Tensor t(type);
  // Quantized matmul weights' panels (every byte is two valid 4-bit values), an integer
  // product's panels and its A zero point: every byte of the type.
  if (type.dtype == DType::u8 || type.dtype == DType::i8) {
    std::uniform_int_distribution<int> byte(0, 255);
    uint8_t* p = static_cast<uint8_t*>(t.data());
    for (int64_t i = 0; i < t.elements(); ++i) p[i] = static_cast<uint8_t>(byte(rng));
    return t;
  }
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  float* p = t.data_as<float>();
  for (int64_t i = 0; i < t.elements(); ++i) p[i] = dist(rng);
  return t;
}

std::vector<Tensor> random_inputs(const Workload& workload, std::mt19937_64& rng) {
  std::vector<Tensor> inputs;
  for (const TensorType& t : workload.inputs) inputs.push_back(random_input(t, rng));
  if (family_of(workload).id == FamilyId::matmul && matmul_attrs(workload).a_bits != 0) {
    randomize_integer_product(inputs, rng);
    return inputs;
  }
  // Transformed Winograd weights are G g G^T of some 3x3 filter g, which random values
  // are not: they come from random filters. Merged groups weigh zero between their groups
  // (conv2d group_width), as kernels that skip those products assume.
  if (family_of(workload).id != FamilyId::conv2d) return inputs;
  const Conv2dAttrs attrs = conv2d_attrs(workload);
  if (attrs.a_bits != 0) {
    randomize_integer_conv(workload, inputs, rng);
    return inputs;
  }
  if (attrs.winograd_tile == 0 && attrs.group_width == 0) return inputs;
  Tensor filters = random_input(conv2d_oihw_weights(workload), rng);
  zero_weights_between_merged_groups(filters.shape(), attrs, filters.data_as<float>());
  if (attrs.winograd_tile != 0) {
    pack_winograd_weights(filters.data_as<float>(), filters.shape(), attrs.winograd_tile, inputs[1].data_as<float>());
  } else if (attrs.weight_block != 0) {
    pack_blocked_weights(filters.data_as<float>(), filters.shape(), attrs.weight_block, inputs[1].data_as<float>());
  } else {
    inputs[1] = std::move(filters);
  }
  return inputs;
}

namespace {

// Evicts every cache line of a kernel's buffers (inputs, weights and output) from every
// cache level, so the next call meets them in memory as a layer does in a model run. A
// ResNet-50 run from a bundle timed its convs at a median 1.07x (0.65-1.23x) of their
// evicted times and 1.44x (up to 1.91x) of their warm ones (DESIGN-NOTES, "Kernels meet
// cold caches in a model"). Only the kernel's own lines go: overwriting twice the shared
// last-level cache instead would write 520 MB per call here.
void evict(const std::vector<const Tensor*>& inputs, const Tensor& output) {
  for (const Tensor* t : inputs) evict_from_caches(t->data(), t->bytes());
  evict_from_caches(output.data(), output.bytes());
  wait_for_evictions();
}

}  // namespace

bool timing_is_enough(const std::vector<double>& samples_us, double best_us) {
  if (samples_us.empty()) return false;
  const auto [low, high] = std::minmax_element(samples_us.begin(), samples_us.end());
  const bool losing = best_us > 0 && samples_us.size() == 2 && *low > kLosingFactor * best_us;
  const bool settled = samples_us.size() >= kSettledSamples && *high - *low <= kSettledSpread * *low;
  return losing || settled;
}

Tensor reference_output(const Workload& workload, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<Tensor> inputs = random_inputs(workload, rng);
  std::vector<const Tensor*> input_ptrs;
  for (const Tensor& t : inputs) input_ptrs.push_back(&t);
  Tensor expected(workload.output);
  compute_reference(workload, input_ptrs, expected);
  return expected;
}

MeasureResult measure_kernel(const HalideKernel& kernel, const Workload& workload, const MeasureOptions& options,
                             const Tensor* expected_given) {
  MeasureResult result;
  std::mt19937_64 rng(options.seed);
  std::vector<Tensor> inputs = random_inputs(workload, rng);
  std::vector<const Tensor*> input_ptrs;
  for (const Tensor& t : inputs) input_ptrs.push_back(&t);
  Tensor output(workload.output);
  // The output starts as NaN so a kernel that leaves elements unwritten fails the check.
  std::fill(output.data_as<float>(), output.data_as<float>() + output.elements(), NAN);

  kernel.run(input_ptrs, output);
  Tensor computed;
  if (!expected_given) {
    computed = Tensor(workload.output);
    compute_reference(workload, input_ptrs, computed);
  }
  const Tensor& expected = expected_given ? *expected_given : computed;
  const double atol = options.atol_per_k * static_cast<double>(family_of(workload).reduction_length(workload));
  const float* got = output.data_as<float>();
  const float* want = expected.data_as<float>();
  for (int64_t i = 0; i < output.elements(); ++i) {
    // Random inputs in [-1, 1] make an elementwise program's Log or Sqrt NaN at some
    // elements: the kernel must give NaN there too (and the same infinity where the
    // reference is infinite).
    if ((std::isnan(got[i]) && std::isnan(want[i])) || got[i] == want[i]) continue;
    const double diff = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(diff <= atol + options.rtol * std::fabs(want[i]))) {
      result.max_abs_error = std::isnan(diff) ? INFINITY : std::max(result.max_abs_error, diff);
      result.status = MeasureStatus::wrong_result;
    } else {
      result.max_abs_error = std::max(result.max_abs_error, diff);
    }
  }
  if (result.status == MeasureStatus::wrong_result) {
    result.error = fmt::format("output differs from the reference (max abs error {:.3g})", result.max_abs_error);
    return result;
  }

  using clock = std::chrono::steady_clock;
  const auto ms_since = [](clock::time_point t) {
    return std::chrono::duration<double, std::milli>(clock::now() - t).count();
  };
  // A GPU kernel's operands stay on the device from call to call, as in a model run;
  // copying 192 MiB per call at 4096 cubed would time the bus, not the kernel. The
  // first (warm-up) call uploads them.
  ResidentKernelCall timed_call(kernel, input_ptrs, output);
  int calls = 0;
  int repeats = options.repeats;
  const auto warm_start = clock::now();
  timed_call();
  ++calls;
  const bool slow = options.best_us > 0 && ms_since(warm_start) * 1000.0 > kSlowFactor * options.best_us;
  if (slow) repeats = std::min(repeats, 3);
  while (!slow && (calls < 2 || ms_since(warm_start) < options.warmup_ms)) {
    timed_call();
    ++calls;
  }
  const double per_call_ms = ms_since(warm_start) / calls;
  const int per_sample =
      slow ? 1 : std::max(std::max(1, options.number), static_cast<int>(std::ceil(options.min_sample_ms / per_call_ms)));

  std::vector<double> samples_us;
  for (int r = 0; r < repeats; ++r) {
    if (options.cache == CacheState::warm) {
      const auto start = clock::now();
      for (int i = 0; i < per_sample; ++i) timed_call();
      samples_us.push_back(ms_since(start) * 1000.0 / per_sample);
      if (timing_is_enough(samples_us, options.best_us)) break;
      continue;
    }
    // Each call of a cold sample is timed on its own, after its eviction.
    double total_ms = 0;
    for (int i = 0; i < per_sample; ++i) {
      evict(input_ptrs, output);
      const auto start = clock::now();
      timed_call();
      total_ms += ms_since(start);
    }
    samples_us.push_back(total_ms * 1000.0 / per_sample);
    if (timing_is_enough(samples_us, options.best_us)) break;
  }
  const size_t n = samples_us.size();
  result.median_us = median(samples_us);
  result.min_us = *std::min_element(samples_us.begin(), samples_us.end());
  double mean = 0;
  for (double s : samples_us) mean += s;
  mean /= static_cast<double>(n);
  double var = 0;
  for (double s : samples_us) var += (s - mean) * (s - mean);
  result.stddev_us = std::sqrt(var / static_cast<double>(n));
  result.repeats = static_cast<int>(n);
  result.status = MeasureStatus::ok;
  return result;
}

}  // namespace nee
