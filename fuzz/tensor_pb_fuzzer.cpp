// Fuzz target: tensor file bytes -> read_tensor_pb (an ONNX TensorProto .pb file, through a
// temporary file: the reader takes a path). nee::Error is the documented refusal. A
// tensor that reads must survive the round trip through tensor_to_proto and
// tensor_from_proto with its type and contents, or abort(). .npy files have npy_fuzzer.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/error.h"
#include "fuzz/refusal.h"
#include "fuzz/scratch_file.h"
#include "runtime/onnx_tensor.h"
#include "runtime/tensor_io.h"

namespace {

bool same_contents(const nee::Tensor& a, const nee::Tensor& b) {
  if (!(a.type() == b.type())) return false;
  if (a.dtype() != nee::DType::string) return a.bytes() == 0 || std::memcmp(a.data(), b.data(), a.bytes()) == 0;
  for (int64_t i = 0; i < a.elements(); ++i) {
    if (a.data_as<std::string>()[i] != b.data_as<std::string>()[i]) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = nee::fuzz::write_scratch_file(".pb", data, size);
  nee::Tensor tensor;
  std::string name;
  try {
    tensor = nee::read_tensor_pb(path, &name);
  } catch (const nee::Error& e) {
    nee::fuzz::note_refusal(e);
    return 0;
  }
  nee::Tensor again;
  try {
    again = nee::tensor_from_proto(nee::tensor_to_proto(tensor, name), "the tensor written back");
  } catch (const nee::Error& e) {
    std::fprintf(stderr, "a tensor that read is refused once written back: %s\n", e.what());
    std::abort();
  }
  if (!same_contents(tensor, again)) {
    std::fprintf(stderr, "tensor %s changes through a write and a read: %s\n", name.c_str(),
                 tensor.type().to_string().c_str());
    std::abort();
  }
  return 0;
}
