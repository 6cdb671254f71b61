#pragma once
#include "kernels/softmax_algorithm.h"
#include "schedules/schedule_space.h"

namespace nee {

// GPU (OpenCL, CUDA) schedule space of the softmax family: one thread per row, blocks of
// rows, the row reductions optionally split into partial results held in registers; or
// (row_threads > 1) one block per row, its threads sharing the row and splitting its
// reductions across them through shared memory.
class SoftmaxGpuSpace : public ScheduleSpace {
 public:
  explicit SoftmaxGpuSpace(const Workload& workload);
  std::string name() const override { return "softmax-gpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
  bool axis_innermost_;
  int64_t rows_, length_;
};

}  // namespace nee
