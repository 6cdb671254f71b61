#!/usr/bin/env python3
"""Moves an ONNX model's weights into an external file, and makes a stand-in for that file.

  externalize SRC DEST   writes DEST/model.onnx (graph only, initializers of 1 KiB and
                         more as external data in weights.bin), DEST/weights.bin (the real
                         values) and DEST/weights.json (the recipe for a stand-in)
  regenerate DIR         writes DIR/weights.bin from DIR/weights.json

The stand-in has each tensor's size, offset, mean, standard deviation and range, with
normally distributed values clipped to the original's range (so a tensor that must stay
positive stays positive). model.onnx keeps its bytes, so a bundle built for it (whose
manifest checks model.onnx's sha256 only) loads beside either weights file. Kernel
timings do not depend on the values; correctness checks compare engines on the same
stand-in.

externalize needs the onnx package (Debian's /usr/bin/python3 has python3-onnx);
regenerate needs numpy only.
"""
import argparse
import json
import os
import sys

import numpy as np

WEIGHTS = "weights.bin"
RECIPE = "weights.json"
# Only float32 tensors have a stand-in: an integer tensor (a shape, an index) must keep its
# exact values, and those are far below this size in the models NEE exports.
SIZE_THRESHOLD = 1024
SEED = 14


def externalize(src, dest):
    import onnx
    from onnx import TensorProto

    os.makedirs(dest, exist_ok=True)
    for name in ("model.onnx", WEIGHTS, RECIPE):
        if os.path.exists(os.path.join(dest, name)):
            sys.exit(f"external_weights: {os.path.join(dest, name)} exists; give an empty folder")
    model = onnx.load(src)
    onnx.save_model(model, os.path.join(dest, "model.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location=WEIGHTS, size_threshold=SIZE_THRESHOLD)
    graph_only = onnx.load(os.path.join(dest, "model.onnx"), load_external_data=False)
    weights = np.memmap(os.path.join(dest, WEIGHTS), dtype=np.uint8, mode="r")
    tensors = []
    for t in graph_only.graph.initializer:
        if t.data_location != TensorProto.EXTERNAL:
            continue
        info = {e.key: e.value for e in t.external_data}
        if t.data_type != TensorProto.FLOAT:
            sys.exit(f"external_weights: initializer '{t.name}' is {TensorProto.DataType.Name(t.data_type)}, "
                     "and only float32 tensors can be regenerated")
        offset, length = int(info["offset"]), int(info["length"])
        values = weights[offset:offset + length].view(np.float32).astype(np.float64)
        tensors.append({"name": t.name, "dims": list(t.dims), "offset": offset, "length": length,
                        "mean": float(values.mean()), "std": float(values.std()),
                        "min": float(values.min()), "max": float(values.max())})
    recipe = {"file": WEIGHTS, "bytes": int(weights.size), "seed": SEED, "dtype": "float32", "tensors": tensors}
    with open(os.path.join(dest, RECIPE), "w") as f:
        json.dump(recipe, f, indent=1)
    print(f"{dest}/model.onnx: {os.path.getsize(os.path.join(dest, 'model.onnx'))} bytes; "
          f"{len(tensors)} initializers in {WEIGHTS} ({weights.size} bytes)")


def regenerate(folder):
    with open(os.path.join(folder, RECIPE)) as f:
        recipe = json.load(f)
    rng = np.random.default_rng(recipe["seed"])
    data = np.zeros(recipe["bytes"], dtype=np.uint8)
    for t in recipe["tensors"]:
        n = t["length"] // 4
        values = rng.normal(t["mean"], t["std"], n).clip(t["min"], t["max"]).astype(np.float32)
        data[t["offset"]:t["offset"] + t["length"]] = values.view(np.uint8)
    path = os.path.join(folder, recipe["file"])
    data.tofile(path)
    print(f"{path}: {data.size} bytes, {len(recipe['tensors'])} tensors regenerated (seed {recipe['seed']})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ext = sub.add_parser("externalize", help="write DEST/model.onnx, weights.bin and weights.json from SRC")
    ext.add_argument("src")
    ext.add_argument("dest")
    reg = sub.add_parser("regenerate", help="write DIR/weights.bin from DIR/weights.json")
    reg.add_argument("dir")
    args = parser.parse_args()
    if args.command == "externalize":
        externalize(args.src, args.dest)
    else:
        regenerate(args.dir)


if __name__ == "__main__":
    main()
