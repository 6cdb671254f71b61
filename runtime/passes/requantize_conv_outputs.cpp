#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

// A QDQ pair's f32 steps as quantize_pairs_as_elementwise writes them, read from the node
// that reads `value` alone: Div by the scale, Round, [Add the zero point], Clip to the
// integer range, [Sub the zero point], Mul by the scale.
struct PairSteps {
  std::vector<std::string> nodes, values;  // the steps and the values between them
  std::string output;                      // the Mul's
  float scale = 0;
  int64_t zero = 0, low = 0, high = 0;
};

// The node that reads `value` alone, where it is `op` with `value` as its first input.
const Node* next_step(const Graph& graph, const std::string& value, const char* op) {
  const std::optional<size_t> i = sole_consumer(graph, value);
  if (!i) return nullptr;
  const Node& node = graph.nodes()[*i];
  return node.op == op && node.inputs[0] == value ? &node : nullptr;
}

bool is_integer(float v) { return std::isfinite(v) && std::nearbyint(v) == v; }

std::optional<PairSteps> pair_after(const Graph& graph, const std::string& value) {
  PairSteps pair;
  const Node* div = next_step(graph, value, "Div");
  const std::optional<float> scale = div ? scalar_f32_constant(graph, div->inputs[1]) : std::nullopt;
  if (!scale || !(*scale > 0) || !std::isfinite(*scale)) return std::nullopt;
  pair.scale = *scale;
  const Node* step = next_step(graph, div->outputs[0], "Round");
  if (!step) return std::nullopt;
  pair.nodes = {div->name, step->name};
  pair.values = {div->outputs[0], step->outputs[0]};
  const Node* add = next_step(graph, step->outputs[0], "Add");
  std::optional<float> zero = 0.0f;
  if (add) {
    zero = scalar_f32_constant(graph, add->inputs[1]);
    if (!zero || *zero == 0.0f || !is_integer(*zero)) return std::nullopt;
    pair.nodes.push_back(add->name);
    pair.values.push_back(add->outputs[0]);
    step = add;
  }
  const Node* clip = next_step(graph, step->outputs[0], "Clip");
  float low = 0, high = 0;
  if (!clip || !clip_bounds(graph, *clip, low, high) || !is_integer(low) || !is_integer(high) || *zero < low ||
      *zero > high) {
    return std::nullopt;
  }
  pair.nodes.push_back(clip->name);
  pair.values.push_back(clip->outputs[0]);
  step = clip;
  if (*zero != 0.0f) {
    const Node* sub = next_step(graph, step->outputs[0], "Sub");
    if (!sub || scalar_f32_constant(graph, sub->inputs[1]) != zero) return std::nullopt;
    pair.nodes.push_back(sub->name);
    pair.values.push_back(sub->outputs[0]);
    step = sub;
  }
  const Node* mul = next_step(graph, step->outputs[0], "Mul");
  if (!mul || scalar_f32_constant(graph, mul->inputs[1]) != scale) return std::nullopt;
  pair.nodes.push_back(mul->name);
  pair.output = mul->outputs[0];
  pair.zero = static_cast<int64_t>(*zero);
  pair.low = static_cast<int64_t>(low);
  pair.high = static_cast<int64_t>(high);
  return pair;
}

}  // namespace

void requantize_conv_outputs(Graph& graph) {
  std::vector<std::string> erased, removed;
  for (size_t i = 0; i < graph.nodes().size(); ++i) {
    const Node& conv = graph.nodes()[i];
    if (conv.op != "NeeConv" || conv.attrs.has("requantize_scale")) continue;
    const std::optional<PairSteps> pair = pair_after(graph, conv.outputs[0]);
    if (!pair) continue;
    const std::string y = conv.outputs[0];
    // The pair's output is its own quantized origin now: quantizing it again gives the same
    // integers.
    if (const QuantizedOrigin* origin = graph.quantized_origin(pair->output)) {
      QuantizedOrigin own = *origin;
      own.x = pair->output;
      graph.set_quantized_origin(pair->output, own);
    }
    Node& fused = graph.nodes()[i];
    fused.attrs.set("requantize_scale", pair->scale);
    fused.attrs.set("requantize_zero", pair->zero);
    fused.attrs.set("requantize_low", pair->low);
    fused.attrs.set("requantize_high", pair->high);
    fused.outputs[0] = pair->output;
    erased.insert(erased.end(), pair->nodes.begin(), pair->nodes.end());
    removed.push_back(y);
    removed.insert(removed.end(), pair->values.begin(), pair->values.end());
  }
  if (erased.empty()) return;
  erase_named_nodes(graph, erased);
  for (const std::string& v : removed) graph.remove_value(v);
  graph.sort_topologically();
}

}  // namespace nee
