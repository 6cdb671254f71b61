#include "fuzz/refusal.h"

namespace nee::fuzz {

namespace {
std::string last_refusal;
}

void note_refusal(const std::exception& e) {
  last_refusal = e.what();
  if (last_refusal.empty()) last_refusal = "(a refusal without a message)";
}

std::string take_refusal() {
  std::string taken;
  taken.swap(last_refusal);
  return taken;
}

}  // namespace nee::fuzz
