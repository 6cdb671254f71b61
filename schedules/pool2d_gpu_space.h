#pragma once
#include "kernels/pool2d_algorithm.h"
#include "schedules/schedule_space.h"

namespace nee {

// GPU (OpenCL, CUDA) schedule space of the pool2d family: one thread per output, thread
// blocks tiling x, y and channels; the window loops optionally unrolled; where windows
// overlap, the input a block covers optionally staged in shared memory first.
class Pool2dGpuSpace : public ScheduleSpace {
 public:
  explicit Pool2dGpuSpace(const Workload& workload);
  std::string name() const override { return "pool2d-gpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
  Pool2dAttrs attrs_;
  int64_t kernel_w_, kernel_h_;
  bool overlapping_ = false;
};

}  // namespace nee
