#pragma once
#include <string>
#include <string_view>

#include "runtime/tensor.h"
#include "runtime/tensor_limits.h"

namespace nee {

// NumPy's .npy files (format versions 1.0, 2.0 and 3.0, as numpy.save writes them), so
// that inputs and expected outputs come straight from numpy: `np.save("input_0.npy", x)`.
// Little-endian and one-byte numeric and bool arrays in C order; a big-endian,
// Fortran-ordered, string or object array is refused with the numpy call that converts it.

// The tensor in `bytes`; `what` names it in errors. Every size is checked before
// anything is allocated: the shape against `max_bytes`, and the data against the bytes
// that follow the header, which must be exactly the array's.
Tensor parse_npy(std::string_view bytes, const std::string& what, int64_t max_bytes = kMaxTensorBytes);

// The tensor in the .npy file at `path` (a regular file, read once).
Tensor read_npy(const std::string& path, int64_t max_bytes = kMaxTensorBytes);

// Writes a format 1.0 file (2.0 where the header needs more than 65535 bytes), as
// numpy.save does; throws nee::Error for a string tensor or bf16, which numpy lacks.
void write_npy(const std::string& path, const Tensor& tensor);
std::string npy_bytes(const Tensor& tensor);

}  // namespace nee
