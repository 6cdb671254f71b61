#include "bench/engines/onednn_engine.h"

#include <omp.h>

#include <dnnl.hpp>
#include <unordered_map>

#include <fmt/format.h>

#include "bench/engines/onednn_verbose.h"
#include "core/conv2d_workload.h"
#include "core/error.h"
#include "core/family.h"
#include "core/matmul_workload.h"

namespace nee::bench {

using dnnl::memory;
using tag = memory::format_tag;

struct OneDnnEngine::State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::primitive primitive;
  bool conv = false;
  bool has_bias = false;
  // The workload's plain layouts (what the bench's tensors hold) and oneDNN's chosen ones.
  memory::desc src_plain, weights_plain, dst_plain, bias_plain;
  memory::desc src_chosen, weights_chosen, dst_chosen;
  // conv: all in oneDNN's layouts, filled by bind_inputs; matmul: only the weights.
  memory src, weights, dst, bias;
  std::vector<const Tensor*> bound;
  bool ran = false;  // the first run is the one whose verbose line is kept
};

namespace {

memory::dims dims_of(const std::vector<int64_t>& shape) { return memory::dims(shape.begin(), shape.end()); }

dnnl::primitive_attr epilogue(ConvActivation activation, double lo, double hi) {
  dnnl::post_ops ops;
  if (activation == ConvActivation::relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  if (activation == ConvActivation::clip) {
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, static_cast<float>(lo), static_cast<float>(hi));
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  return attr;
}

void* mutable_data(const Tensor* t) { return const_cast<float*>(t->data_as<float>()); }

// The instruction set oneDNN prints once per process, before its first verbose exec line.
std::string& onednn_isa() {
  static std::string isa;
  return isa;
}

// The kernel the exec line of `primitive` names, with the ISA oneDNN dispatches for.
std::string implementation_from(const std::vector<std::string>& lines, const std::string& primitive) {
  std::string implementation;
  for (const std::string& line : lines) {
    if (const auto isa = parse_onednn_isa_line(line)) onednn_isa() = *isa;
    if (const auto exec = parse_onednn_exec_line(line); exec && exec->primitive == primitive) {
      implementation = exec->implementation;
    }
  }
  if (implementation.empty()) return "";
  return implementation + " (oneDNN verbose" + (onednn_isa().empty() ? "" : "; isa: " + onednn_isa()) + ")";
}

}  // namespace

OneDnnEngine::OneDnnEngine(int threads) : threads_(threads) {}
OneDnnEngine::~OneDnnEngine() = default;

std::string onednn_version() {
  const dnnl_version_t* v = dnnl_version();
  const char* runtime = v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : v->cpu_runtime == DNNL_RUNTIME_SEQ ? "sequential"
                                                                                                             : "threadpool/TBB";
  return fmt::format("oneDNN {}.{}.{} (CPU runtime: {})", v->major, v->minor, v->patch, runtime);
}

void OneDnnEngine::prepare(const Workload& workload) {
  state_.reset();
  implementation_.clear();
  // Debian's oneDNN runs on OpenMP (libgomp); its thread count is this thread's OpenMP setting.
  omp_set_num_threads(threads_);
  auto s = std::make_unique<State>();
  if (family_of(workload).id == FamilyId::matmul) {
    const MatmulAttrs attrs = matmul_attrs(workload);
    if (workload.inputs.size() != 2 || workload.inputs[0].shape.size() != 2 || workload.inputs[1].shape.size() != 2 ||
        attrs.trans_a || attrs.trans_b || attrs.relu || attrs.alpha != 1.0) {
      throw Error("onednn: only plain rank-2 MatMul is wired up, not " + workload.key());
    }
    s->src_plain = memory::desc(dims_of(workload.inputs[0].shape), memory::data_type::f32, tag::ab);
    s->weights_plain = memory::desc(dims_of(workload.inputs[1].shape), memory::data_type::f32, tag::ab);
    s->dst_plain = memory::desc(dims_of(workload.output.shape), memory::data_type::f32, tag::ab);
    // B in the layout oneDNN picks, reordered once untimed: NEE's kernels and the peer
    // runtimes read constant weights packed ahead of time as well.
    const memory::desc weights_any(s->weights_plain.dims(), memory::data_type::f32, tag::any);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(s->src_plain, weights_any, s->dst_plain), s->engine);
    s->weights_chosen = pd.weights_desc();
    s->weights = memory(s->weights_chosen, s->engine);
    s->primitive = dnnl::matmul(pd);
    provenance_ = fmt::format("dnnl::matmul ({}), row-major A and C, B in oneDNN's layout (reorder untimed)",
                              pd.impl_info_str());
  } else if (family_of(workload).id == FamilyId::conv2d) {
    if (conv2d_has_residual(workload)) throw Error("onednn: a conv2d with a residual input is not wired up");
    const Conv2dAttrs a = conv2d_attrs(workload);
    s->conv = true;
    s->has_bias = conv2d_has_bias(workload);
    const std::vector<int64_t>& w = workload.inputs[1].shape;
    // Grouped weights are [G, O/G, C/G, KH, KW] to oneDNN.
    const memory::dims weights_dims =
        a.group == 1 ? dims_of(w) : memory::dims{a.group, w[0] / a.group, w[1], w[2], w[3]};
    s->src_plain = memory::desc(dims_of(workload.inputs[0].shape), memory::data_type::f32, tag::nchw);
    s->weights_plain = memory::desc(weights_dims, memory::data_type::f32, a.group == 1 ? tag::oihw : tag::goihw);
    s->dst_plain = memory::desc(dims_of(workload.output.shape), memory::data_type::f32, tag::nchw);
    const memory::desc src_any(s->src_plain.dims(), memory::data_type::f32, tag::any);
    const memory::desc weights_any(weights_dims, memory::data_type::f32, tag::any);
    const memory::desc dst_any(s->dst_plain.dims(), memory::data_type::f32, tag::any);
    // oneDNN counts dilation from 0 (no gap), ONNX from 1.
    const memory::dims strides{a.strides[0], a.strides[1]}, dilates{a.dilations[0] - 1, a.dilations[1] - 1};
    const memory::dims pad_l{a.pads[0], a.pads[1]}, pad_r{a.pads[2], a.pads[3]};
    using conv = dnnl::convolution_forward;
    const auto kind = dnnl::prop_kind::forward_inference;
    const auto algo = dnnl::algorithm::convolution_direct;
    std::unique_ptr<conv::desc> desc;
    if (s->has_bias) {
      s->bias_plain = memory::desc(dims_of(workload.inputs[2].shape), memory::data_type::f32, tag::x);
      desc = std::make_unique<conv::desc>(kind, algo, src_any, weights_any, s->bias_plain, dst_any, strides, dilates,
                                          pad_l, pad_r);
    } else {
      desc = std::make_unique<conv::desc>(kind, algo, src_any, weights_any, dst_any, strides, dilates, pad_l, pad_r);
    }
    const conv::primitive_desc pd(*desc, epilogue(a.activation, a.clip_min, a.clip_max), s->engine);
    s->src_chosen = pd.src_desc();
    s->weights_chosen = pd.weights_desc();
    s->dst_chosen = pd.dst_desc();
    s->primitive = conv(pd);
    s->src = memory(s->src_chosen, s->engine);
    s->weights = memory(s->weights_chosen, s->engine);
    s->dst = memory(s->dst_chosen, s->engine);
    provenance_ = fmt::format("dnnl::convolution_forward ({}), oneDNN's layout, reorders untimed", pd.impl_info_str());
  } else {
    throw Error("onednn: no " + workload.op + " engine (matmul and conv2d only)");
  }
  state_ = std::move(s);
}

void OneDnnEngine::bind_inputs(const std::vector<const Tensor*>& inputs) {
  if (!state_) throw Error("onednn: bind_inputs before prepare");
  State& s = *state_;
  s.bound = inputs;
  memory weights_plain(s.weights_plain, s.engine, mutable_data(inputs[1]));
  dnnl::reorder(weights_plain, s.weights).execute(s.stream, weights_plain, s.weights);
  if (!s.conv) {
    s.stream.wait();
    return;
  }
  memory src_plain(s.src_plain, s.engine, mutable_data(inputs[0]));
  dnnl::reorder(src_plain, s.src).execute(s.stream, src_plain, s.src);
  if (s.has_bias) s.bias = memory(s.bias_plain, s.engine, mutable_data(inputs[2]));
  s.stream.wait();
}

void OneDnnEngine::run(const std::vector<const Tensor*>& inputs, Tensor& output) {
  State& s = *state_;
  if (inputs != s.bound) throw Error("onednn: run() got other inputs than bind_inputs() converted");
  const auto execute = [&] {
    if (s.conv) {
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, s.src}, {DNNL_ARG_WEIGHTS, s.weights}, {DNNL_ARG_DST, s.dst}};
      if (s.has_bias) args.emplace(DNNL_ARG_BIAS, s.bias);
      s.primitive.execute(s.stream, args);
    } else {
      s.primitive.execute(s.stream, {{DNNL_ARG_SRC, memory(s.src_plain, s.engine, mutable_data(inputs[0]))},
                                     {DNNL_ARG_WEIGHTS, s.weights},
                                     {DNNL_ARG_DST, memory(s.dst_plain, s.engine, output.data_as<float>())}});
    }
    s.stream.wait();
  };
  if (s.ran) return execute();
  s.ran = true;
  try {
    implementation_ = implementation_from(capture_onednn_verbose(execute), s.conv ? "convolution" : "matmul");
  } catch (const Error& e) {
    // capture_onednn_verbose throws nee::Error only when it cannot redirect stdout,
    // before the run: run it plainly.
    implementation_ = std::string("not captured: ") + e.what();
    execute();
  }
}

void OneDnnEngine::finish_output(Tensor& output) {
  State& s = *state_;
  if (!s.conv) return;
  memory plain(s.dst_plain, s.engine, output.data_as<float>());
  dnnl::reorder(s.dst, plain).execute(s.stream, s.dst, plain);
  s.stream.wait();
}

}  // namespace nee::bench
