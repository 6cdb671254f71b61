#pragma once
#include <memory>
#include <string>
#include <unordered_map>

#include <HalideRuntime.h>

#include "runtime/bundle/halide_buffer_view.h"
#include "runtime/bundle/halide_kernel.h"
#include "runtime/device_values.h"

namespace nee {

// The device copies of a session's values for one GPU kernel library: a halide_buffer_t
// per value name that lives as long as the session, so its device allocation (made by
// Halide when a kernel first uses it) is reused run after run and freed at the end.
class HalideDeviceValues : public DeviceValues {
 public:
  explicit HalideDeviceValues(HalideDeviceApi api);
  ~HalideDeviceValues() override;
  HalideDeviceValues(const HalideDeviceValues&) = delete;
  HalideDeviceValues& operator=(const HalideDeviceValues&) = delete;

  void host_written(const std::string& name) override;
  bool device_newer(const std::string& name) const override;
  size_t to_host(const std::string& name, const Tensor& host) override;
  void alias(const std::string& view, const std::string& of, const Tensor& host) override;

  // `name`'s buffer over `host`'s bytes, to pass to a kernel as an input. Returns the
  // bytes Halide will upload for it (0 when the device copy is current).
  size_t input(const std::string& name, const Tensor& host, halide_buffer_t** buffer);
  // `name`'s buffer over `host`'s bytes, to pass to a kernel as its output.
  halide_buffer_t* output(const std::string& name, const Tensor& host);

 private:
  struct Value {
    std::unique_ptr<HalideBufferView> view;
    bool borrowed = false;  // its device allocation belongs to the value it is a view of
  };
  // The value's buffer, made on first use (host bytes current), pointed at `host`'s bytes.
  Value& value(const std::string& name, const Tensor& host);
  // Frees the value's own device allocation, or forgets a borrowed one.
  void drop_device(Value& v);

  HalideDeviceApi api_;
  std::unordered_map<std::string, Value> values_;
};

}  // namespace nee
