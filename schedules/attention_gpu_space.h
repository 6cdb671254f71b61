#pragma once
#include "kernels/attention_algorithm.h"
#include "schedules/schedule_space.h"

namespace nee {

// GPU schedule space of the attention family: a thread per query row, `threads` rows of
// one group per block; each thread holds its row's scores and exps in its own memory and
// sums the output's columns over the keys. A first space, correct on any shape; rows
// shared across a block's threads (as the softmax family's GPU space does) are for later.
class AttentionGpuSpace : public ScheduleSpace {
 public:
  explicit AttentionGpuSpace(const Workload& workload);
  std::string name() const override { return "attention-gpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig&) const override { return ""; }
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
};

}  // namespace nee
