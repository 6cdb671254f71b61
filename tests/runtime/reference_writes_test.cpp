// The session zeroes a reference kernel's planned output before each run unless the
// kernel's op is listed as writing every element (reference_kernels_writing_every_element).
// Each listed op is checked on every ONNX node test whose model is that one node: its
// kernel runs on outputs whose bytes start as 0xFF (NaN for floats, -1 for integers) and
// must give the expected outputs, which an element left alone would not. NEE's own
// listed ops, which no node test has, run on graphs of one node each and must give the
// same outputs from 0xFF bytes as from zeros.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "importer/import_onnx.h"
#include "runtime/output_comparison.h"
#include "runtime/reference/reference_kernel.h"
#include "runtime/reference/reference_provider.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

namespace fs = std::filesystem;

TEST(ReferenceWrites, ListedOpsWriteEveryOutputElement) {
  const fs::path node_tests = "/usr/share/libonnx-testdata/data/node";
  ASSERT_TRUE(fs::is_directory(node_tests)) << "the ONNX node tests (libonnx-testdata) are missing";
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(node_tests)) dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());
  const auto& listed = reference_kernels_writing_every_element();
  std::map<std::string, int> checked;
  const std::unique_ptr<KernelProvider> reference = make_reference_provider();
  for (const fs::path& dir : dirs) {
    const fs::path data = dir / "test_data_set_0";
    Graph graph;
    std::map<std::string, Tensor> fed;
    try {
      const std::shared_ptr<const StagedModel> model = load_staged_onnx((dir / "model.onnx").string());
      // Integer inputs (pads, axes) are given as values, as the importer needs them to
      // fix shapes; the others as types, so that the node is not folded away.
      KnownValues known;
      const std::vector<std::string> names = model->input_names();
      for (size_t i = 0; i < names.size(); ++i) {
        const fs::path file = data / ("input_" + std::to_string(i) + ".pb");
        if (!fs::exists(file)) break;
        fed[names[i]] = read_tensor_pb(file.string());
        known.typed[names[i]] = fed[names[i]].type();
        if (fed[names[i]].dtype() == DType::i64) known.constants[names[i]] = fed[names[i]];
      }
      graph = model->stage(known).graph;
    } catch (const std::exception&) {
      continue;  // not a model this check can stage; the conformance suite covers it
    }
    if (graph.nodes().size() != 1 || !listed.count(graph.nodes()[0].op)) continue;
    const Node& node = graph.nodes()[0];
    std::unique_ptr<NodeKernel> kernel = reference->bind(graph, node);
    if (!kernel) continue;  // a dtype the reference kernel does not take
    EXPECT_TRUE(kernel->writes_every_output_element()) << node.op;
    std::vector<const Tensor*> in;
    for (const std::string& name : node.inputs) {
      const auto given = fed.find(name);
      in.push_back(name.empty() ? nullptr : given != fed.end() ? &given->second : graph.constant(name));
    }
    std::vector<Tensor> out;
    for (const std::string& name : node.outputs) {
      out.emplace_back(graph.type_of(name));
      std::memset(out.back().data(), 0xFF, out.back().bytes());
    }
    std::vector<Tensor*> out_ptrs;
    for (Tensor& t : out) out_ptrs.push_back(&t);
    kernel->run(in, out_ptrs);
    for (size_t i = 0; i < out.size(); ++i) {
      const fs::path file = data / ("output_" + std::to_string(i) + ".pb");
      if (!fs::exists(file) || node.outputs[i] != graph.outputs().at(i)) continue;
      // Within 1e-4 relative, or of the output's peak: bicubic GridSample in f32 lands 9.7e-6
      // of the peak (1.8e-4 of one element) from ONNX's outputs. An element the kernel left
      // alone holds NaN, which neither admits (NaNs are their own problem).
      const Comparison c = compare_tensors(out[i], read_tensor_pb(file.string()), 1e-4, 1e-5);
      EXPECT_TRUE(c.ok || (c.problem == "values differ" && c.peak_rel_error <= 1e-4))
          << dir.filename().string() << " output " << i << ": " << c.problem;
    }
    ++checked[node.op];
  }
  for (const std::string& op : listed) {
    // NEE's own ops have no node tests; NeesOwnListedOpsWriteEveryOutputElement checks them.
    if (op.rfind("Nee", 0) == 0) continue;
    EXPECT_GT(checked[op], 0) << op << " was checked on no node test";
  }
}

// A graph of one `op` node from x (random values) to y, and the node's outputs from
// output bytes that start as zeros and as 0xFF.
void expect_writes_every_element(const std::string& op, const std::vector<int64_t>& x_shape,
                                 const std::vector<int64_t>& y_shape, const Attributes& attrs) {
  SCOPED_TRACE(op + " " + attrs.to_string());
  Graph graph;
  graph.add_value("x", TensorType{DType::f32, x_shape});
  graph.add_value("y", TensorType{DType::f32, y_shape});
  graph.add_input("x");
  graph.add_output("y");
  graph.add_node(Node{op, op, {"x"}, {"y"}, attrs});
  const std::unique_ptr<NodeKernel> kernel = make_reference_provider()->bind(graph, graph.nodes()[0]);
  ASSERT_TRUE(kernel);
  EXPECT_TRUE(kernel->writes_every_output_element());
  Tensor x(DType::f32, x_shape);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(0.5f, 1.5f);
  for (int64_t i = 0; i < x.elements(); ++i) x.data_as<float>()[i] = uniform(rng);
  Tensor from_zeros(DType::f32, y_shape), from_ones(DType::f32, y_shape);
  std::memset(from_ones.data(), 0xFF, from_ones.bytes());
  kernel->run({&x}, {&from_zeros});
  kernel->run({&x}, {&from_ones});
  const Comparison c = compare_tensors(from_ones, from_zeros, 0.0, 0.0);
  EXPECT_TRUE(c.ok) << c.problem;
}

TEST(ReferenceWrites, NeesOwnListedOpsWriteEveryOutputElement) {
  Attributes to_blocked, to_nchw;
  to_blocked.set("to", std::string("nchw16c"));
  to_nchw.set("to", std::string("nchw"));
  expect_writes_every_element("NeeLayout", {2, 32, 3, 5}, {2, 2, 3, 5, 16}, to_blocked);
  expect_writes_every_element("NeeLayout", {2, 2, 3, 5, 16}, {2, 32, 3, 5}, to_nchw);
  // Three taps of stride 2 over 5 frames of [N, C, T, H, W], padded by one frame at each
  // end (zero planes first and last); two taps over a batch of two clips of 4 blocked
  // frames, padded at the start.
  Attributes strided;
  strided.set("kernel", int64_t{3});
  strided.set("stride", int64_t{2});
  strided.set("dilation", int64_t{1});
  strided.set("pad_begin", int64_t{1});
  strided.set("group", int64_t{1});
  expect_writes_every_element("NeeFrameGather", {1, 4, 5, 3, 3}, {3, 12, 3, 3}, strided);
  Attributes blocked = strided;
  blocked.set("kernel", int64_t{2});
  blocked.set("stride", int64_t{1});
  blocked.set("input_frames", int64_t{4});
  blocked.set("input_block", int64_t{16});
  expect_writes_every_element("NeeFrameGather", {8, 2, 3, 3, 16}, {8, 4, 3, 3, 16}, blocked);
}

}  // namespace
}  // namespace nee
