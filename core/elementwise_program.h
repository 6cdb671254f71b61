#pragma once
#include <string>
#include <vector>

namespace nee {

enum class ElementwiseOp {
#define NEE_ELEMENTWISE_OP(name, arity) name,
#include "core/elementwise_ops.inc"
#undef NEE_ELEMENTWISE_OP
};

const char* to_string(ElementwiseOp op);
int arity(ElementwiseOp op);

// An instruction's operand: an input slot (text "x0", "x1"...), the result of an earlier
// instruction ("t0" is the first instruction's) or an f32 immediate ("0.5").
struct ElementwiseOperand {
  enum class Kind { input, temp, immediate };
  Kind kind = Kind::input;
  int index = 0;      // input slot or instruction, for input and temp
  float value = 0;    // for immediate
  bool operator==(const ElementwiseOperand& o) const {
    return kind == o.kind && index == o.index && value == o.value;
  }
};

struct ElementwiseInstruction {
  ElementwiseOp op = ElementwiseOp::add;
  std::vector<ElementwiseOperand> args;  // arity(op) of them
};

// A fused chain of elementwise operators over f32 values: instructions in evaluation
// order, each reading input slots, earlier results and immediates; the last result is
// the output. The text form is the canonical encoding (part of workload keys), e.g.
// GELU: "div(x0,1.4142135); erf(t0); add(t1,1); mul(x0,t2); mul(t3,0.5)". Immediates
// are printed as the shortest decimal that reads back as the same float, so equal
// programs have equal text.
struct ElementwiseProgram {
  std::vector<ElementwiseInstruction> code;

  std::string to_string() const;
  // Parses the text form; throws nee::Error naming the malformed instruction.
  static ElementwiseProgram parse(const std::string& text);
  // Throws nee::Error unless every operand refers to an input slot below `inputs` or an
  // earlier instruction, every instruction has its op's arity, and there is at least one.
  void validate(int inputs) const;
  // The highest input slot read, plus one.
  int input_count() const;

  // The reference semantics, in f32: `inputs` holds one value per input slot, `temps`
  // is scratch space reused across calls.
  float evaluate(const float* inputs, std::vector<float>& temps) const;
};

// One instruction's value on f32 operands (b is ignored by unary ops).
float apply_elementwise(ElementwiseOp op, float a, float b);

}  // namespace nee
