#pragma once
// NEE's failed statuses as C++ exceptions inside the binding, and as Python exceptions
// (nee.errors) where they leave it.
#include <string>

#include <nee/nee.h>

namespace nee::python {

// Throws nee::api::Exception with the status's code and message, after freeing it; does
// nothing for NULL (success).
void check(NeeStatus* status);

// An invalid-argument error of the binding's own (a dtype NEE does not take, say), which
// Python sees as nee.InvalidArgument like NEE's own.
[[noreturn]] void invalid_argument(const std::string& message);

// Makes every nee::api::Exception leaving the module the exception nee.errors.error_for
// gives for its code, with NEE's message.
void register_error_translator();

}  // namespace nee::python
