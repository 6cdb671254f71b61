#include "numpy_tensors.h"

#include <cstdint>
#include <vector>

#include "errors.h"

namespace py = pybind11;

namespace nee::python {

namespace {

struct ElementType {
  NeeDType nee;
  const char* numpy;  // numpy's dtype name; none for strings, which do not pass the C API
  const char* onnx;   // ONNX's element type name, as ONNX Runtime writes it in "tensor(...)"
};

constexpr ElementType kElementTypes[] = {
    {NEE_DTYPE_F32, "float32", "float"},   {NEE_DTYPE_F64, "float64", "double"},
    {NEE_DTYPE_F16, "float16", "float16"}, {NEE_DTYPE_BF16, "bfloat16", "bfloat16"},
    {NEE_DTYPE_I8, "int8", "int8"},        {NEE_DTYPE_U8, "uint8", "uint8"},
    {NEE_DTYPE_I16, "int16", "int16"},     {NEE_DTYPE_U16, "uint16", "uint16"},
    {NEE_DTYPE_I32, "int32", "int32"},     {NEE_DTYPE_U32, "uint32", "uint32"},
    {NEE_DTYPE_I64, "int64", "int64"},     {NEE_DTYPE_U64, "uint64", "uint64"},
    {NEE_DTYPE_BOOL, "bool", "bool"},      {NEE_DTYPE_STRING, nullptr, "string"},
};

std::string numpy_names() {
  std::string names;
  for (const ElementType& t : kElementTypes) {
    if (t.numpy) names += std::string(names.empty() ? "" : ", ") + t.numpy;
  }
  return names;
}

// The numpy dtype of NEE's elements. numpy has no bfloat16: ml_dtypes' where it is
// installed, else the raw bits as uint16.
py::dtype numpy_dtype(NeeDType dtype) {
  if (dtype == NEE_DTYPE_BF16) {
    try {
      return py::dtype::from_args(py::module_::import("ml_dtypes").attr("bfloat16"));
    } catch (const py::error_already_set&) {
      return py::dtype("uint16");
    }
  }
  for (const ElementType& t : kElementTypes) {
    if (t.nee == dtype && t.numpy) return py::dtype(t.numpy);
  }
  invalid_argument("NEE returned a tensor of element type " + std::to_string(static_cast<int>(dtype)) +
                   ", which has no numpy dtype");
}

std::vector<py::ssize_t> shape_of(const NeeTensor* tensor) {
  const int64_t* dims = nee_tensor_dims(tensor);
  return std::vector<py::ssize_t>(dims, dims + nee_tensor_rank(tensor));
}

}  // namespace

std::string onnx_type_name(NeeDType dtype) {
  for (const ElementType& t : kElementTypes) {
    if (t.nee == dtype) return std::string("tensor(") + t.onnx + ")";
  }
  return "tensor(undefined)";
}

py::array readable_in_place(py::handle value, const std::string& name) {
  py::array array = py::array::ensure(value);
  if (!array) invalid_argument("input '" + name + "' is not an array numpy can read");
  const py::object flags = array.attr("flags");
  if (flags.attr("c_contiguous").cast<bool>() && flags.attr("aligned").cast<bool>() &&
      array.dtype().attr("isnative").cast<bool>()) {
    return array;
  }
  return py::module_::import("numpy").attr("array")(array, py::arg("dtype") = array.dtype().attr("newbyteorder")("="),
                                                    py::arg("order") = "C");
}

nee::api::Tensor wrap_array(const py::array& array, const std::string& name) {
  const std::string numpy_name = py::str(array.dtype().attr("name"));
  NeeDType dtype = NEE_DTYPE_UNKNOWN;
  for (const ElementType& t : kElementTypes) {
    if (t.numpy && numpy_name == t.numpy) dtype = t.nee;
  }
  if (dtype == NEE_DTYPE_UNKNOWN) {
    invalid_argument("input '" + name + "' is a numpy array of dtype " + numpy_name + ", which NEE does not take (" +
                     numpy_names() + ")");
  }
  const std::vector<int64_t> dims(array.shape(), array.shape() + array.ndim());
  NeeTensor* tensor = nullptr;
  // NEE only reads inputs (nee_session_run takes them const), so a read-only array
  // passes too.
  check(nee_tensor_wrap(dtype, dims.data(), dims.size(), const_cast<void*>(array.data()),
                        static_cast<size_t>(array.nbytes()), &tensor));
  return nee::api::Tensor(tensor);
}

py::array array_owning(NeeTensor* tensor) {
  py::capsule owner;
  try {
    owner = py::capsule(tensor, [](void* p) { nee_tensor_free(static_cast<NeeTensor*>(p)); });
  } catch (...) {
    nee_tensor_free(tensor);
    throw;
  }
  return py::array(numpy_dtype(nee_tensor_dtype(tensor)), shape_of(tensor), nee_tensor_data(tensor), owner);
}

py::array array_copy(NeeTensor* tensor) {
  // Without a base object, pybind11 copies the elements into an array numpy owns.
  return py::array(numpy_dtype(nee_tensor_dtype(tensor)), shape_of(tensor), nee_tensor_data(tensor));
}

}  // namespace nee::python
