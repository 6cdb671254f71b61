#!/usr/bin/env python3
"""Writes test data sets for nee-run from ONNX Runtime on the CPU: per batch size B of
--batches, OUT_DIR/b<B>/input_0.pb holds a random input of the model's one graph input
(its symbolic batch dim bound to B, any other symbolic dim to 1): uniform in [-1, 1) for
a float input, token ids in [0, --int-high) for an int64 one; OUT_DIR/b<B>/output_<i>.pb
hold ONNX Runtime's outputs, in the ONNX test-data layout that nee-run's --inputs and
--expect read. Run after the model's external weights exist, so both engines see them.
"""
import argparse
import os
import sys

import numpy as np
import onnxruntime
from onnx import numpy_helper


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("out_dir")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batches", default="1", help="comma-separated batch sizes, one data set each")
    parser.add_argument("--int-high", type=int, default=1000, help="token ids of an int64 input are below this")
    args = parser.parse_args()
    session = onnxruntime.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    inputs = session.get_inputs()
    if len(inputs) != 1 or inputs[0].type not in ("tensor(float)", "tensor(int64)"):
        sys.exit(f"ort_reference: expected one float or int64 input, the model has "
                 f"{[(i.name, i.type) for i in inputs]}")
    rng = np.random.default_rng(args.seed)
    for batch in (int(b) for b in args.batches.split(",")):
        shape = [d if isinstance(d, int) else (batch if k == 0 else 1) for k, d in enumerate(inputs[0].shape)]
        if inputs[0].type == "tensor(float)":
            x = rng.uniform(-1, 1, shape).astype(np.float32)
        else:
            x = rng.integers(0, args.int_high, shape, dtype=np.int64)
        outputs = session.run(None, {inputs[0].name: x})
        folder = os.path.join(args.out_dir, f"b{batch}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, inputs[0].name).SerializeToString())
        for i, (meta, y) in enumerate(zip(session.get_outputs(), outputs)):
            with open(os.path.join(folder, f"output_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(y, meta.name).SerializeToString())
            print(f"batch {batch}: output {meta.name} {list(y.shape)}: max |value| {float(np.abs(y).max()):.4g}, "
                  f"finite {bool(np.isfinite(y).all())}")
        print(f"onnxruntime {onnxruntime.__version__}: test data set written to {folder}")


if __name__ == "__main__":
    main()
