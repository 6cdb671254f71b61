#pragma once
#include <memory>
#include <optional>

#include "bench/engines/engine.h"
#include "bench/engines/kernel_workspace.h"
#include "bench/engines/loaded_kernel.h"
#include "runtime/bundle/halide_device_values.h"
#include "tuning-db/tuning_database.h"

namespace nee::bench {

// Which NEE schedule a NeeEngine builds. `tuned`: the best record the tuning database
// holds for the workload on this machine, or the default schedule when it holds none
// (the provenance says so). `default_schedule`: always the schedule space's default.
enum class NeeSchedule { tuned, default_schedule };

// A NEE-scheduled Halide kernel, built by the tuner's Builder in a forked child, for the
// host CPU or for a CUDA GPU (`nee-bench --gpu`). A GPU kernel is timed as a model run
// meets it: its operands are uploaded once (bind_inputs, untimed) and stay on the
// device, and run() is the kernel call alone, waited for with halide_device_sync. Not
// OpenCL on PoCL: PoCL's LLVM 15 crashes beside libHalide's LLVM 14 in one process.
class NeeEngine : public Engine {
 public:
  // `db` may be null for the default-schedule engine; it must outlive the engine.
  NeeEngine(std::shared_ptr<KernelWorkspace> workspace, NeeSchedule schedule, const TuningDatabase* db,
            TargetKind kind = TargetKind::cpu);
  // "nee-tuned", "nee-default"; a GPU engine's name ends in its target ("nee-default-cuda").
  std::string name() const override;
  void prepare(const Workload& workload) override;
  std::string provenance() const override { return provenance_; }
  // What the built kernel executes: on the CPU a 3x3 conv may run as Winograd
  // (conv2d_runtime_layout), with fewer FLOPs than the direct count.
  ExecutedWork executed_work(const Workload&) const override { return kernel_executed_work(kernel_workload_); }
  // Packs a conv's weights (on every target), and on the CPU its input and residual,
  // into the channel-blocked layouts the runtime gives its kernels between convolutions
  // (the runtime packs weights once when it prepares a model, and activations arrive
  // blocked from the conv before); on the CPU a matmul's B into panels, as the runtime
  // packs constant weights. A GPU kernel's operands then go to the device.
  void bind_inputs(const std::vector<const Tensor*>& inputs) override;
  void run(const std::vector<const Tensor*>& inputs, Tensor& output) override;
  // Unpacks a channel-blocked conv output into NCHW; brings a GPU's output to the host.
  void finish_output(Tensor& output) override;

  // The database record the prepared kernel was built from; empty for a default schedule.
  const std::optional<TuningRecord>& tuned_record() const { return tuned_record_; }

 private:
  // Replaces the conv operands whose runtime layout differs from NCHW/OIHW in
  // kernel_inputs_ by packed copies kept in packed_.
  void pack_conv_operands(const std::vector<const Tensor*>& inputs);
  // Uploads a GPU kernel's operands; they stay on the device until the next prepare().
  void bind_device_inputs(const std::vector<const Tensor*>& inputs);

  std::shared_ptr<KernelWorkspace> workspace_;
  NeeSchedule schedule_;
  Target target_;
  const TuningDatabase* db_;
  std::optional<TuningRecord> tuned_record_;
  std::string provenance_;
  std::unique_ptr<LoadedKernel> kernel_;
  Workload kernel_workload_;        // the prepared workload in the runtime's layout
  // The kernel's operands in the runtime's layout, set by bind_inputs: the given inputs
  // with those whose layout differs replaced by packed copies.
  std::vector<Tensor> packed_;
  std::vector<const Tensor*> kernel_inputs_;
  std::optional<Tensor> blocked_output_;  // a blocked conv output, unpacked by finish_output
  // A GPU kernel's operands on the device (inputs "0", "1", ..., output "out"), set by
  // bind_inputs; declared after kernel_ so they are freed while its library is loaded.
  std::unique_ptr<HalideDeviceValues> device_;
  std::vector<halide_buffer_t*> device_inputs_;
};

// The nee-tune command line that fills the database for a MatMul or plain conv2d
// workload (the conv's shape text: symmetric pads and square strides, as the suites have).
std::string tune_command_for(const Workload& workload);

}  // namespace nee::bench
