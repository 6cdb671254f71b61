#include "bench/gpu/cublas_engine.h"

#include "core/error.h"
#include "core/family.h"
#include "core/matmul_workload.h"

namespace nee::bench {

namespace {

void cublas_check(cublasStatus_t status, const std::string& what) {
  if (status != CUBLAS_STATUS_SUCCESS) throw Error(what + ": cuBLAS status " + std::to_string(status));
}

}  // namespace

CublasEngine::CublasEngine() {
  cublas_check(cublasCreate(&handle_), "cublasCreate");
  // Set, not assumed: the default math mode computes sgemm in fp32 throughout (TF32 and
  // the BF16x9 emulation are modes of their own), the precision NEE's kernels compute in.
  const cublasStatus_t mode = cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH);
  if (mode != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(handle_);
    cublas_check(mode, "cublasSetMathMode");
  }
}
CublasEngine::~CublasEngine() { cublasDestroy(handle_); }

void CublasEngine::prepare(const Workload& workload) {
  if (family_of(workload).id != FamilyId::matmul) throw Error("cublas: only matmul workloads, not " + workload.op);
  const MatmulAttrs attrs = matmul_attrs(workload);
  if (workload.inputs.size() != 2 || workload.inputs[0].shape.size() != 2 || workload.inputs[1].shape.size() != 2 ||
      attrs.trans_a || attrs.trans_b || attrs.relu || attrs.alpha != 1.0) {
    throw Error("cublas: only plain rank-2 MatMul is wired up, not " + workload.key());
  }
  m_ = static_cast<int>(workload.inputs[0].shape[0]);
  k_ = static_cast<int>(workload.inputs[0].shape[1]);
  n_ = static_cast<int>(workload.inputs[1].shape[1]);
  a_ = CudaBuffer(sizeof(float) * m_ * k_);
  b_ = CudaBuffer(sizeof(float) * k_ * n_);
  c_ = CudaBuffer(sizeof(float) * m_ * n_);
}

void CublasEngine::bind_inputs(const std::vector<const Tensor*>& inputs) {
  a_.upload(inputs[0]->data());
  b_.upload(inputs[1]->data());
}

void CublasEngine::run(const std::vector<const Tensor*>& inputs, Tensor& output) {
  const float one = 1.0f, zero = 0.0f;
  // cuBLAS is column-major: row-major C = A B is column-major C^T = B^T A^T.
  cublas_check(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n_, m_, k_, &one, b_.data(), n_, a_.data(), k_, &zero,
                           c_.data(), n_),
               "cublasSgemm");
  cuda_check(cudaDeviceSynchronize(), "cublasSgemm");
}

void CublasEngine::finish_output(Tensor& output) { c_.download(output.data()); }

}  // namespace nee::bench
