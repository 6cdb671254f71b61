// nee._nee: the extension module of the Python package `nee`, a thin layer over NEE's C
// API (libnee). The package's Python files (python/nee/) give it ONNX Runtime's shape.
#include <cstdint>
#include <string>

#include <pybind11/pybind11.h>

#include <nee/nee.h>

#include "errors.h"
#include "numpy_tensors.h"
#include "session.h"

namespace py = pybind11;

PYBIND11_MODULE(_nee, m) {
  m.doc() = "NEE's C API for Python (use the package nee, not this module)";
  nee::python::register_error_translator();
  m.def("version", [] { return std::string(nee_version()); }, "NEE's version, as libnee reports it");
  m.def("api_version", &nee_api_version, "the C API's version libnee was built with (NEE_API_VERSION)");
  m.def(
      "input_buffer_address",
      [](py::handle value) {
        const py::array array = nee::python::readable_in_place(value, "value");
        nee::api::Tensor tensor = nee::python::wrap_array(array, "value");
        return reinterpret_cast<uintptr_t>(nee_tensor_data(tensor.get()));
      },
      py::arg("value"),
      "For tests: the address of the buffer NEE reads for this input value, the array's own where it passes "
      "without a copy");
  nee::python::bind_session(m);
}
