#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "runtime/onnx_tensor.h"

namespace nee {

// Trilu: X of rank >= 2 and an optional int64 scalar k (read at run time, default 0);
// `upper` (default 1) stored explicitly.
std::vector<TensorType> import_trilu(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 2, 1);
  const TensorType& x = input_type(ctx, node, 0, kAnyDType);
  if (x.shape.size() < 2) throw Error("Trilu needs an input of rank >= 2");
  if (node.inputs.size() > 1 && !node.inputs[1].empty()) {
    const TensorType& k = input_type(ctx, node, 1, {DType::i64});
    if (k.elements() != 1 || k.shape.size() > 1) throw Error("k must be a scalar");
  }
  node.attrs.set("upper", int64_t{node.attrs.get_int("upper", 1) != 0});
  return {x};
}

// EyeLike: a 2-D output of the input's shape, of the `dtype` attribute's type (default
// the input's), ones on the diagonal shifted by `k` (default 0, stored).
std::vector<TensorType> import_eye_like(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& x = input_type(ctx, node, 0, kAnyDType);
  if (x.shape.size() != 2) throw Error("EyeLike needs a 2-D input");
  const DType dtype =
      node.attrs.has("dtype") ? dtype_from_onnx(static_cast<int32_t>(node.attrs.get_int("dtype")), "attribute dtype")
                              : x.dtype;
  node.attrs.set("k", node.attrs.get_int("k", 0));
  return {TensorType{dtype, x.shape}};
}

// DepthToSpace and SpaceToDepth (mode DCR, the default, or CRD; SpaceToDepth's since
// opset 28) over NCHW with `blocksize` b: C / b^2 channels at b times the height and
// width, and back.
std::vector<TensorType> import_depth_space(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& x = input_type(ctx, node, 0, kAnyDType);
  if (x.shape.size() != 4) throw Error(node.op + " needs an NCHW input");
  const int64_t b = node.attrs.get_int("blocksize");
  if (b < 1) throw Error(fmt::format("blocksize is {}; it must be positive", b));
  const std::string mode = node.attrs.get_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") throw Error("mode '" + mode + "' is neither DCR nor CRD");
  node.attrs.set("mode", mode);
  TensorType out = x;
  if (node.op == "DepthToSpace") {
    if (x.shape[1] % (b * b) != 0) {
      throw Error(fmt::format("{} channels do not split into blocks of {}x{}", x.shape[1], b, b));
    }
    out.shape = {x.shape[0], x.shape[1] / (b * b), x.shape[2] * b, x.shape[3] * b};
  } else {
    if (x.shape[2] % b != 0 || x.shape[3] % b != 0) {
      throw Error(fmt::format("{}x{} does not split into blocks of {}x{}", x.shape[2], x.shape[3], b, b));
    }
    out.shape = {x.shape[0], x.shape[1] * b * b, x.shape[2] / b, x.shape[3] / b};
  }
  return {out};
}

}  // namespace nee
