#!/usr/bin/env bash
# Tuning for a 64-bit ARM device through a batch folder, the device played by qemu-user:
# nee-tune packs candidates compiled here for arm64 with the ARM build of nee-measure,
# that nee-measure verifies and times them under qemu (its children under qemu too,
# through --launcher), the results are imported here, and the ARM bundle built from them
# must hold the tuned kernels and match numpy's output under qemu. Timing under an
# emulator means nothing: the times only travel through, nothing is reported.
# Usage: check_arm64_batch.sh SOURCE_DIR BUILD_DIR ARM64_DIR (scripts/build-arm64.sh's OUT)
set -euo pipefail
src=$1 build=$2 arm=$3
nee_tune=$build/tuner/nee-tune
arm_measure=$arm/build/tuner/nee-measure
arm_run=$arm/build/runtime/cli/nee-run
if [[ ! -x $arm_measure || ! -x $arm_run ]]; then
  echo "no ARM build of nee-measure and nee-run in $arm/build: make build-arm64 (make test builds it) first"
  exit 77
fi
qemu="qemu-aarch64-static -L /usr/aarch64-linux-gnu"
libs=$arm/sysroot/usr/lib/aarch64-linux-gnu:$arm/sysroot/lib/aarch64-linux-gnu
work=$build/arm64-batch
rm -rf "$work"
mkdir -p "$work"
/usr/bin/python3 "$src/tests/models/make_mlp.py" "$work/mlp" --batch 4 --features 64 --hidden 96 --classes 10
model=$work/mlp/model.onnx
db=$work/tuning.db
settings=(--cache warm --repeat 3 --number 1 --min-repeat-ms 0 --confirm 1 --confirm-rounds 1)

# The x86 nee-measure beside nee-tune cannot measure ARM kernels: refused by name.
if "$nee_tune" "$model" --db "$db" --target arm-64-linux pack --count 2 --out "$work/refused" 2>"$work/refusal"; then
  echo "pack put an x86 nee-measure into a batch of ARM kernels"
  exit 1
fi
tail -1 "$work/refusal"
grep -q "is built for x86-64, but the batch's kernels are for arm-64" "$work/refusal"

# Measuring ARM kernels on this x86 machine is refused, with the way to measure them.
if "$nee_tune" "$model" --db "$db" --target arm64 --trials 4 2>"$work/refusal"; then
  echo "nee-tune measured ARM kernels on an x86 machine"
  exit 1
fi
tail -1 "$work/refusal"
grep -q "this machine cannot run arm64 kernels (it is x86-64); measure them where they run" "$work/refusal"

echo "== pack: 3 candidates per workload, compiled here for arm64"
"$nee_tune" "$model" --db "$db" --target arm-64-linux "${settings[@]}" pack --count 3 --out "$work/batch" \
  --measure-program "$arm_measure"
echo "== the device: the batch's own nee-measure under qemu"
$qemu "$work/batch/bin/nee-measure" --batch "$work/batch" --launcher "$qemu"
statuses=$(/usr/bin/python3 -c 'import json, sys
print(" ".join(sorted({json.loads(l)["result"]["status"] for l in open(sys.argv[1])})))' "$work/batch/results.jsonl")
echo "result statuses: $statuses"
if [[ $statuses != ok ]]; then
  echo "not every ARM candidate was verified and timed under qemu"
  exit 1
fi
echo "== import here, then the bundle for arm-64 from the imported records"
"$nee_tune" --db "$db" db import-results "$work/batch"
summary=$("$nee_tune" "$model" --db "$db" --target arm-64-linux --bundle "$work/bundle" | tail -1)
echo "$summary"
workloads=$(/usr/bin/python3 -c 'import json, sys
print(len(json.load(open(sys.argv[1]))["variants"][0]["kernels"]))' "$work/bundle/manifest.json")
if [[ $summary != *"for arm64 ($workloads tuned)" ]]; then
  echo "the ARM bundle did not take the records measured on the device for all $workloads kernels"
  exit 1
fi
echo "== the tuned ARM bundle under qemu, against numpy"
$qemu -E "LD_LIBRARY_PATH=$libs" "$arm_run" "$model" --bundle "$work/bundle" --inputs "$work/mlp/test_data_set_0" \
  --expect "$work/mlp/test_data_set_0" --peak-rtol 1e-4 | grep -E "^check|kernels by ISA level"
