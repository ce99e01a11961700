"""mxconform: the bit-exact MX reference (reference/SPEC.md C1-C13) from Python.

    import mxconform as mx
    codes = mx.encode(x, "e4m3")                       # C2 defaults (profile "ocp")
    codes = mx.encode(x, "e4m3", profile="torch-cpu")  # what torch's cast does (C13)
    q = mx.quantize(x, "mxfp8_e4m3:rceil", layout="tcgen05")
    q.data, q.scales                                   # uint8, the CLI's P.data.npy / P.scales.npy
    mx.testing.assert_quantized_equal(data, scales, x, recipe="mxfp8_e4m3:rceil", layout="tcgen05")

Inputs: NumPy float32 / float16 arrays, uint16 bf16 bits (source="bf16"),
ml_dtypes.bfloat16 arrays, CPU torch tensors (float32, float16, bfloat16),
read in place when contiguous. Every bad input raises a subclass of
mxconform.Error (InvalidArgument, UnknownName, ShapeError, ParseError) with a
one-line message.
"""
from . import _core
from ._arrays import as_bytes, as_input, view_as
from ._core import Error, InvalidArgument, ParseError, Quantized, ShapeError, UnknownName

SPEC_VERSION = _core.SPEC_VERSION
FORMATS = ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8", "ue8m0", "ue4m3")
# GEMM models: C9 `exact`; the C11 models join here when bound (src/bind_gemm.cpp).
GEMM_MODELS = ("exact",)

__all__ = ["Error", "InvalidArgument", "UnknownName", "ShapeError", "ParseError", "Quantized",
           "encode", "decode", "profiles", "profile_entries", "resolve_policy", "block_scales",
           "scale_code", "quantize", "dequantize", "from_buffers", "convert_layout", "pack", "unpack",
           "gemm", "exact_gemm", "view_as", "recipe_names", "testing", "vectors", "FORMATS",
           "SPEC_VERSION", "GEMM_MODELS"]


def _opt_str(v, what):
    if v is not None and not isinstance(v, str):
        raise InvalidArgument(f"{what} must be a string, got {type(v).__name__}")
    return v


def encode(x, fmt, profile=None, rounding=None, overflow=None, nan=None, policy=None, source=None, rbits=None):
    """uint8 codes of x in `fmt` (e4m3, e5m2, e3m2, e2m3, e2m1, int8, e8m0 = ue8m0, ue4m3).

    profile: None/"ocp" (C2 defaults plus rounding/overflow/nan/policy), a library
    profile ("torch-cpu", "ml_dtypes", ...) or NAME:MODE ("triton:rtz", "cuda:satfinite");
    policy: further ':'-joined C2/C13 value names (e.g. "rne:saturate:nan_keep_sign");
    rbits: uint32 random words per element for sr rounding."""
    for v, w in ((fmt, "fmt"), (profile, "profile"), (rounding, "rounding"), (overflow, "overflow"),
                 (nan, "nan"), (policy, "policy"), (source, "source")):
        _opt_str(v, w)
    if fmt is None:
        raise InvalidArgument("fmt must be a format name")
    arr, src = as_input(x, source)
    if rbits is not None:
        rbits, _ = _arrays_to_numpy(rbits, "rbits")
    return _core.encode(arr, fmt, src, profile, rounding, overflow, nan, policy, rbits)


def _arrays_to_numpy(x, what):
    from ._arrays import to_numpy  # noqa: PLC0415

    return to_numpy(x, what)


def decode(codes, fmt, out="fp32"):
    """Values of uint8 codes: float32 (out="fp32"), float16, or uint16 bf16 bits (out="bf16")."""
    return _core.decode(as_bytes(codes, "codes"), fmt, out)


def profiles():
    """Every profile: [{name, library, description}], "ocp" first."""
    return _core.profiles()


def profile_entries():
    """Every (profile, source, format, mode) entry with its policy, basis, API and version."""
    return _core.profile_entries()


def resolve_policy(fmt, source="fp32", profile=None, rounding=None, overflow=None, nan=None, policy=None):
    """The policy encode() uses, as ':'-joined value names."""
    return _core.resolve_policy(fmt, source, profile, rounding, overflow, nan, policy)


def block_scales(x, elem, rule="floor", block=32, nonfinite="nonfinite_block_nan", source=None):
    """C3 ue8m0 scale codes of each block along the last axis (rules floor, ceil, even, rceil)."""
    arr, src = as_input(x, source)
    return _core.block_scales(arr, elem, rule, block, nonfinite, src)


def scale_code(amax_bits, elem, rule="floor"):
    """C3 scale code of a finite amax given as fp32 bits."""
    return _core.scale_code(int(amax_bits), elem, rule)


def quantize(x, recipe, axis="rowwise", data_order="source", layout="dense", packing="packed",
             source=None, rbits=None):
    """C4/C5 quantization of a [K], [M, K] or [B, M, K] tensor: a Quantized with
    .data (uint8 [B, rows, row_bytes]) and .scales (uint8, in `layout`)."""
    arr, src = as_input(x, source)
    if rbits is not None:
        rbits, _ = _arrays_to_numpy(rbits, "rbits")
    return _core.quantize(arr, recipe, axis, data_order, layout, packing, src, rbits)


def dequantize(q, out="fp32"):
    """C8: values in the source shape [B, M, K] (bf16 as uint16 bits)."""
    if not isinstance(q, Quantized):
        raise InvalidArgument(f"dequantize: expected a Quantized, got {type(q).__name__}")
    return q.dequantize(out)


def from_buffers(data, scales, recipe, shape, axis="rowwise", data_order="source", layout="dense",
                 packing="packed", global_amax_bits=0):
    """A Quantized holding another implementation's data and scale bytes."""
    shape = _shape3(shape)
    return _core.from_buffers(as_bytes(data, "data").reshape(-1), as_bytes(scales, "scales").reshape(-1),
                              recipe, shape, axis, data_order, layout, packing, int(global_amax_bits))


def _shape3(shape):
    try:
        shape = [int(d) for d in shape]
    except (TypeError, ValueError) as ex:
        raise ShapeError(f"shape must be a sequence of integers, got {shape!r}") from ex
    return shape


def convert_layout(scales, rows, blocks, batch=1, src="dense", dst="tcgen05"):
    """C7: scale bytes of a [batch][rows][blocks] matrix from layout src to dst."""
    return _core.convert_layout(as_bytes(scales, "scales").reshape(-1), rows, blocks, batch, src, dst)


def pack(codes, fmt, packing="packed"):
    """C6: pack each row (last axis) of one-per-byte codes."""
    return _core.pack(as_bytes(codes, "codes"), fmt, packing)


def unpack(data, fmt, n, packing="packed"):
    """C6: n codes per row from packed rows."""
    return _core.unpack(as_bytes(data, "data"), fmt, n, packing)


def exact_gemm(a_codes, a_scales, b_codes, b_scales, elem="e4m3", b_elem=None, scale_fmt="ue8m0",
               block=32, c=None, a_global_scale=1.0, b_global_scale=1.0):
    """C9 `exact` on unpacked codes [rows, K] and dense scales [rows, ceil(K/block)]."""
    if c is not None:
        c, _ = _arrays_to_numpy(c, "c")
    return _core.exact_gemm(as_bytes(a_codes, "a_codes"), as_bytes(a_scales, "a_scales"),
                            as_bytes(b_codes, "b_codes"), as_bytes(b_scales, "b_scales"),
                            elem, b_elem, scale_fmt, block, c, float(a_global_scale), float(b_global_scale))


def gemm(a, b, c=None, model="exact"):
    """D = C + A B^T for two rowwise Quantized operands (same recipe block). model: GEMM_MODELS."""
    if model not in GEMM_MODELS:
        raise UnknownName(f"unknown GEMM model '{model}' (expected one of {', '.join(GEMM_MODELS)})")
    for q, n in ((a, "a"), (b, "b")):
        if not isinstance(q, Quantized) or q.axis != "rowwise" or q.shape[0] != 1:
            raise InvalidArgument(f"gemm: {n} must be a rowwise Quantized of one matrix")
    sa, sb = a.scale_matrix()[0], b.scale_matrix()[0]
    return exact_gemm(a.codes()[0], sa, b.codes()[0], sb, elem=a.element_format, b_elem=b.element_format,
                      scale_fmt=a.scale_format, block=a.block, c=c,
                      a_global_scale=a.tensor_factor, b_global_scale=b.tensor_factor)


def recipe_names():
    """Every named recipe of C4/C5."""
    return _core.recipe_names()


from . import testing, vectors  # noqa: E402
