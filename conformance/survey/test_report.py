"""conformance/survey/test_report.py - report.py's policy inference on a
synthetic archive (pytest, label cpu). The stand-in "libraries" are the
reference's own profiles run through the mxconform CLI, plus one planted
code that no policy explains; report.py must name the planted policies, find
the planted code, and reject a damaged archive."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import inputs as survey_inputs  # noqa: E402
import report  # noqa: E402

EXE = os.environ.get("MXCONFORM", os.path.join(HERE, "..", "..", "build", "tools", "mxconform"))


def encode(tmp, source, fmt, profile):
    bits = survey_inputs.source_bits(source)
    arr = bits.view(np.float32) if source == "fp32" else (
        bits.view(np.float16) if source == "fp16" else bits)
    np.save(tmp / "x.npy", arr)
    subprocess.run([EXE, "encode", "--format", fmt, "--source", source, "--profile", profile,
                    "--in", str(tmp / "x.npy"), "--out", str(tmp / "c.npy")], check=True,
                   capture_output=True)
    return np.load(tmp / "c.npy")


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("survey")
    entries, codes = [], {}
    plan = [("torch", "cpu", "to", "fp16", "e5m2", "torch-cpu"),
            ("ml_dtypes", "cpu", "astype", "bf16", "e3m2", "ml_dtypes"),
            ("torch", "cpu", "to", "bf16", "ue8m0", "torch-cpu")]
    for i, (lib, be, mode, src, fmt, prof) in enumerate(plan):
        c = encode(tmp, src, fmt, prof)
        if i == 2:
            c = c.copy()
            c[0x3F80] ^= 1  # 1.0 -> 0x7E instead of 0x7F: no policy does that
        blob = f"b{i}"
        codes[blob] = c
        entries.append({"id": f"{lib}/{be}/{src}/{fmt}/{mode}", "library": lib, "backend": be,
                        "source": src, "target": fmt, "mode": mode, "api": "test", "status": "ok",
                        "blob": blob})
    entries.append({"id": "torch/cpu/fp32/e2m1/to", "library": "torch", "backend": "cpu",
                    "source": "fp32", "target": "e2m1", "mode": "to", "api": "x", "status": "error",
                    "error": "RuntimeError: no cast"})
    d = tmp / "arch" / "survey"
    d.mkdir(parents=True)
    manifest = {"schema": 1, "device": {"nvidia_smi": "test"}, "inputs": survey_inputs.describe(),
                "workers": {}, "entries": entries, "findings": []}
    (d / "manifest.json").write_text(json.dumps(manifest))
    np.savez(d / "codes.npz", **codes)
    return tmp / "arch"


def run_report(archive, tmp_path):
    out, js = tmp_path / "r.md", tmp_path / "r.json"
    rc = report.main([str(archive), "--out", str(out), "--json", str(js), "--mxconform", EXE])
    return rc, out.read_text() if out.exists() else "", json.loads(js.read_text()) if js.exists() else []


def test_policies_are_named_and_planted_code_is_a_finding(archive, tmp_path):
    rc, md, res = run_report(archive, tmp_path)
    assert rc == 0
    by = {r["entry"]: r for r in res}
    t = by["torch/cpu/fp16/e5m2/to"]
    assert t["unexplained"] == 0 and t["agree_profile"] == t["rows"] == 65536
    assert "nan_sign_input" in t["best_policy"] and "propagate" in t["best_policy"]
    assert {g["policy"] for g in t["groups"]} >= {"nan_sign_input", "propagate"}
    m = by["ml_dtypes/cpu/bf16/e3m2/astype"]
    assert m["unexplained"] == 0
    assert "nan_to_zero" in m["best_policy"] and "nan_sign_inverted" in m["best_policy"]
    e8 = by["torch/cpu/bf16/ue8m0/to"]
    assert e8["unexplained"] == 1 and e8["agree_profile"] == 65535
    assert e8["unexplained_classes"][0]["example"]["input"] == "0x3f80"
    assert "neg_magnitude" in e8["best_policy"] and "lowest_as_zero" in e8["best_policy"]
    assert "FINDING, no named policy" in md and "torch/cpu/fp32/e2m1/to: error" in md


def test_damaged_archive_is_refused(archive, tmp_path):
    m = json.loads((archive / "survey" / "manifest.json").read_text())
    m["inputs"]["fp32"]["sha256"] = "0" * 64
    bad = tmp_path / "bad" / "survey"
    bad.mkdir(parents=True)
    (bad / "manifest.json").write_text(json.dumps(m))
    (bad / "codes.npz").write_bytes((archive / "survey" / "codes.npz").read_bytes())
    rc, _, _ = run_report(tmp_path / "bad", tmp_path)
    assert rc == 2
    assert report.main([str(tmp_path / "missing.tgz"), "--out", str(tmp_path / "x.md")]) == 2


def test_collector_dry_run_records_what_it_has(tmp_path):
    """collect.py on this machine: NumPy's control cast recorded with its
    value-alone checks; every library missing here recorded as unavailable."""
    p = subprocess.run([sys.executable, os.path.join(HERE, "collect.py"), "--out", str(tmp_path),
                        "--only", "numpy,torch-cuda", "--budget", "60"],
                       capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr
    manifest, codes = report.load_archive(str(tmp_path / "survey.tgz"))
    e = next(x for x in manifest["entries"] if x["id"] == "numpy/cpu/fp32/fp16/astype")
    assert e["status"] == "ok" and e["count"] == manifest["inputs"]["fp32"]["count"]
    assert all(e["consistency"][k]["differ"] == 0 for k in ("reversed", "offset1", "size1", "scalar"))
    f = survey_inputs.fp32_set()
    assert np.array_equal(codes[e["blob"]], f.view(np.float32).astype(np.float16).view(np.uint16))
    w = manifest["workers"]["torch-cuda"]
    assert w["status"] in ("unavailable", "ok")  # ok only where torch is installed
    assert "survey:" in p.stdout.splitlines()[0]
