#pragma once
#include "kernels/resize_algorithm.h"
#include "schedules/cpu_vector_isa.h"
#include "schedules/schedule_space.h"

namespace nee {

// CPU schedule space of the resize family (see the .cpp for the loop nest).
class ResizeCpuSpace : public ScheduleSpace {
 public:
  ResizeCpuSpace(const Workload& workload, CpuVectorIsa isa);
  std::string name() const override { return "resize-cpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  // Row tasks: output rows of `rows` per plane, times the planes.
  int64_t tasks(const ScheduleConfig& c) const;

  Workload workload_;
  CpuVectorIsa isa_;
  std::vector<int64_t> extents_;  // the output's, Halide order
  int64_t in_h_ = 1;
  int64_t planes_ = 1;  // the product of the outer dims
  int w_dim_ = 0;       // ResizePipeline::w_dim: 1 when dims[0] holds a blocked tensor's lanes
  bool linear_ = false;
};

}  // namespace nee
