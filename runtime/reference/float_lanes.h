#pragma once
#include <cstdint>

// Loops over 16 f32 lanes for the runtime's own hand-vectorized kernels (recurrences,
// group norms): GCC vector types, and AVX2 and AVX-512 clones of the functions that run
// them, picked by the CPU the process runs on (the rest of the runtime targets the
// baseline x86-64).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NEE_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define NEE_VECTOR_CLONES
#endif

namespace nee {

constexpr int64_t kFloatLanes = 16;

// 16 lanes of f32: one AVX-512 register, two AVX2 or four SSE ones in each clone; read
// and written in place at any float's alignment, as the compilers' own intrinsics do.
typedef float FloatLanes __attribute__((vector_size(kFloatLanes * sizeof(float)), aligned(sizeof(float)), may_alias));

}  // namespace nee
