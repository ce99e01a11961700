"""peers_mx.py - a plain-array MX quantizer written from reference/SPEC.md, the
"peer" that bench/peers.py compiles with torch.compile (issue 9, point 2).

One code path for two array libraries: every function takes an `ops` object
(NumpyOps here, TorchOps in bench/peers.py) and uses only integer bit
operations, comparisons, where, reshape and max/any reductions, so that the
NumPy twin tested on the CPU (conformance/peers/test_peers_mx.py, against the
golden vectors and the mxconform CLI) is the same arithmetic that Inductor
compiles for the GPU. Floating point appears once: the rceil product of C3
(one fp32 multiplication, as the clause says).

Implements, for fp32 bit patterns (bf16 widens exactly by a 16-bit shift):
  C3  block amax over finite elements; scale rules floor and rceil; clamp to
      [-127, 127]; amax 0 -> code 0x00; non-finite block -> 0xff (policy
      nonfinite_block_nan), elements still encoded against the finite part;
  C2  element codes e4m3 and e2m1: rne, saturate, default NaN policy
      (e4m3 nan_canonical 0x7f, e2m1 nan_to_max 0x7); a zero keeps its sign;
      the value V_i * 2^-e is rounded once, in integers (no fp32 scaling);
  C4  rowwise blocks of 32 along K; colwise = rowwise of the transpose;
  C6  e2m1 packed two per byte, element 2i in bits 3..0.
"""
from __future__ import annotations

import numpy as np

V = 32  # C4: every MX recipe

# C1 parameters: (fraction bits, exponent of the smallest normal, largest
# finite magnitude code, sign bit, NaN code, emax_elem, fp32 bits of the fp32
# value nearest to 1/max_finite (C3 rceil))
ELEM = {
    "e4m3": dict(mbits=3, emin=-6, maxcode=0x7E, signbit=7, nan=0x7F, emax=8, inv_max_bits=0x3B124925),
    "e2m1": dict(mbits=1, emin=0, maxcode=0x7, signbit=3, nan=0x7, emax=2, inv_max_bits=0x3E2AAAAB),
}
RECIPES = {  # recipe name -> (element, scale rule)
    "mxfp8_e4m3": ("e4m3", "floor"),
    "mxfp8_e4m3:rceil": ("e4m3", "rceil"),
    "mxfp4": ("e2m1", "floor"),
    "mxfp4:rceil": ("e2m1", "rceil"),
}


def f32_value(bits):
    """The Python float equal to the fp32 with these bits (exact in a double)."""
    return float(np.array([bits], dtype=np.uint32).view(np.float32)[0])


class NumpyOps:
    """The array operations the quantizer uses, for NumPy (int32 throughout)."""

    i32 = np.int32

    @staticmethod
    def bits_from_bf16(u16):  # uint16 / int16 array of bf16 bit patterns -> fp32 bits (int32)
        return u16.view(np.int16).astype(np.int32) << 16

    @staticmethod
    def bits_from_f32bits(u32):
        return u32.view(np.int32)

    @staticmethod
    def f32_from_bits(b):
        return b.view(np.float32)

    @staticmethod
    def bits_of_f32(f):
        return f.view(np.int32)

    @staticmethod
    def int_to_f32(a):
        return a.astype(np.float32)

    @staticmethod
    def to_u8(a):
        return a.astype(np.uint8)

    @staticmethod
    def i(cond):  # bool -> int32 0/1
        return cond.astype(np.int32)

    @staticmethod
    def pow2(a):  # 1 << a, int32
        return np.left_shift(np.int32(1), a).astype(np.int32)

    where = staticmethod(np.where)
    maximum = staticmethod(np.maximum)
    minimum = staticmethod(np.minimum)

    @staticmethod
    def clip(a, lo, hi):
        return np.clip(a, lo, hi)

    @staticmethod
    def amax(a, axis):
        return a.max(axis=axis)

    @staticmethod
    def any(a, axis):
        return a.any(axis=axis)

    @staticmethod
    def transpose2(a):  # last two axes, materialized
        return np.ascontiguousarray(np.swapaxes(a, -1, -2))

    @staticmethod
    def pad_last(a, n):  # zeros to a multiple of n on the last axis (zeros change no amax, C3)
        r = (-a.shape[-1]) % n
        if r == 0:
            return a
        return np.concatenate([a, np.zeros(a.shape[:-1] + (r,), dtype=a.dtype)], axis=-1)


def scale_exponent(ops, amax_bits, elem, rule):
    """C3: the unclamped-then-clamped scale exponent e in [-127, 127] of finite
    amax bit patterns (int32, sign 0). amax 0 gives -127 (code 0x00)."""
    p = ELEM[elem]
    if rule == "floor":
        # floor(log2 amax) read from the exponent field; a subnormal or zero
        # amax has field 0 and lands at or below -127 (clamped), as C3 says
        e = (amax_bits >> 23) - (127 + p["emax"])
    elif rule == "rceil":
        # q = amax * fp32(1/max_finite), one fp32 multiplication (RNE); e = ceil(log2 q)
        q = ops.bits_of_f32(ops.f32_from_bits(amax_bits) * f32_value(p["inv_max_bits"]))
        eq = q >> 23
        mq = q & 0x7FFFFF
        normal = eq - 127 + ops.i(mq != 0)
        # q subnormal: q = mq * 2^-149; ceil(log2 q) > -127 only for mq > 2^22 (-> -126)
        sub = ops.i(mq > 0x400000) - 127
        e = ops.where(eq > 0, normal, sub)
    else:
        raise ValueError(f"scale rule {rule!r} not implemented in the peer")
    return ops.clip(e, -127, 127)


def encode(ops, b, e, elem):
    """C2: element codes (int32, 0..255) of the exact values x * 2^-e, x given
    by its fp32 bits b, e broadcast against b; rne, saturate, default NaN."""
    p = ELEM[elem]
    mbits, emin = p["mbits"], p["emin"]
    neg = (b >> 31) & 1
    a = b & 0x7FFFFFFF
    E = a >> 23
    Eeff = ops.maximum(E, 1)
    sig = (a & 0x7FFFFF) | (ops.i(E > 0) << 23)  # value = sig * 2^(Eeff - 150)
    # floor(log2 sig) without a count-leading-zeros op: sig < 2^24 converts to
    # fp32 exactly, its exponent field is the answer (sig 0 gives -127)
    L = (ops.bits_of_f32(ops.int_to_f32(sig)) >> 23) - 127
    base = Eeff - 150 - e  # scaled value = sig * 2^base
    k = L + base  # floor(log2) of the scaled value
    kk = ops.maximum(k, emin)  # binade, or the subnormal range
    r = kk - mbits - base  # quantum 2^(kk - mbits) = 2^(base + r): shift sig right by r
    rs = ops.clip(r, 0, 30)  # sig < 2^24: a shift by 30 leaves 0 and rem < half
    ls = ops.clip(-r, 0, 30)  # r < 0 only for tiny sig: exact left shift
    n = (sig >> rs) << ls
    rem = sig & (ops.pow2(rs) - 1)
    half = ops.where(rs > 0, ops.pow2(ops.maximum(rs - 1, 0)), 0x7FFFFFFF)
    up = (rem > half) | ((rem == half) & ((n & 1) == 1))
    n = n + ops.i(up)  # rne on the discarded bits
    # in a normal binade n is 2^mbits..2^(mbits+1) (the top one is the carry
    # into the next binade); in the subnormal range 0..2^mbits
    mag = ((kk - emin) << mbits) + n
    mag = ops.minimum(mag, p["maxcode"])  # saturate (C2 Overflow)
    mag = ops.where(a == 0x7F800000, p["maxcode"], mag)  # +-Inf -> signed max
    code = mag | (neg << p["signbit"])
    return ops.where(a > 0x7F800000, p["nan"], code)  # NaN -> the default NaN code


def quantize_rows(ops, b, elem, rule):
    """C4 rowwise on fp32 bits b [..., K] (K a multiple of 32): codes [..., K]
    (int32, unpacked) and scale codes [..., K/32] (int32)."""
    shp = b.shape
    blk = b.reshape(shp[:-1] + (shp[-1] // V, V))
    a = blk & 0x7FFFFFFF
    finite = a < 0x7F800000
    amax = ops.amax(ops.where(finite, a, 0), -1)  # magnitudes order like their bits
    nonfinite = ops.any(~finite, -1)
    e = scale_exponent(ops, amax, elem, rule)
    codes = encode(ops, blk, e.reshape(e.shape + (1,)), elem)
    scales = ops.where(nonfinite, 0xFF, e + 127)
    return codes.reshape(shp), scales


def pack_e2m1(ops, codes):
    """C6 e2m1 packed: element 2i in bits 3..0, 2i+1 in bits 7..4 (even K)."""
    return codes[..., 0::2] | (codes[..., 1::2] << 4)


def quantize(ops, b, recipe, axis="rowwise", pack=True):
    """b: fp32 bits [M, K] (int32). Returns (data uint8, scales uint8).
    rowwise: data [M][K] (e2m1 packed [M][K/2]), scales dense [M][ceil(K/32)];
    colwise: data transposed [K][M] (torchao dim1), scales dense [K][ceil(M/32)].
    Ragged rows are padded with zeros (no effect on any amax, C3) and cut back."""
    elem, rule = RECIPES[recipe]
    if axis == "colwise":
        b = ops.transpose2(b)
    elif axis != "rowwise":
        raise ValueError(f"axis {axis!r}")
    n = b.shape[-1]
    bp = ops.pad_last(b, V)
    codes, scales = quantize_rows(ops, bp, elem, rule)
    codes = codes[..., :n]
    if elem == "e2m1" and pack:
        if n % 2:
            codes = ops.pad_last(codes, 2)
        codes = pack_e2m1(ops, codes)
    return ops.to_u8(codes), ops.to_u8(scales)


def torch_ops():
    """The same operations for PyTorch tensors (int32 throughout), for
    bench/peers.py; imports torch only when called."""
    import torch
    import torch.nn.functional as F

    def _max(a, b):
        return torch.clamp(a, min=b) if isinstance(b, int) else torch.maximum(a, b)

    def _min(a, b):
        return torch.clamp(a, max=b) if isinstance(b, int) else torch.minimum(a, b)

    class TorchOps:
        i32 = torch.int32

        @staticmethod
        def bits_from_bf16(x):  # bf16 tensor (or int16 bits) -> fp32 bits, int32
            if x.dtype == torch.bfloat16:
                x = x.view(torch.int16)
            return x.to(torch.int32) << 16

        @staticmethod
        def bits_from_f32bits(x):
            return x.view(torch.int32)

        @staticmethod
        def f32_from_bits(b):
            return b.view(torch.float32)

        @staticmethod
        def bits_of_f32(f):
            return f.view(torch.int32)

        @staticmethod
        def int_to_f32(a):
            return a.to(torch.float32)

        @staticmethod
        def to_u8(a):
            return a.to(torch.uint8)

        @staticmethod
        def i(cond):
            return cond.to(torch.int32)

        @staticmethod
        def pow2(a):
            return torch.bitwise_left_shift(torch.ones_like(a), a)

        where = staticmethod(torch.where)
        maximum = staticmethod(_max)
        minimum = staticmethod(_min)

        @staticmethod
        def clip(a, lo, hi):
            return torch.clamp(a, lo, hi)

        @staticmethod
        def amax(a, axis):
            return a.amax(dim=axis)

        @staticmethod
        def any(a, axis):
            return a.any(dim=axis)

        @staticmethod
        def transpose2(a):
            return a.transpose(-1, -2).contiguous()

        @staticmethod
        def pad_last(a, n):
            r = (-a.shape[-1]) % n
            return a if r == 0 else F.pad(a, (0, r))

    return TorchOps
