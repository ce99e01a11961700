"""peers_special.py - the bf16 tensor of special values on which bench/peers.py
checks the compiled peer quantizer against the reference, and the call of the
reference CLI (`mxconform quantize`, README "A tour of the command line") that
gives the expected bytes. NumPy only; used by bench/peers.py on the GPU
machine and by conformance/peers/test_peers_mx.py here.

Blocks of 32 along rows (rowwise) and along columns (colwise) both meet: zero
blocks (+0 and -0), NaN of both signs and several payloads, +-Inf, bf16
subnormals alone and next to small normals, values that scale to the e4m3
edges 448 / 456 / 464 / 472 / 480 / 500 / 508 (C2 Overflow: 464 is a tie that
rounds to 448), e2m1 ties (0.25, 2.5, 5, 7), amax so small that the rceil
product is an fp32 subnormal (C3), the largest bf16, and random values over
a wide exponent range.
"""
from __future__ import annotations

import json
import pathlib
import subprocess

import numpy as np

# (recipe, axis) pairs that bench/peers.py checks and times; colwise means
# transposed data [K][M] with dense scales [K][ceil(M/32)] (torchao's dim1)
CASES = [
    ("mxfp8_e4m3", "rowwise"),
    ("mxfp8_e4m3:rceil", "rowwise"),
    ("mxfp8_e4m3", "colwise"),
    ("mxfp4", "rowwise"),
    ("mxfp4:rceil", "rowwise"),
]


def bf16_bits(values):
    """bf16 bit patterns of values that are exactly representable in bf16."""
    f = np.asarray(values, dtype=np.float32)
    b = f.view(np.uint32)
    assert not np.any(b & 0xFFFF), "not a bf16 value"
    return (b >> 16).astype(np.uint16)


def special_bf16(m=512, k=1024, seed=0x6D78):
    """A deterministic [m][k] uint16 array of bf16 bits (m, k multiples of 64)."""
    assert m % 64 == 0 and k % 64 == 0
    rng = np.random.default_rng(seed)
    sign = rng.integers(0, 2, size=(m, k), dtype=np.uint16) << 15
    expo = rng.integers(100, 150, size=(m, k), dtype=np.uint16)  # about 2^-27 .. 2^22
    mant = rng.integers(0, 128, size=(m, k), dtype=np.uint16)
    x = sign | (expo << 7) | mant
    rowblocks = x.reshape(m, k // 32, 32)  # views: rowwise blocks

    def put(r, c, vals):  # write vals (bf16 bits) into row r from column c
        x[r, c:c + len(vals)] = vals

    nb = k // 32
    for r in range(0, m, 8):  # one special row in 8, a different pattern per block
        for j in range(nb):
            kind = (r // 8 + j) % 16
            c = j * 32
            if kind == 0:  # all zeros, both signs
                put(r, c, np.where(np.arange(32) % 3 == 0, 0x8000, 0x0000).astype(np.uint16))
            elif kind == 1:  # NaN among normals (both signs, payloads)
                rowblocks[r, j, (r + j) % 32] = [0x7FC0, 0xFFC0, 0x7F81, 0xFFFF][j % 4]
            elif kind == 2:  # +-Inf
                rowblocks[r, j, (r * 7 + j) % 32] = 0x7F80 if j % 2 else 0xFF80
            elif kind == 3:  # only subnormals
                put(r, c, (rng.integers(1, 128, 32) | (rng.integers(0, 2, 32) << 15)).astype(np.uint16))
            elif kind == 4:  # subnormals next to tiny normals (amax 2^-126 .. 2^-117)
                v = rng.integers(1, 128, 32).astype(np.uint16)
                v[:4] = bf16_bits([2.0 ** -126, -(2.0 ** -120), 2.0 ** -117 * 1.5, 2.0 ** -118])
                put(r, c, v)
            elif kind == 5:  # e4m3 edges with amax in [256, 512): floor e = 0
                v = bf16_bits([448, 456, 464, 472, 480, 500, 508, -464, 1, -1, 0.5, 2 ** -9, 2 ** -10, 3 * 2 ** -11] * 2 + [384, 416, 432, 440])
                put(r, c, v)
            elif kind == 6:  # the same edges, scaled by 2^-40 (values stay normal)
                v = np.array([448, 456, 464, 472, 480, 500, 508, -464] * 4, dtype=np.float32) * np.float32(2.0 ** -40)
                put(r, c, bf16_bits(v))
            elif kind == 7:  # e2m1 ties with amax 6 (floor e = 0) and 7 (rounds to 8: saturates)
                put(r, c, bf16_bits([6, 5, 2.5, 0.25, -0.25, 0.75, 1.25, 1.75, 3, 3.5, 7, -5, 0, -0.0, 4.5, 0.125] * 2))
            elif kind == 8:  # largest bf16 magnitudes
                put(r, c, np.array([0x7F7F, 0xFF7F, 0x7F00, 0x3F80] * 8, dtype=np.uint16))
            elif kind == 9:  # rceil: amax*(1/448) lands in the fp32 subnormals (2^-127..2^-126)
                top = [2.0 ** -118, 2.0 ** -119, 1.5 * 2.0 ** -118, 1.75 * 2.0 ** -118, 1.25 * 2.0 ** -119][(r // 8 + j) % 5]
                v = bf16_bits([top, -top / 2, 2.0 ** -126, -(2.0 ** -127)] + [2.0 ** -125] * 28)
                put(r, c, v)
            elif kind == 10:  # a NaN and an Inf together, rest zeros
                v = np.zeros(32, dtype=np.uint16)
                v[3], v[17] = 0xFFC1, 0x7F80
                put(r, c, v)
            elif kind == 11:  # one Inf, the rest subnormals (finite amax subnormal)
                v = rng.integers(1, 128, 32).astype(np.uint16)
                v[5] = 0xFF80
                put(r, c, v)
            elif kind == 12:  # amax exactly a power of two (rceil: q just above 2^e)
                put(r, c, bf16_bits([256.0, -128.0, 1.0, 3.0] * 8))
    for cc in range(0, k, 64):  # colwise: a column in 64 with vertical patterns
        col = x[:, cc]
        colblocks = col.reshape(m // 32, 32)
        for j in range(m // 32):
            kind = (cc // 64 + j) % 6
            if kind == 0:
                colblocks[j] = 0x8000 if j % 2 else 0
            elif kind == 1:
                colblocks[j, j % 32] = 0x7FC0
            elif kind == 2:
                colblocks[j] = bf16_bits([448, 464, 480, -508] * 8)
            elif kind == 3:
                colblocks[j] = rng.integers(1, 128, 32).astype(np.uint16)
            elif kind == 4:
                colblocks[j, 7] = 0xFF80
        x[:, cc] = col
    return x


def run_cli(exe, x16, recipe, axis, workdir):
    """The reference's bytes: `mxconform quantize` on x16 (uint16 bf16 bits
    [M][K]). Returns dict(data=uint8 array, scales=uint8 array, json=dict);
    colwise asks for transposed data and dense scales."""
    workdir = pathlib.Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    tag = recipe.replace(":", "-") + "-" + axis
    inp = workdir / f"{tag}.in.npy"
    np.save(inp, np.ascontiguousarray(x16, dtype=np.uint16))
    out = workdir / tag
    cmd = [str(exe), "quantize", "--recipe", recipe, "--in", str(inp), "--layout", "dense", "--out", str(out)]
    if axis == "colwise":
        cmd += ["--axis", "colwise", "--data-order", "transposed"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: rc {p.returncode}: {p.stderr.strip()[:300]}")
    meta = json.loads((workdir / f"{tag}.json").read_text())
    data = np.load(workdir / f"{tag}.data.npy")
    scales = np.load(workdir / f"{tag}.scales.npy")
    m, k = x16.shape
    rows, cols = (k, m) if axis == "colwise" else (m, k)
    data = data.reshape(rows, -1)
    scales = scales.reshape(rows, (cols + 31) // 32)
    return dict(data=data, scales=scales, json=meta)
