#include "errors.h"

#include <exception>

#include <pybind11/pybind11.h>

#include <nee/nee.hpp>

namespace py = pybind11;

namespace nee::python {

void check(NeeStatus* status) {
  if (!status) return;
  const NeeCode code = nee_status_code(status);
  std::string message = nee_status_message(status);
  nee_status_free(status);
  throw nee::api::Exception(code, message);
}

void invalid_argument(const std::string& message) { throw nee::api::Exception(NEE_ERROR_INVALID_ARGUMENT, message); }

void register_error_translator() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const nee::api::Exception& e) {
      // Translators run with the GIL held.
      py::object error = py::module_::import("nee.errors").attr("error_for")(static_cast<int>(e.code()), e.what());
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    }
  });
}

}  // namespace nee::python
