#include "bench/gpu/cuda_buffer.h"

#include <utility>

#include "core/error.h"

namespace nee::bench {

void cuda_check(cudaError_t status, const std::string& what) {
  if (status != cudaSuccess) throw Error(what + ": " + cudaGetErrorString(status));
}

CudaBuffer::CudaBuffer(size_t bytes) : bytes_(bytes) {
  cuda_check(cudaMalloc(&ptr_, bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes");
}

CudaBuffer::~CudaBuffer() {
  if (ptr_) cudaFree(ptr_);
}

CudaBuffer::CudaBuffer(CudaBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

CudaBuffer& CudaBuffer::operator=(CudaBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void CudaBuffer::upload(const void* host) { cuda_check(cudaMemcpy(ptr_, host, bytes_, cudaMemcpyHostToDevice), "upload"); }

void CudaBuffer::download(void* host) const {
  cuda_check(cudaMemcpy(host, ptr_, bytes_, cudaMemcpyDeviceToHost), "download");
}

}  // namespace nee::bench
