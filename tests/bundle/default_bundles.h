#pragma once
// Default-schedule bundles of a test's model, as the family bundle tests build and load
// them. nee-tune (NEE_TUNE_PATH, the test target's compile definition) builds them in
// its own process: PoCL's LLVM and libHalide's crash in one process, and these tests
// link only the runtime.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/subprocess.h"
#include "importer/import_onnx.h"
#include "runtime/bundle/kernel_bundle.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "tests/tuner/temp_dir.h"

namespace nee::test {

// `model`'s default-schedule bundle for each target in dir/<target>, each with a
// database of its own (dir/<target>.db).
inline void build_default_bundles(const tuner_test::TempDir& dir, const std::string& model,
                                  const std::vector<std::string>& targets) {
  for (const std::string& target : targets) {
    const ProcessResult r = run_process({NEE_TUNE_PATH, model, "--target", target, "--trials", "0", "--db",
                                         dir.file(target + ".db"), "--bundle", dir.file(target)},
                                        300, true);
    ASSERT_TRUE(r.exited && r.exit_code == 0) << r.output;
  }
}

// A session of `model` on its bundle for `target` (dir/<target>), its graph optimized as
// nee-run's is.
inline Session session_on_bundle(const tuner_test::TempDir& dir, const std::string& model, const std::string& target) {
  BundleLoadOptions load;
  load.model_path = model;
  load.expected_kind = target_kind_from_string(target);
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(make_bundle_provider(KernelBundle::load(dir.file(target), load)));
  return Session(import_onnx(model), std::move(providers), SessionOptions{optimize_graph});
}

}  // namespace nee::test
