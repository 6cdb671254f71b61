#!/usr/bin/env bash
# Builds NEE's fuzz targets (fuzz/) with clang 14's libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer in their own build folder, then runs each for SECONDS
# (default 60) from the seed corpus, the model target with fuzz/onnx.dict.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# Environment: NEE_FUZZ_BUILD (build folder, default build-fuzz), JOBS (default 2), RUNS (stop
# a target after this many executions, if it comes before SECONDS: the issue's 10 million).
# Each target's corpus grows in BUILD/corpus/<target>/; a crash, a sanitizer report, a
# timeout or an allocation over the limits below is saved in BUILD/findings/<target>/ and
# makes the script exit 1 (copy it to fuzz/findings/<target>/ for the tests to replay).
set -euo pipefail

seconds=${1:-60}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NEE_FUZZ_BUILD:-$root/build-fuzz}
jobs=${JOBS:-2}
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(model_fuzzer tensor_pb_fuzzer npy_fuzzer manifest_fuzzer db_import_fuzzer deploy_graph_fuzzer)
fi
# clang 14 and libclang-rt-14-dev (libFuzzer and the sanitizer runtimes) are installed
# here, not by scripts/install-deps.sh: only fuzzing needs them, and `make test` would pay
# for the download on every fresh machine.
bash "$root/scripts/install-deps.sh"
if ! dpkg-query -W -f='${Status}\n' clang-14 libclang-rt-14-dev 2>/dev/null | grep -c "install ok installed" | grep -q 2; then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends clang-14 libclang-rt-14-dev >/dev/null
fi
cmake=$root/.venv/bin/cmake
halide_cmake=$("$root/.venv/bin/python" -c "import importlib.util, os; \
print(os.path.join(importlib.util.find_spec('halide').submodule_search_locations[0], 'lib64', 'cmake'))")

# fuzzer-no-link on every object gives libFuzzer its coverage of all of NEE, not only of
# the targets; NEE_SANITIZE adds ASan and UBSan everywhere (top-level CMakeLists.txt).
# NEE_RUNTIME_ONLY stays off: db_import_fuzzer screens records with the tuner's schedule
# spaces (Halide, SQLite).
"$cmake" -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link \
  -DNEE_SANITIZE=address,undefined -DNEE_FUZZ_ENGINE=libfuzzer \
  -DCMAKE_PREFIX_PATH="$halide_cmake" -DHalide_DIR="$halide_cmake/Halide" >/dev/null
for target in "${targets[@]}"; do "$cmake" --build "$build" -j "$jobs" --target "$target"; done

# Seeds: the node tests the replay tests use plus about forty more, their test data as
# tensor files, and fuzz/corpus/.
node=/usr/share/libonnx-testdata/data/node
seed_models=(add conv_with_strides_padding matmul_2d gather_0 if cast_FLOAT_to_STRING scan9_sum
  reshape_reordered_all_dims slice constantofshape_int_zeros loop11 nonzero_example
  range_float_type_positive_delta_expanded)
while IFS= read -r dir; do seed_models+=("${dir#"$node"/test_}"); done < <(
  find "$node" -maxdepth 1 -name 'test_*' | sort | awk 'NR % 23 == 0')
declare -A seeds=([model_fuzzer]="" [tensor_pb_fuzzer]="" [npy_fuzzer]="$root/fuzz/corpus/npy" [manifest_fuzzer]="$root/fuzz/corpus/manifest"
  [db_import_fuzzer]="$root/fuzz/corpus/db_import" [deploy_graph_fuzzer]="$root/fuzz/corpus/deploy_graph")

# Stack traces for UBSan's reports too (ASan prints them by default).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for target in "${targets[@]}"; do
  corpus=$build/corpus/$target findings=$build/findings/$target log=$build/logs/$target.log
  mkdir -p "$corpus" "$findings" "$build/logs"
  case $target in
    model_fuzzer) for m in "${seed_models[@]}"; do cp -n "$node/test_$m/model.onnx" "$corpus/$m.onnx"; done ;;
    tensor_pb_fuzzer)
      for m in "${seed_models[@]}"; do
        for f in "$node/test_$m"/test_data_set_0/*.pb; do cp -n "$f" "$corpus/${m}_$(basename "$f")"; done
      done ;;
    *) cp -n "${seeds[$target]}"/* "$corpus"/ ;;
  esac
  options=(-max_total_time="$seconds" ${RUNS:+-runs="$RUNS"} -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 -print_final_stats=1
    -artifact_prefix="$findings/")
  if [[ $target == model_fuzzer ]]; then options+=(-dict="$root/fuzz/onnx.dict" -max_len=16384); fi
  echo "fuzz.sh: $target for ${seconds} s (log: $log)"
  if ! "$build/fuzz/$target" "${options[@]}" "$corpus" >"$log" 2>&1; then
    status=1
    echo "fuzz.sh: $target FOUND something: $(ls -t "$findings" | head -1)"
    grep -a -m1 -E "ERROR|runtime error" "$log" || tail -5 "$log"
  fi
  grep -a -E "^#[0-9]+.*(DONE|cov:)" "$log" | tail -1
  grep -a -E "stat::(number_of_executed_units|slowest_unit_time_sec|peak_rss_mb)" "$log" || true
done
exit $status
