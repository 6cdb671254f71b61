"""Inputs pass without copies where their layout allows; outputs are NEE's buffers, owned
by the arrays returned, and share memory with nothing else."""
import gc

import numpy as np
import pytest
from onnx import TensorProto, helper

import nee
from small_models import dense_relu, model_bytes


def address(array):
    return array.__array_interface__["data"][0]


def test_a_contiguous_input_is_read_in_place():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert nee._nee.input_buffer_address(x) == address(x)
    view = x[1:]  # a C-contiguous view into x's buffer
    assert nee._nee.input_buffer_address(view) == address(view)
    x.setflags(write=False)
    assert nee._nee.input_buffer_address(x) == address(x)


@pytest.mark.parametrize("layout", ["transposed", "strided", "big-endian"])
def test_other_layouts_are_converted_once_and_still_correct(layout):
    base = np.random.default_rng(2).standard_normal((4, 6)).astype(np.float32)
    x = {"transposed": base.T, "strided": base[:, ::2], "big-endian": base.astype(">f4")}[layout]
    assert nee._nee.input_buffer_address(x) != address(x)
    rows = x.shape[1]
    model, (w, b) = dense_relu(rows, 5)
    y, s = nee.InferenceSession(model).run(None, {"x": x})
    want = np.asarray(x, dtype=np.float32)
    np.testing.assert_allclose(y, np.maximum(want @ w + b, 0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(s, want + 1)


def test_outputs_are_nees_own_buffers_kept_alive_by_the_arrays():
    model, (w, b) = dense_relu(8, 4)
    session = nee.InferenceSession(model)
    x = np.random.default_rng(3).standard_normal((2, 8)).astype(np.float32)
    y, s = session.run(None, {"x": x})
    # Not copied into numpy's memory: the array's base is the capsule that frees NEE's
    # tensor.
    assert not y.flags.owndata and type(y.base).__name__ == "PyCapsule"
    assert y.flags.c_contiguous and y.flags.writeable
    del session
    gc.collect()
    np.testing.assert_allclose(y, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(s, x + 1)
    assert not np.shares_memory(y, x) and not np.shares_memory(s, x) and not np.shares_memory(y, s)


def test_an_output_that_is_an_input_or_another_output_is_a_copy():
    nodes = [helper.make_node("Identity", ["x"], ["same"]), helper.make_node("Identity", ["x"], ["again"]),
             helper.make_node("Reshape", ["x", "flat"], ["flattened"])]
    model = model_bytes(nodes, [("x", TensorProto.FLOAT, [2, 3])],
                        [("same", TensorProto.FLOAT, [2, 3]), ("again", TensorProto.FLOAT, [2, 3]),
                         ("flattened", TensorProto.FLOAT, [6])], [("flat", np.array([6], np.int64))])
    session = nee.InferenceSession(model)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    transposed = np.ascontiguousarray(x.T).T  # converted by the binding into a temporary buffer
    for given in (x, transposed):
        # For `transposed`, NEE read the binding's converted copy, freed when run returned.
        outputs = session.run(None, {"x": given})
        for out in outputs:
            np.testing.assert_array_equal(out.reshape(2, 3), x)
            assert not np.shares_memory(out, x)
        for i, a in enumerate(outputs):
            assert not any(np.shares_memory(a, other) for other in outputs[i + 1:])
    outputs[0][...] = -1
    np.testing.assert_array_equal(x, np.arange(6).reshape(2, 3))


def test_writing_into_an_output_changes_no_later_run():
    nodes = [helper.make_node("Identity", ["c"], ["constant"]), helper.make_node("Add", ["x", "c"], ["sum"])]
    model = model_bytes(nodes, [("x", TensorProto.FLOAT, [4])],
                        [("constant", TensorProto.FLOAT, [4]), ("sum", TensorProto.FLOAT, [4])],
                        [("c", np.arange(4, dtype=np.float32))])
    session = nee.InferenceSession(model)
    x = np.ones(4, np.float32)
    constant, _ = session.run(None, {"x": x})
    constant[...] = 100
    constant, total = session.run(None, {"x": x})
    np.testing.assert_array_equal(constant, np.arange(4))
    np.testing.assert_array_equal(total, np.arange(4) + 1)
