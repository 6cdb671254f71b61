#include "core/elementwise_workload.h"

#include <fmt/format.h>

#include <optional>
#include <sstream>

#include "core/error.h"
#include "core/family.h"
#include "core/integer_text.h"

namespace nee {

namespace {

// An elementwise workload's program, parsed once; its canonical text is the key's.
struct StoredElementwiseAttrs final : WorkloadAttrs {
  explicit StoredElementwiseAttrs(ElementwiseProgram program) : program(std::move(program)) {}
  ElementwiseProgram program;

  nlohmann::json to_json() const override { return {{"program", program.to_string()}}; }
};

std::shared_ptr<const WorkloadAttrs> elementwise_attrs_from_json(const nlohmann::json& j) {
  return std::make_shared<StoredElementwiseAttrs>(ElementwiseProgram::parse(j.at("program").get<std::string>()));
}

}  // namespace

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
  w.attrs = std::make_shared<StoredElementwiseAttrs>(program);
  w.inputs = inputs;
  w.output = output;
  return w;
}

ElementwiseProgram elementwise_program(const Workload& w) { return w.attrs_as<StoredElementwiseAttrs>().program; }

double elementwise_flops(const Workload& w) {
  return static_cast<double>(elementwise_program(w).code.size()) * static_cast<double>(w.output.elements());
}

Workload elementwise_workload_from_shape(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) {
    throw Error(fmt::format("bad elementwise shape '{}': expected the inputs' shapes, ':' and the program", text));
  }
  std::vector<TensorType> inputs;
  std::vector<int64_t> output;
  std::stringstream shapes(text.substr(0, colon));
  std::string shape;
  while (std::getline(shapes, shape, '+')) {
    const std::optional<std::vector<int64_t>> dims = parse_integer_list(shape);
    if (!dims || dims->empty()) {
      throw Error(fmt::format("bad elementwise shape '{}': '{}' is not a shape of integers joined by x", text, shape));
    }
    inputs.push_back({DType::f32, *dims});
    output = broadcast_shapes(output, *dims);
  }
  return make_elementwise_workload(inputs, {DType::f32, output}, ElementwiseProgram::parse(text.substr(colon + 1)));
}

Family elementwise_family() {
  return {FamilyId::elementwise, "elementwise", elementwise_flops, [](const Workload&) { return int64_t{1}; },
          SpeedUnit::gflops, elementwise_workload_from_shape,
          "DxDx...xD[+DxDx...xD...]:PROGRAM (the inputs' shapes, broadcast to the output's, then the program over "
          "x0, x1, ... with results t0, t1, ...; e.g. the bias and Relu 128x3072+3072:add(x0,x1); relu(t0))",
          {}, 0, elementwise_attrs_from_json,
          [](const Workload& w) { return make_elementwise_workload(w.inputs, w.output, elementwise_program(w)); }};
}

}  // namespace nee
