#include "schedules/matmul_gpu_space.h"

#include <algorithm>

#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

MatmulGpuSpace::MatmulGpuSpace(const Workload& workload) : workload_(workload) {
  const MatmulPipeline shape = define_matmul(workload);
  m_ = shape.size_m;
  n_ = shape.size_n;
  k_ = shape.size_k;
  knobs_ = {
      {"threads_n", values_up_to({1, 4, 8, 16, 32}, n_), "threads of a block along N"},
      {"threads_m", values_up_to({1, 2, 4, 8, 16}, m_), "threads of a block along M"},
      {"rows_per_thread", values_up_to({1, 2, 4, 8}, m_), "outputs per thread along M, in registers"},
      {"unroll_k", values_up_to({1, 2, 4, 8}, k_), "unroll factor of the reduction loop"},
  };
}

ScheduleConfig MatmulGpuSpace::default_config() const {
  ScheduleConfig c;
  c.knobs["threads_n"] = largest_value_up_to(knobs_, "threads_n", 16);
  c.knobs["threads_m"] = largest_value_up_to(knobs_, "threads_m", 8);
  c.knobs["rows_per_thread"] = 1;
  c.knobs["unroll_k"] = largest_value_up_to(knobs_, "unroll_k", 4);
  while (c.knobs["threads_m"] * c.knobs["rows_per_thread"] > m_ && c.knobs["threads_m"] > 1) {
    c.knobs["threads_m"] /= 2;
  }
  return c;
}

std::string MatmulGpuSpace::check_constraints(const ScheduleConfig& c) const {
  if (c.at("threads_m") * c.at("rows_per_thread") > m_) return "block rows exceed M";
  if (c.at("threads_n") > n_) return "block columns exceed N";
  return "";
}

ScheduledKernel MatmulGpuSpace::apply(const ScheduleConfig& c) const {
  MatmulPipeline p = define_matmul(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const int tn = static_cast<int>(c.at("threads_n"));
  const int tm = static_cast<int>(c.at("threads_m"));
  const int rows = static_cast<int>(c.at("rows_per_thread"));
  const int unroll_k = static_cast<int>(c.at("unroll_k"));

  Var nb("nb"), ntd("ntd"), mb("mb"), mtd("mtd"), mr("mr");
  p.out.split(p.n, nb, ntd, tn).split(p.m, mb, mtd, tm * rows).split(mtd, mtd, mr, rows);
  std::vector<VarOrRVar> order = {mr, ntd, mtd, nb, mb};
  for (const Var& b : p.batch) order.push_back(b);
  p.out.reorder(order).unroll(mr);
  Var block_m = mb;
  for (const Var& b : p.batch) {
    Var next(block_m.name() + "_" + b.name());
    p.out.fuse(block_m, b, next);
    block_m = next;
  }
  p.out.gpu_blocks(nb, block_m).gpu_threads(ntd, mtd);

  p.acc.compute_at(p.out, ntd).unroll(p.m);
  Stage update = p.acc.update();
  if (unroll_k > 1) {
    RVar ko("ko"), ki("ki");
    update.split(p.k.x, ko, ki, unroll_k).reorder(p.n, p.m, ki, ko).unroll(ki);
  } else {
    update.reorder(p.n, p.m, p.k.x);
  }
  update.unroll(p.m);
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
