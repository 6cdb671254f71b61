#pragma once
#include "schedules/cpu_vector_isa.h"
#include "schedules/schedule_space.h"

namespace nee {

// CPU schedule space of conv2d workloads with channel-blocked weights (group 1): a
// register block of output channels (whole 16-channel weight blocks, vectorized) by
// output columns, each FMA multiplying a weight vector by a broadcast input pixel, the
// way a GEMM microkernel multiplies a packed panel by broadcast elements. See the .cpp
// for the loop nest.
class Conv2dBlockedCpuSpace : public ScheduleSpace {
 public:
  Conv2dBlockedCpuSpace(const Workload& workload, CpuVectorIsa isa);
  std::string name() const override { return "conv2d-blocked-cpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
  CpuVectorIsa isa_;
  int64_t out_w_, out_h_, out_c_, blocks_, kernel_w_;
  bool unpadded_;       // no padding: the padded input is the input
  bool blocked_input_;  // X is channel-blocked
  int64_t input_blocks_;  // input-channel blocks the reduction splits into; 0 where it does not split
  bool integer_;          // an integer conv (Conv2dAttrs::a_bits)
};

}  // namespace nee
