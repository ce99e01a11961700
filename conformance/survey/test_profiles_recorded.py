"""conformance/survey/test_profiles_recorded.py - every library profile (C13)
reproduces its library byte for byte on the outputs measured on the H100
(issue 14 point 4). ctest label cpu; the expected codes are the libraries'
own (conformance/survey/h100/recorded.*, written by record.py from the
survey archive), never the reference's.

For every recorded cast: `mxconform encode --profile P` on the regenerated
inputs must equal the recording on every input. Every offered (profile,
source, format, mode) of `mxconform profiles` must have a recording, so no
profile entry is left unmeasured.
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import inputs as survey_inputs  # noqa: E402
from profiles_cli import profile_rows  # noqa: E402

REC = os.path.join(HERE, "h100")
EXE = os.environ.get("MXCONFORM", "")


def load():
    with open(os.path.join(REC, "recorded.json")) as f:
        doc = json.load(f)
    with np.load(os.path.join(REC, "recorded.npz")) as z:
        blobs = {k: z[k] for k in z.files}
    return doc, blobs


DOC, BLOBS = load()


def test_exe_given():
    assert EXE and os.access(EXE, os.X_OK), "set MXCONFORM to the mxconform executable (CTest does)"


@pytest.mark.parametrize("source", ["fp32", "bf16", "fp16"])
def test_inputs_are_the_measured_ones(source):
    assert DOC["generator_version"] == survey_inputs.GENERATOR_VERSION
    assert survey_inputs.digest(survey_inputs.source_bits(source)) == DOC["sha256"][source], (
        f"inputs.py no longer generates the {source} inputs the libraries converted")


@pytest.fixture(scope="module")
def input_files():
    d = tempfile.mkdtemp(prefix="mx-profiles-")
    paths = {}
    for s in ("fp32", "bf16", "fp16"):
        bits = survey_inputs.source_bits(s)
        arr = bits.view(np.float32) if s == "fp32" else (bits.view(np.float16) if s == "fp16" else bits)
        paths[s] = os.path.join(d, f"{s}.npy")
        np.save(paths[s], arr)
    return d, paths


def encode(paths, d, e):
    out = os.path.join(d, "out.npy")
    cmd = [EXE, "encode", "--format", e["format"], "--source", e["source"], "--profile", e["profile"],
           "--in", paths[e["source"]], "--out", out]
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert p.returncode == 0, f"{' '.join(cmd)}: {p.stderr.strip()}"
    return np.load(out)


def hexbits(bits, i, source):
    return f"0x{int(bits[i]):0{8 if source == 'fp32' else 4}x}"


@pytest.mark.parametrize("entry", DOC["entries"], ids=[e["id"] for e in DOC["entries"]])
def test_profile_reproduces_library(entry, input_files):
    d, paths = input_files
    want = BLOBS[entry["blob"]]
    got = encode(paths, d, entry)
    assert got.dtype == np.uint8 and got.shape == want.shape
    bad = np.flatnonzero(got != want)
    if bad.size:
        bits = survey_inputs.source_bits(entry["source"])
        ex = "; ".join(f"{hexbits(bits, i, entry['source'])} => profile 0x{got[i]:02x}, library 0x{want[i]:02x}"
                       for i in bad[:5])
        pytest.fail(f"C13 profile {entry['profile']} ({entry['source']} -> {entry['format']}, {entry['api']}) "
                    f"differs from the library on {bad.size} of {want.size} inputs: {ex}")


def offered_profile_entries():
    """(profile[:mode], source, format) of every offered entry that `mxconform profiles` lists."""
    return [(r["spec"], r["source"], r["format"]) for r in profile_rows(EXE) if r["policy"] is not None]


def test_every_offered_entry_is_measured():
    if not EXE:
        pytest.fail("MXCONFORM not set")
    recorded = {(e["profile"], e["source"], e["format"]) for e in DOC["entries"]}
    # a fixed profile's entry is recorded as 'name'; an API profile's default
    # mode may be recorded as 'name:mode' (triton's default call and rtne)
    offered = offered_profile_entries()
    assert len(offered) > 100, "could not read `mxconform profiles`"
    missing = [o for o in offered if o not in recorded]
    assert not missing, f"profile entries with no recorded library output: {missing[:10]}"


def test_spec_and_readme_tables_are_current():
    """reference/SPEC.md C13.4 and the README table are what tables.py makes
    from today's registry (regenerate with tables.py --write)."""
    import tables  # noqa: PLC0415

    rows = profile_rows(EXE)
    enc = tables.Encoder(EXE)
    for path, text in ((os.path.join(tables.ROOT, "reference", "SPEC.md"), tables.spec_tables(rows, enc)),
                       (os.path.join(tables.ROOT, "README.md"), tables.readme_table(rows, enc))):
        with open(path) as f:
            s = f.read()
        cur = s[s.index(tables.BEGIN) + len(tables.BEGIN):s.index(tables.END)]
        assert cur == "\n" + text, f"{path}: the profile table is stale; run conformance/survey/tables.py --write"
