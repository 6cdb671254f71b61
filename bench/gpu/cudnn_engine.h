#pragma once
#include <cudnn.h>

#include <string>
#include <vector>

#include "bench/engines/engine.h"
#include "bench/gpu/cuda_buffer.h"

namespace nee::bench {

// cuDNN convolution (NCHW, FP32, grouped included) with the algorithm cuDNN's
// heuristics rank first and its workspace. Inputs uploaded in bind_inputs(), output
// downloaded in finish_output() (both untimed); run() is the convolution, synchronized.
// Plain conv2d only: bias, residual and activations are refused.
class CudnnEngine : public Engine {
 public:
  CudnnEngine();
  ~CudnnEngine() override;
  std::string name() const override { return "cudnn"; }
  void prepare(const Workload& workload) override;
  std::string provenance() const override { return provenance_; }
  void bind_inputs(const std::vector<const Tensor*>& inputs) override;
  void run(const std::vector<const Tensor*>& inputs, Tensor& output) override;
  void finish_output(Tensor& output) override;

 private:
  cudnnHandle_t handle_ = nullptr;
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
  cudnnFilterDescriptor_t w_desc_ = nullptr;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  cudnnConvolutionFwdAlgo_t algo_{};
  std::string provenance_;
  CudaBuffer x_, w_, y_, workspace_;
};

}  // namespace nee::bench
