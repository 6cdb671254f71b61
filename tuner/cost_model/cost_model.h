#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/schedule_config.h"
#include "core/target.h"
#include "core/workload.h"

namespace nee {

// One measured point to learn from.
struct CostSample {
  Workload workload;
  ScheduleConfig config;
  double median_us = 0;
};

// Features of a (workload, schedule point) on a device: every knob raw and as log2(1+v),
// the workload's dims (log2), and, where the space has the CPU matmul knobs, derived
// quantities: register block and outer tile sizes (also relative to the shape), tiles
// per core, and the bytes of the packed B panel and of the A block against L2. Knobs
// or quantities a point lacks are NaN, which XGBoost treats as missing.
class CostFeatures {
 public:
  // The knob names fix the feature layout; pass the schedule space's knobs.
  CostFeatures(std::vector<std::string> knob_names, const DeviceFingerprint& device);
  std::vector<float> operator()(const Workload& workload, const ScheduleConfig& config) const;
  size_t size() const;

 private:
  std::vector<std::string> knob_names_;
  DeviceFingerprint device_;
};

// Gradient-boosted trees (XGBoost) that predict a point's time. They learn
// log(GFLOP/s) (log(GB/s) for a copy, workload_speed.h) rather than the time itself, so
// records of several shapes train one model; predictions are turned back into
// microseconds per workload.
class CostModel {
 public:
  explicit CostModel(CostFeatures features, int rounds = 200, int max_depth = 6);
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  // Trains a fresh model on the samples (replacing the previous one). Samples with a
  // non-positive time are skipped.
  void train(const std::vector<CostSample>& samples);
  bool trained() const { return booster_ != nullptr; }
  // Predicted median microseconds of each point; throws nee::Error before any training.
  std::vector<double> predict_us(const Workload& workload, const std::vector<ScheduleConfig>& configs) const;

 private:
  void free_booster();
  CostFeatures features_;
  int rounds_, max_depth_;
  void* booster_ = nullptr;  // BoosterHandle
};

}  // namespace nee
