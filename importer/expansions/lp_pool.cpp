#include <fmt/format.h>

#include "core/error.h"
#include "importer/expansions/expanded_operators.h"
#include "importer/expansions/node_expansion.h"

namespace nee {

// LpPool: (sum over the window of |x|^p)^(1/p), as an AveragePool of |x|^p that counts
// the zero padding (count_include_pad 1) times the window's size. Windows past the padded
// input (ceil_mode 1) would divide by fewer elements: refused.
std::vector<Node> expand_lp_pool(Graph& graph, const Node& node, int64_t opset) {
  constexpr int64_t kFirstReadOpset = 11;  // LpPool-11: pads, strides and auto_pad as AveragePool's
  if (opset < kFirstReadOpset) {
    throw Error(fmt::format("LpPool is read from opset {}; the model declares opset {}", kFirstReadOpset, opset));
  }
  if (node.inputs.size() != 1 || node.inputs[0].empty()) throw Error("LpPool takes one input");
  const TensorType& x = graph.type_of(node.inputs[0]);
  if (!is_floating(x.dtype)) throw Error(fmt::format("X has dtype {}; LpPool takes floats", to_string(x.dtype)));
  if (node.attrs.get_int("ceil_mode", 0) != 0) throw Error("ceil_mode 1 is not supported");
  const int64_t p = node.attrs.get_int("p", 2);
  if (p < 1) throw Error(fmt::format("p is {}; it must be at least 1", p));
  const std::vector<int64_t> kernel = node.attrs.get_ints("kernel_shape", {});
  if (kernel.empty()) throw Error("kernel_shape is required");
  int64_t window = 1;
  for (int64_t k : kernel) window *= k;

  NodeExpansion build(graph, node.name);
  const auto typed = [&](const std::string& label, float value) { return build.scalar(label, value, x.dtype); };
  const std::string magnitude = build.add("Abs", "magnitude", {node.inputs[0]});
  const std::string powered =
      p == 1 ? magnitude
             : build.add("Pow", "powered", {magnitude, typed("p", static_cast<float>(p))});
  Attributes pool;
  for (const char* name : {"auto_pad", "dilations", "kernel_shape", "pads", "strides"}) {
    const auto found = node.attrs.all().find(name);
    if (found != node.attrs.all().end()) pool.set(name, found->second);
  }
  pool.set("count_include_pad", int64_t{1});
  const std::string mean = build.add("AveragePool", "mean", {powered}, pool);
  const std::string sum = build.add("Mul", "sum", {mean, typed("window", static_cast<float>(window))});
  if (p == 1) {
    build.add("Identity", "y", {sum}, {}, node.outputs[0]);
  } else {
    build.add("Pow", "y", {sum, typed("inverse_p", 1.0f / static_cast<float>(p))}, {}, node.outputs[0]);
  }
  return build.take();
}

// GlobalLpPool: (sum over every spatial position of |x|^p)^(1/p), a ReduceSum over the
// dims after N and C, kept.
std::vector<Node> expand_global_lp_pool(Graph& graph, const Node& node, int64_t opset) {
  constexpr int64_t kFirstReadOpset = 2, kAxesInputOpset = 13;  // GlobalLpPool-2: p an integer
  if (opset < kFirstReadOpset) {
    throw Error(fmt::format("GlobalLpPool is read from opset {}; the model declares opset {}", kFirstReadOpset, opset));
  }
  if (node.inputs.size() != 1 || node.inputs[0].empty()) throw Error("GlobalLpPool takes one input");
  const TensorType& x = graph.type_of(node.inputs[0]);
  if (!is_floating(x.dtype)) {
    throw Error(fmt::format("X has dtype {}; GlobalLpPool takes floats", to_string(x.dtype)));
  }
  if (x.shape.size() < 3) throw Error(fmt::format("X is {}; it must be [N, C, D1, ...]", x.to_string()));
  const int64_t p = node.attrs.get_int("p", 2);
  if (p < 1) throw Error(fmt::format("p is {}; it must be at least 1", p));
  NodeExpansion build(graph, node.name);
  const std::string magnitude = build.add("Abs", "magnitude", {node.inputs[0]});
  const std::string powered =
      p == 1 ? magnitude
             : build.add("Pow", "powered", {magnitude, build.scalar("p", static_cast<float>(p), x.dtype)});
  std::vector<int64_t> spatial;
  for (int64_t d = 2; d < static_cast<int64_t>(x.shape.size()); ++d) spatial.push_back(d);
  Attributes keep;
  keep.set("keepdims", int64_t{1});
  std::vector<std::string> inputs = {powered};
  if (opset >= kAxesInputOpset) {
    inputs.push_back(build.int64s("axes", spatial));
  } else {
    keep.set("axes", spatial);
  }
  const std::string sum = build.add("ReduceSum", "sum", inputs, keep);
  if (p == 1) {
    build.add("Identity", "y", {sum}, {}, node.outputs[0]);
  } else {
    build.add("Pow", "y", {sum, build.scalar("inverse_p", 1.0f / static_cast<float>(p), x.dtype)}, {},
              node.outputs[0]);
  }
  return build.take();
}

}  // namespace nee
