#pragma once
#include "kernels/matmul_algorithm.h"
#include "schedules/cpu_vector_isa.h"
#include "schedules/schedule_space.h"

namespace nee {

// CPU schedule space of the matmul family (see the .cpp for the loop nest).
class MatmulCpuSpace : public ScheduleSpace {
 public:
  MatmulCpuSpace(const Workload& workload, CpuVectorIsa isa);
  std::string name() const override { return "matmul-cpu"; }
  ScheduleConfig default_config() const override;

 protected:
  std::string check_constraints(const ScheduleConfig& c) const override;
  ScheduledKernel apply(const ScheduleConfig& c) const override;

 private:
  Workload workload_;
  CpuVectorIsa isa_;
  // Tasks of the parallel loop at point c, and the most any tiling makes (one per
  // register block).
  int64_t parallel_tasks(const ScheduleConfig& c) const;
  // An integer product summed in dot products of bytes (define_matmul's byte_dot_products).
  bool dot_products() const { return a_bits_ != 0 && isa_.byte_dot_products; }
  int64_t most_parallel_tasks(const ScheduleConfig& c) const;

  int64_t m_, n_, k_, batch_;
  int64_t b_block_;  // columns per panel of a B packed ahead of time; 0: B as ONNX has it
  int64_t b_bits_;   // bits of a quantized B's integers; 0: B holds f32
  int64_t a_bits_;   // 8: an integer product (MatmulAttrs::a_bits)
};

}  // namespace nee
