#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

#include "core/workload.h"
#include "runtime/process_memory_limit.h"

namespace nee {

// No single tensor may exceed this by default; a few bytes of a model file can declare
// dims whose product is astronomically large, and allocating that must fail with a
// clear error.
inline constexpr int64_t kMaxTensorBytes = int64_t{4} << 30;

// The memory a model may make NEE allocate, checked before each allocation so that an
// oversized model is refused with the tensor named instead of ending in std::bad_alloc
// or the kernel's OOM killer. By default every cap but the one-tensor cap is what this
// process can have (process_memory_limit(): physical memory, cgroup, ulimit), since an
// allocation past it can only fail. The fixed 16 GiB these replaced let a model allocate
// past what a 4 GiB container holds, and refused a 20 GiB model on a 64 GiB machine.
struct MemoryCaps {
  // Any one tensor.
  int64_t tensor_bytes = std::min(kMaxTensorBytes, process_memory_limit().bytes);
  // The model's constants: initializers, Constant nodes, folded values.
  int64_t weights_bytes = process_memory_limit().bytes;
  // What one run allocates: the memory plan's arena and per-run tensors.
  int64_t plan_bytes = process_memory_limit().bytes;
  // Weights, graph inputs and one run's tensors together.
  int64_t total_bytes = process_memory_limit().bytes;
};

// Caps for a bound on the whole (nee-run --max-memory): weights, one run and both
// together within `total`, and one tensor within the lesser of `total` and 4 GiB.
MemoryCaps memory_caps_within(int64_t total);

// Bytes as people read them: "512 MiB", "4 GiB", "1.50 GiB", "100 bytes".
std::string format_bytes(int64_t bytes);

// A byte count as written on a command line: digits with an optional binary suffix K, M,
// G or T (powers of 1024), optionally followed by "B" or "iB": "512M", "4G", "4GiB",
// "1048576". Throws nee::Error naming the text.
int64_t parse_byte_size(const std::string& text);

// Element count of `type`, after checking that no dim is negative, that the product
// does not overflow and that the bytes stay within `max_bytes`. `what` names the tensor
// in the error.
int64_t checked_elements(const TensorType& type, const std::string& what, int64_t max_bytes = kMaxTensorBytes);

// Bytes of `type` (elements times element size), checked as checked_elements does.
int64_t checked_bytes(const TensorType& type, const std::string& what, int64_t max_bytes = kMaxTensorBytes);

// A running total of bytes held against a cap: reserve() is called before each
// allocation and refuses one that would take the total past the cap.
class ByteBudget {
 public:
  // `cap_name` follows the cap's size in errors: "cap on the model's weights".
  ByteBudget(int64_t cap, std::string cap_name) : cap_(cap), cap_name_(std::move(cap_name)) {}
  // Throws nee::Error naming `what`, its bytes, the total so far and the cap.
  void reserve(int64_t bytes, const std::string& what);
  int64_t used() const { return used_; }

 private:
  int64_t cap_;
  std::string cap_name_;
  int64_t used_ = 0;
};

}  // namespace nee
