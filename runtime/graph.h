#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/workload.h"
#include "runtime/attributes.h"
#include "runtime/tensor.h"

namespace nee {

struct Node {
  std::string op;    // ONNX op type, or an internal one such as "NeeMatMul"
  std::string name;  // unique within the graph; used in every error about the node
  std::vector<std::string> inputs;  // an empty name is an omitted optional input
  std::vector<std::string> outputs;
  Attributes attrs;
};

// The integers a constant was dequantized from at import (a DequantizeLinear of constant
// weights folds into an f32 constant): y = (x - zero_point) * scale, the scale (and zero
// point) one value, one per index of `axis`, or one per block of block_size indices
// along it. A matmul or conv may read the integers instead (passes.h: quantize_matmul_weights,
// quantize_conv_activations).
struct DequantizedOrigin {
  Tensor x;           // i8 or u8 (4-bit weights are held unpacked, one a byte)
  Tensor scale;       // f32
  Tensor zero_point;  // x's dtype; empty storage for none
  int64_t axis = 1;   // in [0, rank of x)
  int64_t block_size = 0;
};

// An f32 activation that is x quantized to 8 bits and back: (saturate(round(x / scale) +
// zero) - zero), times scale where `scaled` (a QDQ pair; not where DynamicQuantizeLinear made
// the integers, whose scale the product's reader applies). The scale is the f32 value
// `scale` of one element, or where that is empty the constant `scale_value`; the zero point
// the u8 value `zero` of one element, or where that is empty the constant `zero_point`
// (fuse_elementwise folds a pair's scalar constants into its kernel). An i8 quantization is
// noted as its u8 shift (zero point plus 128, its range shifted to u8's). A matmul or conv
// may quantize x itself instead (passes.h: quantize_matmul_activations,
// quantize_conv_activations).
struct QuantizedOrigin {
  std::string x, scale, zero;
  float scale_value = 1;
  int zero_point = 0;
  bool scaled = true;
};

// A dataflow graph with static shapes. Every value (graph input, constant, node output)
// has a name and a TensorType; constants also hold their data.
class Graph {
 public:
  // Values.
  void add_value(const std::string& name, const TensorType& type);  // throws if defined
  void add_constant(const std::string& name, const Tensor& data);     // throws if defined
  void set_type(const std::string& name, const TensorType& type);     // adds or replaces
  void remove_value(const std::string& name);
  bool has_value(const std::string& name) const { return values_.count(name) != 0; }
  const TensorType& type_of(const std::string& name) const;  // throws naming an unknown value
  const Tensor* constant(const std::string& name) const;      // null when not a constant
  std::vector<std::string> value_names() const;
  // A constant's quantized origin: null for none. Removing the value forgets it.
  void set_dequantized_origin(const std::string& name, DequantizedOrigin origin);
  const DequantizedOrigin* dequantized_origin(const std::string& name) const;
  // An activation's quantized origin: null for none. Removing the value forgets it.
  void set_quantized_origin(const std::string& name, QuantizedOrigin origin) { quantized_origins_[name] = origin; }
  const QuantizedOrigin* quantized_origin(const std::string& name) const;
  // Whether a quantized origin reads `name` as its x: fuse_elementwise keeps it a value.
  bool is_quantized_source(const std::string& name) const;
  void forget_origins() {
    dequantized_origins_.clear();
    quantized_origins_.clear();
  }

  // Nodes, kept in a topological order once the importer or sort_topologically() ran.
  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<Node>& nodes() { return nodes_; }
  void add_node(Node node) { nodes_.push_back(std::move(node)); }
  const Node* producer(const std::string& value) const;      // null for inputs and constants
  std::vector<const Node*> consumers(const std::string& value) const;
  // Points every node input and graph output named `from` at `to` instead.
  void replace_uses(const std::string& from, const std::string& to);

  // Graph inputs and outputs, in declaration order.
  const std::vector<std::string>& inputs() const { return inputs_; }
  const std::vector<std::string>& outputs() const { return outputs_; }
  void add_input(const std::string& name) { inputs_.push_back(name); }
  void add_output(const std::string& name) { outputs_.push_back(name); }
  bool is_output(const std::string& name) const;

  // Node indices in an order where producers come before consumers, keeping the current
  // order where it already is one. Throws nee::Error naming a node on a cycle.
  std::vector<size_t> topological_order() const;
  void sort_topologically();

  std::string summary() const;  // inputs, constants, one line per node, outputs

 private:
  struct Value {
    TensorType type;
    std::optional<Tensor> data;
  };
  std::map<std::string, Value> values_;
  std::map<std::string, DequantizedOrigin> dequantized_origins_;
  std::map<std::string, QuantizedOrigin> quantized_origins_;
  std::vector<Node> nodes_;
  std::vector<std::string> inputs_, outputs_;
};

}  // namespace nee
