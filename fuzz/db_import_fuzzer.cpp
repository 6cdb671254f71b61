// Fuzz target: the bytes of a `nee-tune db import` file (a header line and record lines,
// or record lines alone) -> import_records into an empty in-memory tuning database: every
// line parsed, every record screened (its workload remade by its family, times, schedule
// space, speed ceiling), the accepted ones added. nee::Error (a damaged file) and refused
// records are the documented outcomes (noted as refusals). The file goes through a
// temporary file: import_records takes a path.
//
// One database serves every input, each import rehearsed (run in a transaction, then
// undone), so each starts from the same empty database: creating and migrating a fresh
// one per input was 77% of the target's time (perf, 421 inputs/s).
#include <cstdint>
#include <string>

#include "core/error.h"
#include "fuzz/refusal.h"
#include "fuzz/scratch_file.h"
#include "tuner/cli/db_command.h"
#include "tuning-db/tuning_database.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static nee::TuningDatabase db(":memory:");
  const std::string& path = nee::fuzz::write_scratch_file(".jsonl", data, size);
  try {
    db.rehearse([&] {
      const nee::ImportCounts counts = nee::import_records(db, path);
      if (!counts.refused.empty()) {
        nee::fuzz::note_refusal(
            nee::Error(counts.refused.front().where + ": " + counts.refused.front().reason));
      }
    });
  } catch (const nee::Error& e) {
    nee::fuzz::note_refusal(e);
  }
  return 0;
}
