"""conformance/survey/inputs.py - the survey's fixed input set (issue 8 point 3, issue 14).

Deterministic, NumPy only (works with NumPy 1.24 .. 2.x), so the CPU tests can
regenerate exactly the inputs the GPU machine converted instead of checking
them in. Three sources:

  bf16  every 16-bit pattern, 0x0000 .. 0xFFFF (uint16 bits)
  fp16  every 16-bit pattern, 0x0000 .. 0xFFFF (uint16 bits)
  fp32  a structured set (uint32 bits, sorted, unique), built from
        - every biased exponent 0..255 x mantissa patterns that sit on and
          next to the rounding position of every target precision (1..10
          fraction bits kept: tie, tie +- 1, odd/even kept lsb + tie, sticky)
        - every representable value of every MX element/scale format, every
          midpoint between neighbours (C2 round-to-nearest decision points),
          the overflow midpoint above max finite, each +- 1 fp32 ulp
        - every power of two 2^-149 .. 2^127, 1.5 * 2^k, each +- 1 ulp (e8m0)
        - +-0, +-Inf, NaNs of both signs with several payloads
        - 2^16 pseudo-random bit patterns and 2^15 pseudo-random values with
          exponents in [-30, 20] (splitmix64, fixed seed)
        all with both signs.

GENERATOR_VERSION changes whenever the set changes; the collected archive
records it and the sha256 of the fp32 bits so a mismatch is detected.
"""

import hashlib

import numpy as np

GENERATOR_VERSION = 1

# name: (ebits, mbits, bias, special) with special in
#   'fn'   only the all-ones code is NaN (e4m3)
#   'ieee' top exponent is Inf/NaN (e5m2)
#   'none' every code finite (e3m2, e2m3, e2m1)
#   'e8m0' unsigned, no zero, 0xFF is NaN
FORMATS = {
    "e4m3": (4, 3, 7, "fn"),
    "e5m2": (5, 2, 15, "ieee"),
    "e3m2": (3, 2, 3, "none"),
    "e2m3": (2, 3, 1, "none"),
    "e2m1": (2, 1, 1, "none"),
    "e8m0": (8, 0, 127, "e8m0"),
}

SPECIAL_BITS = [
    0x00000000, 0x7F800000,              # +0, +Inf
    0x7FC00000, 0x7F800001, 0x7FFFFFFF,  # quiet NaN, smallest sNaN payload, all ones
    0x7FA00000, 0x7F800100, 0x7FE00000,  # payload bits where e5m2/e4m3 fractions would sit
    0x7FC00001, 0x7FBFFFFF, 0x7F900000,
]


def format_values(name):
    """Every non-negative finite value of a format, ascending, as float64."""
    eb, mb, bias, special = FORMATS[name]
    vals = []
    for e in range(1 << eb):
        for m in range(1 << mb):
            if special == "ieee" and e == (1 << eb) - 1:
                continue
            if special == "fn" and e == (1 << eb) - 1 and m == (1 << mb) - 1:
                continue
            if special == "e8m0":
                if e == 255:
                    continue
                vals.append(2.0 ** (e - bias))
            elif e == 0:
                vals.append(m * 2.0 ** (1 - bias - mb))
            else:
                vals.append((1 + m / (1 << mb)) * 2.0 ** (e - bias))
    return sorted(set(vals))


def _f32_exact(v):
    """fp32 bits of v if v is exactly an fp32 (finite), else None."""
    if abs(v) > 3.4028234663852886e38:
        return None
    f = np.float32(v)
    if not np.isfinite(f) or float(f) != v:
        return None
    return int(np.array([f], dtype=np.float32).view(np.uint32)[0])


def _with_neighbours(bits):
    """bits and its +-1 ulp neighbours (same sign, finite, positive side)."""
    out = []
    for b in bits:
        for d in (-1, 0, 1):
            c = b + d
            if 0 <= c < 0x7F800000:
                out.append(c)
    return out


def _splitmix64(seed, n):
    """n pseudo-random uint64 values; explicit so every NumPy gives the same."""
    with np.errstate(over="ignore"):
        z = (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
             + np.uint64(seed))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return z


def _mantissa_patterns():
    pats = {0, 1, 2, 3, 0x7FFFFF, 0x7FFFFE, 0x400000, 0x3FFFFF, 0x400001}
    for kept in range(0, 11):  # fraction bits a target keeps (e8m0 0 .. fp16 10)
        half = 1 << (22 - kept)
        ulp = half << 1 if kept > 0 else 0
        for base in {0, ulp} if ulp < (1 << 23) else {0}:
            for d in (-1, 0, 1):
                p = base + half + d
                if 0 <= p < (1 << 23):
                    pats.add(p)
        pats.add(half | 1)  # tie + sticky in the last bit
    return sorted(pats)


def fp32_set():
    """The structured fp32 input set: uint32 bits, sorted, unique."""
    pos = set()
    pats = _mantissa_patterns()
    for e in range(256):
        if e == 255:
            continue
        for p in pats:
            pos.add((e << 23) | p)
    for name in FORMATS:
        vals = format_values(name)
        points = list(vals)
        points += [(a + b) / 2 for a, b in zip(vals, vals[1:])]
        vmax = vals[-1]
        top_ulp = vals[-1] - vals[-2]
        points += [vmax + top_ulp / 2, vmax + top_ulp, 2 * vmax, vals[1] / 2, vals[1] / 4]
        bits = [b for b in (_f32_exact(v) for v in points) if b is not None]
        pos.update(_with_neighbours(bits))
    for k in range(-149, 128):
        for v in (2.0 ** k, 1.5 * 2.0 ** k, 1.25 * 2.0 ** k, 1.75 * 2.0 ** k):
            b = _f32_exact(v)
            if b is not None:
                pos.update(_with_neighbours([b]))
    pos.update(b for b in SPECIAL_BITS)
    r = _splitmix64(0x5EED0001, 1 << 16)
    rand_bits = (r >> np.uint64(32)).astype(np.uint32)
    r2 = _splitmix64(0x5EED0002, 1 << 15)
    exps = (r2 % np.uint64(51)).astype(np.int64) - 30 + 127
    mant = ((r2 >> np.uint64(20)) & np.uint64(0x7FFFFF)).astype(np.int64)
    rand_vals = ((exps << 23) | mant).astype(np.uint32)
    pos_arr = np.array(sorted(pos), dtype=np.uint32)
    allbits = np.concatenate([pos_arr, pos_arr | np.uint32(0x80000000), rand_bits,
                              rand_vals, rand_vals | np.uint32(0x80000000)])
    return np.unique(allbits)


def all16():
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


def source_bits(source):
    """Input bits for a source type: 'fp32' -> uint32, 'bf16'/'fp16' -> uint16."""
    if source == "fp32":
        return fp32_set()
    if source in ("bf16", "fp16"):
        return all16()
    raise ValueError(f"unknown source type {source!r} (fp32, bf16, fp16)")


def digest(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def describe():
    f = fp32_set()
    return {"generator_version": GENERATOR_VERSION,
            "fp32": {"count": int(f.size), "sha256": digest(f)},
            "bf16": {"count": 65536, "sha256": digest(all16())},
            "fp16": {"count": 65536, "sha256": digest(all16())}}


if __name__ == "__main__":
    import json
    print(json.dumps(describe(), indent=1))
