#include "bench/gpu/cudnn_engine.h"

#include <fmt/format.h>

#include "core/conv2d_workload.h"
#include "core/error.h"
#include "core/family.h"

namespace nee::bench {

namespace {

void cudnn_check(cudnnStatus_t status, const std::string& what) {
  if (status != CUDNN_STATUS_SUCCESS) throw Error(what + ": " + cudnnGetErrorString(status));
}

size_t bytes_of(const TensorType& t) { return sizeof(float) * static_cast<size_t>(t.elements()); }

}  // namespace

CudnnEngine::CudnnEngine() {
  cudnn_check(cudnnCreate(&handle_), "cudnnCreate");
  cudnn_check(cudnnCreateTensorDescriptor(&x_desc_), "cudnnCreateTensorDescriptor");
  cudnn_check(cudnnCreateTensorDescriptor(&y_desc_), "cudnnCreateTensorDescriptor");
  cudnn_check(cudnnCreateFilterDescriptor(&w_desc_), "cudnnCreateFilterDescriptor");
  cudnn_check(cudnnCreateConvolutionDescriptor(&conv_desc_), "cudnnCreateConvolutionDescriptor");
}

CudnnEngine::~CudnnEngine() {
  cudnnDestroyConvolutionDescriptor(conv_desc_);
  cudnnDestroyFilterDescriptor(w_desc_);
  cudnnDestroyTensorDescriptor(y_desc_);
  cudnnDestroyTensorDescriptor(x_desc_);
  cudnnDestroy(handle_);
}

void CudnnEngine::prepare(const Workload& workload) {
  if (family_of(workload).id != FamilyId::conv2d) throw Error("cudnn: only conv2d workloads, not " + workload.op);
  const Conv2dAttrs a = conv2d_attrs(workload);
  if (conv2d_has_bias(workload) || conv2d_has_residual(workload) || a.activation != ConvActivation::none) {
    throw Error("cudnn: only a plain conv2d (no bias, residual or activation) is wired up");
  }
  if (a.pads[0] != a.pads[2] || a.pads[1] != a.pads[3]) throw Error("cudnn: asymmetric padding is not supported");
  const auto& x = workload.inputs[0].shape;
  const auto& w = workload.inputs[1].shape;
  const auto& y = workload.output.shape;
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  cudnn_check(cudnnSetTensor4dDescriptor(x_desc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, i(x[0]), i(x[1]), i(x[2]), i(x[3])),
              "input descriptor");
  cudnn_check(cudnnSetFilter4dDescriptor(w_desc_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, i(w[0]), i(w[1]), i(w[2]), i(w[3])),
              "weights descriptor");
  cudnn_check(cudnnSetTensor4dDescriptor(y_desc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, i(y[0]), i(y[1]), i(y[2]), i(y[3])),
              "output descriptor");
  // CROSS_CORRELATION is what ONNX Conv (and every DL framework) calls convolution.
  cudnn_check(cudnnSetConvolution2dDescriptor(conv_desc_, i(a.pads[0]), i(a.pads[1]), i(a.strides[0]),
                                              i(a.strides[1]), i(a.dilations[0]), i(a.dilations[1]),
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "convolution descriptor");
  cudnn_check(cudnnSetConvolutionGroupCount(conv_desc_, i(a.group)), "group count");
  // FP32 math: no TF32 tensor cores, so the answer meets the same fp32 tolerance as NEE's.
  cudnn_check(cudnnSetConvolutionMathType(conv_desc_, CUDNN_FMA_MATH), "math type");
  cudnnConvolutionFwdAlgoPerf_t perf[8];
  int returned = 0;
  cudnn_check(cudnnGetConvolutionForwardAlgorithm_v7(handle_, x_desc_, w_desc_, conv_desc_, y_desc_, 8, &returned, perf),
              "cudnnGetConvolutionForwardAlgorithm_v7");
  // Each entry names the math type it was ranked with. The descriptor's FMA math is what
  // runs, so an entry ranked with tensor-op math (lower precision than NEE's fp32) is
  // passed over rather than run at a speed it was not ranked for.
  int chosen = -1;
  for (int k = 0; k < returned && chosen < 0; ++k) {
    const bool tensor_op =
        perf[k].mathType == CUDNN_TENSOR_OP_MATH || perf[k].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    if (perf[k].status == CUDNN_STATUS_SUCCESS && !tensor_op) chosen = k;
  }
  if (chosen < 0) throw Error("cudnn: no forward algorithm runs " + workload.key() + " in fp32 FMA math");
  algo_ = perf[chosen].algo;
  size_t workspace_bytes = 0;
  cudnn_check(cudnnGetConvolutionForwardWorkspaceSize(handle_, x_desc_, w_desc_, conv_desc_, y_desc_, algo_,
                                                      &workspace_bytes),
              "workspace size");
  x_ = CudaBuffer(bytes_of(workload.inputs[0]));
  w_ = CudaBuffer(bytes_of(workload.inputs[1]));
  y_ = CudaBuffer(bytes_of(workload.output));
  workspace_ = workspace_bytes ? CudaBuffer(workspace_bytes) : CudaBuffer();
  provenance_ = fmt::format("cudnnConvolutionForward, algorithm {} (the heuristic's first without tensor ops), FMA "
                            "math, {} KiB workspace",
                            static_cast<int>(algo_), workspace_bytes >> 10);
}

void CudnnEngine::bind_inputs(const std::vector<const Tensor*>& inputs) {
  x_.upload(inputs[0]->data());
  w_.upload(inputs[1]->data());
}

void CudnnEngine::run(const std::vector<const Tensor*>& inputs, Tensor& output) {
  const float one = 1.0f, zero = 0.0f;
  cudnn_check(cudnnConvolutionForward(handle_, &one, x_desc_, x_.data(), w_desc_, w_.data(), conv_desc_, algo_,
                                      workspace_.data(), workspace_.bytes(), &zero, y_desc_, y_.data()),
              "cudnnConvolutionForward");
  cuda_check(cudaDeviceSynchronize(), "cudnnConvolutionForward");
}

void CudnnEngine::finish_output(Tensor& output) { y_.download(output.data()); }

}  // namespace nee::bench
