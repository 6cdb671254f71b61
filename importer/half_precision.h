#pragma once
#include <string>
#include <vector>

#include "importer/op_importer.h"

namespace nee {

// f16 and bf16 tensors are stored as such and moved as bit patterns by the operators
// that only move elements (reshapes, slices, gathers, concatenation, casts...). Every
// other operator computes on them in f32: the importer casts the node's half inputs to
// f32 before it and its f32 outputs back after it, so each result is rounded once, as
// numpy and ONNX's reference implementation compute float16. Outputs of other dtypes
// (indices, booleans) keep their names.
struct HalfPrecisionWrap {
  DType half = DType::f32;                  // f32: the node is not wrapped
  std::vector<std::string> final_outputs;  // the node's output names before the rename
};

// Before `node` is imported: when it reads f16 or bf16 and does more than move elements,
// rewires its half inputs to Casts to f32, which it returns to run before it, and renames
// its outputs to f32 temporaries.
std::vector<Node> cast_half_inputs(const ImportContext& ctx, Node& node, HalfPrecisionWrap& wrap);

// After `node` is imported (and perhaps evaluated, if its inputs were constants): the
// Casts that turn its f32 outputs back into `wrap.half` under their original names; its
// other outputs get their original names back.
std::vector<Node> cast_half_outputs(Graph& graph, Node& node, const HalfPrecisionWrap& wrap);

}  // namespace nee
