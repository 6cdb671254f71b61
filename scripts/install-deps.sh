#!/usr/bin/env bash
# Installs NEE's build and test dependencies from Debian 12's packages and, into the
# project's .venv, Halide 21 and CMake from PyPI (the arm64 libraries of the ARM
# cross-build are unpacked into the build folder instead, by scripts/build-arm64.sh).
# Idempotent and quiet: it asks apt and pip only for what is missing.
set -euo pipefail

packages=(
  build-essential make cmake pkg-config
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  libsqlite3-dev libssl-dev libxgboost-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev libdnnl-dev
  openssh-client openssh-server
  libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd
  python3-onnx python3-numpy python3-torch python3-torchvision python3-venv
  pybind11-dev python3-dev python3-pytest
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

# Halide 21 (C++ headers, libHalide with its LLVM inside, the CMake package and the
# autoschedulers) and the CMake >= 3.28 its package wants, from PyPI into the project's
# own virtual environment; Debian's Halide 14 reads an AMD Zen 4 as Sapphire Rapids and
# its LLVM is three years older. Debian's interpreter, so no system Python changes.
venv=$(cd "$(dirname "$0")/.." && pwd)/.venv
pins=(halide==21.0.0 cmake==3.31.6)
installed=$("$venv/bin/python" -m pip freeze 2>/dev/null || true)
need=0
for pin in "${pins[@]}"; do grep -qx "$pin" <<<"$installed" || need=1; done
if ((need)); then
  echo "install-deps: installing ${pins[*]} into $venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}"
fi
