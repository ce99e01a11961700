"""Hypothesis properties with independent expected values: models of the
formats written here from their C1 definitions (sign, exponent, mantissa,
bias) with exact rational arithmetic, never the package's own output."""
from fractions import Fraction

import numpy as np
import pytest

pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import mxconform as mx

# (ebits, mbits, bias, top codes that are not finite) per C1.
FLOATS = {"e4m3": (4, 3, 7, {0x7F}), "e5m2": (5, 2, 15, set(range(0x7C, 0x80))),
          "e3m2": (3, 2, 3, set()), "e2m3": (2, 3, 1, set()), "e2m1": (2, 1, 1, set())}


def value(fmt, code):
    e_bits, m_bits, bias, _ = FLOATS[fmt]
    e, m = code >> m_bits, code & ((1 << m_bits) - 1)
    if e == 0:
        return Fraction(m, 1 << m_bits) * Fraction(2) ** (1 - bias)
    return (1 + Fraction(m, 1 << m_bits)) * Fraction(2) ** (e - bias)


def model_rne_saturate(fmt, x):
    """C2 defaults for a finite input: nearest, ties to the even code, saturate, signed zero."""
    e_bits, m_bits, _, special = FLOATS[fmt]
    n = 1 << (e_bits + m_bits)
    table = [(value(fmt, c), c) for c in range(n) if c not in special]
    a = abs(Fraction(float(x)))
    best = min(table, key=lambda t: (abs(t[0] - a), t[1] & 1))
    sign = 1 << (e_bits + m_bits) if np.signbit(x) else 0
    return best[1] | sign


finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(FLOATS)), st.lists(finite32, min_size=1, max_size=8))
def test_encode_matches_rational_model(fmt, xs):
    x = np.array(xs, dtype=np.float32)
    got = mx.encode(x, fmt)
    want = [model_rne_saturate(fmt, v) for v in x]
    assert got.tolist() == want


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(FLOATS)), st.integers(0, 255))
def test_decode_is_the_c1_value_and_encode_round_trips(fmt, c):
    e_bits, m_bits, _, special = FLOATS[fmt]
    bits = 1 + e_bits + m_bits
    code = c & ((1 << bits) - 1)
    mag = code & ((1 << (bits - 1)) - 1)
    if mag in special:
        return
    v = mx.decode(np.array([code], dtype=np.uint8), fmt)[0]
    want = value(fmt, mag) * (-1 if code >> (bits - 1) else 1)
    assert Fraction(float(v)) == want and bool(np.signbit(v)) == bool(code >> (bits - 1))
    assert mx.encode(np.array([v], dtype=np.float32), fmt)[0] == code


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(FLOATS) + ["int8"]),
       st.floats(min_value=2.0 ** -140, max_value=2.0 ** 120, width=32))
def test_floor_scale_rule(fmt, amax):
    """C3 floor: code = clamp(floor(log2 amax) - emax_elem, -127, 127) + 127."""
    emax = {"e4m3": 8, "e5m2": 15, "e3m2": 4, "e2m3": 2, "e2m1": 2, "int8": 0}[fmt]
    f = Fraction(float(np.float32(amax)))
    e = 0
    while Fraction(2) ** (e + 1) <= f:
        e += 1
    while Fraction(2) ** e > f:
        e -= 1
    want = min(max(e - emax, -127), 127) + 127
    got = mx.block_scales(np.array([[amax, -amax / 2]], dtype=np.float32), fmt, "floor")
    assert got.tolist() == [[want]]


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 300), st.integers(1, 9), st.integers(1, 2), st.data())
def test_tcgen05_layout_formula(rows, blocks, batch, data):
    """C7 tcgen05 offset, from the formula in the specification, and the round trip."""
    nkt, nrt = -(-blocks // 4), -(-rows // 128)
    s = np.arange(batch * rows * blocks, dtype=np.int64) % 251 + 1
    dense = s.astype(np.uint8)
    t = mx.convert_layout(dense, rows, blocks, batch, "dense", "tcgen05")
    assert t.size == batch * nrt * nkt * 512
    want = np.zeros(t.size, dtype=np.uint8)
    for l in range(batch):
        for r in range(rows):
            for kb in range(blocks):
                off = (l * nrt * nkt * 512 + (r // 128) * nkt * 512 + (kb // 4) * 512 + (r % 32) * 16
                       + ((r % 128) // 32) * 4 + kb % 4)
                want[off] = dense[(l * rows + r) * blocks + kb]
    assert t.tobytes() == want.tobytes()
    assert mx.convert_layout(t, rows, blocks, batch, "tcgen05", "dense").tobytes() == dense.tobytes()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 15), min_size=1, max_size=40))
def test_e2m1_packing(codes):
    """C6: two e2m1 codes per byte, the first in the low nibble, a last odd one padded with 0."""
    c = np.array([codes], dtype=np.uint8)
    padded = codes + [0] * (len(codes) % 2)
    want = bytes(padded[i] | (padded[i + 1] << 4) for i in range(0, len(padded), 2))
    assert mx.pack(c, "e2m1").tobytes() == want
    assert mx.unpack(mx.pack(c, "e2m1"), "e2m1", len(codes)).tolist() == [codes]
