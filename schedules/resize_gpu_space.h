#pragma once
#include "kernels/resize_algorithm.h"
#include "schedules/schedule_space.h"

namespace nee {

// GPU (OpenCL, CUDA) schedule space of the resize family: a thread per output element,
// blocks of threads_x columns by threads_y rows (see the .cpp).
class ResizeGpuSpace : public ScheduleSpace {
 public:
  explicit ResizeGpuSpace(const Workload& workload);
  std::string name() const override { return "resize-gpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
  std::vector<int64_t> extents_;  // the output's, Halide order
};

}  // namespace nee
