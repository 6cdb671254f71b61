#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "importer/value_needed.h"
#include "runtime/graph.h"
#include "runtime/staged_session.h"
#include "runtime/tensor_limits.h"

namespace nee {

// Shapes for graph inputs with symbolic dims (dim_param), by input name. A symbolic
// batch dim (dim 0) not given here becomes 1, with a warning; any other symbolic dim
// not given here is an error.
using InputShapes = std::map<std::string, std::vector<int64_t>>;

// Values of graph inputs known when importing, by input name. Such an input becomes a
// constant (and no longer a graph input), so shape-deciding inputs such as Reshape's
// shape can be bound at import; its dtype and shape must match the declaration.
using ConstantInputs = std::map<std::string, Tensor>;

// Imports an ONNX model (IR version 3 to onnx::IR_VERSION, default-domain opset 1..17)
// into a Graph with static shapes, constants and a topological node order. Nodes whose
// inputs are all constants are folded into constants. Initializers may keep their data in
// external files inside the model's folder (import_onnx only). Every node's operands must
// have element types its operator's ONNX type constraints allow. No tensor may exceed
// caps.tensor_bytes and the constants together caps.weights_bytes, checked before each is
// allocated. Throws nee::Error naming the file, node, value or operator at fault;
// ValueNeeded (a nee::Error) where a shape depends on a value the model computes, so that
// it can only run in stages.
Graph import_onnx(const std::string& path, const InputShapes& input_shapes = {},
                  const ConstantInputs& constant_inputs = {}, const MemoryCaps& caps = {});
Graph import_onnx_bytes(const std::string& bytes, const InputShapes& input_shapes = {},
                        const ConstantInputs& constant_inputs = {}, const MemoryCaps& caps = {});

// The part of the model its input shapes decide: all of it for a model of static shapes;
// for one whose shapes depend on values it computes, the first stage, whose outputs are
// the model outputs it computes and the values later stages read (what nee-tune tunes).
// `complete` tells which.
Graph import_onnx_first_stage(const std::string& path, const InputShapes& input_shapes, bool& complete,
                              const MemoryCaps& caps = {});

// The model read once, to run in stages (runtime/staged_session.h): a model whose shapes
// depend on values it computes (If on a computed condition, a Loop that stops on one,
// NonZero, Reshape to a computed shape), or with symbolic dims. Errors name the file.
// Each stage is imported within `caps`.
std::shared_ptr<const StagedModel> load_staged_onnx(const std::string& path, const MemoryCaps& caps = {});
std::shared_ptr<const StagedModel> load_staged_onnx_bytes(const std::string& bytes, const MemoryCaps& caps = {});

// The model's graph inputs that are not initializers, in order: the order in which ONNX
// test data numbers its input_<i>.pb files.
std::vector<std::string> onnx_graph_input_names(const std::string& path);

}  // namespace nee
