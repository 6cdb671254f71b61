#include <nee/nee.h>

#include "api/api_objects.h"
#include "core/version.h"

namespace nee::c_api {

NeeStatus* make_status(NeeCode code, std::string message) {
  return new (std::nothrow) NeeStatus{code, std::move(message)};
}

NeeStatus* null_argument(const char* function, const char* argument) {
  return make_status(NEE_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + argument + " is NULL");
}

}  // namespace nee::c_api

extern "C" {

NeeCode nee_status_code(const NeeStatus* status) { return status ? status->code : NEE_OK; }

const char* nee_status_message(const NeeStatus* status) { return status ? status->message.c_str() : ""; }

void nee_status_free(NeeStatus* status) { delete status; }

const char* nee_version(void) { return nee::kVersion; }

int nee_api_version(void) { return NEE_API_VERSION; }

}  // extern "C"
