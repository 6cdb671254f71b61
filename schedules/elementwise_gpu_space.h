#pragma once
#include "kernels/elementwise_algorithm.h"
#include "schedules/schedule_space.h"

namespace nee {

// GPU (OpenCL, CUDA) schedule space of the elementwise family: the output flattened to
// one dim, thread blocks of `threads` threads, each thread computing `per_thread`
// vectors of `vector` adjacent elements, `threads` vectors apart (neighbouring threads
// touch neighbouring vectors, so loads and stores coalesce).
class ElementwiseGpuSpace : public ScheduleSpace {
 public:
  explicit ElementwiseGpuSpace(const Workload& workload);
  std::string name() const override { return "elementwise-gpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
};

}  // namespace nee
