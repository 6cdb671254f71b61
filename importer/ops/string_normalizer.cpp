#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"
#include "runtime/reference/string_normalizer.h"

namespace nee {

// StringNormalizer (opset 10): X is [C] or [1, C] strings; Y keeps X's rank and holds
// the strings that are not stopwords, case changed (at least one: an empty string when
// none is left). How many are left depends on X's values, so X must be known (a staged
// run specializes on it).
std::vector<TensorType> import_string_normalizer(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = input_type(ctx, node, 0, {DType::string});
  if (in.shape.size() != 1 && !(in.shape.size() == 2 && in.shape[0] == 1)) {
    throw Error(fmt::format("X is {}; it must be [C] or [1, C]", in.to_string()));
  }
  const StringNormalization how = string_normalization(node.attrs);
  const auto kept = static_cast<int64_t>(normalize_strings(constant_input(ctx, node, 0, "X"), how).size());
  return {TensorType{DType::string, in.shape.size() == 1 ? std::vector<int64_t>{kept} : std::vector<int64_t>{1, kept}}};
}

}  // namespace nee
