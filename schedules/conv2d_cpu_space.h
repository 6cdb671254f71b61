#pragma once
#include "kernels/conv2d_algorithm.h"
#include "schedules/cpu_vector_isa.h"
#include "schedules/schedule_space.h"

namespace nee {

// CPU schedule space of the conv2d family (see the .cpp for the loop nest).
class Conv2dCpuSpace : public ScheduleSpace {
 public:
  Conv2dCpuSpace(const Workload& workload, CpuVectorIsa isa);
  std::string name() const override { return "conv2d-cpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
  CpuVectorIsa isa_;
  int64_t out_w_, out_h_, out_c_, kernel_w_, group_channels_;
};

}  // namespace nee
