// Fuzz target: the bytes of a `nee-tune db import` file (a header line and record lines,
// or record lines alone) -> import_records into a fresh in-memory tuning database: every
// line parsed, every record screened (times, schedule space, speed ceiling), the accepted
// ones added. nee::Error (a damaged file) and refused records are the documented
// outcomes (noted as refusals). The file goes through a temporary file: import_records takes a path.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "fuzz/refusal.h"
#include "tuner/cli/db_command.h"
#include "tuning-db/tuning_database.h"

namespace {

// One file per process, rewritten for each input (libFuzzer runs inputs one at a time).
const std::string& scratch_path() {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("nee_db_import_fuzzer_" + std::to_string(getpid()) + ".jsonl"))
          .string();
  static const bool removed_at_exit = std::atexit([] { std::remove(scratch_path().c_str()); }) == 0;
  (void)removed_at_exit;
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = scratch_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out.flush()) {
      std::fprintf(stderr, "cannot write the scratch file %s\n", path.c_str());
      std::abort();
    }
  }
  try {
    nee::TuningDatabase db(":memory:");
    const nee::ImportCounts counts = nee::import_records(db, path);
    if (!counts.refused.empty()) {
      nee::fuzz::note_refusal(nee::Error(counts.refused.front().where + ": " + counts.refused.front().reason));
    }
  } catch (const nee::Error& e) {
    nee::fuzz::note_refusal(e);
  }
  return 0;
}
