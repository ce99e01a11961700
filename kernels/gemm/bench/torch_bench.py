"""torch_bench.py - cuBLAS baselines for the C11 GEMMs (issue 10), beside
mxgemmbench's timings of our kernels: torch._scaled_mm with per-tensor FP8
(e4m3, fp32 scales, bf16 out) and bf16 torch.matmul, on the issue's shapes.
Prints CSV lines: kernel,M,N,K,us_per_call,tflops (median of 5 replays of
a CUDA graph holding `iters` back-to-back calls, so that Python's per-call
launch cost (~10-20 us, as long as a whole decode GEMM) does not leave the GPU
idle between calls and count against cuBLAS; B rotates over enough copies
(>= 128 MB) that it comes from device memory, not L2, as mxgemmbench does for
our kernels). If a graph cannot be captured the calls are timed eagerly and
the kernel name gets the suffix `_eager`.
Usage: python3 torch_bench.py [iters] [decode Ms, comma-separated: only the
decode shapes, bf16 only, for these M (e.g. 33,48)]"""
import sys

import torch

SHAPES = [(8192, 8192, 8192), (4096, 7168, 2048)] + [
    (m, n, k) for m in (1, 16, 64) for (n, k) in ((7168, 2048), (2048, 7168))
]


def rotations(nbytes):
    return max(1, min(16, -(-(128 << 20) // nbytes)))


def bench(fn, iters, nrot):
    """Median microseconds per call, and "" (graph) or "_eager"."""
    for r in range(nrot):
        fn(r)
    torch.cuda.synchronize()
    def run_all():
        for i in range(iters):
            fn(i % nrot)
    step, how = run_all, "_eager"
    try:
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):  # warm-up on a side stream, as capture requires
            run_all()
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        with torch.cuda.graph(g):
            run_all()
        step, how = g.replay, ""
    except Exception as e:  # noqa: BLE001 - fall back to eager timing, and say so
        print(f"# graph capture failed ({type(e).__name__}: {e}); timing eagerly".replace("\n", " "), flush=True)
        torch.cuda.synchronize()
    step()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t = []
    for _ in range(5):
        e0.record()
        step()
        e1.record()
        torch.cuda.synchronize()
        t.append(1000.0 * e0.elapsed_time(e1) / iters)
    return sorted(t)[2], how


def main():
    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    decode_ms = [int(v) for v in sys.argv[2].split(",")] if len(sys.argv) > 2 else []
    shapes = [(m, n, k) for m in decode_ms for (n, k) in ((7168, 2048), (2048, 7168))] if decode_ms else SHAPES
    dev = "cuda"
    for (m, n, k) in shapes:
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        nr = rotations(n * k * 2)
        b = [torch.randn(n, k, device=dev, dtype=torch.bfloat16) for _ in range(nr)]
        us, how = bench(lambda r: torch.matmul(a, b[r].t()), iters, nr)
        print(f"cublas_bf16{how},{m},{n},{k},{us:.2f},{2*m*n*k/us/1e6:.1f}", flush=True)
        if decode_ms:
            continue
        # _scaled_mm needs M, N, K multiples of 16 for fp8: pad M for decode.
        mp = max(16, (m + 15) // 16 * 16)
        a8 = torch.randn(mp, k, device=dev).to(torch.float8_e4m3fn)
        nr = rotations(n * k)
        b8 = [torch.randn(n, k, device=dev).to(torch.float8_e4m3fn) for _ in range(nr)]
        one = torch.ones((), device=dev, dtype=torch.float32)
        try:
            us, how = bench(lambda r: torch._scaled_mm(a8, b8[r].t(), scale_a=one, scale_b=one,
                                                       out_dtype=torch.bfloat16), iters, nr)
            print(f"cublas_fp8_pertensor{how},{m}{'(M padded to ' + str(mp) + ')' if mp != m else ''},{n},{k},{us:.2f},"
                  f"{2*mp*n*k/us/1e6:.1f}", flush=True)
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"cublas_fp8_pertensor,{m},{n},{k},error,{type(e).__name__}: {e}".replace("\n", " "), flush=True)
        del a, b, a8, b8
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
