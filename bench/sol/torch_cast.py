"""torch's plain fp8 cast beside torch's bf16 copy, timed like sol.cu / mxbench.

Median of ITERS launches, each between two CUDA events, after 5 warm-up
launches, over two rotating input buffers. Usage: python3 torch_cast.py [M K ITERS]
"""
import statistics
import sys

import torch

M, K = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (16384, 16384)
ITERS = int(sys.argv[3]) if len(sys.argv) > 3 else 30
xs = [torch.randn(M, K, device="cuda", dtype=torch.bfloat16) for _ in range(2)]
ys = [torch.empty_like(x) for x in xs]
f8 = [torch.empty(M, K, device="cuda", dtype=torch.float8_e4m3fn) for _ in range(2)]


def median_us(fn):
    for i in range(5):
        fn(i % 2)
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(ITERS)]
    for i, (a, b) in enumerate(ev):
        a.record()
        fn((5 + i) % 2)
        b.record()
    torch.cuda.synchronize()
    return 1e3 * statistics.median(a.elapsed_time(b) for a, b in ev)


n = M * K
print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, {M}x{K} bf16, median of {ITERS}")
copy_us = median_us(lambda b: ys[b].copy_(xs[b]))
cast_us = median_us(lambda b: xs[b].to(torch.float8_e4m3fn))
cast_out_us = median_us(lambda b: f8[b].copy_(xs[b]))
copy_gbs = 4 * n / copy_us / 1e3
for name, us, nbytes in [("torch copy y.copy_(x)", copy_us, 4 * n), ("torch x.to(float8_e4m3fn)", cast_us, 3 * n),
                         ("torch f8.copy_(x) (preallocated output)", cast_out_us, 3 * n),
                         ("copy again", median_us(lambda b: ys[b].copy_(xs[b])), 4 * n)]:
    gbs = nbytes / us / 1e3
    print(f"{name:45s} {us:10.2f} us {gbs:8.1f} GB/s ratio {gbs / copy_gbs:.3f}")
