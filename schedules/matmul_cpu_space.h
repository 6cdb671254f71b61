#pragma once
#include "kernels/matmul_algorithm.h"
#include "schedules/cpu_vector_isa.h"
#include "schedules/schedule_space.h"

namespace nee {

// CPU schedule space of the matmul family (see the .cpp for the loop nest).
class MatmulCpuSpace : public ScheduleSpace {
 public:
  MatmulCpuSpace(const Workload& workload, CpuVectorIsa isa);
  std::string name() const override { return "matmul-cpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
  CpuVectorIsa isa_;
  int64_t m_, n_, k_;
};

}  // namespace nee
