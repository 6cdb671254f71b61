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
// per value name that lives as long as the session. A value of the session's memory plan
// takes a crop (halide_device_crop) of one arena allocation at its planned offset;
// any other value gets its own allocation, made by Halide when a kernel first uses it.
// Both are reused run after run and freed at the end.
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
  void plan(const MemoryPlan& plan) override;
  size_t resident_bytes() const override;
  void wait_for_each_kernel(bool on) override { wait_for_each_kernel_ = on; }

  // Waits for the kernel that wrote `output` where wait_for_each_kernel is on.
  void kernel_launched(halide_buffer_t* output);

  // `name`'s buffer over `host`'s bytes, to pass to a kernel as an input. Returns the
  // bytes Halide will upload for it (0 when the device copy is current).
  size_t input(const std::string& name, const Tensor& host, halide_buffer_t** buffer);
  // `name`'s buffer over `host`'s bytes, to pass to a kernel as its output.
  halide_buffer_t* output(const std::string& name, const Tensor& host);

 private:
  struct Value {
    std::unique_ptr<HalideBufferView> view;
    bool borrowed = false;  // its device allocation belongs to the value it is a view of
    bool in_arena = false;  // its device allocation is a crop of the arena
  };
  // The value's buffer, made on first use (host bytes current), pointed at `host`'s bytes.
  Value& value(const std::string& name, const Tensor& host);
  // A planned value without device memory takes its crop of the arena, which is
  // allocated on the first such call.
  void place_in_arena(const std::string& name, Value& v);
  // Frees the value's own device allocation, releases its crop, or forgets a borrowed one.
  void drop_device(Value& v);

  HalideDeviceApi api_;
  std::unordered_map<std::string, Value> values_;
  std::unordered_map<std::string, size_t> offsets_;  // planned values -> byte offset in the arena
  size_t arena_bytes_ = 0;
  halide_buffer_t arena_{};  // 1-D, f32, no host bytes
  halide_dimension_t arena_dim_{};
  bool wait_for_each_kernel_ = false;
};

}  // namespace nee
