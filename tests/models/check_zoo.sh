#!/usr/bin/env bash
# Exports the small zoo variants (cached under the build folder) and checks that nee-run
# matches PyTorch's outputs within 1e-4 relative to the largest output, with the
# reference kernels alone and with a bundle of default-schedule kernels, in which each
# model's pooling, Softmax and layer-norm nodes must run.
# Usage: check_zoo.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
zoo=$build/zoo-small
/usr/bin/python3 "$src/tests/models/make_zoo.py" "$zoo" --small 2>&1 | grep -v -i warning || true
declare -A bundled=([resnet18]="MaxPool GlobalAveragePool" [resnet50]="MaxPool GlobalAveragePool"
                    [mobilenet_v2]="GlobalAveragePool" [bert_encoder]="Softmax NeeLayerNorm")
status=0
for model in resnet18 resnet50 mobilenet_v2 bert_encoder; do
  dir=$zoo/${model}_small
  echo "== $model (reference kernels)"
  "$build/runtime/cli/nee-run" "$dir/model.onnx" --inputs "$dir/test_data_set_0" --expect "$dir/test_data_set_0" \
    --peak-rtol 1e-4 || status=1
  echo "== $model (bundle of default schedules)"
  NEE_DB=$zoo/empty.db "$build/tuner/nee-tune" "$dir/model.onnx" --trials 0 --bundle "$zoo/${model}_bundle" || status=1
  placement=$("$build/runtime/cli/nee-run" "$dir/model.onnx" --bundle "$zoo/${model}_bundle" \
    --inputs "$dir/test_data_set_0" --expect "$dir/test_data_set_0" --peak-rtol 1e-4 --placement) || status=1
  echo "$placement" | tail -2
  for op in ${bundled[$model]}; do
    if ! echo "$placement" | grep -Eq "[[:space:]]$op[[:space:]]+bundle[[:space:]]"; then
      echo "$model: no $op node ran in the bundle"
      status=1
    fi
  done
done
exit $status
