"""Where the tests find NEE's build (tests/python/CMakeLists.txt sets these variables)."""
import os
import pathlib

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
