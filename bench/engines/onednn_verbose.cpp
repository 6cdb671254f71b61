#include "bench/engines/onednn_verbose.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include <dnnl.hpp>

#include "core/error.h"

namespace nee::bench {

namespace {

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

bool is_verbose_prefix(const std::string& field) { return field == "onednn_verbose" || field == "dnnl_verbose"; }

int verbose_level_from_environment() {
  for (const char* name : {"ONEDNN_VERBOSE", "DNNL_VERBOSE"}) {
    if (const char* v = std::getenv(name)) return std::atoi(v);
  }
  return 0;
}

// This process's stdout sent to an unnamed scratch file until destruction.
class StdoutToFile {
 public:
  StdoutToFile() : file_(std::tmpfile()) {
    std::fflush(stdout);
    saved_ = dup(STDOUT_FILENO);
    if (!file_ || saved_ < 0 || dup2(fileno(file_), STDOUT_FILENO) < 0) {
      restore();
      throw Error("capturing oneDNN's verbose output: cannot send stdout to a scratch file");
    }
  }
  ~StdoutToFile() { restore(); }
  StdoutToFile(const StdoutToFile&) = delete;
  StdoutToFile& operator=(const StdoutToFile&) = delete;

  // Restores stdout and returns what was written meanwhile.
  std::string finish() {
    std::fflush(stdout);
    std::string text;
    if (file_) {
      std::rewind(file_);
      char chunk[4096];
      for (size_t got; (got = std::fread(chunk, 1, sizeof chunk, file_)) > 0;) text.append(chunk, got);
    }
    restore();
    return text;
  }

 private:
  void restore() {
    std::fflush(stdout);
    if (saved_ >= 0) {
      dup2(saved_, STDOUT_FILENO);
      close(saved_);
      saved_ = -1;
    }
    if (file_) {
      std::fclose(file_);
      file_ = nullptr;
    }
  }
  std::FILE* file_;
  int saved_ = -1;
};

}  // namespace

std::optional<OneDnnExecLine> parse_onednn_exec_line(const std::string& line) {
  const std::vector<std::string> f = split_commas(line);
  // prefix, exec, engine, primitive, implementation, ..., time: at least 6 fields.
  if (f.size() < 6 || !is_verbose_prefix(f[0]) || f[1] != "exec" || f[4].empty()) return std::nullopt;
  OneDnnExecLine e{f[3], f[4], 0};
  try {
    e.ms = std::stod(f.back());
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return e;
}

std::optional<std::string> parse_onednn_isa_line(const std::string& line) {
  const std::vector<std::string> f = split_commas(line);
  if (f.size() < 4 || !is_verbose_prefix(f[0]) || f[1] != "info" || f[2] != "cpu" || f[3].rfind("isa:", 0) != 0) {
    return std::nullopt;
  }
  return f[3].substr(4);
}

std::vector<std::string> capture_onednn_verbose(const std::function<void()>& body) {
  StdoutToFile capture;
  dnnl::set_verbose(1);
  try {
    body();
  } catch (...) {
    dnnl::set_verbose(verbose_level_from_environment());
    throw;
  }
  dnnl::set_verbose(verbose_level_from_environment());
  std::vector<std::string> lines;
  std::stringstream text(capture.finish());
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  return lines;
}

}  // namespace nee::bench
