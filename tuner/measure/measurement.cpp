#include "tuner/measure/measurement.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "core/conv_workload.h"
#include "core/median.h"
#include "core/layernorm_workload.h"
#include "core/pool_workload.h"
#include "core/softmax_workload.h"
#include "tuner/measure/workload_reference.h"

namespace nee {

Tensor random_input(const TensorType& type, std::mt19937_64& rng) {
  Tensor t(type);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  float* p = t.data_as<float>();
  for (int64_t i = 0; i < t.elements(); ++i) p[i] = dist(rng);
  return t;
}

int64_t reduction_length(const Workload& w) {
  if (w.op == "conv2d") return conv2d_reduction_length(w);
  if (w.op == "pool2d") return pool2d_window_size(w);
  if (w.op == "softmax") return softmax_length(w);
  if (w.op == "layernorm") return layernorm_row_length(w);
  if (w.op != "matmul") return 1;
  const auto& sa = w.inputs[0].shape;
  return matmul_attrs(w).trans_a ? sa[sa.size() - 2] : sa.back();
}

namespace {

// Writes one byte per 64-byte line of a buffer twice the last-level cache (64 MiB when
// sysfs names no cache), so the next call finds none of its data cached. Volatile stores
// keep the compiler from dropping writes nobody reads.
class CacheFlusher {
 public:
  CacheFlusher() {
    const DeviceFingerprint d = DeviceFingerprint::of_host();
    const int64_t last_level = d.l3_bytes ? d.l3_bytes : d.l2_bytes;
    buffer_.resize(last_level ? static_cast<size_t>(2 * last_level) : size_t{64} << 20);
  }
  void flush() {
    volatile char* p = buffer_.data();
    for (size_t i = 0; i < buffer_.size(); i += 64) p[i] = static_cast<char>(i + round_);
    ++round_;
  }

 private:
  std::vector<char> buffer_;
  int round_ = 0;
};

}  // namespace

MeasureResult measure_kernel(const HalideKernel& kernel, const Workload& workload, const MeasureOptions& options) {
  MeasureResult result;
  std::mt19937_64 rng(options.seed);
  std::vector<Tensor> inputs;
  for (const TensorType& t : workload.inputs) inputs.push_back(random_input(t, rng));
  std::vector<const Tensor*> input_ptrs;
  for (const Tensor& t : inputs) input_ptrs.push_back(&t);
  Tensor output(workload.output), expected(workload.output);
  // The output starts as NaN so a kernel that leaves elements unwritten fails the check.
  std::fill(output.data_as<float>(), output.data_as<float>() + output.elements(), NAN);

  kernel.run(input_ptrs, output);
  compute_reference(workload, input_ptrs, expected);
  const double atol = options.atol_per_k * static_cast<double>(reduction_length(workload));
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
  int calls = 0;
  int repeats = options.repeats;
  const auto warm_start = clock::now();
  kernel.run(input_ptrs, output);
  ++calls;
  const bool slow = options.slow_cutoff_us > 0 && ms_since(warm_start) * 1000.0 > options.slow_cutoff_us;
  if (slow) repeats = std::min(repeats, 3);
  while (!slow && (calls < 2 || ms_since(warm_start) < options.warmup_ms)) {
    kernel.run(input_ptrs, output);
    ++calls;
  }
  const double per_call_ms = ms_since(warm_start) / calls;
  const int per_sample =
      slow ? 1 : std::max(std::max(1, options.number), static_cast<int>(std::ceil(options.min_sample_ms / per_call_ms)));

  std::optional<CacheFlusher> flusher;
  if (options.flush_cache) flusher.emplace();
  std::vector<double> samples_us;
  for (int r = 0; r < repeats; ++r) {
    if (flusher) flusher->flush();
    const auto start = clock::now();
    for (int i = 0; i < per_sample; ++i) kernel.run(input_ptrs, output);
    samples_us.push_back(ms_since(start) * 1000.0 / per_sample);
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
