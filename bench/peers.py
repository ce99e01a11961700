#!/usr/bin/env python3
"""peers.py - the peer column of the benchmark (issue 9, point 2).

Run on the GPU machine in the same device call as mxbench (tools/gpu-check.sh
runs it right after mxbench):

    python3 bench/peers.py --mxbench-csv $OUT/bench.csv --out $OUT [--budget-s 140]

Times, with mxbench's method (each launch between its own pair of CUDA events,
5 warm-ups, median of 50 launches at 16384x16384 and 200 below, over rotating
input buffers that together are >= 4x L2; the input is mxbench's own fill,
random bf16 with |x| in [2^-8, 2^8)):
  - a bf16 device-to-device copy (`y.copy_(x)`), the denominator of the peer
    ratios (mxbench's own copy figure, from its CSV, is printed beside it);
  - torch's plain `x.to(torch.float8_e4m3fn)` (no scaling at all);
  - the MX quantizer of bench/peers_mx.py (written from reference/SPEC.md,
    integer bit operations, the code path the NumPy twin is tested on) under
    torch.compile: MXFP8 e4m3 rowwise floor and rceil, colwise (transposed
    data, dense scales), MXFP4 rowwise (packed);
  - a "user" MXFP8 quantizer as a Hopper user writes it (fp32 amax, the
    scale exponent from the amax bits, multiply by 2^-e, clamp to +-448,
    `.to(torch.float8_e4m3fn)`), under torch.compile, floor and rceil.
Before timing, each compiled quantizer's bytes are compared with the
reference (`mxconform quantize`, found by --mxconform / $MXCONFORM /
.gpu-bin/mxconform / build*/tools/mxconform) on a 512x1024 bf16 block of
special values embedded in the 16384x16384 input, and with the NumPy twin on
the whole 128x7168 input: the first differing index is reported.

Writes $OUT/peers.csv, $OUT/peers.md (rewritten after every figure, so a cut
run keeps what it measured) and prints the table. Every step is in try/except;
an error or a skipped step (time budget) is a row with its reason. No network.
"""
from __future__ import annotations

import argparse
import csv
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

os.environ.setdefault("PYTHONUNBUFFERED", "1")
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SIZES = [(16384, 16384), (8192, 7168), (128, 7168)]
# operation -> (mxbench case of ours, note on ours)
OURS = {
    "bf16 copy (D2D)": ("copy_bf16 (cudaMemcpyAsync D2D)", ""),
    "fp8 e4m3 cast, no block scaling": ("per-tensor fp8 cast", "ours: per-tensor cast (x*scale, amax given)"),
    "MXFP8 e4m3 rowwise floor": ("mxfp8_e4m3 rowwise dense", ""),
    "MXFP8 e4m3 rowwise rceil": ("mxfp8_e4m3:rceil rowwise tcgen05", "ours: tcgen05 scales"),
    "MXFP8 e4m3 colwise transposed": ("mxfp8_e4m3 colwise transposed dense", ""),
    "MXFP4 rowwise floor": ("mxfp4 rowwise tcgen05", "ours: tcgen05 scales"),
}
# compiled peers: (operation, implementation label, recipe, axis, variant)
PEERS = [
    ("MXFP8 e4m3 rowwise floor", "torch.compile MX (user: fp32 scale + fp8 cast)", "mxfp8_e4m3", "rowwise", "user"),
    ("MXFP8 e4m3 rowwise floor", "torch.compile MX (spec: integer)", "mxfp8_e4m3", "rowwise", "spec"),
    ("MXFP8 e4m3 rowwise rceil", "torch.compile MX (user: fp32 scale + fp8 cast)", "mxfp8_e4m3:rceil", "rowwise", "user"),
    ("MXFP8 e4m3 rowwise rceil", "torch.compile MX (spec: integer)", "mxfp8_e4m3:rceil", "rowwise", "spec"),
    ("MXFP8 e4m3 colwise transposed", "torch.compile MX (spec: integer)", "mxfp8_e4m3", "colwise", "spec"),
    ("MXFP4 rowwise floor", "torch.compile MX (spec: integer)", "mxfp4", "rowwise", "spec"),
]
FIELDS = ["size", "operation", "implementation", "median_us", "GBps", "ratio_to_copy", "copy_basis", "bytes",
          "bytes_check", "note"]


class Run:
    def __init__(self, args):
        self.args = args
        self.t0 = time.monotonic()
        self.rows = []
        self.out = pathlib.Path(args.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.log = open(self.out / "peers.log", "a")

    def left(self):
        return self.args.budget_s - (time.monotonic() - self.t0)

    def say(self, msg):
        line = f"[peers {time.monotonic() - self.t0:6.1f}s] {msg}"
        print(line, flush=True)
        self.log.write(line + "\n")
        self.log.flush()

    def add(self, **row):
        self.rows.append({f: row.get(f, "") for f in FIELDS})
        self.write()

    def write(self):
        with open(self.out / "peers.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(self.rows)
        md = ["| size | operation | implementation | us | GB/s | ratio to copy | copy | bytes check | note |",
              "|---|---|---|---:|---:|---:|---|---|---|"]
        for r in self.rows:
            md.append("| " + " | ".join(str(r[k]) for k in ["size", "operation", "implementation", "median_us", "GBps",
                                                           "ratio_to_copy", "copy_basis", "bytes_check", "note"]) + " |")
        (self.out / "peers.md").write_text("\n".join(self.header + [""] + md) + "\n")

    header = []


def read_mxbench(path):
    """{(M, K, case): row} from mxbench's CSV; {} if absent."""
    out = {}
    try:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                out[(int(r["M"]), int(r["K"]), r["case"])] = r
    except OSError:
        pass
    return out


def find_cli(explicit):
    for c in [explicit, os.environ.get("MXCONFORM"), ".gpu-bin/mxconform", *sorted(map(str, pathlib.Path(".").glob("build*/tools/mxconform"))),
              shutil.which("mxconform")]:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mxbench-csv", default="")
    ap.add_argument("--out", default=os.environ.get("OUT", "gpu-out"))
    ap.add_argument("--budget-s", type=float, default=float(os.environ.get("PEERS_BUDGET_S", 140)))
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--mxconform", default="")
    ap.add_argument("--size", action="append", default=[], help="MxK (repeatable); default 16384x16384 8192x7168 128x7168")
    ap.add_argument("--no-graphs", action="store_true", help="skip the CUDA-graph timing of the small shape")
    args = ap.parse_args()
    run = Run(args)
    try:
        return body(run, args)
    except Exception as e:  # last resort: keep the table and say why
        run.say("FATAL: " + "".join(traceback.format_exception_only(type(e), e)).strip())
        run.log.write(traceback.format_exc())
        run.write()
        return 1


def body(run, args):
    import torch

    import peers_torch as pt

    sizes = [tuple(int(v) for v in s.split("x")) for s in args.size] or SIZES
    dev = torch.cuda.get_device_properties(0)
    ours = read_mxbench(args.mxbench_csv) if args.mxbench_csv else {}
    cli = find_cli(args.mxconform)
    cli_note = ""
    if cli:
        try:
            p = subprocess.run([cli, "formats"], capture_output=True, text=True, timeout=30)
            if p.returncode != 0:
                cli_note, cli = f" ({cli} does not run: rc {p.returncode}: {p.stderr.strip()[:120]})", None
        except OSError as e:
            cli_note, cli = f" ({cli} does not run: {e})", None
    run.header = [
        f"# Peers beside mxbench (issue 9), {time.strftime('%Y-%m-%d %H:%M:%S')}",
        "",
        f"device: {dev.name}, {dev.multi_processor_count} SMs, L2 {dev.L2_cache_size / 1e6:.0f} MB; torch {torch.__version__}, "
        f"CUDA {torch.version.cuda}, triton {pt.triton_version()}",
        f"mxbench CSV: {args.mxbench_csv or '(none)'} ({len(ours)} rows); reference for the bytes check: "
        f"{cli or 'NumPy twin (no mxconform CLI found)'}{cli_note}",
        "ratio = effective bandwidth (bytes read + written) / bf16 copy bandwidth; ours against mxbench's copy, "
        "the peers against the torch copy of this process (both copies are rows).",
    ]
    run.say(run.header[2])
    run.write()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="peers-"))
    l2 = float(dev.L2_cache_size)
    for (M, K) in sizes:
        if run.left() < 10:
            run.add(size=f"{M}x{K}", operation="(all)", implementation="(all)", note="skipped: time budget")
            continue
        sz = f"{M}x{K}"
        n = M * K
        nbuf = int(min(max(4.0 * l2 / (2.0 * n) + 1.0, 2.0), 64.0))
        iters = args.iters if n >= (1 << 26) else args.iters * 4
        small = n < (1 << 22)
        run.say(f"{sz}: {nbuf} buffers, {iters} launches")
        X = [pt.mxbench_fill(M, K, b) for b in range(nbuf)]
        torch.cuda.synchronize()
        # ours, straight from mxbench's CSV
        for op, (case, note) in OURS.items():
            r = ours.get((M, K, case))
            if r:
                run.add(size=sz, operation=op, implementation=f"ours: {case}", median_us=r["median_us"], GBps=r["GBps"],
                        ratio_to_copy=f"{float(r['ratio_to_copy']):.3f}", copy_basis="mxbench", bytes=r["bytes"],
                        note=note)
            else:
                run.add(size=sz, operation=op, implementation=f"ours: {case}", note="not in the mxbench CSV")
        copy_gbs = [0.0]

        def ratio(gbs):
            return f"{gbs / copy_gbs[0]:.3f}" if copy_gbs[0] else "n/a (no copy figure)"

        def timed(op, impl, nbytes, make, check="", note=""):
            """make(b) -> a zero-argument callable launching on buffer b."""
            if run.left() < 5:
                run.add(size=sz, operation=op, implementation=impl, note="skipped: time budget")
                return
            try:
                calls = [make(b) for b in range(nbuf)]
                us = pt.time_calls(calls, 5, iters)
                gbs = nbytes / (us * 1e-6) / 1e9
                if op == "bf16 copy (D2D)":
                    copy_gbs[0] = gbs
                run.add(size=sz, operation=op, implementation=impl, median_us=f"{us:.2f}", GBps=f"{gbs:.1f}",
                        ratio_to_copy=ratio(gbs), copy_basis="torch", bytes=f"{nbytes:.0f}",
                        bytes_check=check, note=note)
                if small and not args.no_graphs and run.left() > 5:
                    us_g = pt.time_calls([pt.graphed(c) for c in calls], 5, iters)
                    gbs_g = nbytes / (us_g * 1e-6) / 1e9
                    run.add(size=sz, operation=op, implementation=impl + " [CUDA graph]", median_us=f"{us_g:.2f}",
                            GBps=f"{gbs_g:.1f}", ratio_to_copy=ratio(gbs_g), copy_basis="torch",
                            bytes=f"{nbytes:.0f}", bytes_check=check,
                            note="one launch replayed from a CUDA graph (no Python/launch overhead)")
            except Exception as e:
                run.say(f"{sz} {op} / {impl}: {type(e).__name__}: {e}")
                run.add(size=sz, operation=op, implementation=impl, note=f"error: {type(e).__name__}: {str(e)[:160]}")

        Y = [torch.empty_like(x) for x in X]
        timed("bf16 copy (D2D)", "torch: y.copy_(x)", 4.0 * n, lambda b: (lambda: Y[b].copy_(X[b])))
        timed("fp8 e4m3 cast, no block scaling", "torch: x.to(torch.float8_e4m3fn)", 3.0 * n,
              lambda b: (lambda: X[b].to(torch.float8_e4m3fn)))
        Y = None  # noqa: F841 (frees the copy targets)
        for op, impl, recipe, axis, variant in PEERS:
            if run.left() < 20:
                run.add(size=sz, operation=op, implementation=impl, note="skipped: time budget (compile)")
                continue
            try:
                t = time.monotonic()
                fn = pt.compiled(recipe, axis, variant)
                data, scales = fn(X[0])  # compiles for this shape
                torch.cuda.synchronize()
                run.say(f"{sz} {recipe} {axis} {variant}: compiled in {time.monotonic() - t:.1f} s")
                check = pt.check_bytes(fn, X[0], recipe, axis, variant, cli, tmp, run.say, (M, K))
                nbytes = 2.0 * n + data.nbytes + scales.nbytes  # bf16 in, codes and dense scales out
                del data, scales
            except Exception as e:
                run.say(f"{sz} {op} / {impl}: {type(e).__name__}: {e}")
                run.log.write(traceback.format_exc())
                run.add(size=sz, operation=op, implementation=impl, note=f"error: {type(e).__name__}: {str(e)[:160]}")
                continue
            timed(op, impl, nbytes, lambda b, fn=fn: (lambda: fn(X[b])), check=check,
                  note="dense scales" if "tcgen05" in OURS[op][0] else "")
        # mxbench's copy of the same size, for the reader to compare the two denominators
        r = ours.get((M, K, OURS["bf16 copy (D2D)"][0]))
        if r and copy_gbs[0]:
            run.say(f"{sz}: copy {float(r['GBps']):.1f} GB/s (mxbench) vs {copy_gbs[0]:.1f} GB/s (torch)")
        X = None  # noqa: F841
        torch.cuda.empty_cache()
    shutil.rmtree(tmp, ignore_errors=True)
    print("\n".join(run.header), flush=True)
    print((run.out / "peers.md").read_text().split("\n\n", 1)[-1], flush=True)
    run.say("done")
    errors = sum(1 for r in run.rows if r["note"].startswith("error") or "differ" in r["bytes_check"])
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
