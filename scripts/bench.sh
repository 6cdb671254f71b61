#!/usr/bin/env bash
# `make bench` (./quickstart bench): NEE against the libraries and runtimes a user would
# otherwise pick, on this machine, in one command, with every report written to files.
#   kernels  the MatMul suites (square and BERT-base GEMMs) against OpenBLAS, oneDNN and
#            Halide's Adams2019, then ResNet-50's convs and MobileNetV2's depthwise convs
#            against oneDNN, with the machine's FMA and bandwidth peaks; NEE takes the
#            tuning database's best records
#   models   the full model zoo against ONNX Runtime and OpenVINO; nee-bench sets up their
#            virtual environment and exports the zoo itself, both cached after the first run
# --quick: 256 cubed and one conv, and the small zoo at batch 1 (a few minutes).
# Usage: scripts/bench.sh BUILD_DIR OUT_DIR [--quick]
set -euo pipefail
build=$1 out=$2 quick=${3:-}
if [[ -n $quick && $quick != --quick ]]; then
  echo "bench.sh: the third argument can only be --quick, not '$quick'" >&2
  exit 2
fi
mkdir -p "$out"
bench=$build/bench/nee-bench

status=0
kernels() {  # NAME [nee-bench options]: one kernel report, NAME.{json,md} and plots-NAME/
  local name=$1
  shift
  "$bench" "$@" --json "$out/$name.json" --markdown "$out/$name.md" --plots "$out/plots-$name" || status=1
}
if [[ -n $quick ]]; then
  kernels kernels-quick --quick
  "$bench" --models --quick --out "$out/models" || status=1
else
  kernels kernels-matmul --suite all
  kernels kernels-resnet50-conv --suite resnet50-conv
  kernels kernels-mobilenetv2-dw --suite mobilenetv2-dw
  "$bench" --models --full --out "$out/models" || status=1
fi
echo "bench: reports in $out (kernels-*.md and .json, plots-*/, models/models.md and .json," \
  "models/latency_ratios.svg)"
exit $status
