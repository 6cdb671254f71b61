#!/usr/bin/env bash
# Runs on the GPU machine, in one call: records the GPU, regenerates the models' weights,
# times the vendor baselines through PyTorch, runs, checks and profiles NEE's CUDA bundles
# of ResNet-50 and the BERT-style encoder at batch 1 and 8, measures the 4096^3 MatMul
# batch folder with nee-measure (the records nee-tune imports), and prints a summary.
#
# Usage: on-device.sh FOLDER OUT
#   FOLDER  what prepare.sh made (carried to the device)
#   OUT     where results go (the device's $OUT): steps.txt (one line per step: name,
#           status, exit code, seconds taken, seconds allowed), summary.txt, vendor.json,
#           results.jsonl and confirmations.jsonl (the MatMul batch), tuning-results.tar.gz
#           (the models' tuning batches, where FOLDER has them), and logs.tar.gz holding
#           each step's <step>.log and the per-node profiles.
#           The device returns at most 8 files, so the logs travel as one archive,
#           rewritten after every step.
# Environment: NEE_GPU_BUDGET_S, seconds for all steps together (default 360): each step
# runs under `timeout` with its own limit, cut to what is left of the budget; the MatMul
# batch takes what the others left. NEE_GPU_PYTHON: the Python with PyTorch (default
# python3, which holds PyTorch on the device).
#
# No `set -e`: a failed step is recorded and the next one runs.
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 FOLDER OUT" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
folder=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
budget=${NEE_GPU_BUDGET_S:-360}
py=${NEE_GPU_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/logs" "$work/testdata"
: >"$out/steps.txt"
started=$SECONDS
export PYTHONUNBUFFERED=1

# record NAME STATUS RC WALL LIMIT: one line of steps.txt, echoed.
record() {
  printf 'name=%s status=%s rc=%s wall_s=%s limit_s=%s\n' "$@" | tee -a "$out/steps.txt"
}

# skip NAME REASON: records a step that did not run.
skip() {
  record "$1" skipped - 0 0
  echo "  $1: $2"
}

# step NAME CAP_S CMD...: runs CMD with stdout and stderr in NAME.log under a limit of
# CAP_S seconds, or what is left of the budget if less; records how it ended, prints the
# log's last lines, and refreshes OUT/logs.tar.gz. Returns CMD's exit code.
step() {
  local name=$1 cap=$2
  shift 2
  local left=$((budget - (SECONDS - started)))
  local limit=$((cap < left ? cap : left))
  if ((limit < 5)); then
    skip "$name" "the ${budget}s budget is spent"
    return 1
  fi
  local t0=$SECONDS rc status
  timeout -k 5 "$limit" "$@" >"$work/logs/$name.log" 2>&1
  rc=$?
  case $rc in
    0) status=ok ;;
    124 | 137) status=timeout ;;
    *) status=failed ;;
  esac
  record "$name" "$status" "$rc" $((SECONDS - t0)) "$limit"
  tail -n 4 "$work/logs/$name.log" | sed 's/^/  | /'
  tar -czf "$out/logs.tar.gz.part" -C "$work/logs" . && mv "$out/logs.tar.gz.part" "$out/logs.tar.gz"
  return $rc
}

# FOLDER is left as it is: the models (beside which the stand-in weights are written) and
# the batch folder (into which nee-measure appends results.jsonl) are measured from
# copies. A results.jsonl carried in FOLDER's batch folder is kept, so nee-measure
# measures only the candidates it lacks.
models=(resnet50 bert_encoder)
for name in "${models[@]}"; do cp -r "$folder/$name" "$work/"; done
cp -r "$folder/matmul-4096" "$work/"
batch=$work/matmul-4096

# nvidia-smi comes last, so its exit code is the step's. NEE's kernel libraries open the
# driver as libcuda.so.1 (open_cuda_driver, core/cuda_device.cpp).
# shellcheck disable=SC2016
step gpu-info 20 bash -c '
  echo "CPU: $(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2) x $(nproc); $(getconf GNU_LIBC_VERSION)"
  echo "CUDA driver: $(ldconfig -p 2>/dev/null | grep -F libcuda.so.1 || echo "libcuda.so.1 not in the loader cache")"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,clocks.max.sm --format=csv && nvidia-smi
'

declare -A weights_rc
for name in "${models[@]}"; do
  step "weights-$name" 60 "$py" "$here/external_weights.py" regenerate "$work/$name"
  weights_rc[$name]=$?
done

step vendor 150 "$py" "$here/vendor_baselines.py" --out "$out/vendor.json"

# Per model: ONNX Runtime's CPU outputs at batch 1 and 8 on the stand-in weights; nee-run
# of the CUDA bundle on each, checked against them, then timed; then per-node profiles at
# batch 1 and 8 (each kernel waited for), which come back in logs.tar.gz.
declare -A token_ids=([resnet50]=1 [bert_encoder]=30522) sample=([resnet50]=3x224x224 [bert_encoder]=128)
for name in "${models[@]}"; do
  model=$work/$name/model.onnx
  data=$work/testdata/$name
  if ((weights_rc[$name] != 0)); then
    skip "nee-run-$name" "the weights file was not regenerated"
    continue
  fi
  step "ort-$name" 90 "$py" "$here/ort_reference.py" "$model" "$data" --batches 1,8 --int-high "${token_ids[$name]}"
  run=("$folder/bin/nee-env" "$folder/bin/nee-run" "$model" --target cuda --bundle "$folder/$name-cuda-bundle")
  for b in 1 8; do
    expect=()
    if [ -f "$data/b$b/output_0.pb" ]; then
      expect=(--expect "$data/b$b")
    fi
    inputs=(--input-shape "input=${b}x${sample[$name]}")
    if [ -f "$data/b$b/input_0.pb" ]; then inputs=(--inputs "$data/b$b"); fi
    step "nee-run-$name-b$b" 90 "${run[@]}" "${inputs[@]}" "${expect[@]}" --peak-rtol 1e-4 \
      --warmup 20 --repeat $((b == 1 ? 100 : 50)) --placement
  done
  for b in 1 8; do
    step "nee-profile-$name-b$b" 60 "${run[@]}" --input-shape "input=${b}x${sample[$name]}" \
      --warmup 5 --repeat 20 --profile "$work/logs/$name-b$b-profile.json"
  done
done

# nee-measure checks every candidate against one CPU reference, computed before the first
# and spread over the cores (at 4096^3, 137 GFLOP: 16.6 s on the 2-core machine that
# prepares the folder), timing each with its operands resident on the device. Then it
# re-measures the default and the 3 fastest others in 3 rotated rounds, whose medians
# rank them when imported (confirmations.jsonl). A kill loses only the candidate in
# flight (or the re-measuring), and a rerun on the folder measures only the rest.
matmul_share=$((budget - (SECONDS - started) - 15))
# With tuning batches to measure, the MatMul batch takes a third of what is left.
if [ -f "$folder/tuning.tar.xz" ]; then matmul_share=$((matmul_share / 3)); fi
step matmul-batch "$matmul_share" \
  "$folder/bin/nee-env" "$batch/bin/nee-measure" --batch "$batch"
for file in results.jsonl confirmations.jsonl; do
  if [ -f "$batch/$file" ]; then cp "$batch/$file" "$out/$file"; fi
done

# The models' tuning batches (prepare.sh --tune-count), each measured under an even share
# of what is left; their results travel back as one archive, tuning-results.tar.gz.
if [ -f "$folder/tuning.tar.xz" ] && "$py" -m tarfile -e "$folder/tuning.tar.xz" "$work"; then
  mapfile -t tuned < <("$py" -c 'import sys, tarfile
top = {m.name for m in tarfile.open(sys.argv[1]) if m.isdir() and "/" not in m.name}
print("\n".join(sorted(top)))' \
    "$folder/tuning.tar.xz")
  for k in "${!tuned[@]}"; do
    share=$(((budget - (SECONDS - started) - 15) / (${#tuned[@]} - k)))
    step "tune-${tuned[k]}" "$share" "$folder/bin/nee-env" "$work/${tuned[k]}/bin/nee-measure" --batch "$work/${tuned[k]}"
    mkdir -p "$work/tuning-results/${tuned[k]}"
    for file in results.jsonl confirmations.jsonl; do
      if [ -f "$work/${tuned[k]}/$file" ]; then cp "$work/${tuned[k]}/$file" "$work/tuning-results/${tuned[k]}/"; fi
    done
    tar -czf "$out/tuning-results.tar.gz" -C "$work/tuning-results" .
  done
fi

if ! "$py" "$here/summarize.py" "$out" >"$out/summary.txt" 2>&1; then
  { echo "summarize.py failed; steps:"; cat "$out/steps.txt"; } >>"$out/summary.txt"
fi
echo
cat "$out/summary.txt"
echo "total: $((SECONDS - started)) s of a ${budget} s budget"
# The call's exit code: 0 when every step succeeded.
! grep -qv 'status=ok' "$out/steps.txt"
