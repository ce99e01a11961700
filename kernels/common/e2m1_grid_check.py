#!/usr/bin/env python3
"""e2m1_grid_check.py - host model of the e2m1 fast paths in dev_convert.cuh and dev_convert_bf16.cuh
(e2m1x2_f16, e2m1x2_bf16 with pack_e2m1_bf16, round_odd11), checked against an exact RNE +
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


def bxs(a, b, pick):  # {min,max}.xorsign.abs.bf16x2 (no NaN operand): |a| or |b|, sign a ^ b
    assert not np.isnan(bf(a)) and not np.isnan(bf(b))
    m = pick(a & 0x7FFF, b & 0x7FFF)
    return m | ((a ^ b) & 0x8000)


def bmul(a, b):  # mul.rn.bf16x2 of bf16 values (the fp32 product is exact)
    return rne_bf16(np.float32(bf(a)) * np.float32(bf(b)))


def nan_to_inf(p):  # min.bf16x2(p, +Inf): NaN -> +Inf, every other value unchanged
    return bmin(p, 0x7F80)


def bf16_lanes(ps):  # e2m1x2_bf16 on the lanes ps (bf16 bits of y, NaN already +Inf): 32-bit steps as on the device
    Y = [bxs(p, 0x40C0, bmin) for p in ps]
    T = [bmul(y & 0xFF80, 0x4280) for y in Y]
    M = [bxs(t, 0x4280, bmax) for t in T]
    S = [rne_bf16(np.float32(bf(Y[i])) + np.float32(bf(M[i]))) for i in range(2)]
    Mw, Sw = M[0] | M[1] << 16, S[0] | S[1] << 16
    return ((Sw - Mw - 0x010A010A) + (Mw >> 6)) & 0xFFFFFFFF  # the last add: mad.hi.u32(M, 2^26, ..)


def bf16_lane(p):  # one lane as a 4-bit code (the sign moved from bit 9 to bit 3 as pack_e2m1_bf16 does)
    e = bf16_lanes([nan_to_inf(p), 0]) & 0xFFFF
    assert e & ~0x207 == 0, hex(e)
    return (e & 7) | ((e >> 6) & 8)


def bf16_group(ps):  # 8 elements: e2m1x8_bf16's pairs (0,2), (1,3), (4,6), (5,7) and pack_e2m1_bf16
    q = [nan_to_inf(p) for p in ps]
    e = [bf16_lanes([q[a], q[b]]) for a, b in ((0, 2), (1, 3), (4, 6), (5, 7))]
    lo, hi = (e[0] + (e[1] << 4)) & 0xFFFFFFFF, (e[2] + (e[3] << 4)) & 0xFFFFFFFF
    b = [(lo >> 8 * i) & 0xFF for i in range(4)] + [(hi >> 8 * i) & 0xFF for i in range(4)]
    w = b[0] | b[2] << 8 | b[4] << 16 | b[6] << 24  # byte_perm(lo, hi, 0x6420)
    s = b[1] | b[3] << 8 | b[5] << 16 | b[7] << 24  # byte_perm(lo, hi, 0x7531)
    w |= (s << 2) & 0x88888888
    return [(w >> 4 * i) & 0xF for i in range(8)]


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
    # the packed form (8 elements, 32-bit steps): every bf16 value in each position beside special /
    # boundary values and random values in the others, and random groups
    sp = [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x40C0, 0xC0E0, 0x3E80, 0x3F40, 0x0001, 0x4120, 0xBF40,
          0x4080, 0xC0A0, 0x3FC0, 0x8001, 0x7F7F, 0xFF7F]
    rng = np.random.default_rng(2)
    groups = []
    for b in range(65536):
        g = [sp[(b + 3 * i) % len(sp)] if i % 2 else (b * (40503 + 2 * i)) & 0xFFFF for i in range(8)]
        g[b % 8] = b
        groups.append(g)
    groups += [[int(a) for a in r] for r in rng.integers(0, 65536, size=(20000, 8))]
    badg = sum([ref(bf(a)) for a in g] != bf16_group(g) for g in groups)
    bad2 += badg
    print("bf16: packed groups of 8, mismatches:", badg, "of", len(groups))
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
