#include "core/elementwise_program.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/activations.h"
#include "core/error.h"

namespace nee {

namespace {

struct OpInfo {
  ElementwiseOp op;
  const char* name;
  int arity;
};

constexpr OpInfo kOps[] = {
#define NEE_ELEMENTWISE_OP(name, arity) {ElementwiseOp::name, #name, arity},
#include "core/elementwise_ops.inc"
#undef NEE_ELEMENTWISE_OP
};

std::string operand_text(const ElementwiseOperand& a) {
  switch (a.kind) {
    case ElementwiseOperand::Kind::input: return "x" + std::to_string(a.index);
    case ElementwiseOperand::Kind::temp: return "t" + std::to_string(a.index);
    default: return fmt::format("{}", a.value);  // shortest text that reads back as the same float
  }
}

std::string trimmed(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

ElementwiseOperand parse_operand(const std::string& text, const std::string& instruction) {
  ElementwiseOperand a;
  const auto bad = [&] { return Error("bad operand '" + text + "' in elementwise instruction '" + instruction + "'"); };
  if (text.empty()) throw bad();
  if (text[0] == 'x' || text[0] == 't') {
    char* end = nullptr;
    const long v = std::strtol(text.c_str() + 1, &end, 10);
    if (text.size() < 2 || *end != '\0' || v < 0 || v > 1000000) throw bad();
    a.kind = text[0] == 'x' ? ElementwiseOperand::Kind::input : ElementwiseOperand::Kind::temp;
    a.index = static_cast<int>(v);
    return a;
  }
  char* end = nullptr;
  a.kind = ElementwiseOperand::Kind::immediate;
  a.value = std::strtof(text.c_str(), &end);
  if (*end != '\0' || std::isnan(a.value)) throw bad();
  return a;
}

}  // namespace

const char* to_string(ElementwiseOp op) { return kOps[static_cast<int>(op)].name; }
int arity(ElementwiseOp op) { return kOps[static_cast<int>(op)].arity; }

std::string ElementwiseProgram::to_string() const {
  std::string text;
  for (size_t i = 0; i < code.size(); ++i) {
    if (i) text += "; ";
    text += nee::to_string(code[i].op);
    text += "(";
    for (size_t j = 0; j < code[i].args.size(); ++j) {
      if (j) text += ",";
      text += operand_text(code[i].args[j]);
    }
    text += ")";
  }
  return text;
}

ElementwiseProgram ElementwiseProgram::parse(const std::string& text) {
  ElementwiseProgram program;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    const std::string instruction = trimmed(text.substr(start, end - start));
    start = end + 1;
    const size_t open = instruction.find('(');
    if (open == std::string::npos || instruction.empty() || instruction.back() != ')') {
      throw Error("malformed elementwise instruction '" + instruction + "' (expected op(operand,...))");
    }
    const std::string name = instruction.substr(0, open);
    const auto info = std::find_if(std::begin(kOps), std::end(kOps), [&](const OpInfo& o) { return name == o.name; });
    if (info == std::end(kOps)) throw Error("unknown elementwise op '" + name + "' in '" + instruction + "'");
    ElementwiseInstruction ins;
    ins.op = info->op;
    const std::string args = instruction.substr(open + 1, instruction.size() - open - 2);
    size_t a = 0;
    while (a <= args.size()) {
      size_t comma = args.find(',', a);
      if (comma == std::string::npos) comma = args.size();
      ins.args.push_back(parse_operand(trimmed(args.substr(a, comma - a)), instruction));
      a = comma + 1;
    }
    program.code.push_back(std::move(ins));
  }
  return program;
}

void ElementwiseProgram::validate(int inputs) const {
  if (code.empty()) throw Error("an elementwise program needs at least one instruction");
  for (size_t i = 0; i < code.size(); ++i) {
    const ElementwiseInstruction& ins = code[i];
    if (static_cast<int>(ins.args.size()) != arity(ins.op)) {
      throw Error(fmt::format("elementwise instruction {} ({}) takes {} operands, got {}", i, nee::to_string(ins.op),
                              arity(ins.op), ins.args.size()));
    }
    for (const ElementwiseOperand& a : ins.args) {
      if (a.kind == ElementwiseOperand::Kind::input && a.index >= inputs) {
        throw Error(fmt::format("elementwise instruction {} reads input x{} of {} inputs", i, a.index, inputs));
      }
      if (a.kind == ElementwiseOperand::Kind::temp && a.index >= static_cast<int>(i)) {
        throw Error(fmt::format("elementwise instruction {} reads t{}, which is not computed before it", i, a.index));
      }
    }
  }
}

int ElementwiseProgram::input_count() const {
  int n = 0;
  for (const ElementwiseInstruction& ins : code) {
    for (const ElementwiseOperand& a : ins.args) {
      if (a.kind == ElementwiseOperand::Kind::input) n = std::max(n, a.index + 1);
    }
  }
  return n;
}

float apply_elementwise(ElementwiseOp op, float a, float b) {
  switch (op) {
    case ElementwiseOp::add: return a + b;
    case ElementwiseOp::sub: return a - b;
    case ElementwiseOp::mul: return a * b;
    case ElementwiseOp::div: return a / b;
    case ElementwiseOp::pow: return std::pow(a, b);
    // ONNX's Max and Min propagate NaN; std::max and std::min would not.
    case ElementwiseOp::max: return std::isnan(a) || std::isnan(b) ? a + b : std::max(a, b);
    case ElementwiseOp::min: return std::isnan(a) || std::isnan(b) ? a + b : std::min(a, b);
    case ElementwiseOp::leaky_relu: return a >= 0.0f ? a : b * a;
    case ElementwiseOp::relu: return a > 0.0f ? a : 0.0f;
    case ElementwiseOp::neg: return -a;
    case ElementwiseOp::abs: return std::fabs(a);
    case ElementwiseOp::sqrt: return std::sqrt(a);
    case ElementwiseOp::exp: return std::exp(a);
    case ElementwiseOp::log: return std::log(a);
    case ElementwiseOp::sigmoid: return sigmoid(a);
    case ElementwiseOp::tanh: return std::tanh(a);
    case ElementwiseOp::erf: return std::erf(a);
    case ElementwiseOp::reciprocal: return 1.0f / a;
    case ElementwiseOp::round: return std::nearbyint(a);
  }
  throw Error("unknown elementwise op");
}

float ElementwiseProgram::evaluate(const float* inputs, std::vector<float>& temps) const {
  temps.resize(code.size());
  const auto value = [&](const ElementwiseOperand& a) {
    switch (a.kind) {
      case ElementwiseOperand::Kind::input: return inputs[a.index];
      case ElementwiseOperand::Kind::temp: return temps[a.index];
      default: return a.value;
    }
  };
  for (size_t i = 0; i < code.size(); ++i) {
    const ElementwiseInstruction& ins = code[i];
    temps[i] = apply_elementwise(ins.op, value(ins.args[0]), ins.args.size() > 1 ? value(ins.args[1]) : 0.0f);
  }
  return temps.back();
}

}  // namespace nee
