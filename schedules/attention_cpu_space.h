#pragma once
#include "kernels/attention_algorithm.h"
#include "schedules/cpu_vector_isa.h"
#include "schedules/schedule_space.h"

namespace nee {

// CPU schedule space of the attention family (see the .cpp for the loop nest).
class AttentionCpuSpace : public ScheduleSpace {
 public:
  AttentionCpuSpace(const Workload& workload, CpuVectorIsa isa);
  std::string name() const override { return "attention-cpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  // Accumulators of a register block of `rows` rows of the output (Dv columns).
  int64_t output_block_registers(int64_t rows, int64_t vec) const;

  Workload workload_;
  CpuVectorIsa isa_;
  AttentionDims dims_;
};

}  // namespace nee
