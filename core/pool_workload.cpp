#include "core/pool_workload.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/family.h"
#include "core/sliding_window.h"

namespace nee {

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
  const bool average = attrs.kind == PoolKind::average;
  Workload w;
  w.op = "pool2d";
  w.attrs = {{"kind", average ? "average" : "max"},
             {"kernel", attrs.kernel},
             {"strides", attrs.strides},
             {"pads", attrs.pads},
             {"dilations", attrs.dilations},
             {"count_include_pad", average && attrs.count_include_pad ? 1 : 0}};
  w.inputs = {x};
  w.output = TensorType{DType::f32, out_shape};
  return w;
}

Workload make_global_pool2d_workload(const TensorType& x, PoolKind kind) {
  if (x.shape.size() != 4) throw Error("global pool2d needs a rank-4 NCHW input, got " + x.to_string());
  Pool2dAttrs attrs;
  attrs.kind = kind;
  attrs.kernel = {x.shape[2], x.shape[3]};
  return make_pool2d_workload(x, attrs, false);
}

Pool2dAttrs pool2d_attrs(const Workload& w) {
  Pool2dAttrs a;
  a.kind = w.attrs.at("kind").get<std::string>() == "average" ? PoolKind::average : PoolKind::max;
  a.kernel = w.attrs.at("kernel").get<std::array<int64_t, 2>>();
  a.strides = w.attrs.at("strides").get<std::array<int64_t, 2>>();
  a.pads = w.attrs.at("pads").get<std::array<int64_t, 4>>();
  a.dilations = w.attrs.at("dilations").get<std::array<int64_t, 2>>();
  a.count_include_pad = w.attrs.at("count_include_pad").get<int>() != 0;
  return a;
}

int64_t pool2d_window_size(const Workload& w) {
  const auto kernel = w.attrs.at("kernel").get<std::array<int64_t, 2>>();
  return kernel[0] * kernel[1];
}

Family pool2d_family() {
  return {FamilyId::pool2d,
          "pool2d",
          [](const Workload& w) {
            return static_cast<double>(w.output.elements()) * static_cast<double>(pool2d_window_size(w));
          },
          pool2d_window_size,
          SpeedUnit::gflops,
          nullptr,
          "",
          {},
          0};
}

}  // namespace nee
