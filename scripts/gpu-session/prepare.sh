#!/usr/bin/env bash
# Prepares, on this machine (NEE built, Halide present), the self-contained folder a GPU
# session carries to a machine that has a CUDA GPU but neither Halide nor NEE's libraries
# (README.md beside this file has the whole flow):
#   resnet50/model.onnx          ResNet-50 with its weights as external data; weights.bin
#                                stays behind (98 MiB) and weights.json is the recipe that
#                                on-device.sh regenerates it from
#   resnet50-cuda-bundle/        NEE's CUDA bundle of that model.onnx, default schedules,
#                                for batch 1 and batch 8
#   bert_encoder/, bert_encoder-cuda-bundle/
#                                the same for the BERT-style encoder (sequence 128)
#   matmul-4096/                 a batch folder (nee-tune pack) of 4096x4096x4096 MatMul
#                                CUDA candidates, the default point first, with bin/nee-measure
#   bin/nee-run, bin/nee-env     nee-run, and the wrapper that runs NEE's programs with lib/
#   lib/                         every shared library those programs and kernels need beyond
#                                glibc, libstdc++ and libgcc
#   prepared.json                what was prepared, from which commit, and the sizes
#   tuning.tar.xz                with --tune-count: the models' tuning batches (below),
#                                compressed (their kernel libraries share most bytes)
# Usage: prepare.sh [--zoo DIR] [--count N] [--seed S] [--tune-count N] [--tune-models LIST] [--db FILE] OUT_DIR
#   --zoo    make_zoo.py's folder (default BUILD/model-zoo; the models are exported there if missing)
#   --count  MatMul candidates (default 24)
#   --seed   search seed of the candidates (default 14)
#   --tune-count  candidates per workload of each model (at batch 1 and 8), the default
#            point first, packed into batch folders in OUT_DIR.tuning/ (beside OUT_DIR, not
#            carried; summarize.py --tuning imports their results from there) and carried
#            as OUT_DIR/tuning.tar.xz (default 0: none)
#   --tune-models  which models --tune-count packs, comma-separated (default
#            resnet50,bert_encoder); a later session picks points another seed's left out
#   --db     build the models' bundles from this tuning database's records (default: a
#            scratch database, so default schedules)
# Environment: NEE_BUILD, the build folder (default: the repository's build/).
# A scratch tuning database is used, so the user's database is left as it is.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${NEE_BUILD:-$repo/build}
zoo=$build/model-zoo
count=24
seed=14
tune_count=0
tune_models=resnet50,bert_encoder
db=
# What may travel: the device tool carries 64 MiB with the working tree, scripts included.
max_bytes=$((48 * 1024 * 1024))
# A base Ubuntu system has these; the loader, glibc's libraries and the C++ runtime.
system_libs='^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|libstdc\+\+\.so\.6|libgcc_s\.so\.1)$'

while [ $# -gt 1 ]; do
  case $1 in
    --zoo) zoo=$2 ;;
    --count) count=$2 ;;
    --seed) seed=$2 ;;
    --tune-count) tune_count=$2 ;;
    --tune-models) tune_models=$2 ;;
    --db) db=$(realpath "$2") ;;
    *) echo "prepare.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
if [ $# -ne 1 ]; then
  echo "usage: $0 [--zoo DIR] [--count N] [--seed S] [--tune-count N] [--tune-models LIST] [--db FILE] OUT_DIR" >&2
  exit 2
fi
for program in tuner/nee-tune tuner/nee-measure runtime/cli/nee-run; do
  if [ ! -x "$build/$program" ]; then
    echo "prepare.sh: $build/$program is missing: NEE must be built first" >&2
    exit 1
  fi
done
if [ -e "$1" ] && [ -n "$(ls -A "$1")" ]; then
  echo "prepare.sh: $1 exists and is not empty" >&2
  exit 1
fi
mkdir -p "$1"
out=$(cd "$1" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
started=$SECONDS
tune=("$build/tuner/nee-tune" --target cuda --db "$scratch/tuning.db" --work-dir "$scratch/work")
bundle_tune=("$build/tuner/nee-tune" --target cuda --db "${db:-$scratch/tuning.db}" --work-dir "$scratch/work")
if [ -n "$db" ] && [ ! -f "$db" ]; then
  echo "prepare.sh: --db $db does not exist" >&2
  exit 1
fi

# Each model with its weights as external data, and its CUDA bundle (default schedules)
# for batch 1 and batch 8. The bundle is built from a scratch copy, beside the real
# weights; its manifest must name the bytes of the carried model.onnx.
declare -A model_sha
for entry in "resnet50 1x3x224x224 8x3x224x224" "bert_encoder 1x128 8x128"; do
  read -r name shape1 shape8 <<<"$entry"
  echo "== $name with external weights, and its CUDA bundle for input=$shape1 and input=$shape8"
  if [ ! -f "$zoo/$name/model.onnx" ]; then
    /usr/bin/python3 "$repo/tests/models/make_zoo.py" "$zoo" --models "$name"
  fi
  /usr/bin/python3 "$here/external_weights.py" externalize "$zoo/$name/model.onnx" "$scratch/$name"
  mkdir -p "$out/$name"
  cp "$scratch/$name/model.onnx" "$scratch/$name/weights.json" "$out/$name/"
  "${bundle_tune[@]}" "$scratch/$name/model.onnx" --trials 0 --input-shape "input=$shape1" --input-shape "input=$shape8" \
    --bundle "$out/$name-cuda-bundle"
  model_sha[$name]=$(sha256sum "$out/$name/model.onnx" | cut -d' ' -f1)
  if ! grep -q "${model_sha[$name]}" "$out/$name-cuda-bundle/manifest.json"; then
    echo "prepare.sh: the bundle's manifest does not name $name/model.onnx's sha256 ${model_sha[$name]}" >&2
    exit 1
  fi
done

echo "== $count MatMul 4096x4096x4096 CUDA candidates"
# --measure-timeout: nee-measure checks each candidate against a CPU reference before
# timing it, which takes tens of seconds at 4096^3 on few cores.
"${tune[@]}" --op matmul --shape 4096x4096x4096 --seed "$seed" --measure-timeout 120 \
  pack --count "$count" --out "$out/matmul-4096"
if ! /usr/bin/python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["tasks"][0]["strategy"] != "default")' \
  "$out/matmul-4096/manifest.json"; then
  echo "prepare.sh: the batch's first candidate is not the default point" >&2
  exit 1
fi

if ((tune_count > 0)); then
  IFS=, read -r -a tuned <<<"$tune_models"
  echo "== $tune_count candidates per workload of ${tuned[*]} (batch 1 and 8)"
  batches=$out.tuning
  rm -rf "$batches" && mkdir -p "$batches"
  for name in "${tuned[@]}"; do
    case $name in
      resnet50) shapes=(--input-shape input=1x3x224x224 --input-shape input=8x3x224x224) ;;
      bert_encoder) shapes=(--input-shape input=1x128 --input-shape input=8x128) ;;
      *) echo "prepare.sh: --tune-models knows resnet50 and bert_encoder, not $name" >&2; exit 2 ;;
    esac
    # --batch 1: nee-measure re-measures each workload's fastest and its default in
    # rotated rounds, whose medians rank them once imported.
    "${tune[@]}" "$scratch/$name/model.onnx" "${shapes[@]}" --seed "$seed" --batch 1 \
      pack --count "$tune_count" --out "$batches/$name"
  done
  tar -cJf "$out/tuning.tar.xz" -C "$batches" "${tuned[@]}"
fi

echo "== programs and shared libraries"
mkdir -p "$out/bin" "$out/lib"
cp "$build/runtime/cli/nee-run" "$out/bin/"
cp "$here/nee-env" "$out/bin/"
# Every ELF file that will run or be loaded there: ldd lists each one's needs, transitively.
mapfile -t elves < <(find "$out" -type f \( -name '*.so' -o -perm -u+x \) -exec sh -c \
  'head -c 4 "$1" | grep -q "ELF" && echo "$1"' _ {} \;)
for elf in "${elves[@]}"; do
  if ldd "$elf" | grep -q "not found"; then
    echo "prepare.sh: $elf needs a library this machine lacks:" >&2
    ldd "$elf" | grep "not found" >&2
    exit 1
  fi
  ldd "$elf" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }'
done | sort -u | while read -r name path; do
  if ! [[ $name =~ $system_libs ]]; then cp -L "$path" "$out/lib/$name"; fi
done
echo "lib/: $(find "$out/lib" -type f -printf '%f ')"
# Where each library of the programs is loaded from with lib/ on the path, as nee-env
# runs them: none but the system's own may come from outside lib/.
for program in "$out/bin/nee-run" "$out/matmul-4096/bin/nee-measure"; do
  outside=$(LD_LIBRARY_PATH=$out/lib LD_DEBUG=libs "$program" --help 2>&1 >/dev/null |
    awk '/calling init:/ { print $NF }' | grep -v "^$out/lib/" | xargs -rn1 basename | grep -Ev "$system_libs" || true)
  if [ -n "$outside" ]; then
    echo "prepare.sh: $program loads libraries from outside lib/: $outside" >&2
    exit 1
  fi
done

bytes=$(du -sb "$out" | cut -f1)
commit=$(git -C "$repo" rev-parse HEAD)
dirty=$(git -C "$repo" status --porcelain --untracked-files=no | wc -l)
cat >"$out/prepared.json" <<EOF
{"commit": "$commit", "modified_tracked_files": $dirty, "prepared_at": "$(date -u +%FT%TZ)",
 "host": "$(hostname)", "matmul_candidates": $(find "$out/matmul-4096/candidates" -name kernel.so | wc -l), "matmul_seed": $seed,
 "tuning_candidates_per_workload": $tune_count, "bundles_from_db": "${db:-none}",
 "model_sha256": {"resnet50": "${model_sha[resnet50]}", "bert_encoder": "${model_sha[bert_encoder]}"}, "bytes": $bytes, "prepare_seconds": $((SECONDS - started))}
EOF
echo "== $out: $(du -sh "$out" | cut -f1) ($bytes bytes) in $((SECONDS - started)) s"
du -sh "$out"/* | sed 's/^/   /'
if ((bytes > max_bytes)); then
  echo "prepare.sh: $out is over $((max_bytes / 1048576)) MiB; the device tool carries 64 MiB in all" >&2
  exit 1
fi
