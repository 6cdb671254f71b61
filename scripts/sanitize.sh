#!/usr/bin/env bash
# Builds, with AddressSanitizer and UndefinedBehaviorSanitizer (NEE_SANITIZE, gcc), the
# test programs that need no Halide JIT, in their own build folder, and runs them: the
# importer's and the runtime's tests, the ONNX backend conformance suites and the fuzz
# targets' seed replays (fuzz/README.md). Not part of `make test`: it rebuilds the
# runtime and its tests with sanitizers (times in fuzz/README.md).
#   scripts/sanitize.sh
# Environment: NEE_SANITIZE_BUILD (build folder, default build-sanitize), JOBS (default 2).
# Exits 1 at the first failing program; a sanitizer report fails its program.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${NEE_SANITIZE_BUILD:-$root/build-sanitize}
jobs=${JOBS:-2}
cmake=$root/.venv/bin/cmake
halide_cmake=$("$root/.venv/bin/python" -c "import importlib.util, os; \
print(os.path.join(importlib.util.find_spec('halide').submodule_search_locations[0], 'lib64', 'cmake'))")
# Set before the build too: gtest_discover_tests runs the test programs as they are built.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

"$cmake" -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNEE_SANITIZE=address,undefined \
  -DCMAKE_PREFIX_PATH="$halide_cmake" -DHalide_DIR="$halide_cmake/Halide" >/dev/null
# db_import_fuzzer is left to scripts/fuzz.sh, which builds it sanitized: here it would
# add the tuner, the schedule spaces and Halide to the build.
programs=(importer_test runtime_test nee-conformance model_fuzzer tensor_pb_fuzzer manifest_fuzzer)
start=$(date +%s)
for program in "${programs[@]}"; do "$cmake" --build "$build" -j "$jobs" --target "$program"; done
echo "sanitize.sh: built in $(($(date +%s) - start)) s"

start=$(date +%s)
"$build/tests/importer/importer_test" --gtest_brief=1
"$build/tests/runtime/runtime_test" --gtest_brief=1
"$build/tests/conformance/nee-conformance" --must-pass "$root/tests/conformance/must_pass.txt" \
  --json "$build/conformance.json"
(cd "$build" && "$root/.venv/bin/ctest" -L fuzz -E db_import_fuzzer --output-on-failure)
echo "sanitize.sh: no sanitizer report; the programs ran in $(($(date +%s) - start)) s"
