#pragma once
#include "kernels/matmul_algorithm.h"
#include "schedules/schedule_space.h"

namespace nee {

// GPU (OpenCL, CUDA) schedule space of the matmul family: a 2-D grid of thread blocks,
// each thread accumulating a register tile of rows_per_thread x cols_per_thread outputs.
// With tile_k = 0 the threads read A and B straight from global memory; with tile_k > 0
// each block stages tile_k-deep slices of A and B in shared memory, loaded with
// vector_load-wide vectors, and keeps its accumulators there (matmul_gpu_space.cpp says
// why).
class MatmulGpuSpace : public ScheduleSpace {
 public:
  explicit MatmulGpuSpace(const Workload& workload);
  std::string name() const override { return "matmul-gpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  // Thread blocks in a point's grid.
  int64_t blocks(const ScheduleConfig& c) const;

  Workload workload_;
  int64_t m_, n_, k_;
  std::vector<int64_t> batch_sizes_;
  bool a_transposed_ = false, b_transposed_ = false;
};

}  // namespace nee
