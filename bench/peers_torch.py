"""peers_torch.py - the PyTorch half of bench/peers.py (issue 9, point 2): the
input fill of mxbench, CUDA-event timing with mxbench's method, the compiled
peer quantizers, and the bytes check against the reference.

The "spec" peer is bench/peers_mx.quantize on TorchOps: the exact code path
whose NumPy twin conformance/peers/test_peers_mx.py checks against the golden
vectors and the CLI. The "user" peer is MXFP8 as a Hopper user writes it with
fp32 arithmetic and torch's fp8 cast (C3 exponent from the amax bits, then
x * 2^-e, clamp to +-448 (C2 saturate), cast (rne), NaN -> 0x7f (C2
nan_canonical; torch's own cast keeps the NaN's sign)).
"""
from __future__ import annotations

import statistics

import numpy as np
import torch

import peers_mx as pm
import peers_special as ps

M32 = 0xFFFFFFFF


def triton_version():
    try:
        import triton

        return triton.__version__
    except Exception as e:  # noqa: BLE001
        return f"unavailable ({type(e).__name__})"


def _mul32(a, c):
    """(a * c) mod 2^32 for 0 <= a, c < 2^32 without leaving int64."""
    lo = a * (c & 0xFFFF)
    hi = (a * (c >> 16)) & 0xFFFF
    return (lo + (hi << 16)) & M32


def mxbench_fill(M, K, b, chunk=1 << 25):
    """The bf16 tensor mxbench's k_fill_bf16 writes into its buffer b (same
    hash, seed 0x9E3779B9 * (b + 1)): sign, exponent 119..134, random mantissa."""
    seed = (0x9E3779B9 * (b + 1)) & M32
    n = M * K
    out = torch.empty(n, dtype=torch.int16, device="cuda")
    for s in range(0, n, chunk):
        i = torch.arange(s, min(n, s + chunk), dtype=torch.int64, device="cuda")
        h = _mul32(i & M32, 2654435761) ^ seed ^ (i >> 32)
        h = h ^ (h >> 15)
        h = _mul32(h, 2246822519)
        h = h ^ (h >> 13)
        e = 119 + (h >> 24) % 16
        p = ((h & 1) << 15) | (e << 7) | ((h >> 8) & 0x7F)
        out[s:s + i.numel()] = p.to(torch.int32).to(torch.int16)  # wraps like the uint16 store
    return out.view(torch.bfloat16).reshape(M, K)


def time_calls(calls, warm, iters):
    """Median kernel time in us: each launch between its own pair of events,
    after `warm` launches, rotating over the calls (one per buffer)."""
    nb = len(calls)
    for i in range(warm):
        calls[i % nb]()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    for i in range(iters):
        ev[i][0].record()
        calls[(warm + i) % nb]()
        ev[i][1].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in ev) * 1e3


def graphed(call):
    """call() captured once in a CUDA graph; returns the replay."""
    call()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        keep = call()
    torch.cuda.synchronize()

    def replay(g=g, keep=keep):
        g.replay()

    return replay


def user_mxfp8(x, rule):
    """MXFP8 e4m3 rowwise with fp32 ops and torch's fp8 cast (see the header)."""
    T = pm.torch_ops()
    M, K = x.shape
    xf = x.float().reshape(M, K // pm.V, pm.V)
    a = xf.abs()
    finite = a < float("inf")
    amax = torch.where(finite, a, 0.0).amax(-1)
    nonfinite = ~finite.all(-1)
    e = pm.scale_exponent(T, amax.view(torch.int32), "e4m3", rule)
    inv = ((127 - e) << 23).view(torch.float32)  # 2^-e, a normal fp32 for every e C3 gives here
    y = torch.clamp(xf * inv.unsqueeze(-1), -448.0, 448.0)
    codes = y.to(torch.float8_e4m3fn).view(torch.uint8)
    codes = torch.where(torch.isnan(xf), 0x7F, codes)
    scales = torch.where(nonfinite, 0xFF, e + 127).to(torch.uint8)
    return codes.reshape(M, K), scales


def compiled(recipe, axis, variant):
    T = pm.torch_ops()
    if variant == "spec":
        def f(x):
            return pm.quantize(T, T.bits_from_bf16(x), recipe, axis)
    elif variant == "user" and axis == "rowwise" and recipe.startswith("mxfp8_e4m3"):
        rule = "rceil" if recipe.endswith(":rceil") else "floor"

        def f(x):
            return user_mxfp8(x, rule)
    else:
        raise ValueError(f"no {variant} peer for {recipe} {axis}")
    return torch.compile(f, dynamic=False)


def _region(data, scales, recipe, axis, m, k):
    """The outputs that belong to the top-left [m][k] block of the input."""
    elem = pm.RECIPES[recipe][0]
    if axis == "colwise":
        return data[:k, :m], scales[:k, :m // pm.V]
    w = k // 2 if elem == "e2m1" else k
    return data[:m, :w], scales[:m, :k // pm.V]


def _diff(got, want):
    got, want = np.asarray(got).ravel(), np.asarray(want).ravel()
    if got.shape != want.shape:
        return f"size {got.size} vs {want.size}"
    d = np.flatnonzero(got != want)
    return "" if d.size == 0 else f"{d.size} bytes differ, first at flat index {d[0]}: {got[d[0]]:#04x} vs {want[d[0]]:#04x}"


def check_bytes(fn, x, recipe, axis, variant, cli, tmp, say, shape):
    """Compare fn's bytes with the reference; returns a one-line verdict.
    M >= 512 and K >= 1024: the 512x1024 special-value block (peers_special)
    is written into the top-left of a copy of x, compared with the CLI (or,
    without one, the NumPy twin); the first 64 rows (rowwise) or 64 source
    rows (colwise) of the whole width are compared with the NumPy twin.
    Smaller inputs: the whole output, with the CLI and the twin."""
    M, K = shape
    Np = pm.NumpyOps
    if M >= 512 and K >= 1024:
        x16 = ps.special_bf16(512, 1024)
        xc = x.clone()
        xc[:512, :1024] = torch.from_numpy(x16.view(np.int16)).to(x.device).view(torch.bfloat16)
        what = "512x1024 special block"
    else:
        xc = x
        x16 = x.view(torch.int16).cpu().numpy().view(np.uint16)
        what = f"whole {M}x{K}"
    data, scales = fn(xc)
    torch.cuda.synchronize()
    data, scales = data.cpu().numpy(), scales.cpu().numpy()
    verdict = []
    gd, gs = _region(data, scales, recipe, axis, *x16.shape)
    if cli:
        ref = ps.run_cli(cli, x16, recipe, axis, tmp)
        wd, ws, who = ref["data"], ref["scales"], "CLI"
    else:
        wd, ws = pm.quantize(Np, Np.bits_from_bf16(x16), recipe, axis)
        who = "NumPy twin (no CLI)"
    ds, dd = _diff(gs, ws), _diff(gd, wd)
    verdict.append(f"{who} on {what}: " + ("equal" if not (ds or dd) else f"scales {ds or 'equal'}; data {dd or 'equal'}"))
    rows = min(M, 64)
    xs = xc[:rows].contiguous().view(torch.int16).cpu().numpy().view(np.uint16)
    td, ts = pm.quantize(Np, Np.bits_from_bf16(xs), recipe, axis)
    if axis == "colwise":
        gd2, gs2 = data[:, :rows], scales[:, :(rows + pm.V - 1) // pm.V]
    else:
        gd2, gs2 = data[:rows], scales[:rows]
    ds, dd = _diff(gs2, ts), _diff(gd2, td)
    verdict.append(f"twin on {rows} rows x {K}: " + ("equal" if not (ds or dd) else f"scales {ds or 'equal'}; data {dd or 'equal'}"))
    msg = "; ".join(verdict)
    say(f"{M}x{K} {recipe} {axis} {variant}: {msg}")
    return msg
