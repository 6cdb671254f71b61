#pragma once
// nee._nee.Session: one NEE session (with its own environment) as Python sees it; the
// package's InferenceSession (nee/inference_session.py) gives it ONNX Runtime's shape.
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include <nee/nee.hpp>

namespace nee::python {

class Session {
 public:
  struct Options {
    std::optional<std::string> bundle;
    int threads = 0;
    std::optional<std::string> providers;  // "bundle,reference" or "reference"
    bool profiling = false;
  };

  // The model at `path`, or from `size` bytes at `data` (copied by NEE). Call without the
  // GIL: reading and checking a model takes a while.
  Session(const std::string& path, const Options& options);
  Session(const char* data, size_t size, const Options& options);

  // (name, type as "tensor(float)", shape) per graph input or output, as ONNX Runtime's
  // NodeArg gives them: an int per fixed dim, the name of a symbolic dim, None for an
  // unnamed unknown dim, and [] for a value whose shape the model does not declare.
  pybind11::list inputs() const;
  pybind11::list outputs() const;

  // Runs the model on `feed` ({input name: array}) with the GIL released, and returns the
  // outputs named (all, in declaration order, for none) as numpy arrays over NEE's
  // buffers. An output whose buffer is an input's (an Identity of an input) or an
  // earlier output's is copied, so no returned array shares memory with another or with
  // an input.
  pybind11::list run(const std::optional<std::vector<std::string>>& output_names, const pybind11::dict& feed);

  // The last run's (node, op, provider, kernel, microseconds) per node; empty without
  // profiling.
  pybind11::list profile() const;

 private:
  static nee::api::EnvOptions env_options(const Options& options);
  static nee::api::SessionOptions session_options(const Options& options);

  nee::api::Env env_;  // outlives session_ (declared first)
  nee::api::Session session_;
};

void bind_session(pybind11::module_& m);

}  // namespace nee::python
