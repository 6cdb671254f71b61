#include "schedules/resize_gpu_space.h"

#include "core/error.h"
#include "schedules/gpu_block.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

// A thread per output element: blocks of threads_x neighbouring columns (neighbouring
// threads write neighbouring outputs) by threads_y rows, over the plane's tiles and the
// outer dims (fused). The taps' tables are computed once per call on the host, in
// doubles as the ONNX reference computes them (no GPU double arithmetic needed), and
// read by the kernel; linear interpolation gathers its four inputs per output.
ResizeGpuSpace::ResizeGpuSpace(const Workload& workload) : workload_(workload) {
  // Only the CPU runtime blocks activations.
  if (resize_attrs(workload).lanes != 0) throw Error("channel-blocked resizes (lanes) run on CPUs only");
  extents_ = define_resize(workload).extents;
  knobs_ = {
      {"threads_x", values_up_to({4, 8, 16, 32, 64, 128}, extents_[0]), "threads of a block along the columns"},
      {"threads_y", values_up_to({1, 2, 4, 8, 16}, extents_[1]), "threads of a block along the rows"},
  };
}

ScheduleConfig ResizeGpuSpace::default_config() const {
  ScheduleConfig c;
  // Blocks of 256 threads (the elementwise family's default block), as wide as the rows allow up to 64.
  c.knobs["threads_x"] = largest_value_up_to(knobs_, "threads_x", 64);
  c.knobs["threads_y"] = largest_value_up_to(knobs_, "threads_y", 256 / c.knobs["threads_x"]);
  return c;
}

std::string ResizeGpuSpace::check_constraints(const ScheduleConfig& c) const {
  if (c.at("threads_x") * c.at("threads_y") > kGpuMaxThreadsPerBlock) return "a block has more than 1024 threads";
  return "";
}

ScheduledKernel ResizeGpuSpace::apply(const ScheduleConfig& c) const {
  ResizePipeline p = define_resize(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const Var x = p.dims[0], y = p.dims[1];
  Var xo("xo"), xi("xi"), yo("yo"), yi("yi");
  p.out.tile(x, y, xo, yo, xi, yi, static_cast<int>(c.at("threads_x")), static_cast<int>(c.at("threads_y")),
             TailStrategy::GuardWithIf);
  std::vector<VarOrRVar> order = {xi, yi, xo, yo};
  for (size_t d = 2; d < p.dims.size(); ++d) order.push_back(p.dims[d]);
  p.out.reorder(order).gpu_threads(xi, yi);
  if (p.dims.size() > 2) {
    Var fused = p.dims[2];
    for (size_t d = 3; d < p.dims.size(); ++d) {
      Var next("outer" + std::to_string(d));
      p.out.fuse(fused, p.dims[d], next);
      fused = next;
    }
    p.out.gpu_blocks(xo, yo, fused);
  } else {
    p.out.gpu_blocks(xo, yo);
  }
  for (Func table : p.tables()) table.compute_root();
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
