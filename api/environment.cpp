#include <spdlog/spdlog.h>

#include <string>

#include <nee/nee.h>

#include "api/api_objects.h"
#include "core/error.h"

using nee::c_api::guarded;
using nee::c_api::make_status;
using nee::c_api::null_argument;

namespace {

spdlog::level::level_enum spdlog_level(NeeLogLevel level) {
  switch (level) {
    case NEE_LOG_DEBUG: return spdlog::level::debug;
    case NEE_LOG_INFO: return spdlog::level::info;
    case NEE_LOG_WARNING: return spdlog::level::warn;
    case NEE_LOG_ERROR: return spdlog::level::err;
    default: return spdlog::level::off;
  }
}

}  // namespace

extern "C" {

NeeStatus* nee_env_options_create(NeeEnvOptions** out) {
  if (!out) return null_argument("nee_env_options_create", "out");
  *out = nullptr;
  return guarded(NEE_ERROR_RUNTIME, [&] { *out = new NeeEnvOptions(); });
}

NeeStatus* nee_env_options_set_threads(NeeEnvOptions* options, int threads) {
  if (!options) return null_argument("nee_env_options_set_threads", "options");
  if (threads < 0) {
    return make_status(NEE_ERROR_INVALID_ARGUMENT,
                       "nee_env_options_set_threads: " + std::to_string(threads) + " threads (0: one per CPU)");
  }
  options->threads = threads;
  return nullptr;
}

NeeStatus* nee_env_options_set_spin_us(NeeEnvOptions* options, int spin_us) {
  if (!options) return null_argument("nee_env_options_set_spin_us", "options");
  if (spin_us < 0) {
    return make_status(NEE_ERROR_INVALID_ARGUMENT,
                       "nee_env_options_set_spin_us: a negative spin time (" + std::to_string(spin_us) + " us)");
  }
  options->spin_us = spin_us;
  return nullptr;
}

NeeStatus* nee_env_options_set_providers(NeeEnvOptions* options, const char* order) {
  if (!options) return null_argument("nee_env_options_set_providers", "options");
  if (!order) return null_argument("nee_env_options_set_providers", "order");
  const std::string text = order;
  if (text == "bundle,reference") {
    options->use_bundles = true;
  } else if (text == "reference") {
    options->use_bundles = false;
  } else {
    return make_status(NEE_ERROR_INVALID_ARGUMENT, "nee_env_options_set_providers: '" + text +
                                                       "' is not a provider order (\"bundle,reference\" or "
                                                       "\"reference\")");
  }
  return nullptr;
}

NeeStatus* nee_env_options_set_log_level(NeeEnvOptions* options, NeeLogLevel level) {
  if (!options) return null_argument("nee_env_options_set_log_level", "options");
  if (level < NEE_LOG_DEBUG || level > NEE_LOG_OFF) {
    return make_status(NEE_ERROR_INVALID_ARGUMENT,
                       "nee_env_options_set_log_level: " + std::to_string(static_cast<int>(level)) +
                           " is not a NeeLogLevel");
  }
  options->log_level = level;
  return nullptr;
}

void nee_env_options_free(NeeEnvOptions* options) { delete options; }

NeeStatus* nee_env_create(const NeeEnvOptions* options, NeeEnv** out) {
  if (!out) return null_argument("nee_env_create", "out");
  *out = nullptr;
  return guarded(NEE_ERROR_RUNTIME, [&] {
    auto env = std::make_unique<NeeEnv>();
    if (options) env->options = *options;
    spdlog::set_level(spdlog_level(env->options.log_level));
    *out = env.release();
  });
}

void nee_env_free(NeeEnv* env) { delete env; }

}  // extern "C"
