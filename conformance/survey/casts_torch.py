"""conformance/survey/casts_torch.py - survey workers for PyTorch (CPU, CUDA,
torch.compile on CUDA) and Triton.

torch: `x.to(dtype)` from float32/bfloat16/float16 tensors to
float8_e4m3fn, float8_e5m2, float8_e8m0fnu and float4_e2m1fn_x2 (a packed
dtype: if `.to` refuses, the error text is the record).
Triton: a one-line @triton.jit kernel `x.to(dst, fp_downcast_rounding=...)`
for fp8e4nv / fp8e5 with the default rounding and every mode Triton names
('rtne', 'rtz'), from fp32/bf16/fp16.
"""

import numpy as np

import inputs as survey_inputs

SOURCES = ("fp32", "bf16", "fp16")
TORCH_TARGETS = {
    "e4m3": "float8_e4m3fn",
    "e5m2": "float8_e5m2",
    "ue8m0": "float8_e8m0fnu",
    "e2m1": "float4_e2m1fn_x2",
}


def _torch_src(torch, bits, source, device):
    if source == "fp32":
        t = torch.from_numpy(bits.view(np.int32).copy()).view(torch.float32)
    else:
        t = torch.from_numpy(bits.view(np.int16).copy())
        t = t.view(torch.bfloat16 if source == "bf16" else torch.float16)
    return t.to(device)


def _int_dtype(torch, source):
    return torch.int32 if source == "fp32" else torch.int16


def _to_codes(torch, y):
    y = y.contiguous()
    if y.element_size() != 1:
        raise TypeError(f"result dtype {y.dtype} has {y.element_size()} bytes per element")
    return y.view(torch.uint8).cpu().numpy()


def _versions(rec, torch):
    rec.version("torch", torch.__version__)
    rec.version("torch_cuda", str(torch.version.cuda))
    rec.version("numpy", np.__version__)
    if torch.cuda.is_available():
        rec.version("cuda_device", torch.cuda.get_device_name(0))
        rec.version("cuda_capability", ".".join(map(str, torch.cuda.get_device_capability(0))))


def worker_torch(rec, backend):
    """backend 'cpu' or 'cuda': eager x.to(dtype)."""
    import torch  # noqa: PLC0415

    _versions(rec, torch)
    device = "cuda" if backend == "cuda" else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        rec.note("torch.cuda.is_available() is False: no torch CUDA entries")
        return
    for source in SOURCES:
        bits = survey_inputs.source_bits(source)
        for target, name in TORCH_TARGETS.items():
            api = f"x.to(torch.{name})"
            dt = getattr(torch, name, None)
            if dt is None:
                rec.unsupported("torch", backend, source, target, "to", api, name,
                                f"torch {torch.__version__} has no torch.{name}")
                continue

            def run(b, dt=dt, source=source):
                return _to_codes(torch, _torch_src(torch, b, source, device).to(dt))

            def run_scalar(v, dt=dt, source=source):
                arr = np.array([v], dtype=np.uint32 if source == "fp32" else np.uint16)
                t0d = _torch_src(torch, arr, source, device)[0]  # 0-d tensor
                return int(t0d.to(dt).reshape(1).view(torch.uint8).cpu()[0])

            def run_strided(b, dt=dt, source=source):
                src = _torch_src(torch, b, source, device)
                it = _int_dtype(torch, source)
                buf = torch.zeros((b.size, 2), dtype=it, device=device)
                buf[:, 0] = src.view(it)
                view = buf.view(src.dtype)[:, 0]  # stride 2, not contiguous
                return _to_codes(torch, view.to(dt))

            rec.cast(library="torch", backend=backend, source=source, target=target, mode="to",
                     api=api, dtype_name=name, run=run, bits=bits, run_scalar=run_scalar,
                     run_strided=run_strided)


def worker_torch_compile(rec):
    """torch.compile (Inductor, which emits Triton) of x.to(dtype) on CUDA."""
    import torch  # noqa: PLC0415

    _versions(rec, torch)
    if not torch.cuda.is_available():
        rec.note("torch.cuda.is_available() is False: no torch.compile entries")
        return
    for source in SOURCES:
        bits = survey_inputs.source_bits(source)
        for target, name in TORCH_TARGETS.items():
            if target == "e2m1":
                continue  # eager has no such cast either (recorded by the torch worker)
            dt = getattr(torch, name, None)
            if dt is None:
                continue
            fn = torch.compile(lambda a, dt=dt: a.to(dt), dynamic=False, fullgraph=True)

            def run(b, fn=fn, source=source):
                return _to_codes(torch, fn(_torch_src(torch, b, source, "cuda")))

            rec.cast(library="torch", backend="cuda", source=source, target=target,
                     mode="compile", api=f"torch.compile(lambda a: a.to(torch.{name}))",
                     dtype_name=name, run=run, bits=bits, check=False, min_left=15.0)
            rec.compare_entries(f"torch/cuda/{source}/{target}/to",
                                f"torch/cuda/{source}/{target}/compile",
                                "torch.compile and eager differ")


def worker_triton(rec):
    import torch  # noqa: PLC0415
    import triton  # noqa: PLC0415
    import triton.language as tl  # noqa: PLC0415

    # Each run specializes the kernel on n (n == 1, n % 16) and compiles: the
    # value-alone checks (offset, size-1) run for the default rounding only.

    _versions(rec, torch)
    rec.version("triton", triton.__version__)
    if not torch.cuda.is_available():
        rec.note("torch.cuda.is_available() is False: no Triton entries")
        return

    from triton_kernels import KERNELS as kernels  # noqa: PLC0415

    targets = {"e4m3": "float8e4nv", "e5m2": "float8e5"}
    for source in SOURCES:
        bits = survey_inputs.source_bits(source)
        for target, tname in targets.items():
            dst = getattr(tl, tname, None)
            for mode, kern in kernels.items():
                rnd = "" if mode == "default" else f", fp_downcast_rounding='{mode}'"
                api = f"tl.load(x).to(tl.{tname}{rnd})"
                if dst is None:
                    rec.unsupported("triton", "cuda", source, target, mode, api, tname,
                                    f"triton {triton.__version__} has no tl.{tname}")
                    continue

                def run(b, kern=kern, dst=dst, source=source):
                    x = _torch_src(torch, b, source, "cuda")
                    y = torch.empty(x.numel(), dtype=torch.uint8, device="cuda")
                    n = x.numel()
                    kern[(triton.cdiv(n, 1024),)](x, y, n, DST=dst, BLOCK=1024)
                    return y.cpu().numpy()

                rec.cast(library="triton", backend="cuda", source=source, target=target,
                         mode=mode, api=api, dtype_name=tname, run=run, bits=bits,
                         check=(mode == "default"), min_left=10.0)
