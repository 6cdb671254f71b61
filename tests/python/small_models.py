"""Small ONNX models the tests make with onnx's helper, as serialized bytes."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
# NEE reads IR versions 3 to 8 (Debian's onnx 1.12); newer onnx libraries write 10 and up
# by default.
IR_VERSION = 8


def model_bytes(nodes, inputs, outputs, initializers=()):
    """inputs and outputs: (name, ONNX element type, shape) with dims as ints, names or None."""
    graph = helper.make_graph(nodes, "test", [helper.make_tensor_value_info(*v) for v in inputs],
                              [helper.make_tensor_value_info(*v) for v in outputs],
                              [numpy_helper.from_array(a, name) for name, a in initializers])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION)
    return model.SerializeToString()


def dense_relu(rows, cols, seed=0):
    """y = Relu(x @ w + b), x [batch, rows] with a symbolic batch, and s = x + 1 as a second
    output; returns the model's bytes and (w, b)."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((rows, cols)).astype(np.float32)
    b = rng.standard_normal(cols).astype(np.float32)
    one = np.ones(1, np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["xwb"]),
             helper.make_node("Relu", ["xwb"], ["y"]), helper.make_node("Add", ["x", "one"], ["s"])]
    model = model_bytes(nodes, [("x", TensorProto.FLOAT, ["batch", rows])],
                        [("y", TensorProto.FLOAT, ["batch", cols]), ("s", TensorProto.FLOAT, ["batch", rows])],
                        [("w", w), ("b", b), ("one", one)])
    return model, (w, b)


def cubed_matmul(n):
    """y = (x @ x) @ x for x [n, n]: 4 n^3 FLOPs, a run long enough to watch other threads."""
    nodes = [helper.make_node("MatMul", ["x", "x"], ["xx"]), helper.make_node("MatMul", ["xx", "x"], ["y"])]
    return model_bytes(nodes, [("x", TensorProto.FLOAT, [n, n])], [("y", TensorProto.FLOAT, [n, n])])
