#pragma once
#include <cublas_v2.h>

#include <vector>

#include "bench/engines/engine.h"
#include "bench/gpu/cuda_buffer.h"

namespace nee::bench {

// cuBLAS sgemm on plain rank-2 MatMul. Inputs are uploaded in bind_inputs() and the
// result downloaded in finish_output(), both untimed; run() is the sgemm alone, waited
// for with cudaDeviceSynchronize.
class CublasEngine : public Engine {
 public:
  CublasEngine();
  ~CublasEngine() override;
  std::string name() const override { return "cublas"; }
  void prepare(const Workload& workload) override;
  std::string provenance() const override { return "cublasSgemm (FP32, default math mode)"; }
  void bind_inputs(const std::vector<const Tensor*>& inputs) override;
  void run(const std::vector<const Tensor*>& inputs, Tensor& output) override;
  void finish_output(Tensor& output) override;

 private:
  cublasHandle_t handle_ = nullptr;
  int m_ = 0, k_ = 0, n_ = 0;
  CudaBuffer a_, b_, c_;
};

}  // namespace nee::bench
