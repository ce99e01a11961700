"""mxconform.testing: passes on the golden bytes, and on a deliberate
mismatch names the first differing block, its inputs in hex, the expected and
observed scale and codes, and the clause."""
import os

import numpy as np
import pytest

import mxconform as mx
from mxconform import testing, vectors


def golden_row(vectors_dir, name="quantize/rowwise/mxfp8_e4m3_from_fp32.csv", shape="2x64"):
    vf = vectors.read(os.path.join(vectors_dir, name))
    r = next(r for r in vf.rows if r["shape"] == shape)
    m, k = (int(v) for v in shape.split("x"))
    x = np.frombuffer(bytes.fromhex(r["x"]), dtype=">u4").astype(np.uint32).view(np.float32).reshape(m, k)
    codes = np.frombuffer(bytes.fromhex(r["expected_elems"]), dtype=np.uint8).reshape(m, k)
    scales = np.frombuffer(bytes.fromhex(r["expected_scales"]), dtype=np.uint8)
    return x, codes.copy(), scales.copy()


def test_quantized_passes_and_names_first_block(vectors_dir):
    """Golden codes (unpacked, one per byte) are the packed data of mxfp8 (8-bit codes)."""
    x, codes, scales = golden_row(vectors_dir)
    testing.assert_quantized_equal(codes, scales, x, recipe="mxfp8_e4m3")
    bad = codes.copy()
    bad[1, 40] ^= 1
    bad[1, 50] ^= 1
    with pytest.raises(AssertionError) as info:
        testing.assert_quantized_equal(bad, scales, x, recipe="mxfp8_e4m3")
    msg = str(info.value)
    assert "2 of 128 element codes and 0 block scales differ" in msg
    assert "first differing block: batch 0, cols 32..63 of row 1 (block 1)" in msg
    xin = " ".join(f"{v:08x}" for v in x[1, 32:64].view(np.uint32))
    assert f"inputs (fp32 hex): {xin}" in msg
    assert f"scale    expected {scales[3]:02x}, observed {scales[3]:02x} (equal)" in msg
    assert "codes    expected " + " ".join(f"{c:02x}" for c in codes[1, 32:64]) in msg
    assert "codes    observed " + " ".join(f"{c:02x}" for c in bad[1, 32:64]) in msg
    assert "first differing code at col 40" in msg and "clause: C2 (encode e4m3: rne, saturate)" in msg


def test_quantized_scale_mismatch_names_c3(vectors_dir):
    x, codes, scales = golden_row(vectors_dir)
    s = scales.copy()
    s[3] += 1
    with pytest.raises(AssertionError, match=r"(?s)row 1 \(block 1\).*scale    expected "
                       f"{scales[3]:02x}, observed {s[3]:02x}.*clause: C3 \\(scale rule floor\\)"):
        testing.assert_quantized_equal(codes, s, x, recipe="mxfp8_e4m3")


def test_tcgen05_padding_is_checked():
    x = np.ones((3, 32), dtype=np.float32)
    q = mx.quantize(x, "mxfp8_e4m3", layout="tcgen05")
    s = q.scales.copy()
    testing.assert_quantized_equal(q.data, s, x, recipe="mxfp8_e4m3", layout="tcgen05")
    s[-1] = 0x7F  # a padding byte (row 127, block 3)
    with pytest.raises(AssertionError, match=r"scale bytes differ \(padding must be 00\)  \[C7\]"):
        testing.assert_quantized_equal(q.data, s, x, recipe="mxfp8_e4m3", layout="tcgen05")


def test_codes_equal_golden_and_mismatch(vectors_dir):
    vf = vectors.read(os.path.join(vectors_dir, "convert", "e4m3_from_fp32.csv"))
    rows = [r for r in vf.rows if (r["rounding"], r["overflow"], r["nan"], r["flush"]) ==
            ("rne", "saturate", "nan_canonical", "0")]
    x = np.array([int(r["in"], 16) for r in rows], dtype=np.uint32).view(np.float32)
    want = np.array([int(r["expected"], 16) for r in rows], dtype=np.uint8)
    testing.assert_codes_equal(want, x, "e4m3")
    bad = want.copy()
    bad[7] ^= 0x01
    with pytest.raises(AssertionError) as info:
        testing.assert_codes_equal(bad, x, "e4m3")
    msg = str(info.value)
    assert msg.startswith("e4m3 codes differ from the C2 defaults (rne:saturate): 1 of")
    assert (f"first difference at index (7,) (flat 7): input {rows[7]['in']} (fp32 hex) => observed "
            f"{bad[7]:02x}, expected {want[7]:02x}") in msg
    assert "clause: C2 encode" in msg


def test_codes_equal_profile_names_c13():
    x = np.array([np.nan, -np.nan], dtype=np.float32)
    with pytest.raises(AssertionError, match=r"(?s)profile ml_dtypes .*C13 profile ml_dtypes"):
        testing.assert_codes_equal(np.array([0x00, 0x00], np.uint8), x, "e4m3", profile="ml_dtypes")


def test_bytes_equal():
    testing.assert_bytes_equal(np.arange(10, dtype=np.uint8), np.arange(10, dtype=np.uint8))
    b = np.arange(10, dtype=np.uint8)
    b[6] = 0
    with pytest.raises(AssertionError, match="1 of 10 bytes differ; first at byte 6: observed 00, expected 06"):
        testing.assert_bytes_equal(np.arange(10, dtype=np.uint8), b)
