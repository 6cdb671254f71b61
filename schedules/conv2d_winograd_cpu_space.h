#pragma once
#include "schedules/cpu_caches.h"
#include "schedules/cpu_vector_isa.h"
#include "schedules/schedule_space.h"

namespace nee {

// CPU schedule space of Winograd conv2d workloads (winograd_tile set, channel-blocked
// output): per task of tile rows, the input transform of every channel; then per
// channel tile and tile row, the alpha^2 matrix products in register blocks of output
// channels (whole 16-channel weight blocks, vectorized) by tiles, each FMA multiplying a
// transformed weight vector by a broadcast transformed input; then the output transform
// with the epilogue. See the .cpp for the loop nest.
class Conv2dWinogradCpuSpace : public ScheduleSpace {
 public:
  Conv2dWinogradCpuSpace(const Workload& workload, CpuVectorIsa isa, CpuCaches caches);
  std::string name() const override { return "conv2d-winograd-cpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
  CpuVectorIsa isa_;
  CpuCaches caches_;
  int64_t tile_, blocks_, tiles_w_, tiles_h_, batch_;
};

}  // namespace nee
