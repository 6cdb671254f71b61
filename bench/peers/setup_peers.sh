#!/usr/bin/env bash
# Creates the peer engines' virtual environment for `nee-bench --models`: ONNX Runtime
# and OpenVINO (CPU), plus onnx and numpy to read and write test-data tensors.
# Usage: bench/peers/setup_peers.sh [VENV_DIR]   (default: build/peers-venv)
# Idempotent and quiet: it does nothing when the venv already holds the pinned versions.
set -euo pipefail

venv=${1:-build/peers-venv}
# Pinned versions with CPython 3.11 wheels on PyPI (Debian 12's /usr/bin/python3 is 3.11).
pins=(onnxruntime==1.32.0 openvino==2026.4.1 onnx==1.23.2 numpy==2.3.5)

installed=$("$venv/bin/python" -m pip freeze 2>/dev/null || true)
if [[ $(grep -cxF -f <(printf '%s\n' "${pins[@]}") <<<"$installed") -eq ${#pins[@]} ]]; then
  exit 0
fi
# Debian's python, not a pyenv shim: its venv module comes from python3-venv.
/usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}"
echo "setup_peers: $venv ready ($(printf '%s ' "${pins[@]}"))"
