"""nee.InferenceSession against numpy: metadata, symbolic batch, outputs by name and order."""
import re

import numpy as np
import pytest
from onnx import TensorProto, helper

import nee
from small_models import dense_relu, model_bytes


def expected(x, w, b):
    return np.maximum(x @ w + b, 0), x + 1


def test_version_is_the_projects(source_dir):
    (project,) = re.findall(r"project\(nee VERSION ([0-9.]+)", (source_dir / "CMakeLists.txt").read_text())
    assert nee.__version__ == project
    assert nee._nee.api_version() == 1


def test_inputs_and_outputs_as_onnxruntime_describes_them():
    nodes = [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT64), helper.make_node("Not", ["c"], ["d"])]
    model = model_bytes(nodes, [("x", TensorProto.FLOAT, ["batch", None, 3]), ("c", TensorProto.BOOL, [2])],
                        [("y", TensorProto.INT64, ["batch", None, 3]), ("d", TensorProto.BOOL, [2])])
    session = nee.InferenceSession(model)
    assert session.get_inputs() == [nee.NodeArg("x", "tensor(float)", ["batch", None, 3]),
                                    nee.NodeArg("c", "tensor(bool)", [2])]
    assert [(o.name, o.type, o.shape) for o in session.get_outputs()] == [("y", "tensor(int64)", ["batch", None, 3]),
                                                                          ("d", "tensor(bool)", [2])]
    assert session.get_providers() == ["bundle", "reference"]


def test_matches_numpy_at_every_batch(tmp_path):
    model, (w, b) = dense_relu(16, 8)
    path = tmp_path / "dense.onnx"
    path.write_bytes(model)
    session = nee.InferenceSession(path, threads=1)
    rng = np.random.default_rng(1)
    for batch in (1, 5, 3):
        x = rng.standard_normal((batch, 16)).astype(np.float32)
        y, s = session.run(None, {"x": x})
        want_y, want_s = expected(x, w, b)
        assert y.shape == (batch, 8) and y.dtype == np.float32
        np.testing.assert_allclose(y, want_y, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(s, want_s)


def test_outputs_by_name_in_the_order_asked():
    model, (w, b) = dense_relu(4, 3)
    session = nee.InferenceSession(model)
    x = np.arange(8, dtype=np.float32).reshape(2, 4) - 3
    want_y, want_s = expected(x, w, b)
    s, y = session.run(["s", "y"], {"x": x})
    np.testing.assert_array_equal(s, want_s)
    np.testing.assert_allclose(y, want_y, rtol=1e-5, atol=1e-5)
    (only_s,) = session.run(("s",), {"x": x})
    np.testing.assert_array_equal(only_s, want_s)


def test_integer_and_bool_tensors():
    nodes = [helper.make_node("Add", ["i", "i"], ["twice"]), helper.make_node("Not", ["c"], ["not_c"])]
    model = model_bytes(nodes, [("i", TensorProto.INT64, [3]), ("c", TensorProto.BOOL, [3])],
                        [("twice", TensorProto.INT64, [3]), ("not_c", TensorProto.BOOL, [3])])
    twice, not_c = nee.InferenceSession(model).run(None, {"i": np.array([1, -2, 2**40]),
                                                          "c": np.array([True, False, True])})
    assert twice.dtype == np.int64 and twice.tolist() == [2, -4, 2**41]
    assert not_c.dtype == np.bool_ and not_c.tolist() == [False, True, False]


def test_profiling_names_each_node():
    model, _ = dense_relu(4, 3)
    session = nee.InferenceSession(model, profiling=True, providers=["reference"])
    assert session.profile() == []
    session.run(None, {"x": np.ones((1, 4), np.float32)})
    nodes = session.profile()
    assert nodes and all(n.provider == "reference" and n.microseconds >= 0 for n in nodes)
