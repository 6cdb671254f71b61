#include <algorithm>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"
#include "runtime/reference/einsum_equation.h"

namespace nee {

namespace {

// The labels of a two-operand Einsum that is a batched matrix product: the batch labels
// of both operands and the output (in the output's order), the free labels of A alone
// with the output (i) and of B alone with the output (j), and the summed labels of both
// operands alone (k, at least one); every label once per operand and of one size
// wherever it is.
struct ProductLabels {
  std::vector<int> batch, i, j, k;
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
  for (int label : y) {
    if (has(a, label) && has(b, label)) out.batch.push_back(label);
  }
  // Free and summed labels in the order their operand has them.
  for (const std::vector<int>* operand : {&a, &b}) {
    for (int label : *operand) {
      const bool in_a = has(a, label), in_b = has(b, label), in_y = has(y, label);
      if (in_a && in_b && in_y) continue;
      if (!in_y && !(in_a && in_b)) return false;  // summed within one operand
      std::vector<int>& group = in_y ? (in_a ? out.i : out.j) : out.k;
      if (!has(group, label)) group.push_back(label);
    }
  }
  return !out.k.empty();  // without a summed label, an elementwise or outer product
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

std::vector<int> joined(std::vector<int> first, const std::vector<int>& second, const std::vector<int>& third = {}) {
  first.insert(first.end(), second.begin(), second.end());
  first.insert(first.end(), third.begin(), third.end());
  return first;
}

// Rewrites one Einsum node, its new nodes added to `added`.
class ProductRewrite {
 public:
  ProductRewrite(Graph& graph, const Node& einsum, const EinsumEquation& eq, std::vector<Node>& added)
      : graph_(graph), einsum_(einsum), eq_(eq), added_(added) {}

  // `value` (dims labelled `labels`) transposed to `order`, or itself where that is its order.
  std::string transposed(const std::string& value, const std::vector<int>& labels, const std::vector<int>& order) {
    const std::vector<int64_t> perm = perm_of(labels, order);
    if (is_identity(perm)) return value;
    const std::string name = unique_value_name(graph_, einsum_.name + ".transposed");
    graph_.add_value(name, TensorType{DType::f32, sizes(order)});
    Node transpose = single_output_node("Transpose", {value}, name);
    transpose.attrs.set("perm", perm);
    added_.push_back(std::move(transpose));
    return name;
  }

  // `value` viewed as `shape`, or itself where it has that shape.
  std::string viewed(const std::string& value, const std::vector<int64_t>& shape) {
    if (graph_.type_of(value).shape == shape) return value;
    const std::string name = unique_value_name(graph_, einsum_.name + ".view");
    added_.push_back(reshape_view(graph_, value, name, shape));
    return name;
  }

  std::vector<int64_t> sizes(const std::vector<int>& labels) const {
    std::vector<int64_t> out;
    for (int label : labels) out.push_back(eq_.label_sizes[static_cast<size_t>(label)]);
    return out;
  }

  // The batch dims' sizes followed by the products of the sizes of `first` and `second`.
  std::vector<int64_t> matrix_shape(const std::vector<int>& batch, const std::vector<int>& first,
                                    const std::vector<int>& second) const {
    std::vector<int64_t> shape = sizes(batch);
    for (const std::vector<int>* group : {&first, &second}) {
      int64_t product = 1;
      for (int64_t size : sizes(*group)) product *= size;
      shape.push_back(product);
    }
    return shape;
  }

 private:
  Graph& graph_;
  const Node& einsum_;
  const EinsumEquation& eq_;
  std::vector<Node>& added_;
};

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
    ProductLabels l;
    if (!product_labels(eq, shapes, l)) continue;
    ProductRewrite rewrite(graph, node, eq, added);
    // A as [batch..., I, K] and B as [batch..., K, J], each transposed and viewed so.
    const std::string a_arranged = rewrite.transposed(node.inputs[0], eq.operand_labels[0], joined(l.batch, l.i, l.k));
    const std::string b_arranged = rewrite.transposed(node.inputs[1], eq.operand_labels[1], joined(l.batch, l.k, l.j));
    const std::string a = rewrite.viewed(a_arranged, rewrite.matrix_shape(l.batch, l.i, l.k));
    const std::string b = rewrite.viewed(b_arranged, rewrite.matrix_shape(l.batch, l.k, l.j));
    Node matmul;
    matmul.op = "MatMul";
    matmul.inputs = {a, b};
    // The product [batch..., I, J] is viewed [batch..., i..., j...], then put in the
    // output's order; the last of those steps writes the Einsum's output.
    const std::vector<int> y_order = joined(l.batch, l.i, l.j);
    const std::vector<int64_t> product_shape = rewrite.matrix_shape(l.batch, l.i, l.j);
    const std::vector<int64_t> y_perm = perm_of(y_order, eq.output_labels);
    const bool view = product_shape != rewrite.sizes(y_order), transpose = !is_identity(y_perm);
    if (!view && !transpose) {
      matmul.name = node.name;
      matmul.outputs = node.outputs;
      node = std::move(matmul);
      continue;
    }
    matmul.name = unique_value_name(graph, node.name + ".product");
    matmul.outputs = {matmul.name};
    graph.add_value(matmul.name, TensorType{DType::f32, product_shape});
    std::string product = matmul.name;
    added.push_back(std::move(matmul));
    Node last;
    last.name = node.name;
    last.outputs = node.outputs;
    if (transpose) {
      product = rewrite.viewed(product, rewrite.sizes(y_order));
      last.op = "Transpose";
      last.inputs = {product};
      last.attrs.set("perm", y_perm);
    } else {
      last.op = "Reshape";
      const std::string shape = unique_value_name(graph, node.name + ".output_shape");
      last.inputs = {product, add_shape_constant(graph, shape, rewrite.sizes(y_order))};
    }
    node = std::move(last);
  }
  for (Node& n : added) graph.add_node(std::move(n));
  graph.sort_topologically();
}

}  // namespace nee
