"""The package against the checked-in golden vectors (vectors/, reference/SPEC.md
C2, C3, C4/C5, C6, C7, C9): every row's expected column, byte for byte. The
expected values are the checked-in files, not the package's own output."""
import glob
import os

import numpy as np
import pytest

import mxconform as mx
from mxconform import vectors


def files(vdir, pattern):
    out = sorted(glob.glob(os.path.join(vdir, pattern)))
    assert out, f"no golden files match {pattern} in {vdir}"
    return out


def hexbytes(s):
    return np.frombuffer(bytes.fromhex(s), dtype=np.uint8)


@pytest.mark.parametrize("name", [f"{f}_from_{s}" for f in ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8")
                                  for s in ("fp32", "bf16", "fp16")])
def test_convert(vectors_dir, name):
    vf = vectors.read(os.path.join(vectors_dir, "convert", name + ".csv"))
    fmt, src = vf.header["format"], vf.header["input"]
    groups = {}
    for r in vf.rows:
        pol = [r["rounding"], r["overflow"], r["nan"]]
        if r["int8_range"] != "-":
            pol.append(r["int8_range"])
        if r["flush"] == "1":
            pol.append("flush_input_subnormals")
        groups.setdefault(":".join(pol), []).append(r)
    compared = 0
    for pol, rows in groups.items():
        width = 8 if src == "fp32" else 4
        bits = np.array([int(r["in"], 16) for r in rows], dtype=np.uint32 if width == 8 else np.uint16)
        x = bits.view(np.float32) if src == "fp32" else (bits.view(np.float16) if src == "fp16" else bits)
        rb = np.array([int(r["rbits"], 16) for r in rows], dtype=np.uint32)
        got = mx.encode(x, fmt, policy=pol, source="bf16" if src == "bf16" else None, rbits=rb)
        want = np.array([int(r["expected"], 16) for r in rows], dtype=np.uint8)
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, (f"{name} {pol}: {bad.size} rows differ, first input {rows[bad[0]]['in']}: "
                               f"{got[bad[0]]:02x} vs golden {want[bad[0]]:02x}")
        compared += len(rows)
    assert compared == len(vf.rows) > 100


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8"])
def test_scale(vectors_dir, fmt):
    vf = vectors.read(os.path.join(vectors_dir, "scale", fmt + ".csv"))
    assert vf.header["format"] == fmt
    for rule in ("floor", "ceil", "even", "rceil"):
        rows = [r for r in vf.rows if r["rule"] == rule]
        assert rows
        amax = np.array([int(r["amax"], 16) for r in rows], dtype=np.uint32).view(np.float32)
        got = mx.block_scales(amax.reshape(-1, 1), fmt, rule, block=1).reshape(-1)
        want = np.array([int(r["expected"], 16) for r in rows], dtype=np.uint8)
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, f"{fmt} {rule}: amax {rows[bad[0]]['amax']}: {got[bad[0]]:02x} vs {want[bad[0]]:02x}"


def _recipe_of(vf):
    return vf.header["recipe"]


@pytest.mark.parametrize("axis", ["rowwise", "colwise"])
def test_quantize(vectors_dir, axis):
    n = 0
    for path in files(vectors_dir, f"quantize/{axis}/*.csv"):
        vf = vectors.read(path)
        recipe = _recipe_of(vf)
        assert vf.header["axis"] == axis
        for r in vf.rows:
            m, k = (int(v) for v in r["shape"].split("x"))
            x = np.frombuffer(bytes.fromhex(r["x"]), dtype=">u4").astype(np.uint32).view(np.float32).reshape(m, k)
            q = mx.quantize(x, recipe, axis=axis)
            assert q.scale_matrix().tobytes().hex() == r["expected_scales"], f"{path}: {r['shape']} scales"
            assert q.codes().tobytes().hex() == r["expected_elems"], f"{path}: {r['shape']} elements"
            n += 1
    assert n > 300


def test_pack(vectors_dir):
    for path in files(vectors_dir, "pack/*.csv"):
        vf = vectors.read(path)
        fmt, packing = vf.header["format"], vf.header["packing"]
        for r in vf.rows:
            codes = hexbytes(r["codes"]).reshape(1, -1)
            assert int(r["n"]) == codes.shape[1]
            assert mx.pack(codes, fmt, packing).tobytes().hex() == r["expected"], f"{path}: {r['codes']}"
            assert mx.unpack(hexbytes(r["expected"]).reshape(1, -1), fmt, int(r["n"]), packing).tobytes().hex() == r["codes"]


def test_layout(vectors_dir):
    for path in files(vectors_dir, "layout/*.csv"):
        layout = os.path.basename(path)[:-4]
        for r in vectors.read(path).rows:
            rows, blocks, batch = int(r["rows"]), int(r["blocks"]), int(r["batch"])
            assert mx._core.scale_buffer_bytes(layout, rows, blocks, batch) == int(r["expected_bytes"])
            assert mx._core.scale_offset(layout, rows, blocks, batch, int(r["b"]), int(r["r"]),
                                         int(r["kb"])) == int(r["expected_offset"]), f"{path}: {r}"


def test_dot(vectors_dir):
    for path in files(vectors_dir, "dot/*.csv"):
        vf = vectors.read(path)
        h = vf.header
        for r in vf.rows:
            def op(p):
                g = np.array([int(r[p + "_global"], 16)], dtype=np.uint32).view(np.float32)[0]
                return hexbytes(r[p + "_elems"]).reshape(1, -1), hexbytes(r[p + "_scales"]).reshape(1, -1), g
            ac, as_, ag = op("a")
            bc, bs, bg = op("b")
            c = np.array([[int(r["c"], 16)]], dtype=np.uint32).view(np.float32)
            d = mx.exact_gemm(ac, as_, bc, bs, elem=h["a_format"], b_elem=h["b_format"], scale_fmt=h["scale_format"],
                              block=int(h["block"]), c=c, a_global_scale=ag, b_global_scale=bg)
            assert f"{int(d.view(np.uint32)[0, 0]):08x}" == r["expected"], f"{path}: k={r['k']}"


def test_check_same_verdicts_as_cli(vectors_dir, cli, tmp_path):
    """vectors.check and `mxconform check` give the same counts and lines on a file
    with wrong, right and unfilled rows."""
    import subprocess  # noqa: PLC0415

    vf = vectors.read(os.path.join(vectors_dir, "convert", "e2m1_from_fp32.csv"))
    for i, r in enumerate(vf.rows):
        if i % 3 == 0:
            r["observed"] = r["expected"]
        elif i % 3 == 1 and i < 60:
            r["observed"] = f"{(int(r['expected'], 16) ^ 1):02x}"
    path = tmp_path / "mine.csv"
    vf.write(str(path))
    res = vectors.check_file(str(path), max_errors=5)
    p = subprocess.run([cli, "check", str(path), "--max-errors", "5"], capture_output=True, text=True, check=False)
    assert p.returncode == 1 and not res["ok"]
    assert res["mismatches"] == 20 and res["filled"] == 20 + len(vf.rows[::3])
    for line in res["messages"]:
        assert line in p.stdout, line
    summary = f"{res['rows']} rows, {res['filled']} filled, {res['unfilled']} unfilled, {res['mismatches']} mismatches"
    assert summary in p.stdout
    filled = vf.fill_reference()
    assert filled.check()["ok"] and all(r["observed"] == r["expected"] for r in filled.rows)
