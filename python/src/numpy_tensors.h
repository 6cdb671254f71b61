#pragma once
// numpy arrays as NEE tensors and back, without copies where the layout allows.
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <nee/nee.h>
#include <nee/nee.hpp>

namespace nee::python {

// "tensor(float)": the element type as ONNX Runtime's Python API names a value's type.
std::string onnx_type_name(NeeDType dtype);

// `value` as an array NEE can read in place: `value` itself where it already is a
// C-contiguous, aligned, native-byte-order numpy array, else one copy of it in that
// layout (np.asarray first, so lists and scalars pass too). The dtype is kept: NEE, not
// the binding, checks it against the model. `name` is the input's, for errors.
pybind11::array readable_in_place(pybind11::handle value, const std::string& name);

// A tensor over the array's buffer (no copy); the array must be one readable_in_place
// returned, and must outlive the tensor. Throws for a dtype NEE does not take.
nee::api::Tensor wrap_array(const pybind11::array& array, const std::string& name);

// An array over the tensor's buffer (no copy) that frees the tensor when the array goes.
// Takes ownership of `tensor`, also when it throws.
pybind11::array array_owning(NeeTensor* tensor);

// A copy of the tensor's elements in a new array; the tensor stays the caller's.
pybind11::array array_copy(NeeTensor* tensor);

}  // namespace nee::python
