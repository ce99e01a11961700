"""mxconform.testing: gate an implementation against the reference in a test.

    from mxconform.testing import assert_quantized_equal, assert_codes_equal
    assert_quantized_equal(data, scales, x, recipe="mxfp8_e4m3:rceil", layout="tcgen05")
    assert_codes_equal(codes, x, "e4m3", profile="torch-cpu")

On a mismatch the AssertionError names the first differing block (or
element), its inputs in hex, the expected and observed scale and codes, and
the clause of reference/SPEC.md; the quantized report is the same text as
the C++ gtest helper's (mx/testing/diff.hpp). A malformed argument (unknown
name, wrong size) raises mxconform.Error, not AssertionError.
"""
import numpy as np

from . import _core
from ._arrays import as_bytes, as_input, to_numpy

__all__ = ["assert_quantized_equal", "assert_codes_equal", "assert_bytes_equal"]


def assert_quantized_equal(data, scales, x, recipe, layout="dense", axis="rowwise", data_order="source",
                           packing="packed", source=None, rbits=None):
    """data/scales (any 1-byte arrays or tensors, host or device) must be the bytes
    mxconform.quantize(x, recipe, ...) gives, padding included."""
    arr, src = as_input(to_numpy(x, "x", allow_device_copy=True)[0] if _is_device(x) else x, source, "x")
    if rbits is not None:
        rbits = to_numpy(rbits, "rbits")[0]
    expected = _core.quantize(arr, recipe, axis, data_order, layout, packing, src, rbits)
    observed = _core.from_buffers(as_bytes(data, "data").reshape(-1), as_bytes(scales, "scales").reshape(-1),
                                  recipe, list(expected.shape), axis, data_order, layout, packing,
                                  expected.global_amax_bits)
    msg = _core.describe_difference(expected, observed, arr, src)
    if msg:
        raise AssertionError(msg)


def _is_device(x):
    return hasattr(x, "device") and getattr(x.device, "type", "cpu") != "cpu"


def _hex(arr, src, i):
    if src == "bf16" or arr.dtype.itemsize == 2:
        return f"{int(arr.reshape(-1).view(np.uint16)[i]):04x}"
    return f"{int(arr.reshape(-1).view(np.uint32)[i]):08x}"


def assert_codes_equal(codes, x, fmt, profile=None, rounding=None, overflow=None, nan=None, policy=None,
                       source=None):
    """codes must be what mxconform.encode(x, fmt, profile=..., ...) gives, element for element."""
    from . import encode, resolve_policy  # noqa: PLC0415

    if _is_device(x):
        x = to_numpy(x, "x", allow_device_copy=True)[0]
    arr, src = as_input(x, source, "x")
    expected = encode(arr, fmt, profile=profile, rounding=rounding, overflow=overflow, nan=nan, policy=policy,
                      source=src or None)
    observed = as_bytes(codes, "codes")
    if observed.size != expected.size:
        raise _core.ShapeError(f"codes have {observed.size} elements, x has {expected.size}")
    e, o = expected.reshape(-1), observed.reshape(-1)
    bad = np.flatnonzero(e != o)
    if bad.size == 0:
        return
    i = int(bad[0])
    pol = resolve_policy(fmt, src or ("fp16" if arr.dtype == np.float16 else "fp32"), profile, rounding,
                         overflow, nan, policy)
    who = f"profile {profile}" if profile not in (None, "ocp") else "the C2 defaults"
    idx = np.unravel_index(i, expected.shape) if expected.ndim > 1 else (i,)
    dec = _core.decode(np.array([e[i], o[i]], dtype=np.uint8), fmt, "fp32") if _fits(fmt, o[i]) else None
    src_name = src or ("fp16" if arr.dtype == np.float16 else "fp32")
    lines = [f"{fmt} codes differ from {who} ({pol}): {bad.size} of {e.size} elements",
             f"first difference at index {tuple(int(v) for v in idx)} (flat {i}): input {_hex(arr, src, i)} "
             f"({src_name} hex) => observed {int(o[i]):02x}, expected {int(e[i]):02x}"]
    if dec is not None:
        lines.append(f"  decoded: observed {dec[1]!r}, expected {dec[0]!r}")
    lines.append("  clause: C2 encode" + (f" (C13 profile {profile})" if profile not in (None, "ocp") else ""))
    raise AssertionError("\n".join(lines))


def _fits(fmt, code):
    bits = _core.format_info(fmt)["bits"]
    return bits == 8 or (int(code) >> bits) == 0


def assert_bytes_equal(expected, observed):
    """Two byte buffers equal; the message names the first differing byte."""
    msg = _core.describe_bytes_difference(as_bytes(expected, "expected").reshape(-1),
                                          as_bytes(observed, "observed").reshape(-1))
    if msg:
        raise AssertionError(msg)
