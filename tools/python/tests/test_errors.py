"""Every bad input raises a typed exception (a subclass of mxconform.Error,
mirroring mx::Error's) with a one-line message."""
import numpy as np
import pytest

import mxconform as mx
from mxconform import testing, vectors

X = np.array([1.0, -2.5, 0.0], dtype=np.float32)
Q = np.zeros((4, 64), dtype=np.float32)

CASES = [
    (mx.UnknownName, lambda: mx.encode(X, "e9m9")),
    (mx.InvalidArgument, lambda: mx.encode(X, "fp32")),
    (mx.UnknownName, lambda: mx.encode(X, "e4m3", profile="numpy")),
    (mx.UnknownName, lambda: mx.encode(X, "e4m3", rounding="nearest")),
    (mx.UnknownName, lambda: mx.encode(X, "e4m3", overflow="wrap")),
    (mx.UnknownName, lambda: mx.encode(X, "e4m3", policy="rne:bogus")),
    (mx.InvalidArgument, lambda: mx.encode(X, "e4m3", nan="nan_to_zero")),
    (mx.InvalidArgument, lambda: mx.encode(X, "e4m3", profile="torch-cpu", rounding="rtz")),
    (mx.InvalidArgument, lambda: mx.encode(X, "e4m3", profile="triton:nosuchmode")),
    (mx.InvalidArgument, lambda: mx.encode(X, "e4m3", rounding="sr")),
    (mx.ShapeError, lambda: mx.encode(X, "e4m3", rounding="sr", rbits=np.zeros(2, np.uint32))),
    (mx.InvalidArgument, lambda: mx.encode(X.astype(np.int32), "e4m3")),
    (mx.InvalidArgument, lambda: mx.encode(X.astype(np.float64), "e4m3")),
    (mx.InvalidArgument, lambda: mx.encode(np.zeros(3, np.uint16), "e4m3")),
    (mx.InvalidArgument, lambda: mx.encode(X, "e4m3", source="bf16")),
    (mx.InvalidArgument, lambda: mx.encode([1.0, 2.0], "e4m3")),
    (mx.InvalidArgument, lambda: mx.encode("1.0", "e4m3")),
    (mx.InvalidArgument, lambda: mx.encode(X, 5)),
    (mx.InvalidArgument, lambda: mx.decode(np.array([0x10], np.uint8), "e2m1")),
    (mx.InvalidArgument, lambda: mx.decode(np.array([1], np.uint16), "e4m3")),
    (mx.UnknownName, lambda: mx.decode(np.array([1], np.uint8), "e4m3", out="fp8")),
    (mx.UnknownName, lambda: mx.block_scales(X, "e4m3", "round")),
    (mx.UnknownName, lambda: mx.block_scales(X, "e4m3", nonfinite="skip")),
    (mx.InvalidArgument, lambda: mx.block_scales(X, "e4m3", block=0)),
    (mx.ShapeError, lambda: mx.block_scales(np.float32(1.0), "e4m3")),
    (mx.UnknownName, lambda: mx.quantize(Q, "mxfp9")),
    (mx.UnknownName, lambda: mx.quantize(Q, "mxfp8_e4m3:fast")),
    (mx.UnknownName, lambda: mx.quantize(Q, "mxfp8_e4m3", axis="diag")),
    (mx.UnknownName, lambda: mx.quantize(Q, "mxfp8_e4m3", layout="swizzled")),
    (mx.UnknownName, lambda: mx.quantize(Q, "mxfp8_e4m3", packing="nibbles")),
    (mx.UnknownName, lambda: mx.quantize(Q, "mxfp8_e4m3", data_order="reversed")),
    (mx.ShapeError, lambda: mx.quantize(np.zeros((1, 1, 1, 4), np.float32), "mxfp8_e4m3")),
    (mx.InvalidArgument, lambda: mx.quantize(Q, "mxfp8_e4m3:sr")),
    (mx.InvalidArgument, lambda: mx.quantize(Q, "mxfp8_e4m3", data_order="transposed")),
    (mx.ShapeError, lambda: mx.from_buffers(np.zeros(5, np.uint8), np.zeros(8, np.uint8), "mxfp8_e4m3", (4, 64))),
    (mx.ShapeError, lambda: mx.from_buffers(np.zeros(256, np.uint8), np.zeros(3, np.uint8), "mxfp8_e4m3", (4, 64))),
    (mx.ShapeError, lambda: mx.from_buffers(np.zeros(256, np.uint8), np.zeros(8, np.uint8), "mxfp8_e4m3", "4x64")),
    (mx.ShapeError, lambda: mx.convert_layout(np.zeros(7, np.uint8), 2, 4)),
    (mx.UnknownName, lambda: mx.convert_layout(np.zeros(8, np.uint8), 2, 4, dst="blocked")),
    (mx.InvalidArgument, lambda: mx.pack(np.array([[16]], np.uint8), "e2m1")),
    (mx.ShapeError, lambda: mx.unpack(np.zeros((1, 3), np.uint8), "e2m1", 4)),
    (mx.ShapeError, lambda: mx.exact_gemm(np.zeros((2, 32), np.uint8), np.zeros((2, 1), np.uint8),
                                          np.zeros((2, 16), np.uint8), np.zeros((2, 1), np.uint8))),
    (mx.ShapeError, lambda: mx.exact_gemm(np.zeros((2, 32), np.uint8), np.zeros((2, 2), np.uint8),
                                          np.zeros((2, 32), np.uint8), np.zeros((2, 1), np.uint8))),
    (mx.InvalidArgument, lambda: mx.exact_gemm(np.zeros((2, 32), np.uint8), np.zeros((2, 1), np.uint8),
                                               np.zeros((2, 32), np.uint8), np.zeros((2, 1), np.uint8),
                                               scale_fmt="e4m3")),
    (mx.UnknownName, lambda: mx.gemm(mx.quantize(Q, "mxfp8_e4m3"), mx.quantize(Q, "mxfp8_e4m3"), model="fast")),
    (mx.InvalidArgument, lambda: mx.dequantize(Q)),
    (mx.UnknownName, lambda: mx.quantize(Q, "mxfp8_e4m3").dequantize("int8")),
    (mx.ParseError, lambda: vectors.parse("# only a header\n")),
    (mx.ParseError, lambda: vectors.parse("# h\na,b\n1,2,3\n")),
    (mx.ParseError, lambda: vectors.read("/nonexistent/file.csv")),
    (mx.ParseError, lambda: vectors.check(vectors.parse("# h\na,b\n1,2\n"))),
    (mx.ShapeError, lambda: testing.assert_codes_equal(np.zeros(2, np.uint8), X, "e4m3")),
    (mx.InvalidArgument, lambda: testing.assert_codes_equal(np.zeros(3, np.uint16), X, "e4m3")),
    (mx.ShapeError, lambda: testing.assert_quantized_equal(np.zeros(3, np.uint8), np.zeros(8, np.uint8), Q,
                                                           recipe="mxfp8_e4m3")),
    (mx.UnknownName, lambda: mx.view_as(np.zeros(2, np.uint8), "e4m3", like="jax")),
]


@pytest.mark.parametrize("exc,call", CASES, ids=[str(i) for i in range(len(CASES))])
def test_typed_one_line(exc, call):
    with pytest.raises(exc) as info:
        call()
    assert isinstance(info.value, mx.Error) and isinstance(info.value, ValueError)
    msg = str(info.value)
    assert msg and "\n" not in msg, msg


def test_hierarchy():
    for e in (mx.InvalidArgument, mx.UnknownName, mx.ShapeError, mx.ParseError):
        assert issubclass(e, mx.Error)
    assert not issubclass(mx.UnknownName, mx.InvalidArgument)
