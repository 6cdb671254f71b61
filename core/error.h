#pragma once
#include <stdexcept>
#include <string>

namespace nee {

// The one exception type NEE throws for bad input and failed stages. Its message names
// the problem (the file, node, tensor or knob) so a user can act on it.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace nee
