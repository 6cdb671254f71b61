#pragma once
#include "kernels/layernorm_algorithm.h"
#include "schedules/schedule_space.h"

namespace nee {

// GPU (OpenCL, CUDA) schedule space of the layernorm family: one thread per row, blocks
// of rows, the row sums optionally split into partial results held in registers; or
// (row_threads > 1) one block per row, its threads sharing the row and splitting its
// sums across them through shared memory.
class LayernormGpuSpace : public ScheduleSpace {
 public:
  explicit LayernormGpuSpace(const Workload& workload);
  std::string name() const override { return "layernorm-gpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
  int64_t rows_, row_length_;
};

}  // namespace nee
