#!/usr/bin/env bash
# Cross-builds NEE's runtime (nee-run) and its measuring program (nee-measure, which
# measures batch folders packed for ARM on the device) for 64-bit ARM Linux into OUT/build. The arm64
# libraries it links are Debian's arm64 packages, downloaded through a private apt state
# and unpacked into OUT/sysroot, so this machine's own packages and architectures stay as
# they are (installing them through dpkg's multiarch fails: libonnxifi:arm64 ships
# /usr/lib/libonnxifi.so, which the amd64 package also owns). The cross compilers come
# from scripts/install-deps.sh. Run it under qemu-user:
#   qemu-aarch64-static -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=OUT/sysroot/usr/lib/aarch64-linux-gnu \
#     OUT/build/runtime/cli/nee-run ...
# nee-measure links everything but the C library statically, so it runs on a device as is.
# Usage: build-arm64.sh SOURCE_DIR OUT HALIDE_RUNTIME_H (the header of the Halide that
# compiles the bundles; $CMAKE names the cmake to use)
set -euo pipefail
src=$(cd "$1" && pwd)
runtime_header=$3
cmake=${CMAKE:-cmake}
mkdir -p "$2"
out=$(cd "$2" && pwd)
sysroot=$out/sysroot
packages=(libonnx1 libonnx-dev libonnxifi libprotobuf32 libprotobuf-lite32 libprotobuf-dev zlib1g zlib1g-dev
          libfmt9 libfmt-dev libspdlog1.10 libspdlog-dev libssl3 libssl-dev nlohmann-json3-dev libcli11-dev)
if [[ ! -f $sysroot/.complete ]]; then
  echo "build-arm64: unpacking Debian's arm64 ${packages[*]} into $sysroot"
  state=$out/apt
  rm -rf "$state" "$sysroot"
  mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/debs" "$sysroot"
  : >"$state/status"
  apt_options=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o "Dir::State::Lists=$state/lists"
               -o "Dir::Cache=$state/cache" -o "Dir::State::status=$state/status" -o APT::Sandbox::User=root)
  apt-get "${apt_options[@]}" update -qq
  (cd "$state/debs" && apt-get "${apt_options[@]}" download -qq "${packages[@]}")
  for deb in "$state"/debs/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
  rm -rf "$state"
  touch "$sysroot/.complete"
fi
# The one Halide header the runtime needs to call compiled kernels, the same for every
# architecture, and from the Halide that compiles the bundles.
cp "$runtime_header" "$sysroot/usr/include/HalideRuntime.h"
"$cmake" -S "$src" -B "$out/build" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake" \
  -DNEE_ARM64_SYSROOT="$sysroot" -DNEE_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
"$cmake" --build "$out/build" -j "$(nproc)" --target nee-run nee-measure
