#!/usr/bin/env python3
"""Worked example: fill the observed column of an mxconform `convert` vector
file with an independent NumPy implementation of element encoding, then let
`mxconform check` judge it byte for byte.

    mxconform gen --out vec
    python3 tools/examples/fill_vectors.py vec/convert/e2m1_from_fp32.csv filled.csv
    mxconform check filled.csv

This file shares no code with the C++ reference: it builds the table of
representable values from the format definition (reference/SPEC.md C1) and rounds to
nearest, ties to even, with saturation (C2 defaults). It fills only the rows
whose policies it implements (rounding rne, overflow saturate, the default NaN
policy, no input flushing) and leaves the others empty, which `check` counts as
unfilled. `--ties-away` simulates a common bug (rounding ties away from zero)
so you can see what a mismatch report looks like.
"""
import sys

import numpy as np

# name: (exponent bits, mantissa bits, bias, has NaN code 0x7F like e4m3)
FORMATS = {
    "e4m3": (4, 3, 7, True),
    "e3m2": (3, 2, 3, False),
    "e2m3": (2, 3, 1, False),
    "e2m1": (2, 1, 1, False),
}
DEFAULT_NAN = {"e4m3": "nan_canonical", "e3m2": "nan_to_max", "e2m3": "nan_to_max", "e2m1": "nan_to_max"}


def magnitudes(ebits, mbits, bias, fn_nan):
    """Values of the non-negative codes 0..max finite, in code order."""
    vals = []
    for code in range(1 << (ebits + mbits)):
        e, m = code >> mbits, code & ((1 << mbits) - 1)
        if fn_nan and e == (1 << ebits) - 1 and m == (1 << mbits) - 1:
            break  # e4m3: S.1111.111 is NaN, not a value
        if e == 0:
            vals.append(m * 2.0 ** (1 - bias - mbits))
        else:
            vals.append((1 + m / 2.0 ** mbits) * 2.0 ** (e - bias))
    return np.array(vals, dtype=np.float64)


def encode_rne_saturate(x, fmt, ties_away=False):
    """Element codes for fp32 inputs x (np.float32 array)."""
    ebits, mbits, bias, fn_nan = FORMATS[fmt]
    vals = magnitudes(ebits, mbits, bias, fn_nan)
    maxc = len(vals) - 1
    sign_bit = 1 << (ebits + mbits)
    with np.errstate(invalid="ignore"):  # NaN inputs (handled below)
        a = np.abs(x.astype(np.float64))
    finite = np.isfinite(a)
    a_f = np.where(finite, a, 0.0)
    # lo: the largest representable magnitude <= a; hi: the next one (above
    # max finite, max + one ulp, as if the format had one more binade).
    lo = np.clip(np.searchsorted(vals, a_f, side="right") - 1, 0, maxc)
    ext = np.append(vals, vals[-1] + (vals[-1] - vals[-2]))
    hi = lo + 1
    d_lo, d_hi = a_f - ext[lo], ext[hi] - a_f
    if ties_away:
        up = d_hi <= d_lo
    else:
        up = (d_hi < d_lo) | ((d_hi == d_lo) & (lo % 2 == 1))
    code = np.where(up, hi, lo)
    code = np.minimum(code, maxc)  # overflow saturates to max finite
    code = np.where(finite, code, maxc)  # +-Inf saturates
    code = code | np.where(np.signbit(x), sign_bit, 0)
    nan = np.isnan(x)
    code = np.where(nan, 0x7F if fn_nan else maxc, code)  # canonical NaN / nan_to_max
    return code.astype(np.uint32)


def load_inputs(hexes, input_type):
    raw = np.array([int(h, 16) for h in hexes], dtype=np.uint32)
    if input_type == "fp32":
        return raw.view(np.float32)
    if input_type == "bf16":
        return (raw << 16).view(np.float32)
    return raw.astype(np.uint16).view(np.float16).astype(np.float32)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    ties_away = "--ties-away" in argv
    if len(args) != 2:
        print(__doc__)
        return 2
    src, dst = args
    with open(src) as f:
        lines = f.read().split("\n")[:-1]
    header = {}
    i = 0
    while lines[i].startswith("#"):
        if ": " in lines[i]:
            k, v = lines[i][2:].split(": ", 1)
            header.setdefault(k, v)
        i += 1
    if header.get("kind") != "convert" or header.get("format") not in FORMATS:
        print(f"{src}: this example fills convert files of {', '.join(FORMATS)} only", file=sys.stderr)
        return 2
    fmt, input_type = header["format"], header["input"]
    cols = lines[i].split(",")
    at = {c: n for n, c in enumerate(cols)}
    rows = [r.split(",") for r in lines[i + 1:]]
    mine = [r for r in rows if r[at["rounding"]] == "rne" and r[at["overflow"]] == "saturate"
            and r[at["nan"]] == DEFAULT_NAN[fmt] and r[at["flush"]] == "0"]
    codes = encode_rne_saturate(load_inputs([r[at["in"]] for r in mine], input_type), fmt, ties_away)
    for r, c in zip(mine, codes):
        r[at["observed"]] = f"{int(c):02x}"
    with open(dst, "w") as f:
        f.write("\n".join(lines[: i + 1] + [",".join(r) for r in rows]) + "\n")
    print(f"{dst}: filled {len(mine)} of {len(rows)} rows ({fmt} rne saturate from {input_type})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
