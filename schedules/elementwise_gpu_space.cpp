#include "schedules/elementwise_gpu_space.h"

#include <algorithm>

#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

ElementwiseGpuSpace::ElementwiseGpuSpace(const Workload& workload) : workload_(workload) {
  const int64_t total = workload.output.elements();
  knobs_ = {
      {"threads", values_up_to({32, 64, 128, 256, 512}, total), "threads of a block"},
      {"per_thread", values_up_to({1, 2, 4, 8}, total), "elements per thread, unrolled"},
      {"vector", values_up_to({1, 2, 4}, workload.output.shape.empty() ? 1 : workload.output.shape.back()),
       "adjacent elements each thread loads and stores as one vector", 1},
  };
}

ScheduleConfig ElementwiseGpuSpace::default_config() const {
  ScheduleConfig c;
  c.knobs["threads"] = largest_value_up_to(knobs_, "threads", std::min<int64_t>(256, workload_.output.elements()));
  c.knobs["per_thread"] = 1;
  c.knobs["vector"] = 1;
  // float4 where every row holds whole vectors, in blocks of up to 256 threads that the
  // output fills.
  ScheduleConfig vectors = c;
  vectors.knobs["vector"] = 4;
  vectors.knobs["threads"] =
      largest_value_up_to(knobs_, "threads", std::min<int64_t>(256, workload_.output.elements() / 4));
  if (check(vectors).empty()) return vectors;
  return c;
}

std::string ElementwiseGpuSpace::check_constraints(const ScheduleConfig& c) const {
  if (c.at("threads") * c.at("per_thread") * c.at("vector") > workload_.output.elements()) {
    return "a block's elements exceed the output's";
  }
  // A vector must not straddle two rows: a broadcast operand's index jumps between them.
  const int64_t row = workload_.output.shape.empty() ? 1 : workload_.output.shape.back();
  if (row % c.at("vector")) return "vector does not divide the output's innermost dim";
  return "";
}

ScheduledKernel ElementwiseGpuSpace::apply(const ScheduleConfig& c) const {
  ElementwisePipeline p = define_elementwise(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  Var flat = p.vars[0];
  for (size_t d = 1; d < p.vars.size(); ++d) {
    Var fused("f" + std::to_string(d));
    p.out.fuse(flat, p.vars[d], fused);
    flat = fused;
  }
  const int threads = static_cast<int>(c.at("threads"));
  const int per_thread = static_cast<int>(c.at("per_thread"));
  const int vector = static_cast<int>(c.at("vector"));
  Var block("block"), within("within"), item("item"), thread("thread"), lane("lane");
  p.out.split(flat, block, within, threads * per_thread * vector)
      .split(within, within, lane, vector)
      .split(within, item, thread, threads)
      .reorder(lane, item, thread, block)
      .unroll(item)
      .gpu_blocks(block)
      .gpu_threads(thread);
  if (vector > 1) p.out.vectorize(lane);
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
