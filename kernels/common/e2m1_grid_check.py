#!/usr/bin/env python3
"""e2m1_grid_check.py - host model of the e2m1 fast paths in dev_convert.cuh
(e2m1x2_f16, e2m1x2_bf16 single lane and packed, round_odd11), checked against an exact RNE +
saturate reference (SPEC C2 defaults: NaN -> +max 0x7, sign kept on zero):
every f16 and every bf16 value of the scaled y, and fp32 values around every
threshold through round_odd11. Run: /usr/bin/python3 kernels/common/e2m1_grid_check.py
(numpy; the f16/bf16 add is modelled as an exact fp32 add rounded RNE once).
The device bytes themselves are checked by the gate (conformance/gpu)."""
from fractions import Fraction as F
import sys

import numpy as np

GRID = [F(0), F(1, 2), F(1), F(3, 2), F(2), F(3), F(4), F(6)]


def ref(v):
    if np.isnan(v):
        return 7
    neg = bool(np.signbit(v))
    a = abs(v)
    if np.isinf(a):
        c = 7
    else:
        a = F(float(a))
        best = None
        for c, g in enumerate(GRID):
            d = abs(a - g)
            if best is None or d < best[0] or (d == best[0] and c % 2 == 0):
                best = (d, c)
        c = 7 if a > 6 else best[1]
    return c | (8 if neg else 0)


def f16_lane(y):  # e2m1x2_f16, one lane; y float32
    with np.errstate(over="ignore"):
        pb = int(np.float16(y).view(np.uint16))  # cvt.rn.f16x2.f32
    y0 = pb & 0x7FFF
    nan = (y0 + 0x3FF) & 0x8000
    Y = np.fmin(np.uint16(y0).view(np.float16), np.float16(6.0))  # min.f16x2: NaN -> other
    yc = np.fmin(np.fmax(Y, np.float16(1.0)), np.float16(4.0))
    mb = (int(yc.view(np.uint16)) & 0x7C00) + 0x2400
    s = int(np.float16(np.float32(Y) + np.float32(np.uint16(mb).view(np.float16))).view(np.uint16))
    return s - mb + ((mb >> 9) & 6) + (((pb & ~nan) & 0x8000) >> 12)


def bf(b):
    return np.uint32(b << 16).view(np.float32)


def rne_bf16(f):
    a = int(np.float32(f).view(np.uint32))
    return ((a + 0x7FFF + ((a >> 16) & 1)) >> 16) & 0xFFFF


def bmin(a, b):
    fa, fb = bf(a), bf(b)
    return b if np.isnan(fa) else a if np.isnan(fb) else (a if fa <= fb else b)


def bmax(a, b):
    fa, fb = bf(a), bf(b)
    return b if np.isnan(fa) else a if np.isnan(fb) else (a if fa >= fb else b)


def bmin_nan(a, b):  # min.NaN.bf16x2: a NaN operand gives the canonical NaN 0x7FFF
    fa, fb = bf(a), bf(b)
    return 0x7FFF if np.isnan(fa) or np.isnan(fb) else (a if fa <= fb else b)


def bf16_lane(p):  # e2m1x2_bf16, one lane; p = bf16 bits of y
    z = bmin_nan(p, 0x7F80)
    Y = bmin(z & 0x7FFF, 0x40C0)
    yc = bmin(bmax(Y, 0x3F80), 0x4080)
    m = rne_bf16(np.float32(bf(yc)) * np.float32(64.0)) & 0x7F80
    s = rne_bf16(np.float32(bf(Y)) + np.float32(bf(m)))
    return s + (m >> 6) - m - 0x10A + ((z & 0x8000) >> 12)


def bf16_pair(p0, p1):  # the same on a packed pair: 32-bit integer steps as on the device
    z = [bmin_nan(p0, 0x7F80), bmin_nan(p1, 0x7F80)]
    Y = [bmin(v & 0x7FFF, 0x40C0) for v in z]
    m = [rne_bf16(np.float32(bf(bmin(bmax(v, 0x3F80), 0x4080))) * np.float32(64.0)) & 0x7F80 for v in Y]
    s = [rne_bf16(np.float32(bf(Y[i])) + np.float32(bf(m[i]))) for i in (0, 1)]
    Z, M, S = z[0] | z[1] << 16, m[0] | m[1] << 16, s[0] | s[1] << 16
    r = (S + (M >> 6) - M - 0x010A010A + ((Z & 0x80008000) >> 12)) & 0xFFFFFFFF
    return r & 0xFFFF, r >> 16


def ro11(y):
    a = int(np.float32(y).view(np.uint32))
    return np.uint32((a | ((a & 0x1FFF) + 0x1FFF)) & ~0x1FFF & 0xFFFFFFFF).view(np.float32)


def main():
    bad = 0
    for b in range(65536):
        y = np.float32(np.uint16(b).view(np.float16))
        bad += ref(y) != f16_lane(y)
    print("f16: every value, mismatches:", bad)
    bad2 = 0
    for b in range(65536):
        y = bf(b)
        bad2 += ref(y) != f16_lane(y)
        bad2 += ref(y) != bf16_lane(b)
    print("bf16: every value, both paths, mismatches:", bad2)
    # the packed form: every bf16 value in lane 0 beside special / boundary values in lane 1, and random pairs
    sp = [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x40C0, 0xC0E0, 0x3E80, 0x3F40, 0x0001, 0x4120, 0xBF40]
    rng = np.random.default_rng(2)
    pairs = [(b, q) for b in range(65536) for q in (sp[b % len(sp)], (b * 40503) & 0xFFFF)]
    pairs += [(int(a), int(c)) for a, c in rng.integers(0, 65536, size=(50000, 2))]
    bad2 += sum((ref(bf(a)), ref(bf(c))) != bf16_pair(a, c) for a, c in pairs)
    print("bf16: packed pairs, mismatches:", bad2, "of", len(pairs))
    cands = []
    for t in [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5, 6, 0.5, 1, 1.5, 2, 3, 4, 7, 8, 1e-5, 65504, 65520, 7e4]:
        tb = int(np.float32(t).view(np.uint32))
        cands += [np.uint32(tb + d).view(np.float32) for d in range(-40, 41)]
        for d in range(1, 30):
            cands += [np.uint32(tb + (1 << d)).view(np.float32), np.uint32(tb - (1 << d)).view(np.float32)]
    cands += list(np.random.default_rng(1).uniform(-8, 8, 20000).astype(np.float32))
    cands += [np.float32(x) for x in (np.inf, -np.inf, np.nan, -0.0, 1e-40, -1e-40)]
    bad3 = sum(ref(np.float32(y * s)) != f16_lane(ro11(np.float32(y * s))) for y in cands for s in (1, -1))
    print("fp32 near every threshold, round_odd11 + f16 path, mismatches:", bad3, "of", 2 * len(cands))
    return 1 if bad or bad2 or bad3 else 0


if __name__ == "__main__":
    sys.exit(main())
