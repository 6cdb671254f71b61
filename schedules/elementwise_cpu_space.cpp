#include "schedules/elementwise_cpu_space.h"

#include <algorithm>

#include "core/elementwise_workload.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

// The loop nest (innermost first), for out(d0, d1, ...):
//   the innermost fuse_dims dims fused into one dim f (a flat run when they are dense),
//   f split into blocks of vec x unroll elements: vec lanes vectorized, unroll unrolled;
//   the block loop fused with the remaining outer dims into one loop, split into tasks
//   of `grain` iterations that run in parallel when parallel = 1.
// Tails are handled by shifting the last block inwards (recomputing a few elements),
// so every domain value is cut to the extent it splits.
ElementwiseCpuSpace::ElementwiseCpuSpace(const Workload& workload, CpuVectorIsa isa)
    : workload_(workload), isa_(isa) {
  extents_ = define_elementwise(workload).extents;
  const int64_t rank = static_cast<int64_t>(extents_.size());
  const int64_t total = workload.output.elements();
  std::vector<int64_t> fuse_values;
  for (int64_t d = 1; d <= std::min<int64_t>(rank, 3); ++d) fuse_values.push_back(d);
  knobs_ = {
      {"fuse_dims", fuse_values, "innermost output dims fused into the vectorized dim"},
      {"vec", values_up_to({1, 4, 8, 16}, total), "vector width in floats"},
      {"unroll", {1, 2, 4}, "vectors per block, unrolled"},
      {"parallel", {0, 1}, "run the outer loop's tasks on all cores"},
      {"grain", values_up_to({1, 4, 16, 64, 256, 1024}, total), "outer-loop iterations per parallel task"},
  };
}

int64_t ElementwiseCpuSpace::fused_extent(int64_t dims) const {
  int64_t e = 1;
  for (int64_t d = 0; d < dims; ++d) e *= extents_[d];
  return e;
}

int64_t ElementwiseCpuSpace::outer_iterations(int64_t dims, int64_t block) const {
  int64_t n = ceil_div(fused_extent(dims), block);
  for (size_t d = static_cast<size_t>(dims); d < extents_.size(); ++d) n *= extents_[d];
  return n;
}

namespace {

bool calls_transcendental(const ElementwiseProgram& program) {
  for (const ElementwiseInstruction& ins : program.code) {
    switch (ins.op) {
      case ElementwiseOp::pow:
      case ElementwiseOp::exp:
      case ElementwiseOp::log:
      case ElementwiseOp::sigmoid:
      case ElementwiseOp::tanh:
      case ElementwiseOp::erf: return true;
      default: break;
    }
  }
  return false;
}

}  // namespace

ScheduleConfig ElementwiseCpuSpace::default_config() const {
  ScheduleConfig c;
  // Fuse inner dims until a run of 256 elements: a short innermost dim (ResNet's 7x7
  // maps) otherwise leaves most of each vector's lanes idle.
  int64_t dims = 1;
  const int64_t max_dims = knobs_[0].values.back();
  while (dims < max_dims && fused_extent(dims) < 256) ++dims;
  c.knobs["fuse_dims"] = dims;
  const int64_t inner = fused_extent(dims);
  // A native vector, and tasks of about 32K elements, at least 4 of them; parallel from
  // 64K elements, or 32K where the program calls a transcendental function. `nee-tune --op
  // elementwise --shape S --trials 30` (Emerald Rapids, 2 threads) on 12 shapes from UNet,
  // Conv-TasNet, DenseNet, EfficientNet and ViT found 16 lanes best on 8 of them and tasks
  // of 1024 blocks (16K-32K elements) on 7. This default against the former (8 lanes,
  // tasks of 8K elements, parallel from 16K), timed two or three times: UNet's SiLU on
  // 1x12x64x64x16 142-162 us against 187; Conv-TasNet's sigmoid on 1x512x1x999 102-135
  // against 165; a bias add on 1x4x64x64x16 26-34 against 38. In the models (`nee-run --profile`, alternating) UNet's elementwise
  // kernels took 0.72 ms against 0.82, Conv-TasNet's 0.94 against 0.96, DenseNet-121's 2.20
  // against 2.19. Cheap programs timed alone ran faster serially up to 128K elements
  // (DenseNet's BatchNorm and Relu on 1x32x14x14x16: 10.2 us against 14.8), but that bound
  // took DenseNet-121's from 2.15 to 2.26 ms: they read what parallel convs wrote, half of
  // it in the other core's cache.
  constexpr int64_t kTaskElements = 32768;
  c.knobs["vec"] = largest_value_up_to(knobs_, "vec", std::min<int64_t>(isa_.lanes, inner));
  c.knobs["unroll"] = inner >= 2 * c.knobs["vec"] ? 2 : 1;
  const int64_t block = c.knobs["vec"] * c.knobs["unroll"];
  const bool transcendental = calls_transcendental(elementwise_program(workload_));
  const bool parallel = workload_.output.elements() >= (transcendental ? 1 : 2) * kTaskElements;
  c.knobs["parallel"] = parallel ? 1 : 0;
  const int64_t outer = outer_iterations(dims, block);
  c.knobs["grain"] = parallel ? largest_value_up_to(knobs_, "grain",
                                                    std::max<int64_t>(1, std::min(kTaskElements / block, outer / 4)))
                              : 1;
  return c;
}

std::string ElementwiseCpuSpace::check_constraints(const ScheduleConfig& c) const {
  const int64_t dims = c.at("fuse_dims");
  const int64_t block = c.at("vec") * c.at("unroll");
  if (block > fused_extent(dims)) return "a block of vec x unroll exceeds the fused inner extent";
  if (c.at("parallel") == 0 && c.at("grain") != 1) return "grain is 1 when the outer loop is serial";
  if (c.at("grain") > outer_iterations(dims, block)) return "grain exceeds the outer loop's iterations";
  return "";
}

ScheduledKernel ElementwiseCpuSpace::apply(const ScheduleConfig& c) const {
  ElementwisePipeline p = define_elementwise(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const int dims = static_cast<int>(c.at("fuse_dims"));
  const int vec = static_cast<int>(c.at("vec"));
  const int block = vec * static_cast<int>(c.at("unroll"));

  Var inner = p.vars[0];
  for (int d = 1; d < dims; ++d) {
    Var fused("f" + std::to_string(d));
    p.out.fuse(inner, p.vars[d], fused);
    inner = fused;
  }
  Var outer("bo"), lanes("bi");
  p.out.split(inner, outer, lanes, block).vectorize(lanes, vec).unroll(lanes);
  for (size_t d = static_cast<size_t>(dims); d < p.vars.size(); ++d) {
    Var fused("o" + std::to_string(d));
    p.out.fuse(outer, p.vars[d], fused);
    outer = fused;
  }
  if (c.at("parallel")) {
    const int grain = static_cast<int>(c.at("grain"));
    if (grain > 1) {
      Var task("task"), within("within");
      p.out.split(outer, task, within, grain).parallel(task);
    } else {
      p.out.parallel(outer);
    }
  }
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
