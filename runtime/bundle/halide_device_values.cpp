#include "runtime/bundle/halide_device_values.h"

#include <fmt/format.h>

#include <climits>

#include "core/error.h"

namespace nee {

HalideDeviceValues::HalideDeviceValues(HalideDeviceApi api) : api_(api) {
  if (!api_.copy_to_host || !api_.device_free) {
    throw Error("the kernel library exports no Halide device runtime (halide_copy_to_host, halide_device_free)");
  }
}

HalideDeviceValues::~HalideDeviceValues() {
  for (auto& [name, v] : values_) drop_device(v);  // the crops before the arena they view
  if (arena_.device) api_.device_free(nullptr, &arena_);
}

void HalideDeviceValues::drop_device(Value& v) {
  halide_buffer_t& b = v.view->buffer;
  if (b.device && !v.borrowed) {
    if (v.in_arena) {
      api_.device_release_crop(nullptr, &b);
    } else {
      api_.device_free(nullptr, &b);
    }
  }
  b.device = 0;
  b.device_interface = nullptr;
  b.set_device_dirty(false);
  v.borrowed = false;
  v.in_arena = false;
}

void HalideDeviceValues::plan(const MemoryPlan& plan) {
  if (arena_.device || !values_.empty()) throw Error("a device memory plan must come before the first run");
  if (plan.arena_bytes / sizeof(float) > static_cast<size_t>(INT32_MAX)) {
    throw Error(fmt::format("the {}-byte tensor arena is beyond a Halide buffer's 2^31 elements", plan.arena_bytes));
  }
  offsets_ = plan.offsets;
  arena_bytes_ = plan.arena_bytes;
}

void HalideDeviceValues::place_in_arena(const std::string& name, Value& v) {
  halide_buffer_t& b = v.view->buffer;
  const auto planned = offsets_.find(name);
  if (b.device || planned == offsets_.end()) return;
  if (!api_.device_malloc || !api_.device_crop || !api_.device_release_crop || !api_.device_interface) {
    throw Error("the kernel library exports no Halide device arena functions (halide_device_malloc, "
                "halide_device_crop, halide_device_release_crop, a CUDA or OpenCL device interface)");
  }
  if (!arena_.device) {
    arena_dim_ = halide_dimension_t(0, static_cast<int32_t>(arena_bytes_ / sizeof(float)), 1);
    arena_.type = halide_type_t(halide_type_float, 32, 1);
    arena_.dimensions = 1;
    arena_.dim = &arena_dim_;
    if (const int status = api_.device_malloc(nullptr, &arena_, api_.device_interface())) {
      throw Error(fmt::format("allocating the {}-byte device arena failed (Halide error {})", arena_bytes_, status));
    }
  }
  // Halide takes a crop's offset from its mins against the source's.
  halide_dimension_t dim(static_cast<int32_t>(planned->second / sizeof(float)),
                         static_cast<int32_t>(b.number_of_elements()), 1);
  halide_buffer_t crop{};
  crop.type = arena_.type;
  crop.dimensions = 1;
  crop.dim = &dim;
  if (const int status = api_.device_crop(nullptr, &arena_, &crop)) {
    throw Error(fmt::format("placing value '{}' in the device arena failed (Halide error {})", name, status));
  }
  b.device = crop.device;
  b.device_interface = crop.device_interface;
  v.in_arena = true;
}

size_t HalideDeviceValues::resident_bytes() const {
  size_t bytes = arena_.device ? arena_bytes_ : 0;
  for (const auto& [name, v] : values_) {
    const halide_buffer_t& b = v.view->buffer;
    if (b.device && !v.borrowed && !v.in_arena) bytes += b.size_in_bytes();
  }
  return bytes;
}

void HalideDeviceValues::kernel_launched(halide_buffer_t* output) {
  if (!wait_for_each_kernel_ || !output->device || !api_.device_sync) return;
  if (const int status = api_.device_sync(nullptr, output)) {
    throw Error(fmt::format("waiting for a device kernel failed (Halide error {})", status));
  }
}

HalideDeviceValues::Value& HalideDeviceValues::value(const std::string& name, const Tensor& host) {
  auto [it, made] = values_.try_emplace(name);
  Value& v = it->second;
  if (made) {
    v.view = std::make_unique<HalideBufferView>(host);
    v.view->buffer.set_host_dirty(true);
  } else if (v.view->buffer.number_of_elements() != static_cast<size_t>(host.elements())) {
    throw Error(fmt::format("value '{}' changed size on the device, from {} to {} elements", name,
                            v.view->buffer.number_of_elements(), host.elements()));
  }
  // Graph inputs and outputs are other host tensors on every run.
  v.view->buffer.host = static_cast<uint8_t*>(const_cast<void*>(host.data()));
  return v;
}

void HalideDeviceValues::host_written(const std::string& name) {
  const auto it = values_.find(name);
  if (it == values_.end()) return;  // made host-current when a device kernel first reads it
  Value& v = it->second;
  if (v.borrowed) drop_device(v);
  v.view->buffer.set_device_dirty(false);
  v.view->buffer.set_host_dirty(true);
}

bool HalideDeviceValues::device_newer(const std::string& name) const {
  const auto it = values_.find(name);
  return it != values_.end() && it->second.view->buffer.device_dirty();
}

size_t HalideDeviceValues::to_host(const std::string& name, const Tensor& host) {
  if (!device_newer(name)) return 0;
  halide_buffer_t& b = value(name, host).view->buffer;
  if (const int status = api_.copy_to_host(nullptr, &b)) {
    throw Error(fmt::format("copying value '{}' from the device failed (Halide error {})", name, status));
  }
  return host.bytes();
}

void HalideDeviceValues::alias(const std::string& view, const std::string& of, const Tensor& host) {
  if (!device_newer(of)) throw Error(fmt::format("value '{}' is not on the device to be viewed as '{}'", of, view));
  const halide_buffer_t& source = values_.at(of).view->buffer;
  Value& v = value(view, host);
  drop_device(v);
  halide_buffer_t& b = v.view->buffer;
  b.device = source.device;
  b.device_interface = source.device_interface;
  b.set_host_dirty(false);
  b.set_device_dirty(true);
  v.borrowed = true;
}

size_t HalideDeviceValues::input(const std::string& name, const Tensor& host, halide_buffer_t** buffer) {
  Value& v = value(name, host);
  place_in_arena(name, v);
  halide_buffer_t& b = v.view->buffer;
  *buffer = &b;
  return b.host_dirty() ? host.bytes() : 0;
}

halide_buffer_t* HalideDeviceValues::output(const std::string& name, const Tensor& host) {
  Value& v = value(name, host);
  if (v.borrowed) drop_device(v);
  place_in_arena(name, v);
  v.view->buffer.set_host_dirty(false);
  v.view->buffer.set_device_dirty(false);
  return &v.view->buffer;
}

}  // namespace nee
