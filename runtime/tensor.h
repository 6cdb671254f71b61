#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/workload.h"

namespace nee {

// A dense, row-major tensor. Storage is 64-byte aligned and shared between copies
// (copies are shallow); use clone() for a deep copy.
//
// A string tensor's storage holds constructed std::string objects (data_as<std::string>()),
// made empty by the constructor and destroyed with the storage, and clone() copies them
// one by one. Its bytes are those objects, not text: code that copies, zeroes or compares
// raw bytes must not be given one, so the memory plan gives string values no arena bytes
// and the importer refuses strings for every operator but those that handle them.
class Tensor {
 public:
  Tensor() = default;
  Tensor(DType dtype, std::vector<int64_t> shape);  // zero-filled; strings empty
  explicit Tensor(const TensorType& type) : Tensor(type.dtype, type.shape) {}
  // A tensor over bytes owned elsewhere (a memory plan's arena); `owner` keeps them alive.
  // Not for strings, which need constructed objects (nee::Error).
  Tensor(const TensorType& type, std::shared_ptr<uint8_t> owner, size_t byte_offset);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  TensorType type() const { return TensorType{dtype_, shape_}; }
  int64_t elements() const { return elements_; }
  size_t bytes() const { return static_cast<size_t>(elements_) * dtype_size(dtype_); }
  bool empty_storage() const { return !storage_; }

  void* data() { return storage_.get(); }
  const void* data() const { return storage_.get(); }
  template <typename T> T* data_as() { return static_cast<T*>(data()); }
  template <typename T> const T* data_as() const { return static_cast<const T*>(data()); }

  Tensor clone() const;
  // Same storage, another shape with the same element count (Reshape, Flatten).
  Tensor reshaped(std::vector<int64_t> shape) const;

 private:
  DType dtype_ = DType::f32;
  std::vector<int64_t> shape_;
  int64_t elements_ = 0;
  std::shared_ptr<uint8_t> storage_;
};

}  // namespace nee
