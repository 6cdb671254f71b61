#pragma once
#include "kernels/strided_copy_algorithm.h"
#include "schedules/cpu_vector_isa.h"
#include "schedules/schedule_space.h"

namespace nee {

// CPU schedule space of the strided_copy family (see the .cpp for the loop nests).
class StridedCopyCpuSpace : public ScheduleSpace {
 public:
  StridedCopyCpuSpace(const Workload& workload, CpuVectorIsa isa);
  std::string name() const override { return "strided_copy-cpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  // Iterations of the outer loop (rows, or 2-D tiles) that the parallel tasks share.
  int64_t outer_iterations(const ScheduleConfig& c) const;

  Workload workload_;
  CpuVectorIsa isa_;
  std::vector<int64_t> extents_;  // the output's, Halide order
  int inner_source_dim_;          // the output dim that reads the input's innermost dim
  bool transposes_;               // inner_source_dim_ != 0
};

}  // namespace nee
