#!/usr/bin/env bash
# Installs NEE from BUILD_DIR into a temporary prefix (`cmake --install`), checks what the
# prefix holds (headers; libnee with its SONAME, nee_* exports only, at most 2 MB stripped,
# linking no Halide, LLVM, ONNX or protobuf; its ONNX front end beside it; the programs,
# the CMake package and nee.pc), builds examples/ against it as an outside project would
# (find_package(nee); and the C example once more through pkg-config), and runs both on the
# wider zoo's small MobileNetV3 from a default-schedule bundle made by the installed
# nee-tune, checking the output against PyTorch's; then the C example on a deploy artifact
# of it with the front end taken away, which such a session does not need, while an ONNX
# model's is refused.
# Usage: check_installed_examples.sh SOURCE_DIR BUILD_DIR CMAKE
set -euo pipefail
src=$1 build=$2 cmake=$3
work=$build/api-examples
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
fail() { echo "FAILED: $*"; exit 1; }

"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log" || { tail "$work/install.log"; fail "install"; }
for f in include/nee/nee.h include/nee/nee.hpp bin/nee-run bin/nee-tune bin/nee-measure bin/nee-bench; do
  [[ -e $prefix/$f ]] || fail "the prefix lacks $f"
done
lib=$(find "$prefix" -name 'libnee.so.*.*' | head -1)
[[ -n $lib ]] || fail "the prefix holds no libnee.so"
libdir=$(dirname "$lib")
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[[ $soname == libnee.so.1 ]] || fail "libnee's SONAME is '$soname', not libnee.so.1"
others=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRW]$/ && $3 !~ /^nee_/ {print $3}')
[[ -z $others ]] || fail "libnee exports more than nee_*: $(echo $others | head -c 300)"
if ldd "$lib" | grep -E -i 'halide|llvm'; then fail "libnee links Halide or LLVM"; fi
if readelf -d "$lib" | grep NEEDED | grep -E -i 'onnx|protobuf'; then fail "libnee links ONNX or protobuf"; fi
strip -o "$work/libnee.stripped" "$lib"
stripped=$(stat -c %s "$work/libnee.stripped")
(( stripped <= 2000000 )) || fail "libnee stripped is $stripped bytes, more than the 2 MB issue 30 allows"
frontend=$(find "$libdir" -maxdepth 1 -name 'libnee-onnx.so.*' | head -1)
[[ -n $frontend ]] || fail "libnee's ONNX front end (libnee-onnx.so.*) is not beside it"
[[ -f $libdir/cmake/nee/neeConfig.cmake && -f $libdir/pkgconfig/nee.pc ]] || fail "no CMake package or nee.pc"
echo "installed: $(basename "$lib") (SONAME $soname, $stripped bytes stripped), $(nm -D --defined-only "$lib" | grep -c ' nee_') nee_* functions"

"$cmake" -S "$src/examples" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" \
  || { tail "$work/configure.log"; fail "configure the examples"; }
"$cmake" --build "$work/build" > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; fail "build the examples"; }
PKG_CONFIG_PATH=$libdir/pkgconfig cc -std=c99 -Wall -Werror -o "$work/run_model_pc" "$src/examples/c/run_model.c" \
  $(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs nee) -lm -Wl,-rpath,"$libdir" \
  || fail "build the C example through pkg-config"

zoo=$build/zoo-wider-small
/usr/bin/python3 "$src/tests/models/make_zoo.py" "$zoo" --small --models mobilenet_v3 2>&1 | grep -v -i warning \
  | grep -v "^  " || true
model=$zoo/mobilenet_v3_small
NEE_DB=$work/empty.db "$prefix/bin/nee-tune" "$model/model.onnx" --trials 0 --isa sse41 --bundle "$work/bundle" \
  --deploy "$work/app.nee" \
  > "$work/tune.log" 2>&1 || { tail -3 "$work/tune.log"; fail "the installed nee-tune made no bundle"; }
/usr/bin/python3 - "$model/test_data_set_0" "$work" <<'PY'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
data, work = sys.argv[1], sys.argv[2]
for name, out in (("input_0.pb", "input.f32"), ("output_0.pb", "expected.f32")):
    t = onnx.TensorProto()
    with open(f"{data}/{name}", "rb") as f:
        t.ParseFromString(f.read())
    numpy_helper.to_array(t).astype(np.float32).tofile(f"{work}/{out}")
PY
for example in "$work/build/run_model_c" "$work/build/run_model_cpp" "$work/run_model_pc"; do
  echo "== $(basename "$example")"
  "$example" "$model/model.onnx" "$work/bundle" "$work/input.f32" "$work/expected.f32" || fail "$(basename "$example")"
done

echo "== run_model_c on a deploy artifact, the ONNX front end taken away"
mv "$frontend" "$work/"
"$work/build/run_model_c" "$work/app.nee" "" "$work/input.f32" "$work/expected.f32" > "$work/deployed.log" 2>&1 \
  || { mv "$work/$(basename "$frontend")" "$libdir/"; cat "$work/deployed.log"; fail "the artifact did not run"; }
if "$work/build/run_model_c" "$model/model.onnx" "$work/bundle" "$work/input.f32" "$work/expected.f32" \
  > "$work/no-frontend.log" 2>&1; then
  fail "an ONNX model ran without the ONNX front end"
fi
mv "$work/$(basename "$frontend")" "$libdir/"
grep -q "ONNX front end" "$work/no-frontend.log" || { cat "$work/no-frontend.log"; fail "no error names the front end"; }
cat "$work/deployed.log" "$work/no-frontend.log"
echo "installed examples ok"
