#pragma once
#include "kernels/elementwise_algorithm.h"
#include "schedules/cpu_vector_isa.h"
#include "schedules/schedule_space.h"

namespace nee {

// CPU schedule space of the elementwise family (see the .cpp for the loop nest).
class ElementwiseCpuSpace : public ScheduleSpace {
 public:
  ElementwiseCpuSpace(const Workload& workload, CpuVectorIsa isa);
  std::string name() const override { return "elementwise-cpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  // Extent of the innermost `dims` output dimensions fused, and the iterations of the
  // outer loop around blocks of `block` elements of them.
  int64_t fused_extent(int64_t dims) const;
  int64_t outer_iterations(int64_t dims, int64_t block) const;

  Workload workload_;
  CpuVectorIsa isa_;
  std::vector<int64_t> extents_;  // innermost first
};

}  // namespace nee
