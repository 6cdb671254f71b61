#pragma once
#include <string>
#include <utility>

#include "core/error.h"

namespace nee {

// Thrown when an output's shape depends on the value of an input that is not a constant
// (Reshape's shape, Range's limit, NonZero's data, If's condition, a Loop's trip count).
// A staged import defers the node until a stage has computed that value
// (runtime/staged_session.h); a plain import reports it.
class ValueNeeded : public Error {
 public:
  ValueNeeded(const std::string& message, std::string value) : Error(message), value_(std::move(value)) {}
  const std::string& value() const { return value_; }  // the value's name

 private:
  std::string value_;
};

}  // namespace nee
