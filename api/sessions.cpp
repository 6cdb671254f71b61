#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>

#include <nee/nee.h>

#include "api/api_objects.h"
#include "api/onnx_frontend.h"
#include "core/content_hash.h"
#include "core/error.h"
#include "runtime/bundle/bundle_signature.h"
#include "runtime/deploy/deploy_artifact.h"
#include "runtime/deploy/deployed_model.h"
#include "runtime/deploy/verified_file_cache.h"
#include "runtime/tensor_limits.h"

using nee::c_api::guarded;
using nee::c_api::make_status;
using nee::c_api::null_argument;

namespace {

// The C views of each value's dim names: null where a dim has none.
std::vector<std::vector<const char*>> dim_name_views(const std::vector<nee::DeclaredValue>& values) {
  std::vector<std::vector<const char*>> views;
  for (const nee::DeclaredValue& v : values) {
    std::vector<const char*>& names = views.emplace_back();
    for (const std::string& n : v.dim_names) names.push_back(n.empty() ? nullptr : n.c_str());
  }
  return views;
}

// Completes a session whose model (and bundle, if any) are loaded: its declared values
// and its StagedSession, whose Sessions get `stage_options`.
NeeStatus* finish_session(std::unique_ptr<NeeSession> session, const nee::SessionOptions& stage_options,
                          NeeSession** out) {
  return guarded(NEE_ERROR_RUNTIME, [&] {
    session->inputs = session->model->declared_inputs();
    session->outputs = session->model->declared_outputs();
    session->input_dim_names = dim_name_views(session->inputs);
    session->output_dim_names = dim_name_views(session->outputs);
    std::shared_ptr<nee::KernelBundle> bundle = session->bundle;
    session->staged = std::make_unique<nee::StagedSession>(
        session->model,
        [bundle] {
          std::vector<std::unique_ptr<nee::KernelProvider>> providers;
          if (bundle) providers.push_back(nee::make_bundle_provider(bundle));
          return providers;
        },
        stage_options);
    *out = session.release();
  });
}

using ModelLoader =
    std::function<std::shared_ptr<const nee::StagedModel>(const nee::OnnxFrontend&, const nee::MemoryCaps&)>;

// Makes a session: the ONNX front end (a runtime error: NEE is not installed whole), the
// model from `load_model` (a model error), then the bundle (a bundle error). `model_bytes`,
// for a model given in memory, is checked against the bundle's record of the model it was
// built from, as KernelBundle::load checks a model file.
NeeStatus* create_session(NeeEnv* env, const NeeSessionOptions* options, const ModelLoader& load_model,
                          const std::string& model_path, const std::string* model_bytes, NeeSession** out) {
  auto session = std::make_unique<NeeSession>();
  session->env = env;
  if (options) session->options = *options;
  nee::MemoryCaps caps;
  if (session->options.max_memory > 0) caps = nee::memory_caps_within(static_cast<int64_t>(session->options.max_memory));
  const nee::OnnxFrontend* frontend = nullptr;
  if (NeeStatus* s = guarded(NEE_ERROR_RUNTIME, [&] { frontend = &nee::onnx_frontend(); })) return s;
  if (NeeStatus* s = guarded(NEE_ERROR_INVALID_MODEL, [&] { session->model = load_model(*frontend, caps); })) return s;
  if (!session->options.bundle_dir.empty() && env->options.use_bundles) {
    NeeStatus* s = guarded(NEE_ERROR_INVALID_BUNDLE, [&] {
      nee::BundleLoadOptions load;
      load.model_path = model_path;
      load.threads = env->options.threads;
      load.spin_us = env->options.spin_us;
      if (!session->options.trusted_keys.empty()) {
        load.trusted_keys = std::make_shared<const nee::TrustedKeys>(nee::TrustedKeys::load(session->options.trusted_keys));
      }
      session->bundle = nee::KernelBundle::load(session->options.bundle_dir, load);
      const std::string& built_from = session->bundle->manifest().model_sha256;
      if (model_bytes && !built_from.empty() && nee::sha256_hex(*model_bytes) != built_from) {
        throw nee::Error(fmt::format("bundle '{}' was built for another model ({}, sha256 {}...)",
                                     session->options.bundle_dir, session->bundle->manifest().model_file,
                                     built_from.substr(0, 12)));
      }
    });
    if (s) return s;
  }
  return finish_session(std::move(session), nee::SessionOptions{frontend->optimize, caps}, out);
}

// A session over a deploy artifact (nee-tune --deploy): its graph, already optimized, and
// its own bundle.
NeeStatus* create_deployed_session(NeeEnv* env, const NeeSessionOptions* options, const std::string& dir,
                                   NeeSession** out) {
  auto session = std::make_unique<NeeSession>();
  session->env = env;
  if (options) session->options = *options;
  if (!session->options.bundle_dir.empty()) {
    return make_status(NEE_ERROR_INVALID_ARGUMENT,
                       fmt::format("'{}' is a deploy artifact, which holds its own bundle: set no bundle", dir));
  }
  nee::MemoryCaps caps;
  if (session->options.max_memory > 0) caps = nee::memory_caps_within(static_cast<int64_t>(session->options.max_memory));
  NeeStatus* s = guarded(NEE_ERROR_INVALID_MODEL, [&] {
    nee::DeployLoadOptions load;
    load.verified_cache_dir = nee::VerifiedFileCache::default_dir();
    load.bundle.threads = env->options.threads;
    load.bundle.spin_us = env->options.spin_us;
    if (!session->options.trusted_keys.empty()) {
      load.bundle.trusted_keys =
          std::make_shared<const nee::TrustedKeys>(nee::TrustedKeys::load(session->options.trusted_keys));
    }
    load.memory_caps = caps;
    nee::DeployedModel deployed = nee::load_deploy_artifact(dir, load);
    if (env->options.use_bundles) session->bundle = std::move(deployed.bundle);
    session->model = std::make_shared<nee::DeployedStagedModel>(std::move(deployed.graphs));
  });
  if (s) return s;
  return finish_session(std::move(session), nee::SessionOptions{nullptr, caps}, out);
}

NeeStatus* value_info(const std::vector<nee::DeclaredValue>& values,
                      const std::vector<std::vector<const char*>>& dim_names, size_t index, const char* what,
                      NeeValueInfo* out) {
  if (index >= values.size()) {
    return make_status(NEE_ERROR_INVALID_ARGUMENT,
                       fmt::format("{} {} of {}: the model has {} {}s", what, index, values.size(), values.size(), what));
  }
  const nee::DeclaredValue& v = values[index];
  out->name = v.name.c_str();
  out->dtype = v.dtype ? nee::c_api::to_c_dtype(*v.dtype) : NEE_DTYPE_UNKNOWN;
  out->rank = v.has_shape ? static_cast<int64_t>(v.dims.size()) : -1;
  out->dims = v.dims.data();
  out->dim_names = dim_names[index].data();
  return nullptr;
}

const nee::DeclaredValue* find_declared(const std::vector<nee::DeclaredValue>& values, const std::string& name) {
  auto it = std::find_if(values.begin(), values.end(), [&](const nee::DeclaredValue& v) { return v.name == name; });
  return it == values.end() ? nullptr : &*it;
}

std::string names_of(const std::vector<nee::DeclaredValue>& values) {
  std::vector<std::string> names;
  for (const nee::DeclaredValue& v : values) names.push_back("'" + v.name + "'");
  return fmt::format("{}", fmt::join(names, ", "));
}

// Throws nee::Error where `t` cannot be input `d`: another dtype, rank or fixed dim.
void check_input(const nee::DeclaredValue& d, const nee::Tensor& t) {
  if (d.dtype && *d.dtype != t.dtype()) {
    throw nee::Error(fmt::format("input '{}' is declared {}; the tensor given is {}", d.name, to_string(*d.dtype),
                                 t.type().to_string()));
  }
  if (!d.has_shape) return;
  bool fits = d.dims.size() == t.shape().size();
  for (size_t i = 0; fits && i < d.dims.size(); ++i) fits = d.dims[i] < 0 || d.dims[i] == t.shape()[i];
  if (!fits) {
    std::vector<std::string> dims;
    for (size_t i = 0; i < d.dims.size(); ++i) {
      dims.push_back(d.dims[i] >= 0 ? std::to_string(d.dims[i]) : d.dim_names[i].empty() ? "?" : d.dim_names[i]);
    }
    throw nee::Error(fmt::format("input '{}' is declared [{}]; the tensor given is {}", d.name, fmt::join(dims, ","),
                                 t.type().to_string()));
  }
}

}  // namespace

extern "C" {

NeeStatus* nee_session_options_create(NeeSessionOptions** out) {
  if (!out) return null_argument("nee_session_options_create", "out");
  *out = nullptr;
  return guarded(NEE_ERROR_RUNTIME, [&] { *out = new NeeSessionOptions(); });
}

NeeStatus* nee_session_options_set_bundle(NeeSessionOptions* options, const char* bundle_dir) {
  if (!options) return null_argument("nee_session_options_set_bundle", "options");
  if (!bundle_dir) return null_argument("nee_session_options_set_bundle", "bundle_dir");
  return guarded(NEE_ERROR_RUNTIME, [&] { options->bundle_dir = bundle_dir; });
}

NeeStatus* nee_session_options_set_max_memory(NeeSessionOptions* options, uint64_t bytes) {
  if (!options) return null_argument("nee_session_options_set_max_memory", "options");
  if (bytes > static_cast<uint64_t>(INT64_MAX)) {
    return make_status(NEE_ERROR_INVALID_ARGUMENT,
                       fmt::format("nee_session_options_set_max_memory: {} bytes is past any machine's memory", bytes));
  }
  options->max_memory = bytes;
  return nullptr;
}

NeeStatus* nee_session_options_add_trusted_keys(NeeSessionOptions* options, const char* path) {
  if (!options) return null_argument("nee_session_options_add_trusted_keys", "options");
  if (!path) return null_argument("nee_session_options_add_trusted_keys", "path");
  return guarded(NEE_ERROR_RUNTIME, [&] { options->trusted_keys.push_back(path); });
}

NeeStatus* nee_session_options_set_profiling(NeeSessionOptions* options, int enabled) {
  if (!options) return null_argument("nee_session_options_set_profiling", "options");
  options->profiling = enabled != 0;
  return nullptr;
}

void nee_session_options_free(NeeSessionOptions* options) { delete options; }

NeeStatus* nee_session_create(NeeEnv* env, const char* model_path, const NeeSessionOptions* options,
                              NeeSession** out) {
  if (!out) return null_argument("nee_session_create", "out");
  *out = nullptr;
  if (!env) return null_argument("nee_session_create", "env");
  if (!model_path) return null_argument("nee_session_create", "model_path");
  const std::string path = model_path;
  if (nee::is_deploy_artifact(path)) return create_deployed_session(env, options, path, out);
  const ModelLoader load = [&](const nee::OnnxFrontend& onnx, const nee::MemoryCaps& caps) {
    return onnx.load_file(path, caps);
  };
  return create_session(env, options, load, path, nullptr, out);
}

NeeStatus* nee_session_create_from_memory(NeeEnv* env, const void* model_data, size_t model_bytes,
                                          const NeeSessionOptions* options, NeeSession** out) {
  if (!out) return null_argument("nee_session_create_from_memory", "out");
  *out = nullptr;
  if (!env) return null_argument("nee_session_create_from_memory", "env");
  if (!model_data) return null_argument("nee_session_create_from_memory", "model_data");
  std::string bytes;
  if (NeeStatus* s = guarded(NEE_ERROR_OUT_OF_MEMORY, [&] {
        bytes.assign(static_cast<const char*>(model_data), model_bytes);
      })) {
    return s;
  }
  const ModelLoader load = [&](const nee::OnnxFrontend& onnx, const nee::MemoryCaps& caps) {
    return onnx.load_bytes(bytes, caps);
  };
  return create_session(env, options, load, "", &bytes, out);
}

void nee_session_free(NeeSession* session) { delete session; }

size_t nee_session_input_count(const NeeSession* session) { return session ? session->inputs.size() : 0; }

size_t nee_session_output_count(const NeeSession* session) { return session ? session->outputs.size() : 0; }

NeeStatus* nee_session_input_info(const NeeSession* session, size_t index, NeeValueInfo* out) {
  if (!session) return null_argument("nee_session_input_info", "session");
  if (!out) return null_argument("nee_session_input_info", "out");
  return value_info(session->inputs, session->input_dim_names, index, "input", out);
}

NeeStatus* nee_session_output_info(const NeeSession* session, size_t index, NeeValueInfo* out) {
  if (!session) return null_argument("nee_session_output_info", "session");
  if (!out) return null_argument("nee_session_output_info", "out");
  return value_info(session->outputs, session->output_dim_names, index, "output", out);
}

NeeStatus* nee_session_run(NeeSession* session, const char* const* input_names, const NeeTensor* const* inputs,
                           size_t input_count, const char* const* output_names, size_t output_count,
                           NeeTensor** outputs) {
  if (!session) return null_argument("nee_session_run", "session");
  if (input_count > 0 && !input_names) return null_argument("nee_session_run", "input_names");
  if (input_count > 0 && !inputs) return null_argument("nee_session_run", "inputs");
  if (output_count > 0 && !outputs) return null_argument("nee_session_run", "outputs");
  // What the caller got wrong is named before anything runs.
  std::map<std::string, nee::Tensor> given, into;
  std::vector<std::string> wanted;
  NeeStatus* bad = guarded(NEE_ERROR_INVALID_ARGUMENT, [&] {
    for (size_t i = 0; i < input_count; ++i) {
      if (!input_names[i] || !inputs[i]) throw nee::Error(fmt::format("input {} has a NULL name or tensor", i));
      const nee::DeclaredValue* d = find_declared(session->inputs, input_names[i]);
      if (!d) {
        throw nee::Error(fmt::format("'{}' is not an input of the model (its inputs: {})", input_names[i],
                                     names_of(session->inputs)));
      }
      check_input(*d, inputs[i]->tensor);
      if (!given.emplace(d->name, inputs[i]->tensor).second) {
        throw nee::Error(fmt::format("input '{}' is given twice", d->name));
      }
    }
    for (const nee::DeclaredValue& d : session->inputs) {
      if (!given.count(d.name)) throw nee::Error(fmt::format("input '{}' is not given", d.name));
    }
    if (!output_names && output_count != session->outputs.size()) {
      throw nee::Error(fmt::format("output_names is NULL (every output) but output_count is {}; the model has {}",
                                   output_count, session->outputs.size()));
    }
    for (size_t i = 0; i < output_count; ++i) {
      const std::string name = output_names ? (output_names[i] ? output_names[i] : "") : session->outputs[i].name;
      const nee::DeclaredValue* d = find_declared(session->outputs, name);
      if (!d) {
        throw nee::Error(fmt::format("'{}' is not an output of the model (its outputs: {})", name,
                                     names_of(session->outputs)));
      }
      if (d->dtype == nee::DType::string) {
        throw nee::Error(fmt::format("output '{}' is a string tensor, which does not pass NEE's C API", name));
      }
      wanted.push_back(name);
      if (outputs[i] && !into.emplace(name, outputs[i]->tensor).second) {
        throw nee::Error(fmt::format("output '{}' is asked for twice", name));
      }
    }
  });
  if (bad) return bad;
  std::map<std::string, nee::Tensor> results;
  nee::StagedSession::Stages stages;
  if (NeeStatus* s = guarded(NEE_ERROR_RUNTIME, [&] { results = session->staged->run(given, into, &stages); })) {
    return s;
  }
  return guarded(NEE_ERROR_RUNTIME, [&] {
    for (const std::string& name : wanted) {
      if (results.at(name).dtype() == nee::DType::string) {
        throw nee::Error(fmt::format("output '{}' is a string tensor, which does not pass NEE's C API", name));
      }
    }
    // An output that is a model constant, or a view of an input (Identity, Reshape), would
    // hand the caller the model's or its own bytes: a write into it would change later
    // runs or the input. Those are copied; computed outputs are the caller's already.
    auto shares_bytes = [&](const std::string& name) {
      const nee::Tensor& t = results.at(name);
      for (const std::shared_ptr<const nee::Session>& stage : stages) {
        if (stage->graph().constant(name)) return true;
      }
      for (const auto& [input, value] : given) {
        if (t.data() == value.data() && t.bytes() > 0) return true;
      }
      return false;
    };
    std::vector<NeeTensor*> made;
    try {
      for (size_t i = 0; i < wanted.size(); ++i) {
        if (outputs[i]) {
          made.push_back(nullptr);
          continue;
        }
        const nee::Tensor& t = results.at(wanted[i]);
        made.push_back(new NeeTensor{shares_bytes(wanted[i]) ? t.clone() : t});
      }
    } catch (...) {
      for (NeeTensor* t : made) delete t;
      throw;
    }
    for (size_t i = 0; i < wanted.size(); ++i) {
      if (made[i]) outputs[i] = made[i];
    }
    if (!session->options.profiling) return;
    std::vector<NeeSession::NodeTime> profile;
    for (const std::shared_ptr<const nee::Session>& stage : stages) {
      const std::vector<nee::Placement> placements = stage->placements();
      const std::vector<double> times = stage->node_times_us();
      for (size_t i = 0; i < placements.size(); ++i) {
        const nee::Placement& p = placements[i];
        profile.push_back({p.node, p.op, p.provider, p.kernel, times[i]});
      }
    }
    std::lock_guard<std::mutex> lock(session->profile_mutex);
    session->profile = std::move(profile);
  });
}

size_t nee_session_profile_count(const NeeSession* session) {
  if (!session) return 0;
  std::lock_guard<std::mutex> lock(session->profile_mutex);
  return session->profile.size();
}

NeeStatus* nee_session_profile_entry(const NeeSession* session, size_t index, NeeNodeTime* out) {
  if (!session) return null_argument("nee_session_profile_entry", "session");
  if (!out) return null_argument("nee_session_profile_entry", "out");
  std::lock_guard<std::mutex> lock(session->profile_mutex);
  if (index >= session->profile.size()) {
    return make_status(NEE_ERROR_INVALID_ARGUMENT, fmt::format("profile entry {}: the last run recorded {}", index,
                                                               session->profile.size()));
  }
  const NeeSession::NodeTime& t = session->profile[index];
  *out = NeeNodeTime{t.node.c_str(), t.op.c_str(), t.provider.c_str(), t.kernel.c_str(), t.us};
  return nullptr;
}

}  // extern "C"
