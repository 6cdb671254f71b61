#include "schedules/gpu_block.h"

#include <string>
#include <vector>

namespace nee {

using namespace Halide;

void load_into_shared(Func f, const LoopLevel& at, int threads_x, int threads_y, int threads_z) {
  const std::vector<Var> args = f.args();
  Var fused = args[0];
  for (size_t d = 1; d < args.size(); ++d) {
    Var next("fused" + std::to_string(d));
    f.fuse(fused, args[d], next);
    fused = next;
  }
  Var round("round"), lane("lane"), x("lane_x"), y("lane_y"), z("lane_z"), xy("lane_xy");
  f.compute_at(at)
      .store_in(MemoryType::GPUShared)
      .split(fused, round, lane, threads_x * threads_y * threads_z, TailStrategy::GuardWithIf)
      .split(lane, z, xy, threads_x * threads_y)
      .split(xy, y, x, threads_x)
      .reorder(x, y, z, round)
      .gpu_threads(x, y, z);
}

}  // namespace nee
