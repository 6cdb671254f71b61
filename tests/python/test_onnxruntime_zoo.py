"""nee.InferenceSession against ONNX Runtime on the wider zoo's small MobileNetV3, run from
a default-schedule bundle: the same code with either engine, outputs within 1e-4 of the
peak. ONNX Runtime runs in the peers' virtual environment (bench/peers/setup_peers.sh), in
a subprocess: its numpy 2 is not the numpy this package was built against."""
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import nee

ONNXRUNTIME_RUN = """
import sys
import numpy as np
import onnxruntime
model, inputs, outputs = sys.argv[1:4]
session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
feed = dict(np.load(inputs))
for i, y in enumerate(session.run(None, feed)):
    np.save(f"{outputs}_{i}.npy", y)
print(onnxruntime.__version__)
"""


def run_or_fail(command, what, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        pytest.fail(f"{what} failed ({done.returncode}): {(done.stdout + done.stderr)[-2000:]}")
    return done.stdout


@pytest.fixture(scope="module")
def mobilenet(source_dir, build_dir, nee_tune, work_dir):
    zoo = build_dir / "zoo-wider-small"
    run_or_fail(["/usr/bin/python3", str(source_dir / "tests/models/make_zoo.py"), str(zoo), "--small", "--models",
                 "mobilenet_v3"], "make_zoo.py")
    model = zoo / "mobilenet_v3_small" / "model.onnx"
    bundle = work_dir / "mobilenet_v3_bundle"
    database = work_dir / "empty.db"
    database.write_bytes(b"")
    run_or_fail([str(nee_tune), str(model), "--trials", "0", "--isa", "sse41", "--bundle", str(bundle)], "nee-tune",
                env=dict(os.environ, NEE_DB=str(database)))
    tensor = onnx.TensorProto()
    tensor.ParseFromString((model.parent / "test_data_set_0" / "input_0.pb").read_bytes())
    return model, bundle, numpy_helper.to_array(tensor)


def test_matches_onnxruntime_from_a_bundle(peers_python, mobilenet, work_dir):
    model, bundle, sample = mobilenet
    session = nee.InferenceSession(model, bundle=bundle, profiling=True)
    (name,) = [i.name for i in session.get_inputs()]
    batch3 = np.random.default_rng(0).standard_normal((3,) + sample.shape[1:]).astype(np.float32)
    for x in (sample, batch3):
        np.savez(work_dir / "inputs.npz", **{name: x})
        expected_path = work_dir / "onnxruntime"
        run_or_fail([str(peers_python), "-c", ONNXRUNTIME_RUN, str(model), str(work_dir / "inputs.npz"),
                     str(expected_path)], "ONNX Runtime")
        (expected,) = [np.load(f"{expected_path}_{i}.npy") for i in range(len(session.get_outputs()))]
        (got,) = session.run(None, {name: x})
        assert got.shape == expected.shape == (x.shape[0], 10)
        error = np.abs(got - expected).max()
        peak = np.abs(expected).max()
        print(f"batch {x.shape[0]}: max |NEE - ONNX Runtime| = {error:.3g}, peak {peak:.3g}", file=sys.stderr)
        assert error <= 1e-4 * peak, (error, peak)
        if x is sample:
            # The bundle holds the batch-1 workloads; other batches run the reference kernels.
            providers = {node.provider for node in session.profile()}
            assert "bundle" in providers, f"no node ran the bundle's kernels ({providers})"
