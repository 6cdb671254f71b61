#!/usr/bin/env bash
# Exports small models of the architectures in make_architectures.py (cached under the
# build folder) and checks that nee-run, on the reference kernels, matches PyTorch's
# outputs within 1e-4 relative to the largest output: every data set of a model in one
# nee-run (the sinusoidal transformer's three sequence lengths, without --input-shape).
# Usage: check_architectures.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
out=$build/architectures
/usr/bin/python3 "$src/tests/models/make_architectures.py" "$out" 2>&1 | grep -v -i warn | grep -v "^  " || true
failed=()
for model in lstm_tagger bigru_classifier llama_decoder sinusoidal_transformer swin ssdlite; do
  dir=$out/$model
  echo "== $model"
  data=()
  for set in "$dir"/test_data_set_*; do data+=(--inputs "$set" --expect "$set"); done
  "$build/runtime/cli/nee-run" "$dir/model.onnx" "${data[@]}" --peak-rtol 1e-4 || failed+=("$model")
done
# One bundle for the transformer's three sequence lengths (nee-tune --input-shape given once
# per length, default schedules, one ISA level to keep it short): every data set must run
# bundle kernels, and match.
echo "== sinusoidal_transformer, one bundle for lengths 16, 7 and 24"
dir=$out/sinusoidal_transformer
rm -rf "$out/buckets"
"$build/tuner/nee-tune" "$dir/model.onnx" --trials 0 --isa sse41 --db "$out/buckets.db" --bundle "$out/buckets" \
  --input-shape input=1x16 --input-shape input=1x7 --input-shape input=1x24 | tail -n 1
data=()
for set in "$dir"/test_data_set_*; do data+=(--inputs "$set" --expect "$set"); done
report=$("$build/runtime/cli/nee-run" "$dir/model.onnx" --bundle "$out/buckets" "${data[@]}" --peak-rtol 1e-4) ||
  failed+=("sinusoidal_transformer with a bundle")
echo "$report" | grep "^data set"
if grep -q "^data set.* 0 of " <<< "$report"; then failed+=("a sequence length without bundle kernels"); fi
if ((${#failed[@]})); then
  echo "failed: ${failed[*]}"
  exit 1
fi
