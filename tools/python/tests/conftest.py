"""Shared fixtures of the mxconform package tests (tools/python/tests).

MX_VECTORS: the checked-in golden vectors (default: <repo>/vectors);
MXCONFORM: the CLI (default: <repo>/build/tools/mxconform), for side files.
"""
import os

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


@pytest.fixture(scope="session")
def vectors_dir():
    return os.environ.get("MX_VECTORS", os.path.join(REPO, "vectors"))


@pytest.fixture(scope="session")
def cli():
    if os.environ.get("MX_NO_CLI") == "1":
        pytest.skip("MX_NO_CLI=1: the mxconform CLI is not built here (the cpu label runs these tests)")
    exe = os.environ.get("MXCONFORM", os.path.join(REPO, "build", "tools", "mxconform"))
    if not os.path.exists(exe):
        pytest.fail(f"the mxconform CLI is needed for the side-file tests: {exe} not found (set MXCONFORM)")
    return exe


# No example database on disk (the tests run from the source tree).
try:
    from hypothesis import settings
except ImportError:  # test_properties.py skips itself
    settings = None
if settings is not None:
    settings.register_profile("mxconform", database=None)
    settings.load_profile("mxconform")
