"""test_peers_dry.py - bench/peers.py's control flow without a GPU (issue 9
point 2): a stand-in `torch` and `peers_torch` (NumPy, a fixed 1 us per
launch) drive body() over two small sizes with a real mxbench CSV, and the
test asserts the table: every operation has its "ours" row from the CSV, the
copy, the plain cast and every compiled peer, ratios against the right copy,
a failing peer recorded as an error row, and the budget respected. Label cpu.
"""
import csv
import pathlib
import sys
import types

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import peers_mx as pm  # noqa: E402


class FakeT(np.ndarray):
    def to(self, dtype):
        return np.zeros(self.shape, np.uint8)

    def copy_(self, other):
        self[...] = other
        return self


def fake_modules(fail_recipe):
    torch = types.ModuleType("torch")
    torch.__version__ = "fake"
    torch.version = types.SimpleNamespace(cuda="none")
    torch.float8_e4m3fn = "float8_e4m3fn"
    torch.empty_like = np.empty_like
    torch.cuda = types.SimpleNamespace(
        get_device_properties=lambda i: types.SimpleNamespace(name="FakeGPU", multi_processor_count=1, L2_cache_size=1 << 20),
        synchronize=lambda: None, empty_cache=lambda: None)
    pt = types.ModuleType("peers_torch")
    pt.triton_version = lambda: "fake"
    pt.mxbench_fill = lambda M, K, b: (np.full((M, K), 0x3F80 + b, np.uint16)).view(FakeT)
    pt.time_calls = lambda calls, warm, iters: [c() for c in calls] and 1.0
    pt.graphed = lambda c: c

    def compiled(recipe, axis, variant):
        if recipe == fail_recipe:
            raise RuntimeError("inductor said no")

        def f(x):
            return pm.quantize(pm.NumpyOps, pm.NumpyOps.bits_from_bf16(np.asarray(x)), recipe, axis)
        return f
    pt.compiled = compiled
    pt.check_bytes = lambda fn, x, recipe, axis, variant, cli, tmp, say, shape: "CLI on fake: equal"
    return torch, pt


def run_peers(tmp_path, monkeypatch, budget, fail_recipe=None):
    torch, pt = fake_modules(fail_recipe)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "peers_torch", pt)
    import peers
    bench = tmp_path / "bench.csv"
    with open(bench, "w") as f:
        f.write("device,M,K,case,median_us,bytes,GBps,ratio_to_copy,target\n")
        for case in [c for c, _ in peers.OURS.values()]:
            f.write(f'"FakeGPU",256,1024,"{case}",2.000,1000,500.0,0.5000,\n')
    out = tmp_path / "out"
    monkeypatch.setattr(sys, "argv", ["peers.py", "--mxbench-csv", str(bench), "--out", str(out), "--size", "256x1024",
                                      "--size", "64x512", "--budget-s", str(budget), "--mxconform", "/nonexistent"])
    rc = peers.main()
    rows = list(csv.DictReader(open(out / "peers.csv")))
    return rc, rows, (out / "peers.md").read_text(), peers


def test_table_complete(tmp_path, monkeypatch):
    rc, rows, md, peers = run_peers(tmp_path, monkeypatch, budget=100)
    assert rc == 0, md
    for size in ("256x1024", "64x512"):
        mine = [r for r in rows if r["size"] == size]
        impls = {(r["operation"], r["implementation"]) for r in mine}
        for op, (case, _) in peers.OURS.items():
            assert (op, f"ours: {case}") in impls
        for op, impl, *_ in peers.PEERS:
            assert (op, impl) in impls, (size, op, impl)
        copy = [r for r in mine if r["implementation"] == "torch: y.copy_(x)"][0]
        assert copy["ratio_to_copy"] == "1.000" and copy["copy_basis"] == "torch"
        ours = [r for r in mine if r["implementation"].startswith("ours: ")]
        assert ours and all(r["copy_basis"] == "mxbench" and r["ratio_to_copy"] == "0.500" for r in ours) if size == "256x1024" \
            else all(r["note"] == "not in the mxbench CSV" for r in ours)
        peer = [r for r in mine if r["implementation"].startswith("torch.compile")]
        assert all(r["bytes_check"] == "CLI on fake: equal" for r in peer)
    # the small shape also has CUDA-graph rows
    assert any(r["implementation"].endswith("[CUDA graph]") for r in rows if r["size"] == "64x512")
    # MXFP4 packs two codes per byte: 2 bytes/elem in + 0.5 out + 1/32 scales
    r = [r for r in rows if r["size"] == "256x1024" and r["operation"] == "MXFP4 rowwise floor" and "compile" in r["implementation"]][0]
    assert float(r["bytes"]) == 256 * 1024 * 2 + 256 * 512 + 256 * 32
    assert "| 256x1024 | MXFP8 e4m3 rowwise floor |" in md and "reference for the bytes check:" in md


def test_failure_is_a_row_and_the_exit_status(tmp_path, monkeypatch):
    rc, rows, md, _ = run_peers(tmp_path, monkeypatch, budget=100, fail_recipe="mxfp4")
    assert rc == 1
    bad = [r for r in rows if r["operation"] == "MXFP4 rowwise floor" and "compile" in r["implementation"]]
    assert bad and all(r["note"].startswith("error: RuntimeError: inductor said no") for r in bad)


def test_budget_skips_instead_of_running_over(tmp_path, monkeypatch):
    rc, rows, md, _ = run_peers(tmp_path, monkeypatch, budget=12)
    assert any("skipped: time budget" in r["note"] for r in rows)
