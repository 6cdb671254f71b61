#include <optional>
#include <string>
#include <vector>

#include "core/elementwise_program.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

ElementwiseOperand input_slot(int index) {
  ElementwiseOperand o;
  o.kind = ElementwiseOperand::Kind::input;
  o.index = index;
  return o;
}

ElementwiseOperand temp(int index) {
  ElementwiseOperand o;
  o.kind = ElementwiseOperand::Kind::temp;
  o.index = index;
  return o;
}

// `program` with x[slot] * x[scale] + x[shift] computed first (as t0, t1) and read where it
// read x[slot]; its own results move up by two.
ElementwiseProgram with_affine_first(const ElementwiseProgram& program, int slot, int scale, int shift) {
  ElementwiseProgram out;
  out.code.push_back(ElementwiseInstruction{ElementwiseOp::mul, {input_slot(slot), input_slot(scale)}});
  out.code.push_back(ElementwiseInstruction{ElementwiseOp::add, {temp(0), input_slot(shift)}});
  for (ElementwiseInstruction ins : program.code) {
    for (ElementwiseOperand& o : ins.args) {
      if (o.kind == ElementwiseOperand::Kind::temp) {
        o.index += 2;
      } else if (o.kind == ElementwiseOperand::Kind::input && o.index == slot) {
        o = temp(1);
      }
    }
    out.code.push_back(std::move(ins));
  }
  return out;
}

}  // namespace

void group_norm_affine_into_elementwise(Graph& graph) {
  std::vector<Node>& nodes = graph.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].op != "NeeGroupNorm") continue;
    const std::string normed = nodes[i].outputs[0];
    const std::optional<size_t> reader = sole_consumer(graph, normed);
    if (!reader || nodes[*reader].op != "NeeElementwise") continue;
    const TensorType x = graph.type_of(nodes[i].inputs[0]);
    // One value a channel of each image, in the input's layout: [N, C, 1...], or blocked
    // [N, C/16, 1, 1, 16].
    std::vector<int64_t> per_channel(x.shape.size(), 1);
    per_channel[0] = x.shape[0];
    per_channel[1] = x.shape[1];
    if (nodes[i].attrs.get_int("input_block", 0) != 0) per_channel.back() = x.shape.back();
    const std::string scale = unique_value_name(graph, normed + ".channel_scale");
    graph.add_value(scale, TensorType{DType::f32, per_channel});
    const std::string shift = unique_value_name(graph, normed + ".channel_shift");
    graph.add_value(shift, TensorType{DType::f32, per_channel});

    Node& elementwise = nodes[*reader];
    int slot = 0;
    while (elementwise.inputs[static_cast<size_t>(slot)] != normed) ++slot;
    const int scale_slot = static_cast<int>(elementwise.inputs.size());
    elementwise.inputs[static_cast<size_t>(slot)] = nodes[i].inputs[0];
    elementwise.inputs.push_back(scale);
    elementwise.inputs.push_back(shift);
    const ElementwiseProgram program = ElementwiseProgram::parse(elementwise.attrs.get_string("program"));
    elementwise.attrs.set("program", with_affine_first(program, slot, scale_slot, scale_slot + 1).to_string());

    nodes[i].op = "NeeGroupNormAffine";
    nodes[i].outputs = {scale, shift};
    graph.remove_value(normed);
  }
}

}  // namespace nee
