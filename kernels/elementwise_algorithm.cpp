#include "kernels/elementwise_algorithm.h"

#include "core/error.h"
#include "core/family.h"
#include "kernels/activation_exprs.h"
#include "kernels/dense_input.h"

namespace nee {

using namespace Halide;

namespace {

// Powers with small constant exponents as products: exact, and cheaper than powf.
Expr power(const Expr& base, const ElementwiseOperand& exponent, const Expr& exponent_expr) {
  if (exponent.kind == ElementwiseOperand::Kind::immediate) {
    if (exponent.value == 1.0f) return base;
    if (exponent.value == 2.0f) return base * base;
    if (exponent.value == 3.0f) return base * base * base;
    if (exponent.value == 0.5f) return sqrt(base);
  }
  return pow(base, exponent_expr);
}

Expr instruction_expr(const ElementwiseInstruction& ins, const Expr& a, const Expr& b) {
  switch (ins.op) {
    case ElementwiseOp::add: return a + b;
    case ElementwiseOp::sub: return a - b;
    case ElementwiseOp::mul: return a * b;
    case ElementwiseOp::div: return a / b;
    case ElementwiseOp::pow: return power(a, ins.args[1], b);
    // ONNX's Max and Min propagate NaN; x86's maxps and minps return an operand instead.
    case ElementwiseOp::max: return select(is_nan(a) || is_nan(b), a + b, max(a, b));
    case ElementwiseOp::min: return select(is_nan(a) || is_nan(b), a + b, min(a, b));
    case ElementwiseOp::leaky_relu: return select(a >= 0.0f, a, b * a);
    case ElementwiseOp::relu: return max(a, 0.0f);
    case ElementwiseOp::neg: return -a;
    case ElementwiseOp::abs: return abs(a);
    case ElementwiseOp::sqrt: return sqrt(a);
    case ElementwiseOp::exp: return exp(a);
    case ElementwiseOp::log: return log(a);
    case ElementwiseOp::sigmoid: return sigmoid(a);
    case ElementwiseOp::tanh: return tanh_approx(a);
    case ElementwiseOp::erf: return erf_approx(a);
    case ElementwiseOp::reciprocal: return 1.0f / a;
    case ElementwiseOp::round: return round(a);  // Halide's round: ties to even
  }
  throw Error("unknown elementwise op");
}

}  // namespace

std::vector<Argument> ElementwisePipeline::arguments() const {
  std::vector<Argument> args;
  for (const ImageParam& p : inputs) args.push_back(p);
  return args;
}

ElementwisePipeline define_elementwise(const Workload& w) {
  if (family_of(w).id != FamilyId::elementwise) throw Error("define_elementwise got a '" + w.op + "' workload");
  const ElementwiseProgram program = elementwise_program(w);
  const auto& so = w.output.shape;
  const int rank = static_cast<int>(so.size());
  ElementwisePipeline p;
  for (int d = 0; d < rank; ++d) {
    p.vars.push_back(Var("d" + std::to_string(d)));
    p.extents.push_back(so[rank - 1 - d]);
  }
  // Each input aligns with the output from the right; its size-1 dims read index 0.
  std::vector<Expr> values;
  for (size_t i = 0; i < w.inputs.size(); ++i) {
    const auto& shape = w.inputs[i].shape;
    const int in_rank = static_cast<int>(shape.size());
    p.inputs.emplace_back(Float(32), in_rank, "x" + std::to_string(i));
    constrain_dense_input(p.inputs.back(), shape);
    std::vector<Expr> idx;
    for (int d = 0; d < in_rank; ++d) {
      idx.push_back(shape[in_rank - 1 - d] == 1 ? Expr(0) : Expr(p.vars[d]));
    }
    values.push_back(p.inputs.back()(idx));
  }
  std::vector<Expr> temps;
  const auto operand = [&](const ElementwiseOperand& a) -> Expr {
    switch (a.kind) {
      case ElementwiseOperand::Kind::input: return values[a.index];
      case ElementwiseOperand::Kind::temp: return temps[a.index];
      default: return Expr(a.value);
    }
  };
  for (const ElementwiseInstruction& ins : program.code) {
    const Expr a = operand(ins.args[0]);
    const Expr b = ins.args.size() > 1 ? operand(ins.args[1]) : Expr();
    temps.push_back(instruction_expr(ins, a, b));
  }
  p.out = Func("out");
  p.out(p.vars) = temps.back();
  return p;
}

}  // namespace nee
