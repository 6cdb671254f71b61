#!/usr/bin/env bash
# The main job on the embedded defaults (SQLite file, host CPU): make a small MLP, tune
# its workloads, build the tuned bundle and an untuned one, check the tuned run against
# numpy's answer, and time tuned against untuned side by side in one run.
set -euo pipefail
build=$1 demo=$2 budget=$3
mkdir -p "$demo"

/usr/bin/python3 tests/models/make_mlp.py "$demo/mlp" --batch 64 --features 512 --hidden 1024 --classes 10
model=$demo/mlp/model.onnx

echo "== tuning $model for $budget (database: ${NEE_DB:-default location})"
"$build/tuner/nee-tune" "$model" --time "$budget" --bundle "$demo/tuned"
echo "== untuned bundle (default schedules)"
"$build/tuner/nee-tune" "$model" --trials 0 --db "$demo/empty.db" --bundle "$demo/untuned"

echo "== running the tuned bundle"
"$build/runtime/cli/nee-run" "$model" --bundle "$demo/tuned" --placement \
  --inputs "$demo/mlp/test_data_set_0" --expect "$demo/mlp/test_data_set_0" \
  --repeat 50 --compare-bundle "$demo/untuned"
