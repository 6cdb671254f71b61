#pragma once
#include <memory>
#include <string>

#include "bench/engines/engine.h"

namespace nee::bench {

// oneDNN (Debian's libdnnl, 2.6) on the CPU. MatMul: dnnl::matmul on plain row-major
// f32 operands, as the other engines get them. Convolution: dnnl::convolution_forward
// with every layout left to oneDNN (format_tag::any), i.e. its blocked layout; the
// input and weights are reordered into it once in bind_inputs() and the output back
// to NCHW in finish_output(), both outside timing. Bias and Relu/Clip epilogues are
// post-ops; a residual input is refused. oneDNN's threads are OpenMP's, set to the
// bench's count. The first run() after prepare() runs in oneDNN's verbose mode, whose
// line names the kernel that ran (implementation()): oneDNN 2.6's brg:avx512_core matmul
// ran at 4 GFLOP/s at 256 cubed on an AMD Zen 4, 2% of its FMA peak.
class OneDnnEngine : public Engine {
 public:
  explicit OneDnnEngine(int threads);
  ~OneDnnEngine() override;
  std::string name() const override { return "onednn"; }
  void prepare(const Workload& workload) override;
  std::string provenance() const override { return provenance_; }
  void bind_inputs(const std::vector<const Tensor*>& inputs) override;
  void run(const std::vector<const Tensor*>& inputs, Tensor& output) override;
  void finish_output(Tensor& output) override;
  // "brg:avx512_core (oneDNN verbose; isa: Intel AVX-512 with ...)"; empty before the
  // first run().
  std::string implementation() const override { return implementation_; }

 private:
  struct State;
  int threads_;
  std::string provenance_;
  std::string implementation_;
  std::unique_ptr<State> state_;
};

// "oneDNN 2.6.3 (CPU runtime: OpenMP)".
std::string onednn_version();

}  // namespace nee::bench
