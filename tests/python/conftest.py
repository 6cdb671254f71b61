"""Where the tests find NEE's build (tests/python/CMakeLists.txt sets these variables)."""
import os
import pathlib
import subprocess

import pytest


def _path(variable):
    value = os.environ.get(variable)
    if not value:
        pytest.fail(f"{variable} is not set: run these tests through ctest (tests/python/CMakeLists.txt)")
    return pathlib.Path(value)


@pytest.fixture(scope="session")
def source_dir():
    return _path("NEE_SOURCE_DIR")


@pytest.fixture(scope="session")
def build_dir():
    return _path("NEE_BUILD_DIR")


@pytest.fixture(scope="session")
def nee_tune():
    return _path("NEE_TUNE")


@pytest.fixture(scope="session")
def work_dir():
    path = _path("NEE_TEST_WORK_DIR")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def nee_run():
    return _path("NEE_RUN")


@pytest.fixture(scope="session")
def peers_python(source_dir, build_dir):
    """The peers' virtual environment (bench/peers/setup_peers.sh: ONNX Runtime, onnx 1.2x),
    or a skip that says why it cannot be had."""
    venv = build_dir / "peers-venv"
    setup = subprocess.run(["bash", str(source_dir / "bench/peers/setup_peers.sh"), str(venv)], capture_output=True,
                           text=True)
    python = venv / "bin/python"
    if setup.returncode != 0:
        pytest.skip(f"ONNX Runtime cannot be had: bench/peers/setup_peers.sh {venv} failed: {setup.stderr[-500:]}")
    if subprocess.run([str(python), "-c", "import onnxruntime"], capture_output=True).returncode != 0:
        pytest.skip(f"ONNX Runtime cannot be had: {python} cannot import onnxruntime")
    return python
