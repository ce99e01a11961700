#!/usr/bin/env python3
"""conformance/survey/tables.py - the C13.4 profile tables (reference/SPEC.md)
and the README's "What real libraries do" table, from the registry as
`mxconform profiles` prints it and the survey's input sets (issue 14 point 5).

    python3 conformance/survey/tables.py --mxconform build/tools/mxconform [--write]

For every offered (profile, source, format, mode) it encodes the measured
inputs (inputs.py: 167,522 fp32, every bf16, every fp16 pattern) under the
profile and under the OCP default and counts the codes that differ. --write
replaces the text between the `tables.py:begin/end` markers of SPEC.md
(C13.4) and README.md; without it the Markdown is printed.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import inputs as survey_inputs  # noqa: E402
from profiles_cli import profile_rows  # noqa: E402

BEGIN, END = "<!-- tables.py:begin -->", "<!-- tables.py:end -->"
FORMATS = ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "ue8m0", "int8", "ue4m3"]
SOURCES = ["fp32", "bf16", "fp16"]


class Encoder:
    def __init__(self, exe):
        self.exe, self.dir, self.files, self.cache = exe, tempfile.mkdtemp(prefix="mx-tables-"), {}, {}
        for s in SOURCES:
            bits = survey_inputs.source_bits(s)
            arr = bits.view(np.float32) if s == "fp32" else (bits.view(np.float16) if s == "fp16" else bits)
            self.files[s] = os.path.join(self.dir, f"{s}.npy")
            np.save(self.files[s], arr)

    def codes(self, spec, source, fmt):
        key = (spec, source, fmt)
        if key not in self.cache:
            out = os.path.join(self.dir, "out.npy")
            subprocess.run([self.exe, "encode", "--format", fmt, "--source", source, "--profile", spec,
                            "--in", self.files[source], "--out", out], check=True, capture_output=True)
            self.cache[key] = np.load(out)
        return self.cache[key]

    def differ(self, spec, source, fmt):
        return int((self.codes(spec, source, fmt) != self.codes("ocp", source, fmt)).sum())


def spec_tables(rows, enc):
    out = []
    by_profile = {}
    for r in rows:
        by_profile.setdefault(r["profile"], []).append(r)
    for prof, rs in by_profile.items():
        out += [f"**`{prof}`**", "", "| source | format | mode | policy | differ from OCP |", "|---|---|---|---|---:|"]
        missing = {}
        for r in rs:
            if r["policy"] is None:
                missing.setdefault((r["format"], r["mode"], r["note"]), []).append(r["source"])
                continue
            n = enc.differ(r["spec"], r["source"], r["format"])
            total = survey_inputs.source_bits(r["source"]).size
            out.append(f"| {r['source']} | {r['format']} | {r['mode'] or '-'} | `{r['policy']}` | {n} / {total} |")
        out.append("")
        for (fmt, mode, note), srcs in missing.items():
            out.append(f"- not offered: {fmt}{' ' + mode if mode else ''} from {', '.join(srcs)}: {note}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def readme_table(rows, enc):
    """One row per (profile, format, mode): the policy per source (collapsed
    when equal) and the inputs differing from OCP per source."""
    out = ["| profile | format | policy | differ from OCP (fp32 / bf16 / fp16) |", "|---|---|---|---|"]
    groups = {}
    for r in rows:
        if r["policy"] is not None:
            groups.setdefault((r["profile"], r["format"], r["mode"]), {})[r["source"]] = r
    for (prof, fmt, mode), by_src in groups.items():
        pols = {s: by_src[s]["policy"] for s in SOURCES if s in by_src}
        if len(set(pols.values())) == 1:
            pol = f"`{next(iter(pols.values()))}`"
        else:
            pol = "; ".join(f"{s}: `{p}`" for s, p in pols.items())
        counts = " / ".join(str(enc.differ(by_src[s]["spec"], s, fmt)) if s in by_src else "-" for s in SOURCES)
        out.append(f"| {prof}{':' + mode if mode else ''} | {fmt} | {pol} | {counts} |")
    return "\n".join(out) + "\n"


def replace_between(path, text):
    with open(path) as f:
        s = f.read()
    a, b = s.index(BEGIN) + len(BEGIN), s.index(END)
    with open(path, "w") as f:
        f.write(s[:a] + "\n" + text + s[b:])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mxconform", default=os.path.join(ROOT, "build", "tools", "mxconform"))
    ap.add_argument("--write", action="store_true", help="update reference/SPEC.md (C13.4) and README.md")
    a = ap.parse_args(argv)
    rows = profile_rows(a.mxconform)
    enc = Encoder(a.mxconform)
    spec, readme = spec_tables(rows, enc), readme_table(rows, enc)
    if a.write:
        replace_between(os.path.join(ROOT, "reference", "SPEC.md"), spec)
        replace_between(os.path.join(ROOT, "README.md"), readme)
        print("tables.py: wrote reference/SPEC.md C13.4 and README.md")
    else:
        print(spec)
        print(readme)


if __name__ == "__main__":
    main()
