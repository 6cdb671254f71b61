#include <algorithm>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"
#include "runtime/reference/einsum_equation.h"

namespace nee {

namespace {

// The labels of a two-operand Einsum that is a batched matrix product: each label of both
// operands and the output a batch dim, one label of A's and the output's alone (i), one of
// B's and the output's (j), one of both operands' alone (k), every label once per operand
// and of one size wherever it is.
struct ProductLabels {
  std::vector<int> batch;
  int i = -1, j = -1, k = -1;
};

bool has(const std::vector<int>& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

bool product_labels(const EinsumEquation& eq, const std::vector<std::vector<int64_t>>& shapes, ProductLabels& out) {
  const std::vector<int>& a = eq.operand_labels[0];
  const std::vector<int>& b = eq.operand_labels[1];
  const std::vector<int>& y = eq.output_labels;
  for (size_t operand = 0; operand < 2; ++operand) {
    const std::vector<int>& labels = eq.operand_labels[operand];
    for (size_t d = 0; d < labels.size(); ++d) {
      if (std::count(labels.begin(), labels.end(), labels[d]) != 1) return false;  // a diagonal
      if (shapes[operand][d] != eq.label_sizes[static_cast<size_t>(labels[d])]) return false;  // broadcast
    }
  }
  for (int label = 0; label < static_cast<int>(eq.label_sizes.size()); ++label) {
    const bool in_a = has(a, label), in_b = has(b, label), in_y = has(y, label);
    if (in_a && in_b && in_y) {
      out.batch.push_back(label);
    } else if (in_a && in_y && !in_b && out.i < 0) {
      out.i = label;
    } else if (in_b && in_y && !in_a && out.j < 0) {
      out.j = label;
    } else if (in_a && in_b && !in_y && out.k < 0) {
      out.k = label;
    } else if (in_a || in_b || in_y) {
      return false;
    }
  }
  if (out.i < 0 || out.j < 0 || out.k < 0) return false;
  // The batch labels in the output's order: the output is the product's, or one
  // Transpose of it.
  std::vector<int> ordered;
  for (int label : y) {
    if (has(out.batch, label)) ordered.push_back(label);
  }
  out.batch = ordered;
  return true;
}

// The perm that takes dims labelled `from` to the order `to` (a Transpose's perm).
std::vector<int64_t> perm_of(const std::vector<int>& from, const std::vector<int>& to) {
  std::vector<int64_t> perm;
  for (int label : to) perm.push_back(std::find(from.begin(), from.end(), label) - from.begin());
  return perm;
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t d = 0; d < perm.size(); ++d) {
    if (perm[d] != static_cast<int64_t>(d)) return false;
  }
  return true;
}

}  // namespace

void einsum_as_matmul(Graph& graph) {
  std::vector<Node> added;
  for (Node& node : graph.nodes()) {
    if (node.op != "Einsum" || node.inputs.size() != 2) continue;
    std::vector<std::vector<int64_t>> shapes;
    bool f32 = true;
    for (const std::string& in : node.inputs) {
      shapes.push_back(graph.type_of(in).shape);
      f32 = f32 && graph.type_of(in).dtype == DType::f32;
    }
    if (!f32) continue;
    const EinsumEquation eq = parse_einsum(node.attrs.get_string("equation"), shapes);
    ProductLabels labels;
    if (!product_labels(eq, shapes, labels)) continue;
    const auto size_of = [&](int label) { return eq.label_sizes[static_cast<size_t>(label)]; };
    // Each operand, transposed where needed, to [batch..., i, k] and [batch..., k, j].
    const auto arranged = [&](size_t operand, std::vector<int> order) {
      const std::vector<int64_t> perm = perm_of(eq.operand_labels[operand], order);
      if (is_identity(perm)) return node.inputs[operand];
      const std::string name = unique_value_name(graph, node.name + (operand == 0 ? ".a" : ".b"));
      std::vector<int64_t> shape;
      for (int label : order) shape.push_back(size_of(label));
      graph.add_value(name, TensorType{DType::f32, shape});
      Node transpose;
      transpose.op = "Transpose";
      transpose.name = name;
      transpose.inputs = {node.inputs[operand]};
      transpose.outputs = {name};
      transpose.attrs.set("perm", perm);
      added.push_back(std::move(transpose));
      return name;
    };
    std::vector<int> a_order = labels.batch, b_order = labels.batch, y_order = labels.batch;
    a_order.insert(a_order.end(), {labels.i, labels.k});
    b_order.insert(b_order.end(), {labels.k, labels.j});
    y_order.insert(y_order.end(), {labels.i, labels.j});
    Node matmul;
    matmul.op = "MatMul";
    matmul.inputs = {arranged(0, a_order), arranged(1, b_order)};
    const std::vector<int64_t> y_perm = perm_of(y_order, eq.output_labels);
    if (is_identity(y_perm)) {
      matmul.name = node.name;
      matmul.outputs = node.outputs;
      node = std::move(matmul);
      continue;
    }
    const std::string product = unique_value_name(graph, node.name + ".product");
    std::vector<int64_t> shape;
    for (int label : y_order) shape.push_back(size_of(label));
    graph.add_value(product, TensorType{DType::f32, shape});
    matmul.name = product;
    matmul.outputs = {product};
    added.push_back(std::move(matmul));
    Node transpose;
    transpose.op = "Transpose";
    transpose.name = node.name;
    transpose.inputs = {product};
    transpose.outputs = node.outputs;
    transpose.attrs.set("perm", y_perm);
    node = std::move(transpose);
  }
  for (Node& n : added) graph.add_node(std::move(n));
  graph.sort_topologically();
}

}  // namespace nee
