// The session zeroes a reference kernel's planned output before each run unless the
// kernel's op is listed as writing every element (reference_kernels_writing_every_element).
// Each listed op is checked on every ONNX node test whose model is that one node: its
// kernel runs on outputs whose bytes start as 0xFF (NaN for floats, -1 for integers) and
// must give the expected outputs, which an element left alone would not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
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
      const Comparison c = compare_tensors(out[i], read_tensor_pb(file.string()), 1e-4, 1e-5);
      EXPECT_TRUE(c.ok) << dir.filename().string() << " output " << i << ": " << c.problem;
    }
    ++checked[node.op];
  }
  for (const std::string& op : listed) EXPECT_GT(checked[op], 0) << op << " was checked on no node test";
}

}  // namespace
}  // namespace nee
