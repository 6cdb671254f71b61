#include "runtime/reference/reference_provider.h"

#include "runtime/reference/reference_kernel.h"

namespace nee {

namespace {

class ReferenceKernel : public NodeKernel {
 public:
  ReferenceKernel(std::string op, ReferenceFn fn)
      : op_(std::move(op)), fn_(std::move(fn)), writes_all_(reference_kernels_writing_every_element().count(op_) > 0) {}
  void run(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs) override {
    fn_(inputs, outputs);
  }
  std::string name() const override { return "reference." + op_; }
  bool writes_every_output_element() const override { return writes_all_; }

 private:
  std::string op_;
  ReferenceFn fn_;
  bool writes_all_;
};

class ReferenceProvider : public KernelProvider {
 public:
  std::string name() const override { return "reference"; }
  std::unique_ptr<NodeKernel> bind(const Graph& graph, const Node& node) override {
    const auto& table = reference_kernels();
    auto it = table.find(node.op);
    if (it == table.end()) return nullptr;
    ReferenceFn fn = it->second(graph, node);
    if (!fn) return nullptr;
    return std::make_unique<ReferenceKernel>(node.op, std::move(fn));
  }
};

}  // namespace

std::unique_ptr<KernelProvider> make_reference_provider() {
  return std::make_unique<ReferenceProvider>();
}

}  // namespace nee
