#include "schedules/attention_gpu_space.h"

#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

AttentionGpuSpace::AttentionGpuSpace(const Workload& workload) : workload_(workload) {
  knobs_ = {
      {"threads", values_up_to({1, 8, 32, 64, 128}, attention_dims(workload).queries),
       "query rows per thread block, one thread each"},
  };
}

ScheduleConfig AttentionGpuSpace::default_config() const {
  ScheduleConfig c;
  c.knobs["threads"] = largest_value_up_to(knobs_, "threads", 32);
  return c;
}

ScheduledKernel AttentionGpuSpace::apply(const ScheduleConfig& c) const {
  AttentionPipeline p = define_attention(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  Var so("so"), si("si");
  p.out.split(p.s, so, si, static_cast<int>(c.at("threads")), TailStrategy::GuardWithIf)
      .reorder(p.dv, si, so, p.g)
      .gpu_blocks(so, p.g)
      .gpu_threads(si);
  const LoopLevel per_thread(p.out, si);
  for (Func* f : {&p.dot, &p.row_max, &p.exps, &p.row_sum, &p.weighted}) f->compute_at(per_thread);
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
