#pragma once
#include "kernels/strided_copy_algorithm.h"
#include "schedules/schedule_space.h"

namespace nee {

// GPU (OpenCL, CUDA) schedule space of the strided_copy family: thread blocks tile the
// output's two innermost dims that matter (see the .cpp), and a transpose may stage its
// tile through shared memory so that both its reads and its writes are coalesced.
class StridedCopyGpuSpace : public ScheduleSpace {
 public:
  explicit StridedCopyGpuSpace(const Workload& workload);
  std::string name() const override { return "strided_copy-gpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
  std::vector<int64_t> extents_;  // the output's, Halide order
  int y_dim_;                     // the block's second dim; 0 when the output has rank 1
  bool transposes_;               // the input's innermost dim is read along y_dim_
};

}  // namespace nee
