#include "core/strided_copy_workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <sstream>

#include "core/error.h"
#include "core/family.h"
#include "core/integer_text.h"

namespace nee {

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
  w.attrs = {{"perm", attrs.perm}, {"starts", attrs.starts}, {"steps", steps}};
  w.inputs = {input};
  w.output = TensorType{DType::f32, output_shape};
  return w;
}

StridedCopyAttrs strided_copy_attrs(const Workload& w) {
  StridedCopyAttrs a;
  a.perm = w.attrs.at("perm").get<std::vector<int64_t>>();
  a.starts = w.attrs.at("starts").get<std::vector<int64_t>>();
  a.steps = w.attrs.at("steps").get<std::vector<int64_t>>();
  return a;
}

int64_t strided_copy_inner_source(const Workload& w) {
  const std::vector<int64_t> perm = strided_copy_attrs(w).perm;
  const int64_t inner = static_cast<int64_t>(perm.size()) - 1;
  return std::find(perm.begin(), perm.end(), inner) - perm.begin();
}

namespace {

// "AxBxC" -> {A, B, C}; `what` names the list in errors.
std::vector<int64_t> parse_x_list(const std::string& text, const std::string& what, const std::string& whole) {
  const std::optional<std::vector<int64_t>> values = parse_integer_list(text);
  if (!values) {
    throw Error(fmt::format("bad strided_copy shape '{}': {} '{}' is not a list of integers joined by x", whole,
                            what, text));
  }
  if (values->empty()) throw Error(fmt::format("bad strided_copy shape '{}': {} is empty", whole, what));
  return *values;
}

}  // namespace

Workload strided_copy_workload_from_shape(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) parts.push_back(part);
  if (parts.empty()) throw Error("bad strided_copy shape '': expected DxDx...xD[,perm=...][,starts=...]...");
  const TensorType input{DType::f32, parse_x_list(parts[0], "the input shape", text)};
  const size_t rank = input.shape.size();
  std::map<std::string, std::vector<int64_t>> lists;
  for (size_t i = 1; i < parts.size(); ++i) {
    const size_t eq = parts[i].find('=');
    const std::string name = parts[i].substr(0, eq);
    if (eq == std::string::npos || (name != "perm" && name != "starts" && name != "steps" && name != "ends")) {
      throw Error(fmt::format("bad strided_copy shape '{}': '{}' is not perm=, starts=, steps= or ends=", text,
                              parts[i]));
    }
    if (lists.count(name)) throw Error(fmt::format("bad strided_copy shape '{}': {} is given twice", text, name));
    lists[name] = parse_x_list(parts[i].substr(eq + 1), name, text);
    if (lists[name].size() != rank) {
      throw Error(fmt::format("bad strided_copy shape '{}': {} has {} values for an input of rank {}", text, name,
                              lists[name].size(), rank));
    }
  }
  StridedCopyAttrs attrs;
  attrs.perm.resize(rank);
  std::iota(attrs.perm.begin(), attrs.perm.end(), 0);
  attrs.starts.assign(rank, 0);
  attrs.steps.assign(rank, 1);
  std::vector<int64_t> ends = input.shape;
  if (lists.count("perm")) attrs.perm = lists["perm"];
  if (lists.count("starts")) attrs.starts = lists["starts"];
  if (lists.count("steps")) attrs.steps = lists["steps"];
  if (lists.count("ends")) ends = lists["ends"];
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
          0};
}

}  // namespace nee
