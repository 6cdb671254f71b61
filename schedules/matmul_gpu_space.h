#pragma once
#include "kernels/matmul_algorithm.h"
#include "schedules/schedule_space.h"

namespace nee {

// GPU (OpenCL, CUDA) schedule space of the matmul family: a 2-D grid of thread blocks,
// each thread accumulating a column of rows_per_thread outputs in registers.
class MatmulGpuSpace : public ScheduleSpace {
 public:
  explicit MatmulGpuSpace(const Workload& workload);
  std::string name() const override { return "matmul-gpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
  int64_t m_, n_, k_;
};

}  // namespace nee
