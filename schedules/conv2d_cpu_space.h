#pragma once
#include <memory>

#include "kernels/conv2d_algorithm.h"
#include "schedules/cpu_caches.h"
#include "schedules/cpu_vector_isa.h"
#include "schedules/schedule_space.h"

namespace nee {

// The conv2d family's space for a workload on a CPU: Winograd's for transformed weights,
// the channel-blocked one for blocked weights, else the plain one below.
std::unique_ptr<ScheduleSpace> make_conv2d_cpu_space(const Workload& workload, const CpuVectorIsa& isa,
                                                     const CpuCaches& caches);
// The same on a GPU, which runs no Winograd form (nee::Error for one).
std::unique_ptr<ScheduleSpace> make_conv2d_gpu_space(const Workload& workload);

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
