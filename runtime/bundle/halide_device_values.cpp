#include "runtime/bundle/halide_device_values.h"

#include <fmt/format.h>

#include "core/error.h"

namespace nee {

HalideDeviceValues::HalideDeviceValues(HalideDeviceApi api) : api_(api) {
  if (!api_.copy_to_host || !api_.device_free) {
    throw Error("the kernel library exports no Halide device runtime (halide_copy_to_host, halide_device_free)");
  }
}

HalideDeviceValues::~HalideDeviceValues() {
  for (auto& [name, v] : values_) drop_device(v);
}

void HalideDeviceValues::drop_device(Value& v) {
  halide_buffer_t& b = v.view->buffer;
  if (b.device && !v.borrowed) api_.device_free(nullptr, &b);
  b.device = 0;
  b.device_interface = nullptr;
  b.set_device_dirty(false);
  v.borrowed = false;
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
  halide_buffer_t& b = value(name, host).view->buffer;
  *buffer = &b;
  return b.host_dirty() ? host.bytes() : 0;
}

halide_buffer_t* HalideDeviceValues::output(const std::string& name, const Tensor& host) {
  Value& v = value(name, host);
  if (v.borrowed) drop_device(v);
  v.view->buffer.set_host_dirty(false);
  v.view->buffer.set_device_dirty(false);
  return &v.view->buffer;
}

}  // namespace nee
