#pragma once
#include "kernels/pool2d_algorithm.h"
#include "schedules/schedule_space.h"

namespace nee {

// CPU schedule space of the pool2d family (see the .cpp for the loop nest).
class Pool2dCpuSpace : public ScheduleSpace {
 public:
  explicit Pool2dCpuSpace(const Workload& workload);
  std::string name() const override { return "pool2d-cpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
  bool blocked_;
  int64_t kernel_w_, kernel_h_, planes_, out_h_, out_w_;
};

// Window unrolls the pool2d spaces allow: kx only up to 8 taps, kx and ky up to 16.
std::string check_pool2d_unroll(int64_t unroll_window, int64_t kernel_w, int64_t kernel_h);

}  // namespace nee
