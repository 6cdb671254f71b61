#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

// ReverseSequence (opset 10): input of rank >= 2 whose dims 0 and 1 are batch and time
// in the order batch_axis and time_axis (defaults 1 and 0, stored) say, and int64
// sequence_lens [batch], read at run time (the kernel checks each lies in [0, time]).
std::vector<TensorType> import_reverse_sequence(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& x = input_type(ctx, node, 0, kAnyDType);
  const TensorType& lens = input_type(ctx, node, 1, {DType::i64});
  const int64_t batch_axis = node.attrs.get_int("batch_axis", 1), time_axis = node.attrs.get_int("time_axis", 0);
  if ((batch_axis != 0 && batch_axis != 1) || time_axis != 1 - batch_axis) {
    throw Error(fmt::format("batch_axis {} and time_axis {} must be 0 and 1, one each", batch_axis, time_axis));
  }
  if (x.shape.size() < 2) throw Error(fmt::format("input {} must have rank >= 2", x.to_string()));
  if (lens.shape != std::vector<int64_t>{x.shape[batch_axis]}) {
    throw Error(fmt::format("sequence_lens {} must be [{}] (the batch dim of input {})", lens.to_string(),
                            x.shape[batch_axis], x.to_string()));
  }
  node.attrs.set("batch_axis", batch_axis);
  node.attrs.set("time_axis", time_axis);
  return {x};
}

}  // namespace nee
