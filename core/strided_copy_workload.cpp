#include "core/strided_copy_workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "core/family.h"
#include "core/json_numbers.h"
#include "core/shape_text.h"

namespace nee {

namespace {

// A strided copy's attributes as made (step 1 where a dim reads one index).
struct StoredStridedCopyAttrs final : WorkloadAttrs {
  StridedCopyAttrs attrs;

  nlohmann::json to_json() const override {
    return {{"perm", attrs.perm}, {"starts", attrs.starts}, {"steps", attrs.steps}};
  }
};

std::shared_ptr<const WorkloadAttrs> strided_copy_attrs_from_json(const nlohmann::json& j) {
  auto stored = std::make_shared<StoredStridedCopyAttrs>();
  stored->attrs.perm = json_ints(j.at("perm"), "perm");
  stored->attrs.starts = json_ints(j.at("starts"), "starts");
  stored->attrs.steps = json_ints(j.at("steps"), "steps");
  return stored;
}

}  // namespace

Workload make_strided_copy_workload(const TensorType& input, const StridedCopyAttrs& attrs,
                                    const std::vector<int64_t>& output_shape) {
  if (input.dtype != DType::f32) throw Error("strided_copy kernels take f32 tensors, got " + input.to_string());
  const size_t rank = input.shape.size();
  if (rank == 0) throw Error("strided_copy needs a tensor of rank >= 1, got a scalar");
  for (int64_t d : input.shape) {
    if (d <= 0) throw Error("strided_copy input " + input.to_string() + " has an empty dimension");
  }
  std::vector<int64_t> sorted = attrs.perm, identity(rank);
  std::sort(sorted.begin(), sorted.end());
  std::iota(identity.begin(), identity.end(), 0);
  if (sorted != identity) {
    throw Error(fmt::format("strided_copy perm [{}] is not a permutation of the {} dims of {}",
                            fmt::join(attrs.perm, ","), rank, input.to_string()));
  }
  if (attrs.starts.size() != rank || attrs.steps.size() != rank || output_shape.size() != rank) {
    throw Error(fmt::format("strided_copy of {} needs {} starts, steps and output extents, got starts [{}], steps "
                            "[{}] and output [{}]",
                            input.to_string(), rank, fmt::join(attrs.starts, ","), fmt::join(attrs.steps, ","),
                            fmt::join(output_shape, ",")));
  }
  std::vector<int64_t> steps = attrs.steps;
  for (size_t k = 0; k < rank; ++k) {
    const size_t j = static_cast<size_t>(attrs.perm[k]);
    const int64_t count = output_shape[k], start = attrs.starts[j], step = attrs.steps[j];
    if (count < 1) {
      throw Error(fmt::format("strided_copy output [{}] has an empty dimension", fmt::join(output_shape, ",")));
    }
    if (step < 1) {
      throw Error(fmt::format("strided_copy step {} along input dim {} is not positive (negative steps are not "
                              "covered)",
                              step, j));
    }
    const int64_t last = start + (count - 1) * step;
    if (start < 0 || last >= input.shape[j]) {
      throw Error(fmt::format("strided_copy reads indices {} to {} (step {}) of input dim {}, which has {}", start,
                              last, step, j, input.shape[j]));
    }
    if (count == 1) steps[j] = 1;
  }
  Workload w;
  w.op = "strided_copy";
  auto stored = std::make_shared<StoredStridedCopyAttrs>();
  stored->attrs = {attrs.perm, attrs.starts, steps};
  w.attrs = stored;
  w.inputs = {input};
  w.output = TensorType{DType::f32, output_shape};
  return w;
}

StridedCopyAttrs strided_copy_attrs(const Workload& w) { return w.attrs_as<StoredStridedCopyAttrs>().attrs; }

int64_t strided_copy_inner_source(const Workload& w) {
  const std::vector<int64_t> perm = strided_copy_attrs(w).perm;
  const int64_t inner = static_cast<int64_t>(perm.size()) - 1;
  return std::find(perm.begin(), perm.end(), inner) - perm.begin();
}

Workload strided_copy_workload_from_shape(const std::string& text) {
  const ShapeText parsed("strided_copy", text, {"perm", "starts", "steps", "ends"});
  const TensorType input{DType::f32, parsed.shape()};
  const size_t rank = input.shape.size();
  std::vector<int64_t> identity(rank);
  std::iota(identity.begin(), identity.end(), 0);
  StridedCopyAttrs attrs;
  attrs.perm = parsed.integers("perm", identity, rank);
  attrs.starts = parsed.integers("starts", std::vector<int64_t>(rank, 0), rank);
  attrs.steps = parsed.integers("steps", std::vector<int64_t>(rank, 1), rank);
  const std::vector<int64_t> ends = parsed.integers("ends", input.shape, rank);
  // Out-of-range perm entries are left to make_strided_copy_workload's check.
  std::vector<int64_t> output_shape;
  for (int64_t j : attrs.perm) {
    if (j < 0 || j >= static_cast<int64_t>(rank)) break;
    const int64_t step = std::max<int64_t>(attrs.steps[j], 1);
    output_shape.push_back(std::max<int64_t>((ends[j] - attrs.starts[j] + step - 1) / step, 0));
  }
  return make_strided_copy_workload(input, attrs, output_shape);
}

Family strided_copy_family() {
  // A copy computes and rounds nothing: its speed is in GB/s, and its output must equal
  // the reference exactly.
  return {FamilyId::strided_copy,
          "strided_copy",
          [](const Workload&) { return 0.0; },
          [](const Workload&) { return int64_t{0}; },
          SpeedUnit::gbytes,
          strided_copy_workload_from_shape,
          "DxDx...xD[,perm=PxPx...][,starts=...][,steps=...][,ends=...] (the input shape; perm per output dim, the "
          "others per input dim, ends exclusive; e.g. the transpose 128x4x64,perm=1x2x0 or the slice "
          "128x2304,starts=0x768,ends=128x1536)",
          {},
          0,
          strided_copy_attrs_from_json,
          [](const Workload& w) {
            require_input_count(w, 1);
            return make_strided_copy_workload(w.inputs[0], strided_copy_attrs(w), w.output.shape);
          }};
}

}  // namespace nee
