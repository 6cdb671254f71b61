#include "bench/engines/openblas_engine.h"

#include <cblas.h>

#include <cstdlib>

#include "core/error.h"
#include "core/family.h"
#include "core/matmul_workload.h"

namespace nee::bench {

OpenBlasEngine::OpenBlasEngine(int threads) : threads_(threads) {}

std::string openblas_config() { return openblas_get_config(); }

// Debian's OpenBLAS 0.3.21 (DYNAMIC_ARCH) does not recognize some newer Xeons (a VM's
// "Intel Xeon Processor" with AVX-512 here) and falls back to its Prescott (SSE3) kernels:
// 38 GFLOP/s at 1024 cubed, against 210 with its SkylakeX kernels in the same session.
std::string openblas_core_override() {
  if (std::getenv("OPENBLAS_CORETYPE")) return "";
  if (std::string(openblas_get_corename()) != "Prescott") return "";
  if (__builtin_cpu_supports("avx512f")) return "SkylakeX";
  if (__builtin_cpu_supports("avx2")) return "Haswell";
  return "";
}

void OpenBlasEngine::prepare(const Workload& workload) {
  if (family_of(workload).id != FamilyId::matmul) throw Error("openblas: only matmul workloads, not " + workload.op);
  const MatmulAttrs attrs = matmul_attrs(workload);
  if (workload.inputs.size() != 2 || workload.inputs[0].shape.size() != 2 || workload.inputs[1].shape.size() != 2 ||
      attrs.trans_a || attrs.trans_b || attrs.relu || attrs.alpha != 1.0) {
    throw Error("openblas: only plain rank-2 MatMul is wired up, not " + workload.key());
  }
  m_ = static_cast<int>(workload.inputs[0].shape[0]);
  k_ = static_cast<int>(workload.inputs[0].shape[1]);
  n_ = static_cast<int>(workload.inputs[1].shape[1]);
  // The thread count is process-wide in OpenBLAS; set it here so every prepared
  // workload runs with the count the bench was given.
  openblas_set_num_threads(threads_);
}

std::string OpenBlasEngine::provenance() const { return "cblas_sgemm"; }

void OpenBlasEngine::run(const std::vector<const Tensor*>& inputs, Tensor& output) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m_, n_, k_, 1.0f, inputs[0]->data_as<float>(), k_,
              inputs[1]->data_as<float>(), n_, 0.0f, output.data_as<float>(), n_);
}

}  // namespace nee::bench
