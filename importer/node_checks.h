#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>

#include "importer/op_importer.h"

namespace nee {

// Small validations shared by the import functions; they throw nee::Error.

// The node has between min and max inputs (omitted optional ones count) and exactly
// `outputs` outputs; required inputs (index < min) are not omitted.
void expect_arity(const Node& node, size_t min_inputs, size_t max_inputs, size_t outputs);

// The type of input `index`, which must have one of `allowed` dtypes.
const TensorType& input_type(const ImportContext& ctx, const Node& node, size_t index,
                             std::initializer_list<DType> allowed);

// Every dtype NEE holds, for operators that move or compare elements of any type.
inline const std::initializer_list<DType> kAnyDType = {DType::f32, DType::f64, DType::f16, DType::bf16,
                                                       DType::i64, DType::i32, DType::i16, DType::i8,
                                                       DType::u64, DType::u32, DType::u16, DType::u8,
                                                       DType::boolean};
// Every dtype that holds numbers (not bool).
inline const std::initializer_list<DType> kNumericDType = {DType::f32, DType::f64, DType::i64, DType::i32, DType::i16,
                                                           DType::i8,  DType::u64, DType::u32, DType::u16, DType::u8};

// An axis in [-rank, rank) made non-negative.
int64_t normalize_axis(int64_t axis, size_t rank, const std::string& attribute);
// Each of `axes` made non-negative, in their order; nee::Error when one is out of range
// or names a dim twice.
std::vector<int64_t> distinct_axes(const std::vector<int64_t>& axes, size_t rank);

}  // namespace nee
