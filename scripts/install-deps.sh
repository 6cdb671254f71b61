#!/usr/bin/env bash
# Installs NEE's build and test dependencies from Debian 12's packages (the arm64
# libraries of the ARM cross-build are unpacked into the build folder instead, by
# scripts/build-arm64.sh).
# Idempotent and quiet: it asks apt only for what is missing.
set -euo pipefail

packages=(
  build-essential make cmake pkg-config
  libhalide14-0-dev llvm-14-dev libclang-14-dev liblld-14-dev
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  libsqlite3-dev libssl-dev libxgboost-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev libdnnl-dev
  openssh-client openssh-server
  libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd
  python3-onnx python3-numpy python3-torch python3-torchvision python3-venv
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user-static
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
