#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "importer/op_importer.h"

namespace nee {

// Inputs that decide an output's shape (Reshape's shape, Slice's starts, Pad's pads...)
// must be constants at import, since NEE keeps every shape static. These read such an
// input, throwing an error that names the input when it is not a constant.

// The constant tensor at input `index` (described as `role`, e.g. "shape").
const Tensor& constant_input(const ImportContext& ctx, const Node& node, size_t index, const std::string& role);

// Input `index` as int64 values (int32 or int64 tensors); nullopt when the input is
// omitted or absent.
std::optional<std::vector<int64_t>> constant_ints(const ImportContext& ctx, const Node& node, size_t index,
                                                  const std::string& role);

// Input `index` as float values (f32 tensors); nullopt when omitted or absent.
std::optional<std::vector<float>> constant_floats(const ImportContext& ctx, const Node& node, size_t index,
                                                  const std::string& role);

bool has_input(const Node& node, size_t index);

}  // namespace nee
