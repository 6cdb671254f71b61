#pragma once
// The structs behind the C API's opaque handles (include/nee/nee.h), and the guard that
// turns every exception into a status.
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include <nee/nee.h>

#include "runtime/bundle/kernel_bundle.h"
#include "runtime/staged_session.h"
#include "runtime/tensor.h"

struct NeeStatus {
  NeeCode code;
  std::string message;
};

struct NeeEnvOptions {
  int threads = 0;
  int spin_us = nee::KernelPoolSettings{}.spin_us;
  bool use_bundles = true;  // providers "bundle,reference"; false: "reference"
  NeeLogLevel log_level = NEE_LOG_WARNING;
};

struct NeeEnv {
  NeeEnvOptions options;
};

struct NeeSessionOptions {
  std::string bundle_dir;
  bool profiling = false;
  uint64_t max_memory = 0;                  // 0: nee::MemoryCaps' defaults
  std::vector<std::string> trusted_keys;    // key files and folders; none: any bundle
};

struct NeeTensor {
  nee::Tensor tensor;
};

struct NeeSession {
  const NeeEnv* env = nullptr;
  NeeSessionOptions options;
  std::shared_ptr<const nee::StagedModel> model;
  std::shared_ptr<nee::KernelBundle> bundle;  // none without a bundle
  std::vector<nee::DeclaredValue> inputs, outputs;
  // The C views of `inputs` and `outputs`: per value, its dim names (null for none).
  std::vector<std::vector<const char*>> input_dim_names, output_dim_names;

  // Runs may overlap (StagedSession::run); `profile_mutex` guards `profile`.
  std::unique_ptr<nee::StagedSession> staged;
  struct NodeTime {
    std::string node, op, provider, kernel;
    double us;
  };
  mutable std::mutex profile_mutex;
  std::vector<NodeTime> profile;  // the last run's to finish, with profiling on
};

namespace nee::c_api {

// A status for an error of `code` (never NEE_OK); null if even that cannot be allocated.
NeeStatus* make_status(NeeCode code, std::string message);

// Runs `body`, which returns nothing or throws; an exception becomes a status with
// `code` (bad_alloc: NEE_ERROR_OUT_OF_MEMORY). Arguments the caller got wrong are checked
// by the callers before, with NEE_ERROR_INVALID_ARGUMENT.
template <typename Body>
NeeStatus* guarded(NeeCode code, Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const std::bad_alloc&) {
    return make_status(NEE_ERROR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return make_status(code, e.what());
  } catch (...) {
    return make_status(code, "unknown error");
  }
}

// NEE_ERROR_INVALID_ARGUMENT naming a null argument of `function`.
NeeStatus* null_argument(const char* function, const char* argument);

// The C enum for a DType and back; the latter throws nee::Error for an unknown value.
NeeDType to_c_dtype(DType dtype);
DType from_c_dtype(NeeDType dtype);

}  // namespace nee::c_api
