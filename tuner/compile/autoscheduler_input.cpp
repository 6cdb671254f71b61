#include "tuner/compile/autoscheduler_input.h"

#include <map>

#include "core/error.h"
#include "kernels/conv2d_algorithm.h"
#include "kernels/matmul_algorithm.h"

namespace nee {

namespace {

AutoschedulerInput matmul_input(const Workload& w) {
  // Clamped reads: autoschedulers compute over regions larger than the output.
  const MatmulPipeline p = define_matmul(w, /*clamp_reads=*/true);
  AutoschedulerInput in{p.out, {p.a, p.b}};
  if (p.c.defined()) in.inputs.push_back(p.c);
  return in;
}

AutoschedulerInput conv2d_input(const Workload& w) {
  Conv2dOptions options;
  options.clamp_reads = true;
  // A channel-blocked output is defined over the channel-blocked accumulator only, and
  // Winograd weights over the Winograd one.
  if (conv2d_attrs(w).output_block != 0) options.accumulator = ConvAccumulator::channel_blocked;
  if (conv2d_attrs(w).winograd_tile != 0) options.accumulator = ConvAccumulator::winograd;
  const Conv2dPipeline p = define_conv2d(w, options);
  AutoschedulerInput in{p.out, {p.input, p.weights}};
  if (p.bias.defined()) in.inputs.push_back(p.bias);
  if (p.residual.defined()) in.inputs.push_back(p.residual);
  return in;
}

using InputFactory = AutoschedulerInput (*)(const Workload&);
const std::map<std::string, InputFactory>& factories() {
  static const std::map<std::string, InputFactory> table = {
      {"matmul", matmul_input},
      {"conv2d", conv2d_input},
  };
  return table;
}

}  // namespace

AutoschedulerInput autoscheduler_input(const Workload& workload) {
  const auto it = factories().find(workload.op);
  if (it == factories().end()) {
    throw Error("no autoscheduler input for operator family '" + workload.op + "'");
  }
  return it->second(workload);
}

bool has_autoscheduler_input(const std::string& op) { return factories().count(op) != 0; }

}  // namespace nee
