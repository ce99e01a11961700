#!/usr/bin/env python3
"""Medians per variant from hint.sh's sweep log (mxbench outputs under
'=== <label> <round>' headers). Usage: summarize.py sweep.txt [case-substr...]"""
import re
import statistics
import sys
from collections import defaultdict

ROW = re.compile(r"^(\d+x\d+)\s+(.+?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*(\S*)\s*$")
data = defaultdict(list)  # (label, size, case) -> [(us, gbs, ratio)]
order = []
label = None
for line in open(sys.argv[1]):
    if line.startswith("=== "):
        label = line.split()[1]
        if label not in order:
            order.append(label)
        continue
    m = ROW.match(line.rstrip("\n"))
    if m and label and "b2b" not in line:
        data[(label, m.group(1), m.group(2))].append((float(m.group(3)), float(m.group(4)), float(m.group(5))))
want = sys.argv[2:] or ["copy_bf16", "mxfp8_e4m3 rowwise tcgen05", "mxfp8_e4m3:rceil rowwise tcgen05",
                        "mxfp8_e4m3 rowwise dense", "mxint8 rowwise dense", "colwise source dense_colwise",
                        "colwise source tcgen05", "colwise transposed", "fused", "mxfp4 rowwise", "mxfp6_e3m2",
                        "mxfp6_e2m3", "nvfp4 rowwise", "nvfp4:torchao"]
sizes = sorted({k[1] for k in data}, key=lambda s: -int(s.split("x")[0]) * int(s.split("x")[1]))
cases = []
for k in data:
    if k[2] not in cases and "software" not in k[2] and any(w in k[2] for w in want):
        cases.append(k[2])
for sz in sizes:
    print(f"## {sz}: median us over rounds (ratio median) [n rounds]")
    print(f"{'case':44s} " + " ".join(f"{l:>14s}" for l in order))
    for c in cases:
        cells = []
        for l in order:
            v = data.get((l, sz, c))
            if not v:
                cells.append(f"{'-':>14s}")
                continue
            cells.append(f"{statistics.median(x[0] for x in v):7.2f}({statistics.median(x[2] for x in v):.3f})")
        print(f"{c[:44]:44s} " + " ".join(f"{x:>14s}" for x in cells))
    print()
