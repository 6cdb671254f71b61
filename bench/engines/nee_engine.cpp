#include "bench/engines/nee_engine.h"

#include <fmt/format.h>

#include "core/conv_weight_layout.h"
#include "core/conv_workload.h"
#include "core/error.h"
#include "schedules/schedule_space.h"

namespace nee::bench {

NeeEngine::NeeEngine(std::shared_ptr<KernelWorkspace> workspace, NeeSchedule schedule, const TuningDatabase* db)
    : workspace_(std::move(workspace)), schedule_(schedule), db_(db) {}

std::string NeeEngine::name() const { return schedule_ == NeeSchedule::tuned ? "nee-tuned" : "nee-default"; }

std::string tune_command_for(const Workload& workload) {
  std::string shape;
  if (workload.op == "conv2d") {
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
  kernel_.reset();
  tuned_record_.reset();
  blocked_weights_.reset();
  kernel_workload_ = workload.op == "conv2d" ? conv2d_runtime_layout(workload) : workload;
  const Target& target = workspace_->target();
  ScheduleConfig config;
  if (schedule_ == NeeSchedule::tuned && db_) tuned_record_ = db_->best(kernel_workload_, target);
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
  blocked_weights_.reset();
  if (kernel_workload_.op != "conv2d") return;
  const int64_t block = conv2d_attrs(kernel_workload_).weight_block;
  if (block == 0) return;
  blocked_weights_.emplace(kernel_workload_.inputs[1]);
  pack_blocked_weights(inputs.at(1)->data_as<float>(), inputs.at(1)->shape(), block, blocked_weights_->data_as<float>());
}

void NeeEngine::run(const std::vector<const Tensor*>& inputs, Tensor& output) {
  if (!blocked_weights_) return kernel_->run(inputs, output);
  std::vector<const Tensor*> with_blocked = inputs;
  with_blocked.at(1) = &*blocked_weights_;
  kernel_->run(with_blocked, output);
}

}  // namespace nee::bench
