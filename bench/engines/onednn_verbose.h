#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nee::bench {

// One "exec" line of oneDNN's verbose mode (ONEDNN_VERBOSE=1, dnnl_set_verbose(1)), as
// oneDNN 2.6 prints it after each primitive ran:
//   onednn_verbose,exec,cpu,matmul,brg:avx512_core,undef,<memory descriptors>,
//   <attributes>,<auxiliary>,<problem>,<milliseconds>
// (earlier 2.x releases began it with "dnnl_verbose").
struct OneDnnExecLine {
  std::string primitive;       // "matmul", "convolution", "reorder"
  std::string implementation;  // the kernel that ran: "brg:avx512_core", "gemm:jit", "jit:avx2"
  double ms = 0;               // that run's time
};
// Empty for any other line (info lines, output of others).
std::optional<OneDnnExecLine> parse_onednn_exec_line(const std::string& line);
// The instruction set oneDNN dispatches for, from its "info,cpu,isa:" line (printed
// once per process, before the first exec line): "Intel AVX-512 with Intel DL Boost
// and bfloat16 support". Empty for any other line.
std::optional<std::string> parse_onednn_isa_line(const std::string& line);

// Runs `body` with oneDNN's verbose mode on and this process's stdout sent to a
// scratch file, then restores both (verbose to the level ONEDNN_VERBOSE or DNNL_VERBOSE
// gives, else off); returns the lines oneDNN printed. Throws nee::Error when stdout
// cannot be redirected; rethrows what `body` throws after restoring.
std::vector<std::string> capture_onednn_verbose(const std::function<void()>& body);

}  // namespace nee::bench
