"""The package against the CLI's side files, byte for byte: `mxconform quantize
... --out P` (P.data.npy, P.scales.npy, P.json), `dequantize`, `encode`. The CLI
is the same library through another front end: these tests pin the binding's
argument handling, shapes and layouts to the CLI's."""
import json
import subprocess

import numpy as np
import pytest

import mxconform as mx

CASES = [
    ("mxfp8_e4m3:rceil", "rowwise", "source", "tcgen05", "packed"),
    ("mxfp8_e5m2", "colwise", "source", "dense_colwise", "packed"),
    ("mxfp4", "colwise", "transposed", "dense", "packed"),
    ("mxfp4:even", "rowwise", "source", "tcgen05", "container8"),
    ("mxfp6_e3m2:ceil", "rowwise", "source", "dense", "packed"),
    ("mxfp6_e2m3", "colwise", "transposed", "tcgen05", "container8"),
    ("mxint8:int8_symmetric", "rowwise", "source", "dense", "packed"),
    ("nvfp4", "rowwise", "source", "tcgen05", "packed"),
    ("nvfp4:torchao", "colwise", "transposed", "dense", "packed"),
]


def run(cli, *args):
    p = subprocess.run([cli, *args], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr
    return p


def tensor(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * np.exp2(rng.integers(-8, 8, shape))).astype(np.float32)
    x.reshape(-1)[:3] = [0.0, -0.0, 448.0 * 3]
    if dtype == "bf16":
        return (x.view(np.uint32) >> 16).astype(np.uint16), "bf16"
    return x.astype(dtype), None


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3]}-{c[4]}" for c in CASES])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bf16"])
def test_quantize_side_files(cli, tmp_path, case, dtype):
    recipe, axis, order, layout, packing = case
    x, src = tensor((2, 67, 45), dtype, CASES.index(case))
    np.save(tmp_path / "x.npy", x)
    out = str(tmp_path / "P")
    run(cli, "quantize", "--recipe", recipe, "--in", str(tmp_path / "x.npy"), "--axis", axis, "--data-order", order,
        "--layout", layout, "--packing", packing, "--out", out)
    q = mx.quantize(x, recipe, axis=axis, data_order=order, layout=layout, packing=packing, source=src)
    d, s = np.load(out + ".data.npy"), np.load(out + ".scales.npy")
    assert d.dtype == q.data.dtype == np.uint8 and d.shape == q.data.shape and d.tobytes() == q.data.tobytes()
    assert s.dtype == q.scales.dtype and s.shape == q.scales.shape and s.tobytes() == q.scales.tobytes()
    meta = json.load(open(out + ".json"))
    assert meta["recipe"] == q.recipe and meta["tensor_shape"] == list(q.shape)
    assert meta["scales"]["layout"] == q.layout and meta["global_amax_bits"] == f"{q.global_amax_bits:08x}"
    assert [meta["scales"]["matrix"][k] for k in ("batch", "rows", "blocks")] == list(q.scale_matrix_shape)
    for t in ("fp32", "bf16", "fp16"):
        run(cli, "dequantize", out + ".json", "--out", str(tmp_path / "y.npy"), "--out-type", t)
        y = np.load(tmp_path / "y.npy")
        mine = q.dequantize(t)
        assert y.tobytes() == mine.tobytes() and y.size == mine.size
    # The CLI's bytes pass the package's gate; the gate accepts them as another implementation's.
    mx.testing.assert_quantized_equal(d, s, x, recipe=recipe, layout=layout, axis=axis, data_order=order,
                                      packing=packing, source=src)


def test_encode_every_profile(cli, tmp_path):
    """`mxconform encode --profile P` and mxconform.encode(profile=P) for every
    offered default (profile, source, format) entry."""
    bits16 = np.arange(1 << 16, dtype=np.uint32)
    x32 = np.concatenate([bits16 << 16, (bits16 << 16) | 0x8001, bits16 * 0x10001]).astype(np.uint32).view(np.float32)
    inputs = {"fp32": x32, "fp16": bits16.astype(np.uint16).view(np.float16), "bf16": bits16.astype(np.uint16)}
    for src, x in inputs.items():
        np.save(tmp_path / f"{src}.npy", x)
    n = 0
    for e in mx.profile_entries():
        if not e["offered"] or not e["is_default"]:
            continue
        src, fmt, prof = e["source"], e["format"], e["profile"]
        run(cli, "encode", "--format", fmt, "--profile", prof, "--source", src, "--in", str(tmp_path / f"{src}.npy"),
            "--out", str(tmp_path / "c.npy"))
        want = np.load(tmp_path / "c.npy")
        got = mx.encode(inputs[src], fmt, profile=prof, source="bf16" if src == "bf16" else None)
        assert got.tobytes() == want.tobytes(), f"{prof} {src} -> {fmt}"
        n += 1
    assert n >= 20
