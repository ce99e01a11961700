#!/usr/bin/env python3
"""conformance/survey/report.py - compare a collected survey archive with the
reference, policy by policy (issue 8 point 3, issue 14 / C13).

    python3 conformance/survey/report.py survey.tgz [--out REPORT.md]
            [--backend cli|python] [--mxconform build/tools/mxconform]

For every recorded cast (library x backend x mode x source x format):
  - rows compared and agreements with the OCP default (C2 defaults, `ocp`);
  - the named policy tuple that explains the library best: a search over
    the C2/C13 dimensions (rounding, overflow, NaN code/sign/payload, zero
    sign, fp6/fp4 overflow, unsigned negatives, ue8m0 zero and lowest binade),
    one dimension at a time from the OCP default, keeping a change only when
    it agrees on more inputs; every disagreement with OCP is grouped by the
    dimension whose value explains it, with one example input;
  - the agreement of the library's registered profile (reference/src/profile.cpp);
  - disagreements that no named policy explains: findings, with examples.
Writes Markdown (default conformance/survey/REPORT-h100.md) and prints a
summary. Encoding goes through the `mxconform` Python package when asked
(--backend python: mxconform.encode(x, fmt, policy=...)) or the CLI
(`mxconform encode --policy ...`, the default; it is what the CPU tests use).
"""

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import inputs as survey_inputs  # noqa: E402

FORMATS = ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "ue8m0")
BITS = {"e4m3": 8, "e5m2": 8, "e3m2": 6, "e2m3": 6, "e2m1": 4, "ue8m0": 8}


def dimensions(fmt):
    """(dimension name, candidate values; first = the OCP default) per format."""
    dims = [("rounding", ["rne", "rtz", "rna", "ru"])]
    if fmt in ("e4m3", "e5m2"):
        dims += [("overflow", ["saturate", "propagate"]),
                 ("nan", ["nan_canonical", "nan_keep_sign"]),
                 ("nan_sign", ["nan_sign_rule", "nan_sign_input", "nan_sign_inverted", "nan_sign_negative"]),
                 ("zero_sign", ["zero_keep_sign", "zero_underflow_positive", "zero_positive"])]
        if fmt == "e5m2":
            dims.append(("nan_payload", ["nan_payload_drop", "nan_keep_payload"]))
    elif fmt in ("e3m2", "e2m3", "e2m1"):
        dims += [("nan", ["nan_to_max", "nan_to_zero"]),
                 ("nan_sign", ["nan_sign_rule", "nan_sign_input", "nan_sign_inverted", "nan_sign_negative"]),
                 ("overflow_nospecial", ["overflow_to_max", "overflow_as_nan"]),
                 ("zero_sign", ["zero_keep_sign", "zero_underflow_positive", "zero_positive"])]
    else:  # ue8m0
        dims += [("overflow", ["saturate", "propagate"]),
                 ("negative_unsigned", ["neg_to_nan", "neg_magnitude"]),
                 ("zero_nozero", ["zero_to_min", "zero_to_nan"]),
                 ("lowest", ["lowest_exact", "lowest_as_zero"])]
    return dims


def search_groups(fmt):
    """The dimensions tried together: the NaN code, its sign and payload act on
    the same inputs, so they are searched as one product; the others alone."""
    import itertools  # noqa: PLC0415

    dims = dimensions(fmt)
    nan = [(n, v) for n, v in dims if n.startswith("nan")]
    groups = [[dict(zip([n for n, _ in nan], combo))
               for combo in itertools.product(*[v for _, v in nan])]] if nan else []
    groups += [[{n: x} for x in v] for n, v in dims if not n.startswith("nan")]
    return groups


def policy_string(choice, fmt):
    """':'-joined value names: every dimension at its chosen value, defaults left out
    except rounding and overflow (the CLI's --policy form)."""
    parts = []
    for name, values in dimensions(fmt):
        v = choice.get(name, values[0])
        if name == "rounding" or v != values[0]:
            parts.append(v)
    if "overflow" not in choice and fmt in ("e3m2", "e2m3", "e2m1"):
        parts.insert(1, "saturate")
    return ":".join(parts)


# ---- encoders -------------------------------------------------------------------
class CliEncoder:
    def __init__(self, exe):
        self.exe = exe
        self.tmp = tempfile.mkdtemp(prefix="survey-report-")
        self.cache = {}
        self.calls = 0

    def _input(self, source, bits):
        path = os.path.join(self.tmp, f"in_{source}.npy")
        if not os.path.exists(path):
            arr = bits.view(np.float32) if source == "fp32" else (
                bits.view(np.float16) if source == "fp16" else bits)
            np.save(path, arr)
        return path

    def encode(self, source, bits, fmt, policy=None, profile=None):
        key = (source, fmt, policy, profile)
        if key in self.cache:
            return self.cache[key]
        out = os.path.join(self.tmp, "out.npy")
        cmd = [self.exe, "encode", "--format", fmt, "--source", source,
               "--in", self._input(source, bits), "--out", out]
        cmd += ["--profile", profile] if profile else ["--policy", policy]
        p = subprocess.run(cmd, capture_output=True, text=True, check=False)
        self.calls += 1
        if p.returncode != 0:
            raise ValueError((p.stderr or p.stdout).strip())
        codes = np.load(out).astype(np.uint8)
        self.cache[key] = codes
        return codes


class PythonEncoder(CliEncoder):
    """The mxconform package (issue 8 point 1): encode(x, fmt, profile=, policy=, source=)."""

    def __init__(self):
        import mxconform  # noqa: PLC0415

        self.mx = mxconform
        self.cache = {}
        self.calls = 0

    def encode(self, source, bits, fmt, policy=None, profile=None):
        key = (source, fmt, policy, profile)
        if key not in self.cache:
            x = bits.view(np.float32) if source == "fp32" else (
                bits.view(np.float16) if source == "fp16" else bits)
            kw = {"source": "bf16"} if source == "bf16" else {}
            kw.update({"profile": profile} if profile else {"policy": policy})
            self.cache[key] = np.asarray(self.mx.encode(x, fmt, **kw), dtype=np.uint8)
            self.calls += 1
        return self.cache[key]


# ---- archive --------------------------------------------------------------------
def load_archive(path):
    """manifest dict and codes dict (blob id -> array) from survey.tgz/.txz or a folder."""
    if os.path.isdir(path):
        base = os.path.join(path, "survey") if os.path.isdir(os.path.join(path, "survey")) else path
        with open(os.path.join(base, "manifest.json")) as f:
            manifest = json.load(f)
        with np.load(os.path.join(base, "codes.npz")) as z:
            codes = {k: z[k] for k in z.files}
        return manifest, codes
    with tarfile.open(path) as t:
        manifest = json.load(t.extractfile("survey/manifest.json"))
        with np.load(io.BytesIO(t.extractfile("survey/codes.npz").read())) as z:
            codes = {k: z[k] for k in z.files}
    return manifest, codes


def profile_of(e):
    """The registered profile spec (NAME[:MODE]) for an entry, or None."""
    lib, be, mode = e["library"], e["backend"], e["mode"]
    if lib == "torch" and mode == "to":
        return "torch-cpu" if be == "cpu" else "torch-cuda"
    if lib == "ml_dtypes":
        return "ml_dtypes"
    if lib == "jax":
        return "jax-cpu" if be == "cpu" else "jax-gpu"
    if lib == "triton":
        return "triton:" + ("rtne" if mode == "default" else mode)
    if lib == "cuda":
        api, _, cuda_mode = mode.partition(":")
        # the double API converts fp64: not a source type of the profiles (C13.3)
        return None if api == "double" else "cuda:" + cuda_mode
    return None


def classify(bits, source, fmt):
    """A short input class per element (for grouping unexplained rows)."""
    x = bits.astype(np.uint32) << 16 if source == "bf16" else None
    if source == "fp16":
        x = np.frombuffer(bits.view(np.float16).astype(np.float32).tobytes(), dtype=np.uint32)
    if source == "fp32":
        x = bits.astype(np.uint32)
    a = x & 0x7FFFFFFF
    with np.errstate(invalid="ignore"):
        v = a.view(np.float32).astype(np.float64)
    out = np.full(x.shape, "finite", dtype=object)
    out[v < 2.0 ** -100] = "tiny"
    out[(x >> 31) == 1] = "negative finite"
    out[a == 0] = "zero"
    out[a == 0x7F800000] = "Inf"
    out[a > 0x7F800000] = "NaN"
    return out


# ---- analysis -------------------------------------------------------------------
def analyse(enc, e, lib_codes, bits):
    src, fmt = e["source"], e["target"]
    mask = (1 << BITS[fmt]) - 1
    lib = lib_codes.astype(np.uint8) & np.uint8(mask) if BITS[fmt] < 8 else lib_codes.astype(np.uint8)
    res = {"rows": int(bits.size)}
    ocp = enc.encode(src, bits, fmt, policy=policy_string({}, fmt))
    res["agree_ocp"] = int((ocp == lib).sum())
    choice, best = {}, ocp
    for _ in range(2):
        for group in search_groups(fmt):
            for combo in group:
                trial = dict(choice, **combo)
                try:
                    c = enc.encode(src, bits, fmt, policy=policy_string(trial, fmt))
                except ValueError:
                    continue
                if (c == lib).sum() > (best == lib).sum():
                    choice, best = trial, c
    res["best_policy"] = policy_string(choice, fmt)
    res["agree_best"] = int((best == lib).sum())
    # group OCP disagreements by the single dimension that explains them
    groups = []
    remaining = ocp != lib
    for name, values in dimensions(fmt):
        if choice.get(name, values[0]) == values[0]:
            continue
        c = enc.encode(src, bits, fmt, policy=policy_string({name: choice[name]}, fmt))
        fixed = remaining & (c == lib)
        if fixed.any():
            i = int(np.nonzero(fixed)[0][0])
            groups.append({"policy": choice[name], "count": int(fixed.sum()),
                           "example": {"input": hex_of(bits[i], src), "library": int(lib[i]),
                                       "ocp": int(ocp[i])}})
            remaining = remaining & ~fixed
    rest = remaining & (best != lib)
    combined = remaining & (best == lib)
    if combined.any():
        i = int(np.nonzero(combined)[0][0])
        groups.append({"policy": "combination: " + res["best_policy"], "count": int(combined.sum()),
                       "example": {"input": hex_of(bits[i], src), "library": int(lib[i]),
                                   "ocp": int(ocp[i])}})
    res["groups"] = groups
    res["unexplained"] = int((best != lib).sum())
    if res["unexplained"]:
        cls = classify(bits, src, fmt)
        bad = np.nonzero(best != lib)[0]
        by = {}
        for i in bad:
            by.setdefault(cls[i], []).append(int(i))
        res["unexplained_classes"] = [
            {"class": k, "count": len(v), "example": {"input": hex_of(bits[v[0]], src),
                                                      "library": int(lib[v[0]]),
                                                      "best_policy": int(best[v[0]])}}
            for k, v in sorted(by.items(), key=lambda kv: -len(kv[1]))]
    del rest
    prof = profile_of(e)
    if prof:
        try:
            pc = enc.encode(src, bits, fmt, profile=prof)
            res["profile"] = prof
            res["agree_profile"] = int((pc == lib).sum())
        except ValueError as ex:
            res["profile"] = prof
            res["profile_error"] = str(ex)
    return res


def hex_of(v, source):
    return f"0x{int(v):0{8 if source == 'fp32' else 4}x}"


def render(manifest, results, skipped):
    dev = manifest.get("device", {})
    lines = ["# What real libraries do: survey report", "",
             f"Device: {dev.get('nvidia_smi', '?')}; Python {dev.get('python', '?')}; "
             f"inputs: fp32 {manifest['inputs']['fp32']['count']} (structured, generator "
             f"v{manifest['inputs']['generator_version']}), every bf16 and fp16 pattern.", "",
             "Library versions:", ""]
    for w, info in manifest.get("workers", {}).items():
        vers = ", ".join(f"{k} {v}" for k, v in (info.get("versions") or {}).items()
                         if not isinstance(v, list))
        lines.append(f"- {w}: {info.get('status')}" + (f" ({vers})" if vers else "")
                     + (f" - {info.get('error')}" if info.get("error") else ""))
    lines += ["", "| cast | rows | = OCP | best named policy | = best | profile | = profile | unexplained |",
              "|---|---:|---:|---|---:|---|---:|---:|"]
    for e, r in results:
        lines.append(f"| {e['id']} | {r['rows']} | {r['agree_ocp']} | `{r['best_policy']}` | "
                     f"{r['agree_best']} | {r.get('profile', '-')} | "
                     f"{r.get('agree_profile', r.get('profile_error', '-'))} | {r['unexplained']} |")
    lines += ["", "## Disagreements with OCP, grouped by the policy that explains them", ""]
    for e, r in results:
        if not r["groups"] and not r["unexplained"]:
            continue
        lines.append(f"### {e['id']} (`{e['api']}`)")
        for g in r["groups"]:
            lines.append(f"- {g['policy']}: {g['count']} inputs, e.g. {json.dumps(g['example'])}")
        for u in r.get("unexplained_classes", []):
            lines.append(f"- FINDING, no named policy: {u['class']}: {u['count']} inputs, e.g. "
                         f"{json.dumps(u['example'])}")
        lines.append("")
    lines += ["## Findings recorded by the collector (value-alone, jit/eager)", ""]
    for f in manifest.get("findings", []):
        lines.append(f"- {f['kind']}: {f['entry']} {f.get('variant', f.get('other', ''))}: "
                     f"{f['differ']}/{f['compared']}, e.g. {json.dumps(f.get('examples', [{}])[0])}")
    if not manifest.get("findings"):
        lines.append("- none")
    lines += ["", "## Not converted", ""]
    for e in skipped:
        lines.append(f"- {e['id']}: {e.get('status')}: {e.get('error', '')[:200]}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description="Compare a survey archive with the reference, "
                                             "policy by policy; write a Markdown report.")
    ap.add_argument("archive", help="survey.tgz / survey.txz from collect.py, or its unpacked folder")
    ap.add_argument("--out", default=os.path.join(HERE, "REPORT-h100.md"), help="Markdown output")
    ap.add_argument("--backend", choices=("cli", "python"), default="cli")
    ap.add_argument("--mxconform", default=os.environ.get("MXCONFORM", "build/tools/mxconform"),
                    help="the mxconform executable (CLI backend)")
    ap.add_argument("--only", default="", help="substring filter on entry ids")
    ap.add_argument("--json", help="also write the per-entry results as JSON here")
    args = ap.parse_args(argv)
    try:
        manifest, codes = load_archive(args.archive)
    except (OSError, KeyError, tarfile.TarError, ValueError) as ex:
        sys.stderr.write(f"report.py: {args.archive}: cannot read the archive ({ex})\n")
        return 2
    want = survey_inputs.describe()
    if manifest["inputs"]["fp32"]["sha256"] != want["fp32"]["sha256"]:
        sys.stderr.write("report.py: the archive's fp32 inputs differ from inputs.py "
                         f"(generator v{manifest['inputs']['generator_version']} vs "
                         f"v{want['generator_version']})\n")
        return 2
    if args.backend == "python":
        enc = PythonEncoder()
    else:
        if not os.path.exists(args.mxconform):
            sys.stderr.write(f"report.py: {args.mxconform} not found (build it or pass --mxconform)\n")
            return 2
        enc = CliEncoder(args.mxconform)
    results, skipped = [], []
    for e in manifest["entries"]:
        if args.only and args.only not in e["id"]:
            continue
        if e.get("status") != "ok" or e["target"] not in FORMATS:
            skipped.append(e)
            continue
        bits = survey_inputs.source_bits(e["source"])
        lib_codes = codes[e["blob"]]
        results.append((e, analyse(enc, e, lib_codes, bits)))
    text = render(manifest, results, skipped)
    with open(args.out, "w") as f:
        f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"entry": e["id"], **r} for e, r in results], f, indent=1)
    unexplained = sum(1 for _, r in results if r["unexplained"])
    print(f"report: {len(results)} casts compared ({enc.calls} encodings), "
          f"{unexplained} with disagreements no named policy explains; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
