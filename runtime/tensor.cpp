#include "runtime/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/error.h"

namespace nee {

static constexpr size_t kAlignment = 64;

Tensor::Tensor(DType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)), elements_(1) {
  for (int64_t d : shape_) {
    if (d < 0) throw Error("negative tensor dimension");
    elements_ *= d;
  }
  const size_t size = bytes();
  const size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, rounded == 0 ? kAlignment : rounded);
  if (dtype_ != DType::string) {
    storage_ = std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [](uint8_t* q) { std::free(q); });
    return;
  }
  // Constructing an empty std::string does not throw, so no object is left half made.
  auto* strings = static_cast<std::string*>(p);
  for (int64_t i = 0; i < elements_; ++i) new (strings + i) std::string();
  storage_ = std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [n = elements_](uint8_t* q) {
    auto* made = reinterpret_cast<std::string*>(q);
    for (int64_t i = 0; i < n; ++i) made[i].~basic_string();
    std::free(q);
  });
}

Tensor::Tensor(const TensorType& type, std::shared_ptr<uint8_t> owner, size_t byte_offset)
    : dtype_(type.dtype), shape_(type.shape), elements_(type.elements()),
      storage_(owner, owner.get() + byte_offset) {
  if (dtype_ == DType::string) {
    throw Error("a string tensor " + type.to_string() + " cannot view bytes owned elsewhere (an arena, a mapped "
                "file): its elements must be constructed std::string objects");
  }
}

Tensor Tensor::clone() const {
  Tensor t(dtype_, shape_);
  if (dtype_ == DType::string) {
    std::copy(data_as<std::string>(), data_as<std::string>() + elements_, t.data_as<std::string>());
  } else if (bytes()) {
    std::memcpy(t.data(), data(), bytes());
  }
  return t;
}

Tensor Tensor::reshaped(std::vector<int64_t> shape) const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n != elements_) throw Error("reshape changes the element count");
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

}  // namespace nee
