"""test_peers_mx.py - the NumPy twin of the peer MX quantizer (bench/peers_mx.py,
issue 9 point 2) against bytes nobody in bench/ made: the checked-in golden
vectors (vectors/quantize/, written by the reference, C2/C3/C4) and the
mxconform CLI (`quantize`, C4/C6/C7 dense) on a bf16 tensor full of special
values. Label cpu; run by CTest from conformance/peers/CMakeLists.txt.
"""
import os
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import peers_mx as pm  # noqa: E402
import peers_special as ps  # noqa: E402

OPS = pm.NumpyOps
GOLDEN = {  # recipe -> file stem
    "mxfp8_e4m3": "mxfp8_e4m3",
    "mxfp8_e4m3:rceil": "mxfp8_e4m3-rceil",
    "mxfp4": "mxfp4",
    "mxfp4:rceil": "mxfp4-rceil",
}


def golden_rows(path):
    header = None
    for line in path.read_text().splitlines():
        if line.startswith("#") or not line:
            continue
        cols = line.split(",")
        if header is None:
            header = cols
            continue
        yield dict(zip(header, cols))


def first_diff(a, b):
    a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
    if a.shape != b.shape:
        return f"sizes {a.size} and {b.size}"
    d = np.flatnonzero(a != b)
    return None if d.size == 0 else f"{d.size} differ, first at flat index {d[0]}: {a[d[0]]:#04x} vs {b[d[0]]:#04x}"


@pytest.mark.parametrize("axis", ["rowwise", "colwise"])
@pytest.mark.parametrize("recipe", sorted(GOLDEN))
def test_golden_vectors(recipe, axis):
    path = ROOT / "vectors" / "quantize" / axis / f"{GOLDEN[recipe]}_from_fp32.csv"
    n = 0
    for row in golden_rows(path):
        m, k = (int(v) for v in row["shape"].split("x"))
        x = np.frombuffer(bytes.fromhex(row["x"]), dtype=">u4").astype(np.uint32).reshape(m, k)
        want_s = np.frombuffer(bytes.fromhex(row["expected_scales"]), dtype=np.uint8)
        want_e = np.frombuffer(bytes.fromhex(row["expected_elems"]), dtype=np.uint8)
        data, scales = pm.quantize(OPS, OPS.bits_from_f32bits(x), recipe, axis, pack=False)
        if axis == "colwise":
            data = data.T  # the golden elements are in source order [M][K]
        assert first_diff(scales, want_s) is None, f"{path.name} row {n} ({m}x{k}) scales: {first_diff(scales, want_s)}"
        assert first_diff(data, want_e) is None, f"{path.name} row {n} ({m}x{k}) elements: {first_diff(data, want_e)}"
        n += 1
    assert n >= 10, f"{path}: only {n} tensors read"


def test_spec_worked_examples():
    # C4: mxfp4 rowwise [[1, 2, 3], [4, 5, 6]] -> scales 7e 7f, bytes 64 07 / 66 07
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32).view(np.uint32)
    data, scales = pm.quantize(OPS, OPS.bits_from_f32bits(x), "mxfp4")
    assert data.tolist() == [[0x64, 0x07], [0x66, 0x07]] and scales.tolist() == [[0x7E], [0x7F]]
    # C4: mxfp8_e4m3 [500, 1]: floor 7f / 7e 38; rceil 80 / 78 30
    x = np.array([[500, 1]], dtype=np.float32).view(np.uint32)
    data, scales = pm.quantize(OPS, OPS.bits_from_f32bits(x), "mxfp8_e4m3")
    assert data.tolist() == [[0x7E, 0x38]] and scales.tolist() == [[0x7F]]
    data, scales = pm.quantize(OPS, OPS.bits_from_f32bits(x), "mxfp8_e4m3:rceil")
    assert data.tolist() == [[0x78, 0x30]] and scales.tolist() == [[0x80]]
    # C6: e2m1 [1, 2, 3] -> 21 03
    assert pm.pack_e2m1(OPS, np.array([1, 2, 3, 0], dtype=np.int32)).tolist() == [0x21, 0x03]


def mxconform():
    exe = os.environ.get("MXCONFORM")
    if not exe or not os.access(exe, os.X_OK):
        pytest.fail("MXCONFORM (path of the mxconform executable) is not set or not executable")
    return exe


@pytest.mark.parametrize("case", ps.CASES, ids=[f"{r}-{a}" for r, a in ps.CASES])
def test_cli_bytes_on_special_bf16(case, tmp_path):
    recipe, axis = case
    x16 = ps.special_bf16(512, 1024)
    ref = ps.run_cli(mxconform(), x16, recipe, axis, tmp_path)
    data, scales = pm.quantize(OPS, OPS.bits_from_bf16(x16), recipe, axis)
    assert first_diff(scales, ref["scales"]) is None, f"scales: {first_diff(scales, ref['scales'])}"
    assert first_diff(data, ref["data"]) is None, f"data: {first_diff(data, ref['data'])}"


def test_special_tensor_covers_the_edges():
    x = ps.special_bf16(512, 1024).astype(np.uint32) << 16
    f = x.view(np.float32)
    assert np.isnan(f).any() and np.isinf(f).any()
    assert ((x & 0x7F800000) == 0).sum() > 1000  # zeros and subnormals
    for v in (448.0, 464.0, 480.0, 6.0, 5.0):
        assert (np.abs(f) == v).any(), v
