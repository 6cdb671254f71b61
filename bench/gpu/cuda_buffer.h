#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace nee::bench {

// Throws nee::Error "<what>: <CUDA's message>" when `status` is not cudaSuccess.
void cuda_check(cudaError_t status, const std::string& what);

// Device memory of a fixed size, freed on destruction.
class CudaBuffer {
 public:
  CudaBuffer() = default;
  explicit CudaBuffer(size_t bytes);
  ~CudaBuffer();
  CudaBuffer(CudaBuffer&& other) noexcept;
  CudaBuffer& operator=(CudaBuffer&& other) noexcept;
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  float* data() const { return static_cast<float*>(ptr_); }
  size_t bytes() const { return bytes_; }
  void upload(const void* host);
  void download(void* host) const;

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace nee::bench
