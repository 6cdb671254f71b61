#include "session.h"

#include <memory>
#include <utility>

#include <pybind11/stl.h>

#include "errors.h"
#include "numpy_tensors.h"

namespace py = pybind11;

namespace nee::python {

namespace {

py::list value_infos(const std::vector<nee::api::ValueInfo>& values) {
  py::list infos;
  for (const nee::api::ValueInfo& v : values) {
    py::list shape;
    for (size_t i = 0; i < v.dims.size(); ++i) {
      if (v.dims[i] >= 0) {
        shape.append(v.dims[i]);
      } else if (!v.dim_names[i].empty()) {
        shape.append(v.dim_names[i]);
      } else {
        shape.append(py::none());
      }
    }
    infos.append(py::make_tuple(v.name, onnx_type_name(v.dtype), shape));
  }
  return infos;
}

// A byte range of a buffer; empty ranges overlap nothing.
struct Bytes {
  const char* begin;
  const char* end;
  bool overlaps(const Bytes& other) const { return begin < other.end && other.begin < end; }
};

Bytes bytes_of(const py::array& array) {
  const char* p = static_cast<const char*>(array.data());
  return {p, p + array.nbytes()};
}

Bytes bytes_of(NeeTensor* tensor) {
  const char* p = static_cast<const char*>(nee_tensor_data(tensor));
  return {p, p + nee_tensor_byte_size(tensor)};
}

}  // namespace

nee::api::EnvOptions Session::env_options(const Options& options) {
  nee::api::EnvOptions env;
  env.threads(options.threads);
  if (options.providers) env.providers(*options.providers);
  return env;
}

nee::api::SessionOptions Session::session_options(const Options& options) {
  nee::api::SessionOptions session;
  if (options.bundle) session.bundle(*options.bundle);
  session.profiling(options.profiling);
  return session;
}

Session::Session(const std::string& path, const Options& options)
    : env_(env_options(options)), session_(env_, path, session_options(options)) {}

Session::Session(const char* data, size_t size, const Options& options)
    : env_(env_options(options)), session_(env_, data, size, session_options(options)) {}

py::list Session::inputs() const { return value_infos(session_.inputs()); }

py::list Session::outputs() const { return value_infos(session_.outputs()); }

py::list Session::run(const std::optional<std::vector<std::string>>& output_names, const py::dict& feed) {
  std::vector<std::string> input_names;
  std::vector<py::array> arrays;
  std::vector<nee::api::Tensor> tensors;
  for (const auto& [key, value] : feed) {
    if (!py::isinstance<py::str>(key)) {
      invalid_argument("input names are str; the feed has a key of type " +
                       std::string(py::str(py::type::of(key).attr("__name__"))));
    }
    input_names.push_back(key.cast<std::string>());
    arrays.push_back(readable_in_place(value, input_names.back()));
    tensors.push_back(wrap_array(arrays.back(), input_names.back()));
  }
  std::vector<const char*> in_names, out_names;
  std::vector<const NeeTensor*> in_tensors;
  for (size_t i = 0; i < tensors.size(); ++i) {
    in_names.push_back(input_names[i].c_str());
    in_tensors.push_back(tensors[i].get());
  }
  if (output_names) {
    for (const std::string& name : *output_names) out_names.push_back(name.c_str());
  }
  const size_t output_count = output_names ? out_names.size() : nee_session_output_count(session_.get());
  std::vector<NeeTensor*> made(output_count, nullptr);
  NeeStatus* status = nullptr;
  {
    py::gil_scoped_release release;
    status = nee_session_run(session_.get(), in_names.data(), in_tensors.data(), in_tensors.size(),
                             output_names ? out_names.data() : nullptr, output_count, made.data());
  }
  check(status);

  using Owned = std::unique_ptr<NeeTensor, void (*)(NeeTensor*)>;
  std::vector<Owned> owned;
  for (NeeTensor* t : made) owned.emplace_back(t, nee_tensor_free);
  std::vector<Bytes> taken;  // the buffers of the inputs and of the outputs returned in place
  for (const py::array& a : arrays) taken.push_back(bytes_of(a));
  py::list results;
  for (Owned& t : owned) {
    const Bytes bytes = bytes_of(t.get());
    bool shared = false;
    for (const Bytes& other : taken) shared = shared || bytes.overlaps(other);
    if (shared) {
      results.append(array_copy(t.get()));
    } else {
      taken.push_back(bytes);
      results.append(array_owning(t.release()));
    }
  }
  return results;
}

py::list Session::profile() const {
  py::list nodes;
  for (const nee::api::NodeTime& t : session_.profile()) {
    nodes.append(py::make_tuple(t.node, t.op, t.provider, t.kernel, t.microseconds));
  }
  return nodes;
}

void bind_session(py::module_& m) {
  py::class_<Session>(m, "Session", "One NEE session over a model, with its own environment (nee.InferenceSession "
                                    "wraps it).")
      .def(py::init([](const std::string& path, std::optional<std::string> bundle, int threads,
                       std::optional<std::string> providers, bool profiling) {
             const Session::Options options{std::move(bundle), threads, std::move(providers), profiling};
             py::gil_scoped_release release;
             return std::make_unique<Session>(path, options);
           }),
           py::arg("path"), py::arg("bundle"), py::arg("threads"), py::arg("providers"), py::arg("profiling"),
           "A session over the ONNX model at `path`.")
      .def_static(
          "from_bytes",
          [](const py::bytes& model, std::optional<std::string> bundle, int threads,
             std::optional<std::string> providers, bool profiling) {
            const Session::Options options{std::move(bundle), threads, std::move(providers), profiling};
            char* data = nullptr;
            Py_ssize_t size = 0;
            if (PyBytes_AsStringAndSize(model.ptr(), &data, &size) != 0) throw py::error_already_set();
            // `model` is immutable and referenced by the caller while NEE copies it.
            py::gil_scoped_release release;
            return std::make_unique<Session>(data, static_cast<size_t>(size), options);
          },
          py::arg("model"), py::arg("bundle"), py::arg("threads"), py::arg("providers"), py::arg("profiling"),
          "A session over the ONNX model in `model` (bytes).")
      .def("inputs", &Session::inputs)
      .def("outputs", &Session::outputs)
      .def("run", &Session::run, py::arg("output_names"), py::arg("feed"))
      .def("profile", &Session::profile);
}

}  // namespace nee::python
