"""The torch path (run where torch is installed: the GPU machine): CPU tensors
are read in place (no copy), torch.bfloat16 is read as its bits, float8
views, and device tensors accepted by the testing helpers. Without torch
every test here is reported as skipped (CTest: SKIP_REGULAR_EXPRESSION)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import mxconform as mx  # noqa: E402
from mxconform import testing  # noqa: E402
from mxconform._arrays import to_numpy  # noqa: E402


def sample():
    g = torch.Generator().manual_seed(7)
    return torch.randn(8, 96, generator=g) * 3


def test_no_copy_float32_and_bf16():
    x = sample()
    a, src = to_numpy(x)
    assert src == "" and a.ctypes.data == x.data_ptr()
    b = x.to(torch.bfloat16)
    a, src = to_numpy(b)
    assert src == "bf16" and a.dtype == np.uint16 and a.ctypes.data == b.data_ptr()


def test_tensor_equals_numpy_path():
    x = sample()
    for fmt in ("e4m3", "e5m2", "e2m1", "ue8m0"):
        assert mx.encode(x, fmt).tobytes() == mx.encode(x.numpy(), fmt).tobytes()
    b = x.to(torch.bfloat16)
    bits = b.view(torch.int16).numpy().view(np.uint16)
    assert mx.encode(b, "e4m3").tobytes() == mx.encode(bits, "e4m3", source="bf16").tobytes()
    q1 = mx.quantize(b, "mxfp8_e4m3:rceil", layout="tcgen05")
    q2 = mx.quantize(bits, "mxfp8_e4m3:rceil", layout="tcgen05", source="bf16")
    assert q1.data.tobytes() == q2.data.tobytes() and q1.scales.tobytes() == q2.scales.tobytes()
    h = x.to(torch.float16)
    assert mx.encode(h, "e4m3").tobytes() == mx.encode(h.numpy(), "e4m3").tobytes()


def test_float8_views_and_gate():
    x = sample()
    q = mx.quantize(x, "mxfp8_e4m3")
    t = mx.view_as(q.data, "e4m3", like="torch")
    assert t.dtype == torch.float8_e4m3fn and t.view(torch.uint8).numpy().tobytes() == q.data.tobytes()
    s = mx.view_as(q.scales, "ue8m0", like="torch")
    testing.assert_quantized_equal(t, s, x, recipe="mxfp8_e4m3")
    # torch's own cast reproduced by its profile (C13), element for element.
    testing.assert_codes_equal(x.to(torch.float8_e4m3fn), x, "e4m3", profile="torch-cpu")


def test_device_tensor_refused_by_encode_accepted_by_gate():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    x = sample().cuda()
    with pytest.raises(mx.InvalidArgument):
        mx.encode(x, "e4m3")
    codes = x.to(torch.float8_e4m3fn)
    testing.assert_codes_equal(codes, x, "e4m3", profile="torch-cuda")
