#include "bench/engines/nee_engine.h"

#include <fmt/format.h>

#include "core/activation_layout.h"
#include "core/conv2d_workload.h"
#include "core/conv_weight_layout.h"
#include "core/error.h"
#include "core/family.h"
#include "core/matmul_weight_layout.h"
#include "core/matmul_workload.h"
#include "core/winograd_weights.h"
#include "schedules/schedule_space.h"
#include "tuner/compile/kernel_compiler.h"
#include "tuner/compile/usable_record.h"

namespace nee::bench {

NeeEngine::NeeEngine(std::shared_ptr<KernelWorkspace> workspace, NeeSchedule schedule, const TuningDatabase* db,
                     TargetKind kind)
    : workspace_(std::move(workspace)),
      schedule_(schedule),
      target_(kind == TargetKind::cpu ? workspace_->target() : host_target(kind)),
      db_(db) {}

std::string NeeEngine::name() const {
  const std::string schedule = schedule_ == NeeSchedule::tuned ? "nee-tuned" : "nee-default";
  return target_.kind() == TargetKind::cpu ? schedule : schedule + "-" + to_string(target_.kind());
}

std::string tune_command_for(const Workload& workload) {
  std::string shape;
  if (family_of(workload).id == FamilyId::conv2d) {
    const std::vector<int64_t>& x = workload.inputs[0].shape;
    const std::vector<int64_t>& w = workload.inputs[1].shape;
    const Conv2dAttrs a = conv2d_attrs(workload);
    shape = fmt::format("{}x{}x{}x{},{}x{}x{}", x[0], x[1], x[2], x[3], w[0], w[2], w[3]);
    if (a.strides[0] != 1) shape += fmt::format(",s{}", a.strides[0]);
    if (a.pads[0] != 0) shape += fmt::format(",p{}", a.pads[0]);
    if (a.dilations[0] != 1) shape += fmt::format(",d{}", a.dilations[0]);
    if (a.group != 1) shape += fmt::format(",g{}", a.group);
  } else {
    for (int64_t d : workload.inputs[0].shape) shape += std::to_string(d) + "x";
    shape += std::to_string(workload.inputs[1].shape.back());
  }
  return "nee-tune --op " + workload.op + " --shape " + shape;
}

void NeeEngine::prepare(const Workload& workload) {
  device_.reset();
  device_inputs_.clear();
  kernel_.reset();
  tuned_record_.reset();
  packed_.clear();
  kernel_inputs_.clear();
  blocked_output_.reset();
  const Target& target = target_;
  const bool cpu = target.kind() == TargetKind::cpu;
  const FamilyId family = family_of(workload).id;
  kernel_workload_ = family == FamilyId::conv2d              ? conv2d_runtime_layout(workload, cpu, cpu)
                     : family == FamilyId::matmul && cpu ? matmul_runtime_layout(workload)
                                                         : workload;
  ScheduleConfig config;
  if (schedule_ == NeeSchedule::tuned && db_) tuned_record_ = record_to_build(*db_, kernel_workload_, target);
  if (tuned_record_) {
    config = tuned_record_->config;
    provenance_ = tuned_record_->confirmed_us
                      ? fmt::format("tuned: record {} ({:.1f} us when tuned, {:.1f} us re-measured)", tuned_record_->id,
                                    tuned_record_->result.median_us, *tuned_record_->confirmed_us)
                      : fmt::format("tuned: record {} ({:.1f} us when tuned)", tuned_record_->id,
                                    tuned_record_->result.median_us);
  } else {
    config = make_schedule_space(kernel_workload_, target)->default_config();
    provenance_ = schedule_ == NeeSchedule::tuned ? "default schedule - run " + tune_command_for(workload)
                                                  : "default schedule";
  }
  Candidate candidate;
  candidate.workload = kernel_workload_;
  candidate.target = target;
  candidate.config = config;
  candidate.strategy = "bench";
  const BuildResult built = workspace_->builder().build({candidate}).at(0);
  if (!built.ok()) throw Error(name() + ": building the kernel failed: " + built.error);
  kernel_ = std::make_unique<LoadedKernel>(built.artifact, built.symbol, kernel_workload_, workspace_->threads());
}

void NeeEngine::bind_inputs(const std::vector<const Tensor*>& inputs) {
  packed_.clear();
  packed_.reserve(inputs.size());
  kernel_inputs_ = inputs;
  blocked_output_.reset();
  // Conv weights are packed on every target: a GPU conv's weights are channel-blocked
  // too (conv2d_runtime_layout), only its activations stay NCHW.
  if (family_of(kernel_workload_).id == FamilyId::conv2d) pack_conv_operands(inputs);
  if (family_of(kernel_workload_).id == FamilyId::matmul && matmul_attrs(kernel_workload_).b_block != 0) {
    packed_.emplace_back(kernel_workload_.inputs[1]);
    pack_matmul_panels(inputs.at(1)->data_as<float>(), inputs.at(1)->shape(), packed_.back().data_as<float>());
    kernel_inputs_[1] = &packed_.back();
  }
  if (target_.kind() != TargetKind::cpu) bind_device_inputs(kernel_inputs_);
}

void NeeEngine::pack_conv_operands(const std::vector<const Tensor*>& inputs) {
  const Conv2dAttrs a = conv2d_attrs(kernel_workload_);
  const auto pack = [&](size_t i, auto pack_fn) {
    packed_.emplace_back(kernel_workload_.inputs[i]);
    pack_fn(inputs.at(i)->data_as<float>(), inputs.at(i)->shape(), packed_.back().data_as<float>());
    kernel_inputs_[i] = &packed_.back();
  };
  if (a.input_block != 0) pack(0, pack_blocked_activations);
  if (a.winograd_tile != 0) {
    pack(1, [&](const float* src, const std::vector<int64_t>& shape, float* dst) {
      pack_winograd_weights(src, shape, a.winograd_tile, dst);
    });
  } else if (a.weight_block != 0) {
    pack(1, [&](const float* src, const std::vector<int64_t>& shape, float* dst) {
      pack_blocked_weights(src, shape, a.weight_block, dst);
    });
  }
  if (a.output_block != 0) {
    if (conv2d_has_residual(kernel_workload_)) pack(inputs.size() - 1, pack_blocked_activations);
    blocked_output_.emplace(kernel_workload_.output);
  }
}

void NeeEngine::bind_device_inputs(const std::vector<const Tensor*>& inputs) {
  // Halide checks a GPU kernel's arguments only after it has set up the device, so a
  // tensor in the wrong layout is caught here, by name, before anything is uploaded.
  std::vector<TensorType> types;
  for (const Tensor* t : inputs) types.push_back(t->type());
  kernel_->kernel().check_signature(types, kernel_workload_.output);
  device_.reset();
  device_ = std::make_unique<HalideDeviceValues>(kernel_->kernel().device_api());
  device_inputs_.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    halide_buffer_t* buffer = nullptr;
    device_->input(std::to_string(i), *inputs[i], &buffer);
    device_inputs_.push_back(buffer);
  }
  // One untimed call uploads the operands and allocates the output on the device.
  Tensor scratch(kernel_workload_.output);
  run(inputs, scratch);
}

void NeeEngine::run(const std::vector<const Tensor*>& inputs, Tensor& output) {
  if (device_) {
    std::vector<halide_buffer_t*> args = device_inputs_;
    halide_buffer_t* out = device_->output("out", output);
    args.push_back(out);
    kernel_->kernel().call(args);
    const HalideDeviceApi& api = kernel_->kernel().device_api();
    if (!api.device_sync) throw Error(name() + ": the kernel library exports no halide_device_sync");
    if (const int status = api.device_sync(nullptr, out)) {
      throw Error(fmt::format("{}: waiting for the device failed (Halide error {})", name(), status));
    }
    return;
  }
  const std::vector<const Tensor*>& operands = kernel_inputs_.empty() ? inputs : kernel_inputs_;
  kernel_->run(operands, blocked_output_ ? *blocked_output_ : output);
}

void NeeEngine::finish_output(Tensor& output) {
  if (device_) device_->to_host("out", output);
  if (blocked_output_) unpack_blocked_activations(blocked_output_->data_as<float>(), output.shape(), output.data_as<float>());
}

}  // namespace nee::bench
