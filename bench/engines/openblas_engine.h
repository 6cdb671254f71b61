#pragma once
#include "bench/engines/engine.h"

namespace nee::bench {

// OpenBLAS cblas_sgemm on row-major operands. It covers plain rank-2 MatMul (no
// transposes, bias, Relu or alpha), which is what the bench suites hold.
class OpenBlasEngine : public Engine {
 public:
  explicit OpenBlasEngine(int threads);
  std::string name() const override { return "openblas"; }
  void prepare(const Workload& workload) override;
  std::string provenance() const override;
  void run(const std::vector<const Tensor*>& inputs, Tensor& output) override;

 private:
  int threads_;
  int m_ = 0, k_ = 0, n_ = 0;
};

// OpenBLAS's build configuration string (version, kernel, thread model).
// The kernel set OpenBLAS should be told to use (OPENBLAS_CORETYPE) because it fell back
// to its generic one on a CPU it does not recognize; empty when nothing needs forcing.
std::string openblas_core_override();
std::string openblas_config();

}  // namespace nee::bench
