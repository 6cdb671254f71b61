"""NEE's errors reach Python as nee.NeeError subclasses carrying NEE's message and code."""
import re

import numpy as np
import pytest

import nee
from small_models import dense_relu


@pytest.fixture(scope="module")
def session():
    return nee.InferenceSession(dense_relu(4, 3)[0])


def test_a_missing_input_names_it(session):
    with pytest.raises(nee.InvalidArgument, match="input 'x' is not given") as caught:
        session.run(None, {})
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, RuntimeError)
    assert caught.value.code == nee.Code.INVALID_ARGUMENT


def test_a_wrong_dtype_or_shape_names_the_input_and_both_types(session):
    with pytest.raises(nee.InvalidArgument, match=r"input 'x' is declared f32; the tensor given is f64\[2,4\]"):
        session.run(None, {"x": np.zeros((2, 4))})
    with pytest.raises(nee.InvalidArgument, match=r"input 'x' is declared \[batch,4\]; the tensor given is f32\[2,5\]"):
        session.run(None, {"x": np.zeros((2, 5), np.float32)})
    with pytest.raises(ValueError, match="input 'x' is a numpy array of dtype complex64, which NEE does not take"):
        session.run(None, {"x": np.zeros((2, 4), np.complex64)})


def test_unknown_names_list_the_models_own(session):
    x = np.zeros((1, 4), np.float32)
    with pytest.raises(nee.InvalidArgument, match="'z' is not an input of the model \\(its inputs: 'x'\\)"):
        session.run(None, {"x": x, "z": x})
    with pytest.raises(nee.InvalidArgument, match="'q' is not an output of the model \\(its outputs: 'y', 's'\\)"):
        session.run(["y", "q"], {"x": x})


def test_a_bad_model_path_is_file_not_found(tmp_path):
    missing = tmp_path / "missing.onnx"
    with pytest.raises(FileNotFoundError, match=re.escape(f"cannot open ONNX model '{missing}'")) as caught:
        nee.InferenceSession(missing)
    assert isinstance(caught.value, nee.InvalidModel) and caught.value.code == nee.Code.INVALID_MODEL
    not_onnx = tmp_path / "not.onnx"
    not_onnx.write_bytes(b"\x08\x07 not a protobuf")
    with pytest.raises(nee.InvalidModel, match="is not a valid ONNX model") as caught:
        nee.InferenceSession(not_onnx)
    assert not isinstance(caught.value, FileNotFoundError)
    with pytest.raises(nee.InvalidModel, match="the data is not a valid ONNX model"):
        nee.InferenceSession(b"\x08\x07 not a protobuf")


def test_a_bad_bundle_names_it(tmp_path):
    model = dense_relu(4, 3)[0]
    with pytest.raises(nee.BundleNotFound, match="is not a NEE bundle: no such folder") as caught:
        nee.InferenceSession(model, bundle=tmp_path / "nowhere")
    assert isinstance(caught.value, FileNotFoundError) and caught.value.code == nee.Code.INVALID_BUNDLE
    not_a_bundle = re.escape(f"'{tmp_path}' is not a NEE bundle: no manifest.json")
    with pytest.raises(nee.InvalidBundle, match=not_a_bundle) as caught:
        nee.InferenceSession(model, bundle=tmp_path)
    assert not isinstance(caught.value, FileNotFoundError)


def test_bad_options_name_the_option():
    model = dense_relu(4, 3)[0]
    with pytest.raises(nee.InvalidArgument, match="'CPUExecutionProvider' is not a provider order"):
        nee.InferenceSession(model, providers=["CPUExecutionProvider"])
    with pytest.raises(nee.InvalidArgument, match="-1 threads"):
        nee.InferenceSession(model, threads=-1)
