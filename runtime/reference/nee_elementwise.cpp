#include "core/elementwise_program.h"
#include "core/elementwise_workload.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/family_reference.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

// The program (core/elementwise_program.h) evaluated at every output element, each f32
// input broadcast to the output.
static ReferenceFn program_kernel(ElementwiseProgram program) {
  return [program](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    std::vector<std::vector<int64_t>> shapes;
    for (const Tensor* t : in) shapes.push_back(t->shape());
    std::vector<float> values(in.size()), temps;
    float* y = out[0]->data_as<float>();
    for_each_broadcast_n(out[0]->shape(), shapes, [&](int64_t e, const std::vector<int64_t>& offsets) {
      for (size_t i = 0; i < in.size(); ++i) values[i] = in[i]->data_as<float>()[offsets[i]];
      y[e] = program.evaluate(values.data(), temps);
    });
  };
}

// NeeElementwise: the program is its attribute "program".
ReferenceFn make_reference_nee_elementwise(const Graph& graph, const Node& node) {
  for (const std::string& in : node.inputs) {
    if (graph.type_of(in).dtype != DType::f32) return nullptr;
  }
  ElementwiseProgram program = ElementwiseProgram::parse(node.attrs.get_string("program"));
  program.validate(static_cast<int>(node.inputs.size()));
  return program_kernel(std::move(program));
}

ReferenceFn make_elementwise_reference(const Workload& w) { return program_kernel(elementwise_program(w)); }

}  // namespace nee
