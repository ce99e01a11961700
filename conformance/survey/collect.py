#!/usr/bin/env python3
"""conformance/survey/collect.py - convert one fixed input set with every real
library cast and archive the output codes (issue 8 point 3; data for issue 14).

Run on a GPU machine (conformance/survey/run.sh does it in one command):

    python3 conformance/survey/collect.py --out "$OUT"

Inputs (inputs.py, regenerated identically on any machine): every bf16 and
every fp16 pattern and a structured fp32 set. Each library runs in its own
worker process (a crash or a CUDA error loses one library, not the run), at
most --jobs at a time, each under a time limit; a missing library, dtype or
cast is recorded with its error text and the run goes on.

Output: $OUT/survey.tgz holding survey/manifest.json (versions, device,
timings, every entry with status/error/blob id, consistency checks, findings),
survey/codes.npz (one uint8/uint16 array per distinct output, keyed by blob
id; an entry's codes are codes[entry['blob']], aligned with the source's
inputs), survey/inputs_fp32.npy (the fp32 bits, for checking the generator)
and survey/summary.txt, which is also printed last.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX beside torch on one GPU
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

try:
    import numpy as np
except ImportError as _ex:  # the one hard requirement
    sys.stderr.write(f"collect.py: NumPy is required ({_ex}); use a python3 that has it\n")
    sys.exit(2)

import inputs as survey_inputs  # noqa: E402
from recorder import Recorder, one_line  # noqa: E402

SCHEMA = 1
# name -> (module, function, args); order = start order (most important first)
# (the slow compilers, Triton and torch.compile, start early)
WORKERS = {
    "numpy": ("casts_host", "worker_numpy", ()),
    "ml_dtypes": ("casts_host", "worker_ml_dtypes", ()),
    "torch-cuda": ("casts_torch", "worker_torch", ("cuda",)),
    "triton": ("casts_torch", "worker_triton", ()),
    "torch-compile": ("casts_torch", "worker_torch_compile", ()),
    "cuda": ("casts_cuda", "worker_cuda", ()),
    "torch-cpu": ("casts_torch", "worker_torch", ("cpu",)),
    "jax-gpu": ("casts_host", "worker_jax", ("gpu",)),
    "jax-cpu": ("casts_host", "worker_jax", ("cpu",)),
    "cupy": ("casts_cuda", "worker_cupy_astype", ()),
}


def run_worker(name, folder, seconds):
    """Inside the worker process: run one library's casts, save, exit 0."""
    warnings.filterwarnings("ignore")
    np.seterr(all="ignore")
    rec = Recorder(name, time.time() + seconds)
    rec.autosave(folder, {"error": None})
    mod_name, fn_name, args = WORKERS[name]
    t0 = time.time()
    status, error = "ok", None
    try:
        mod = __import__(mod_name)
        getattr(mod, fn_name)(rec, *args)
    except ImportError as ex:
        status, error = "unavailable", one_line(ex)
    except Exception as ex:  # noqa: BLE001 - recorded, the run goes on
        status, error = "error", one_line(ex)
        rec.note("traceback: " + " | ".join(traceback.format_exc().splitlines()[-6:]))
    rec.save(folder, {"status": status, "error": error, "seconds": round(time.time() - t0, 2)})


def _device_info():
    info = {"python": sys.version.split()[0], "platform": platform.platform(),
            "numpy": np.__version__, "hostname_cpu": platform.processor()}
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,compute_cap",
                            "--format=csv,noheader"], capture_output=True, text=True,
                           timeout=20, check=False)
        info["nvidia_smi"] = p.stdout.strip() or p.stderr.strip()
    except Exception as ex:  # noqa: BLE001
        info["nvidia_smi"] = one_line(ex)
    return info


def _launch(name, folder, seconds, py):
    cmd = [py, os.path.abspath(__file__), "--worker", name, "--partial", folder,
           "--seconds", str(seconds)]
    log = open(os.path.join(folder + ".log"), "w")
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=HERE), log


def collect(args):
    t_start = time.time()
    names = [n for n in WORKERS if not args.only or n in args.only.split(",")]
    unknown = [n for n in (args.only.split(",") if args.only else []) if n not in WORKERS]
    if unknown:
        sys.stderr.write(f"collect.py: unknown worker(s) {unknown}; known: {list(WORKERS)}\n")
        return 2
    tmp = tempfile.mkdtemp(prefix="survey-")
    pending = list(names)
    running = {}
    results = {}
    while pending or running:
        while pending and len(running) < args.jobs:
            left = args.budget - (time.time() - t_start)
            name = pending.pop(0)
            if left < 10:
                results[name] = {"worker": name, "status": "skipped",
                                 "error": "total time budget used up", "entries": []}
                continue
            secs = min(args.worker_seconds, left - 5)
            folder = os.path.join(tmp, name)
            proc, log = _launch(name, folder, secs, sys.executable)
            running[name] = (proc, log, time.time(), secs, folder)
        time.sleep(0.2)
        for name in list(running):
            proc, log, t0, secs, folder = running[name]
            rc = proc.poll()
            if rc is None and time.time() - t0 < secs + 20:
                continue
            if rc is None:
                proc.kill()
                proc.wait()
            log.close()
            del running[name]
            results[name] = _read_partial(name, folder, rc)
    return _merge_and_write(args, names, results, tmp, t_start)


def _read_partial(name, folder, rc):
    path = os.path.join(folder, "result.json")
    tail = ""
    try:
        with open(folder + ".log", errors="replace") as f:
            tail = " | ".join(f.read().strip().splitlines()[-8:])[-1500:]
    except OSError:
        pass
    why = "killed at its time limit" if rc is None else f"exit code {rc}"
    if not os.path.exists(path):
        return {"worker": name, "status": "crashed", "error": f"worker {why}; log tail: {tail}",
                "entries": []}
    with open(path) as f:
        doc = json.load(f)
    if rc != 0:  # killed or crashed after a partial save: keep what it recorded
        doc["status"] = "crashed"
        doc["error"] = f"worker {why} (entries up to its last save kept); log tail: {tail}"
    doc["_blobs"] = os.path.join(folder, "blobs.npz")
    if tail:
        doc["log_tail"] = tail
    return doc


def _merge_and_write(args, names, results, tmp, t_start):
    manifest = {"schema": SCHEMA, "created_unix": int(time.time()), "device": _device_info(),
                "inputs": survey_inputs.describe(), "workers": {}, "entries": [],
                "findings": []}
    blobs = {}
    for name in names:
        r = results.get(name, {"status": "missing", "entries": []})
        manifest["workers"][name] = {k: r.get(k) for k in
                                     ("status", "error", "seconds", "versions", "notes",
                                      "log_tail")}
        for e in r.get("entries", []):
            e["worker"] = name
            manifest["entries"].append(e)
        manifest["findings"] += r.get("findings", [])
        if r.get("_blobs") and os.path.exists(r["_blobs"]):
            with np.load(r["_blobs"]) as z:
                for k in z.files:
                    blobs[k] = z[k]
    manifest["cross_backend"] = cross_backend(manifest["entries"], blobs)
    manifest["total_seconds"] = round(time.time() - t_start, 2)
    summary = summarize(manifest)
    stage = os.path.join(tmp, "stage", "survey")
    os.makedirs(stage)
    with open(os.path.join(stage, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    np.savez(os.path.join(stage, "codes.npz"), **blobs)
    np.save(os.path.join(stage, "inputs_fp32.npy"), survey_inputs.fp32_set())
    with open(os.path.join(stage, "summary.txt"), "w") as f:
        f.write(summary)
    os.makedirs(args.out, exist_ok=True)
    out = os.path.join(args.out, "survey.tgz")
    with tarfile.open(out, "w:gz", compresslevel=9) as tar:
        tar.add(stage, arcname="survey")
    size = os.path.getsize(out)
    if size > 15 * 2**20:  # the device returns files up to 16 MiB: try xz instead
        xz = os.path.join(args.out, "survey.txz")
        with tarfile.open(xz, "w:xz", preset=9) as tar:
            tar.add(stage, arcname="survey")
        if os.path.getsize(xz) < size:
            os.remove(out)
            out, size = xz, os.path.getsize(xz)
    print(summary)
    print(f"archive: {out} ({size / 2**20:.2f} MiB, {len(blobs)} distinct outputs)"
          + ("  WARNING: over 16 MiB, it will not come back" if size > 16 * 2**20 else ""))
    return 0


def cross_backend(entries, blobs):
    """CPU vs GPU path of one library (torch cpu/cuda, jax cpu/gpu) on the same
    inputs: not a bug by itself (issue 14 asks for both profiles), listed."""
    pairs = {("torch", "to"): ("cpu", "cuda"), ("jax", "eager"): ("cpu", "gpu")}
    ok = {(e["library"], e["backend"], e["source"], e["target"], e["mode"]): e
          for e in entries if e["status"] == "ok"}
    out = []
    for (lib, mode), (b1, b2) in pairs.items():
        for src in ("fp32", "bf16", "fp16"):
            for tgt in sorted({e["target"] for e in entries}):
                e1, e2 = ok.get((lib, b1, src, tgt, mode)), ok.get((lib, b2, src, tgt, mode))
                if not e1 or not e2:
                    continue
                a, b = blobs[e1["blob"]], blobs[e2["blob"]]
                bad = np.nonzero(a != b)[0]
                row = {"a": e1["id"], "b": e2["id"], "compared": int(a.size),
                       "differ": int(bad.size)}
                if bad.size:
                    bits = survey_inputs.source_bits(src)
                    w = 8 if src == "fp32" else 4
                    row["example"] = {"input": f"0x{int(bits[bad[0]]):0{w}x}", b1: int(a[bad[0]]),
                                      b2: int(b[bad[0]])}
                out.append(row)
    return out


def summarize(m):
    lines = [f"survey: {len(m['entries'])} casts recorded in {m['total_seconds']} s "
             f"(inputs: fp32 {m['inputs']['fp32']['count']}, bf16 65536, fp16 65536; "
             f"generator v{m['inputs']['generator_version']})",
             f"device: {m['device'].get('nvidia_smi', '?')}"]
    for name, w in m["workers"].items():
        ents = [e for e in m["entries"] if e["worker"] == name]
        st = {}
        for e in ents:
            st[e["status"]] = st.get(e["status"], 0) + 1
        vers = w.get("versions") or {}
        ver = ", ".join(f"{k} {v}" for k, v in vers.items()
                        if k in ("torch", "triton", "jax", "jaxlib", "ml_dtypes", "cupy"))
        counts = " ".join(f"{k}={v}" for k, v in sorted(st.items())) or "no entries"
        err = f"  [{w['status']}: {w['error'][:160]}]" if w.get("error") else ""
        lines.append(f"  {name:14s} {w['status'] or '?':11s} {counts:34s} {ver}{err}")
    errs = [e for e in m["entries"] if e["status"] in ("error", "unsupported")]
    if errs:
        lines.append("not converted (first 25; all in manifest.json):")
        for e in errs[:25]:
            lines.append(f"  {e['id']}: {e.get('error', '')[:150]}")
    diff = [r for r in m.get("cross_backend", []) if r["differ"]]
    lines.append(f"CPU vs GPU path of one library: {len(m.get('cross_backend', []))} pairs, "
                 f"{len(diff)} differ")
    for r in diff:
        lines.append(f"  {r['a']} vs {r['b']}: {r['differ']}/{r['compared']} e.g. "
                     f"{json.dumps(r['example'])}")
    lines.append(f"findings: {len(m['findings'])}")
    for fnd in m["findings"][:30]:
        ex = fnd.get("examples", [{}])[0]
        lines.append(f"  {fnd['kind']}: {fnd['entry']} {fnd.get('variant', fnd.get('other', ''))}"
                     f" differ {fnd['differ']}/{fnd['compared']} e.g. {json.dumps(ex)}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Convert the survey's fixed inputs with every library cast found "
                    "(torch CPU/CUDA, ml_dtypes, JAX CPU/GPU, Triton, CUDA __nv_cvt_*, CuPy) "
                    "and write $OUT/survey.tgz. Missing libraries are recorded, not fatal.")
    ap.add_argument("--out", default=os.environ.get("OUT", "survey-out"),
                    help="output folder (default $OUT, else ./survey-out)")
    ap.add_argument("--only", default="", help=f"comma list of workers: {','.join(WORKERS)}")
    ap.add_argument("--jobs", type=int, default=6, help="workers at a time (default 6)")
    ap.add_argument("--budget", type=float, default=200.0,
                    help="seconds for the whole run (default 200; the merge adds a few)")
    ap.add_argument("--worker-seconds", type=float, default=150.0,
                    help="time limit of one worker (default 150)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--partial", help=argparse.SUPPRESS)
    ap.add_argument("--seconds", type=float, default=150.0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        run_worker(args.worker, args.partial, args.seconds)
        return 0
    if args.jobs < 1 or args.budget <= 0 or args.worker_seconds <= 0:
        sys.stderr.write("collect.py: --jobs, --budget and --worker-seconds must be positive\n")
        return 2
    return collect(args)


if __name__ == "__main__":
    sys.exit(main())
