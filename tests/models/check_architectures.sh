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
if ((${#failed[@]})); then
  echo "failed: ${failed[*]}"
  exit 1
fi
