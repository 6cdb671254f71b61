#!/usr/bin/env bash
# Builds 64-bit ARM bundles of the small zoo's models here (Halide cross-compiles, the
# cross compiler links) and runs them with the ARM build of nee-run under qemu-user,
# against PyTorch's outputs within 1e-4 of the largest output, once per ARM level the
# bundle holds (NEE_MAX_ISA). Every bundle node must run that level's kernel, and an x86
# bundle is refused by name. Timing under an emulator means nothing, so nothing is timed.
# Usage: check_arm64.sh SOURCE_DIR BUILD_DIR ARM64_DIR (scripts/build-arm64.sh's OUT)
set -euo pipefail
src=$1 build=$2 arm=$3
nee_run=$arm/build/runtime/cli/nee-run
if [[ ! -x $nee_run ]]; then
  echo "no ARM build of nee-run at $nee_run: make build-arm64 (make test builds it) first"
  exit 77
fi
libs=$arm/sysroot/usr/lib/aarch64-linux-gnu:$arm/sysroot/lib/aarch64-linux-gnu
zoo=$build/zoo-small
/usr/bin/python3 "$src/tests/models/make_zoo.py" "$zoo" --small 2>&1 | grep -v -i warning || true
status=0
for model in resnet18 resnet50 mobilenet_v2 bert_encoder; do
  dir=$zoo/${model}_small
  bundle=$zoo/${model}_arm64_bundle
  echo "== $model (ARM bundle of default schedules, under qemu)"
  NEE_DB=$zoo/empty.db "$build/tuner/nee-tune" "$dir/model.onnx" --trials 0 --isa arm64,arm64_dotprod \
    --bundle "$bundle" | tail -1 || status=1
  for level in arm64 arm64_dotprod; do
    placement=$(NEE_MAX_ISA=$level qemu-aarch64-static -L /usr/aarch64-linux-gnu -E "LD_LIBRARY_PATH=$libs" \
      "$nee_run" "$dir/model.onnx" --bundle "$bundle" --inputs "$dir/test_data_set_0" \
      --expect "$dir/test_data_set_0" --peak-rtol 1e-4 --placement) || status=1
    echo "$placement" | grep -E "^check|kernels by ISA level|nodes ran bundle kernels"
    bundled=$(echo "$placement" | awk '$3 == "bundle"' | wc -l)
    others=$(echo "$placement" | awk -v level="_$level" '$3 == "bundle" && substr($4, length($4) - length(level) + 1) != level')
    if [[ $bundled -eq 0 || -n $others ]]; then
      echo "$model at $level: $bundled bundle nodes, and these ran another level's kernel: ${others:-none}"
      status=1
    fi
  done
done
# The reverse mismatch: an x86 bundle on the ARM runtime is refused by name, never run.
dir=$zoo/resnet18_small
NEE_DB=$zoo/empty.db "$build/tuner/nee-tune" "$dir/model.onnx" --trials 0 --isa sse41 \
  --bundle "$zoo/resnet18_x86_bundle" | tail -1 || status=1
if refusal=$(qemu-aarch64-static -L /usr/aarch64-linux-gnu -E "LD_LIBRARY_PATH=$libs" "$nee_run" "$dir/model.onnx" \
             --bundle "$zoo/resnet18_x86_bundle" 2>&1); then
  echo "the ARM runtime ran an x86 bundle"
  status=1
fi
echo "$refusal" | tail -1
if ! grep -q "holds kernels for sse41 (for x86-64); this CPU (arm-64) runs arm64" <<< "$refusal"; then
  echo "the ARM runtime's refusal of an x86 bundle does not name both sides"
  status=1
fi
exit $status
