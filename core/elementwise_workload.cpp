#include "core/elementwise_workload.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/family.h"

namespace nee {

Workload make_elementwise_workload(const std::vector<TensorType>& inputs, const TensorType& output,
                                   const ElementwiseProgram& program) {
  if (output.dtype != DType::f32) throw Error("elementwise kernels compute f32, not " + output.to_string());
  if (output.shape.empty()) throw Error("elementwise kernels need an output of rank >= 1, got a scalar");
  for (int64_t d : output.shape) {
    if (d <= 0) throw Error("elementwise output " + output.to_string() + " has an empty dimension");
  }
  for (const TensorType& t : inputs) {
    if (t.dtype != DType::f32) throw Error("elementwise kernels take f32 tensors, got " + t.to_string());
    if (broadcast_shapes(output.shape, t.shape) != output.shape) {
      throw Error(fmt::format("elementwise input {} does not broadcast to the output {}", t.to_string(),
                              output.to_string()));
    }
  }
  program.validate(static_cast<int>(inputs.size()));
  if (program.input_count() != static_cast<int>(inputs.size())) {
    throw Error(fmt::format("elementwise program '{}' reads {} inputs, the workload has {}", program.to_string(),
                            program.input_count(), inputs.size()));
  }
  Workload w;
  w.op = "elementwise";
  w.attrs = {{"program", program.to_string()}};
  w.inputs = inputs;
  w.output = output;
  return w;
}

ElementwiseProgram elementwise_program(const Workload& w) {
  return ElementwiseProgram::parse(w.attrs.at("program").get<std::string>());
}

double elementwise_flops(const Workload& w) {
  return static_cast<double>(elementwise_program(w).code.size()) * static_cast<double>(w.output.elements());
}

Family elementwise_family() {
  return {FamilyId::elementwise, "elementwise", elementwise_flops, [](const Workload&) { return int64_t{1}; },
          SpeedUnit::gflops, nullptr, "", {}, 0};
}

}  // namespace nee
