#include "core/pool2d_workload.h"

#include <fmt/format.h>

#include "core/activation_layout.h"
#include "core/error.h"
#include "core/family.h"
#include "core/json_numbers.h"
#include "core/shape_text.h"
#include "core/sliding_window.h"

namespace nee {

namespace {

// A pool2d workload's attributes as made (count_include_pad only for an average).
struct StoredPool2dAttrs final : WorkloadAttrs {
  Pool2dAttrs attrs;

  nlohmann::json to_json() const override {
    nlohmann::json j = {{"kind", attrs.kind == PoolKind::average ? "average" : "max"},
                        {"kernel", attrs.kernel},
                        {"strides", attrs.strides},
                        {"pads", attrs.pads},
                        {"dilations", attrs.dilations},
                        {"count_include_pad", attrs.count_include_pad ? 1 : 0}};
    // Only where set, so that the keys of NCHW pools stay as they were.
    if (attrs.block != 0) j["block"] = attrs.block;
    return j;
  }
};

std::shared_ptr<const WorkloadAttrs> pool2d_attrs_from_json(const nlohmann::json& j) {
  auto stored = std::make_shared<StoredPool2dAttrs>();
  Pool2dAttrs& a = stored->attrs;
  const std::string kind = j.at("kind").get<std::string>();
  if (kind != "average" && kind != "max") throw Error("pool2d kind '" + kind + "' is neither max nor average");
  a.kind = kind == "average" ? PoolKind::average : PoolKind::max;
  a.kernel = j.at("kernel").get<std::array<int64_t, 2>>();
  a.strides = j.at("strides").get<std::array<int64_t, 2>>();
  a.pads = j.at("pads").get<std::array<int64_t, 4>>();
  a.dilations = j.at("dilations").get<std::array<int64_t, 2>>();
  a.count_include_pad = json_int(j.at("count_include_pad"), "count_include_pad") != 0;
  a.block = json_int_or(j, "block", 0);
  return stored;
}

}  // namespace

Workload make_pool2d_workload(const TensorType& x, const Pool2dAttrs& attrs, bool ceil_mode) {
  if (x.dtype != DType::f32) throw Error("pool2d kernels take f32 tensors, got " + x.to_string());
  if (x.shape.size() != 4) throw Error("pool2d needs a rank-4 NCHW input, got " + x.to_string());
  for (int64_t d : x.shape) {
    if (d <= 0) throw Error("pool2d input " + x.to_string() + " has an empty dimension");
  }
  std::vector<int64_t> out_shape = {x.shape[0], x.shape[1]};
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t k = attrs.kernel[axis], s = attrs.strides[axis], d = attrs.dilations[axis];
    const int64_t p0 = attrs.pads[axis], p1 = attrs.pads[axis + 2];
    if (k <= 0 || s <= 0 || d <= 0) throw Error("pool2d kernel, strides and dilations must be positive");
    if (p0 < 0 || p1 < 0) throw Error("pool2d pads must not be negative");
    if (p0 >= dilated_extent(k, d) || p1 >= dilated_extent(k, d)) {
      throw Error(fmt::format("pool2d pad {} must be smaller than the dilated window {}", std::max(p0, p1),
                              dilated_extent(k, d)));
    }
    const int64_t size = sliding_output_size(x.shape[2 + axis], k, s, d, p0, p1, ceil_mode);
    if (size < 1) {
      throw Error(fmt::format("pool2d window {}x{} does not fit the padded input {}", attrs.kernel[0],
                              attrs.kernel[1], x.to_string()));
    }
    out_shape.push_back(size);
  }
  if (attrs.block != 0 && (attrs.block != kActivationBlock || !can_block_activations(x.shape))) {
    throw Error(fmt::format("pool2d block {} on {}: only blocks of {} channels, of a C that they divide, exist",
                            attrs.block, x.to_string(), kActivationBlock));
  }
  const bool average = attrs.kind == PoolKind::average;
  Workload w;
  w.op = "pool2d";
  auto stored = std::make_shared<StoredPool2dAttrs>();
  stored->attrs = attrs;
  stored->attrs.count_include_pad = average && attrs.count_include_pad;
  w.attrs = stored;
  w.inputs = {x};
  w.output = TensorType{DType::f32, out_shape};
  if (attrs.block != 0) {
    w.inputs[0].shape = blocked_activation_shape(x.shape);
    w.output.shape = blocked_activation_shape(out_shape);
  }
  return w;
}

Workload make_global_pool2d_workload(const TensorType& x, PoolKind kind, int64_t block) {
  if (x.shape.size() != 4) throw Error("global pool2d needs a rank-4 NCHW input, got " + x.to_string());
  Pool2dAttrs attrs;
  attrs.kind = kind;
  attrs.block = block;
  attrs.kernel = {x.shape[2], x.shape[3]};
  return make_pool2d_workload(x, attrs, false);
}

Pool2dAttrs pool2d_attrs(const Workload& w) { return w.attrs_as<StoredPool2dAttrs>().attrs; }

TensorType pool2d_nchw_input(const Workload& w) {
  if (pool2d_attrs(w).block == 0) return w.inputs[0];
  return TensorType{DType::f32, unblocked_activation_shape(w.inputs[0].shape)};
}

TensorType pool2d_nchw_output(const Workload& w) {
  if (pool2d_attrs(w).block == 0) return w.output;
  return TensorType{DType::f32, unblocked_activation_shape(w.output.shape)};
}

int64_t pool2d_window_size(const Workload& w) {
  const std::array<int64_t, 2>& kernel = w.attrs_as<StoredPool2dAttrs>().attrs.kernel;
  return kernel[0] * kernel[1];
}

Workload pool2d_workload_from_shape(const std::string& text) {
  const ShapeText parsed("pool2d", text,
                         {"kind", "kernel", "strides", "pads", "dilations", "ceil_mode", "count_include_pad", "block"});
  const TensorType x{DType::f32, parsed.shape()};
  if (x.shape.size() != 4) parsed.refuse("the input is NxCxHxW");
  if (!parsed.has("kernel")) parsed.refuse("kernel=KHxKW or kernel=global is missing");
  Pool2dAttrs attrs;
  attrs.kind = parsed.choice("kind", "max", {"max", "average"}) == "max" ? PoolKind::max : PoolKind::average;
  const int64_t block = parsed.choice("block", "0", {"0", "16"}) == "16" ? kActivationBlock : 0;
  if (parsed.text("kernel") == "global") return make_global_pool2d_workload(x, attrs.kind, block);
  const auto pair = [&](const char* name, int64_t fallback) {
    const std::vector<int64_t> v = parsed.integers(name, {fallback, fallback}, 2);
    return std::array<int64_t, 2>{v[0], v[1]};
  };
  attrs.kernel = pair("kernel", 1);
  attrs.strides = pair("strides", 1);
  attrs.dilations = pair("dilations", 1);
  const std::vector<int64_t> pads = parsed.integers("pads", {0, 0, 0, 0}, 4);
  attrs.pads = {pads[0], pads[1], pads[2], pads[3]};
  attrs.count_include_pad = parsed.choice("count_include_pad", "0", {"0", "1"}) == "1";
  attrs.block = block;
  return make_pool2d_workload(x, attrs, parsed.choice("ceil_mode", "0", {"0", "1"}) == "1");
}

Family pool2d_family() {
  return {FamilyId::pool2d,
          "pool2d",
          [](const Workload& w) {
            return static_cast<double>(w.output.elements()) * static_cast<double>(pool2d_window_size(w));
          },
          pool2d_window_size,
          SpeedUnit::gflops,
          pool2d_workload_from_shape,
          "NxCxHxW,kernel=KHxKW|global[,kind=max|average][,strides=SHxSW][,pads=TxLxBxR][,dilations=DHxDW]"
          "[,ceil_mode=1][,count_include_pad=1][,block=16] (the input shape; kind default max; block=16: "
          "channel-blocked X and Y; e.g. the stem pool 1x64x112x112,kernel=3x3,strides=2x2,pads=1x1x1x1)",
          {},
          0,
          pool2d_attrs_from_json,
          [](const Workload& w) {
            require_input_count(w, 1);
            // ceil_mode is not kept (it only decides the output's shape): either may have made it.
            const TensorType x = pool2d_nchw_input(w);
            const Workload floor = make_pool2d_workload(x, pool2d_attrs(w), false);
            return floor.output == w.output ? floor : make_pool2d_workload(x, pool2d_attrs(w), true);
          }};
}

}  // namespace nee
