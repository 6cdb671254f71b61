#pragma once
#include "kernels/layernorm_algorithm.h"
#include "schedules/cpu_vector_isa.h"
#include "schedules/schedule_space.h"

namespace nee {

// CPU schedule space of the layernorm family (see the .cpp for the loop nest).
class LayernormCpuSpace : public ScheduleSpace {
 public:
  LayernormCpuSpace(const Workload& workload, CpuVectorIsa isa);
  std::string name() const override { return "layernorm-cpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
  CpuVectorIsa isa_;
  int64_t rows_;
};

}  // namespace nee
