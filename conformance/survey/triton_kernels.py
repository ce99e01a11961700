"""conformance/survey/triton_kernels.py - the Triton cast kernels of the survey.

Kept at module level (Triton reads a kernel's source and globals); imported
only by the triton worker in casts_torch.py. One kernel per rounding request:
Triton's default, fp_downcast_rounding='rtne' and 'rtz'. Each loads a block,
casts it to DST and stores the 8-bit codes.
"""

import triton
import triton.language as tl


@triton.jit
def k_default(x_ptr, y_ptr, n, DST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    y = tl.load(x_ptr + offs, mask=m).to(DST)
    tl.store(y_ptr + offs, y.to(tl.uint8, bitcast=True), mask=m)


@triton.jit
def k_rtne(x_ptr, y_ptr, n, DST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    y = tl.load(x_ptr + offs, mask=m).to(DST, fp_downcast_rounding="rtne")
    tl.store(y_ptr + offs, y.to(tl.uint8, bitcast=True), mask=m)


@triton.jit
def k_rtz(x_ptr, y_ptr, n, DST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    y = tl.load(x_ptr + offs, mask=m).to(DST, fp_downcast_rounding="rtz")
    tl.store(y_ptr + offs, y.to(tl.uint8, bitcast=True), mask=m)


KERNELS = {"default": k_default, "rtne": k_rtne, "rtz": k_rtz}
