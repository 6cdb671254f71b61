#pragma once
#include "kernels/conv2d_algorithm.h"
#include "schedules/schedule_space.h"

namespace nee {

// GPU (OpenCL, CUDA) schedule space of the conv2d family over NCHW activations: thread
// blocks tile x, y and output channels; each thread keeps a register tile of
// px_per_thread pixels by oc_per_thread channels. With tile_c = 0 the threads read the
// input and weights from global memory; with tile_c > 0 each block stages, per slice of
// tile_c input channels, the input window and weights its tile needs in shared memory
// (conv2d_gpu_space.cpp has the loop nest).
class Conv2dGpuSpace : public ScheduleSpace {
 public:
  explicit Conv2dGpuSpace(const Workload& workload);
  std::string name() const override { return "conv2d-gpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  // Bytes of shared memory a staged point's block uses: accumulators, input window and
  // weights of one slice of input channels.
  int64_t shared_bytes(const ScheduleConfig& c) const;
  // Thread blocks in a point's grid.
  int64_t blocks(const ScheduleConfig& c) const;
  // The tile_c domain for a group of `group_channels` input channels.
  static std::vector<int64_t> staged_slices(int64_t group_channels);

  Workload workload_;
  int64_t out_w_, out_h_, out_c_, batch_, kernel_w_, kernel_h_, group_channels_, group_out_, groups_;
  int64_t stride_x_, stride_y_, dilation_x_, dilation_y_;
};

}  // namespace nee
