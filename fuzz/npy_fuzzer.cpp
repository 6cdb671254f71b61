// Fuzz target: .npy file bytes -> parse_npy (the reader behind read_npy, which nee-run
// uses for --inputs and --expect). nee::Error is the documented refusal. An array that
// reads must write back (npy_bytes) to bytes that read as the same tensor, or abort().
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "core/error.h"
#include "fuzz/fuzz_caps.h"
#include "fuzz/refusal.h"
#include "runtime/npy_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  nee::Tensor tensor;
  try {
    tensor = nee::parse_npy(bytes, "the input", nee::fuzz::fuzz_caps().tensor_bytes);
  } catch (const nee::Error& e) {
    nee::fuzz::note_refusal(e);
    return 0;
  }
  const std::string written = nee::npy_bytes(tensor);
  nee::Tensor again;
  try {
    again = nee::parse_npy(written, "the tensor written back", nee::fuzz::fuzz_caps().tensor_bytes);
  } catch (const nee::Error& e) {
    std::fprintf(stderr, "an array that read is refused once written back: %s\n", e.what());
    std::abort();
  }
  if (!(again.type() == tensor.type()) || std::memcmp(again.data(), tensor.data(), tensor.bytes()) != 0) {
    std::fprintf(stderr, "array %s changes through a write and a read\n", tensor.type().to_string().c_str());
    std::abort();
  }
  return 0;
}
