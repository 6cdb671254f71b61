#include "core/softmax_workload.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/family.h"
#include "core/json_numbers.h"
#include "core/shape_text.h"

namespace nee {

namespace {

// A softmax workload's axis, non-negative.
struct StoredSoftmaxAttrs final : WorkloadAttrs {
  explicit StoredSoftmaxAttrs(int64_t axis) : axis(axis) {}
  int64_t axis;

  nlohmann::json to_json() const override { return {{"axis", axis}}; }
};

std::shared_ptr<const WorkloadAttrs> softmax_attrs_from_json(const nlohmann::json& j) {
  return std::make_shared<StoredSoftmaxAttrs>(json_int(j.at("axis"), "axis"));
}

}  // namespace

Workload make_softmax_workload(const TensorType& x, int64_t axis) {
  if (x.dtype != DType::f32) throw Error("softmax kernels take f32 tensors, got " + x.to_string());
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) throw Error("softmax needs a tensor of rank >= 1");
  if (axis < -rank || axis >= rank) {
    throw Error(fmt::format("softmax axis {} is out of range for {}", axis, x.to_string()));
  }
  for (int64_t d : x.shape) {
    if (d <= 0) throw Error("softmax input " + x.to_string() + " has an empty dimension");
  }
  Workload w;
  w.op = "softmax";
  w.attrs = std::make_shared<StoredSoftmaxAttrs>(axis < 0 ? axis + rank : axis);
  w.inputs = {x};
  w.output = x;
  return w;
}

int64_t softmax_axis(const Workload& w) { return w.attrs_as<StoredSoftmaxAttrs>().axis; }

int64_t softmax_length(const Workload& w) { return w.inputs[0].shape[softmax_axis(w)]; }

Workload softmax_workload_from_shape(const std::string& text) {
  const ShapeText parsed("softmax", text, {"axis"});
  return make_softmax_workload({DType::f32, parsed.shape()}, parsed.integer("axis", -1));
}

Family softmax_family() {
  // Per element: the max, the subtraction, exp, the sum and the division.
  return {FamilyId::softmax, "softmax", [](const Workload& w) { return 5.0 * static_cast<double>(w.output.elements()); },
          softmax_length, SpeedUnit::gflops, softmax_workload_from_shape,
          "DxDx...xD[,axis=A] (the input shape; the axis normalized, default -1, the last; e.g. 96x128x128)", {}, 0,
          softmax_attrs_from_json, [](const Workload& w) {
            require_input_count(w, 1);
            return make_softmax_workload(w.inputs[0], softmax_axis(w));
          }};
}

}  // namespace nee
