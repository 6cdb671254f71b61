#!/usr/bin/env python3
"""Writes a test data set for nee-run from ONNX Runtime on the CPU: a random input of the
model's first graph input (symbolic dims bound to 1) as input_0.pb, and ONNX Runtime's
outputs as output_<i>.pb, in the ONNX test-data layout that nee-run's --inputs and
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
    args = parser.parse_args()
    session = onnxruntime.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    inputs = session.get_inputs()
    if len(inputs) != 1 or inputs[0].type != "tensor(float)":
        sys.exit(f"ort_reference: expected one float input, the model has {[(i.name, i.type) for i in inputs]}")
    shape = [d if isinstance(d, int) else 1 for d in inputs[0].shape]
    x = np.random.default_rng(args.seed).uniform(-1, 1, shape).astype(np.float32)
    outputs = session.run(None, {inputs[0].name: x})
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, inputs[0].name).SerializeToString())
    for i, (meta, y) in enumerate(zip(session.get_outputs(), outputs)):
        with open(os.path.join(args.out_dir, f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y, meta.name).SerializeToString())
        print(f"output {meta.name} {list(y.shape)}: max |value| {float(np.abs(y).max()):.4g}, "
              f"finite {bool(np.isfinite(y).all())}")
    print(f"onnxruntime {onnxruntime.__version__}: test data set written to {args.out_dir}")


if __name__ == "__main__":
    main()
