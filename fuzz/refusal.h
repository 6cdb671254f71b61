#pragma once
#include <exception>
#include <string>

namespace nee::fuzz {

// Where a fuzz target notes that it refused its input (a documented refusal, such as a
// nee::Error), so that the replay driver can tell a seed that reaches the code behind
// the checks from one that stops at them.
void note_refusal(const std::exception& e);
// The message of the refusal noted since the last call, or "" when there was none.
std::string take_refusal();

}  // namespace nee::fuzz
