#!/usr/bin/python3
"""Writes a small MLP as ONNX, with random weights, plus one test data set whose
expected output is computed here with numpy, independently of NEE.

The graph uses the operators of the matmul pipeline as exporters emit them:
MatMul + Add + Relu twice, Flatten, Identity, a Reshape with a constant shape, and a
Gemm classifier with transB=1 (PyTorch's Linear layout).

Usage: make_mlp.py OUT_DIR [--batch B] [--hidden H] [--seed S]
Run with Debian's /usr/bin/python3 (python3-onnx, python3-numpy).
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(batch, features, hidden, classes, rng):
    w1 = rng.uniform(-0.1, 0.1, (features, hidden)).astype(np.float32)
    b1 = rng.uniform(-0.1, 0.1, (hidden,)).astype(np.float32)
    w2 = rng.uniform(-0.1, 0.1, (hidden, hidden)).astype(np.float32)
    b2 = rng.uniform(-0.1, 0.1, (hidden,)).astype(np.float32)
    w3 = rng.uniform(-0.1, 0.1, (classes, hidden)).astype(np.float32)  # Gemm transB=1
    b3 = rng.uniform(-0.1, 0.1, (classes,)).astype(np.float32)
    shape = np.array([batch, hidden], dtype=np.int64)

    nodes = [
        helper.make_node("Flatten", ["input"], ["flat"], axis=1, name="flatten"),
        helper.make_node("MatMul", ["flat", "w1"], ["mm1"], name="fc1"),
        helper.make_node("Add", ["mm1", "b1"], ["add1"], name="fc1_bias"),
        helper.make_node("Relu", ["add1"], ["h1"], name="relu1"),
        helper.make_node("Identity", ["h1"], ["h1_id"], name="identity"),
        helper.make_node("MatMul", ["h1_id", "w2"], ["mm2"], name="fc2"),
        helper.make_node("Add", ["mm2", "b2"], ["add2"], name="fc2_bias"),
        helper.make_node("Relu", ["add2"], ["h2"], name="relu2"),
        helper.make_node("Reshape", ["h2", "shape"], ["h2r"], name="reshape"),
        helper.make_node("Gemm", ["h2r", "w3", "b3"], ["logits"], transB=1, name="classifier"),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"), (w3, "w3"), (b3, "b3"), (shape, "shape")]]
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [batch, features])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, classes])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="nee-tests")
    onnx.checker.check_model(model)

    def reference(x):
        h1 = np.maximum(x.reshape(batch, -1) @ w1 + b1, 0)
        h2 = np.maximum(h1 @ w2 + b2, 0)
        return (h2.reshape(batch, hidden).astype(np.float64) @ w3.T.astype(np.float64) + b3).astype(np.float32)

    return model, reference


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--features", type=int, default=512)
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    model, reference = build(args.batch, args.features, args.hidden, args.classes, rng)
    os.makedirs(os.path.join(args.out_dir, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(args.out_dir, "model.onnx"))
    x = rng.uniform(-1, 1, (args.batch, args.features)).astype(np.float32)
    data = os.path.join(args.out_dir, "test_data_set_0")
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "input").SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(reference(x), "logits").SerializeToString())
    print(f"wrote {args.out_dir}/model.onnx (batch {args.batch}, {args.features}-{args.hidden}-{args.hidden}-"
          f"{args.classes}) and test_data_set_0")


if __name__ == "__main__":
    main()
