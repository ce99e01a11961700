"""Input adaptation for mxconform (issue 8): NumPy arrays, ml_dtypes arrays
and CPU torch tensors become NumPy arrays that share the caller's memory
(no copy when it is contiguous). torch is duck-typed: it is never imported
here, so the package works without it.
"""
import numpy as np

from . import _core

# ml_dtypes / torch dtype names per format (views of uint8 codes).
ML_DTYPES = {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2", "e3m2": "float6_e3m2fn",
             "e2m3": "float6_e2m3fn", "e2m1": "float4_e2m1fn", "ue8m0": "float8_e8m0fnu",
             "e8m0": "float8_e8m0fnu"}
TORCH_DTYPES = {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2", "ue8m0": "float8_e8m0fnu",
                "e8m0": "float8_e8m0fnu"}


def is_torch(x):
    return type(x).__module__.split(".")[0] == "torch" and hasattr(x, "dtype") and hasattr(x, "device")


def _torch_dtype_name(x):
    return str(x.dtype).replace("torch.", "")


def to_numpy(x, what="input", allow_device_copy=False):
    """(array, source) where source is "bf16" for torch.bfloat16 tensors, else "".

    A torch tensor must live on the CPU unless allow_device_copy (the testing
    helpers copy device results to the host); a bf16 tensor becomes its uint16
    bit patterns; an ml_dtypes array stays as it is (1-byte dtypes are read as
    their bits)."""
    source = ""
    if is_torch(x):
        if x.device.type != "cpu":
            if not allow_device_copy:
                raise _core.InvalidArgument(f"{what}: torch tensor on {x.device}; pass a CPU tensor (.cpu())")
            x = x.cpu()
        name = _torch_dtype_name(x)
        if name == "bfloat16":
            import torch  # noqa: PLC0415 (only reached when the caller has torch)

            x, source = x.view(torch.int16), "bf16"
            arr = x.numpy().view(np.uint16)
        elif x.element_size() == 1 and name not in ("uint8", "int8", "bool"):
            import torch  # noqa: PLC0415

            arr = x.view(torch.uint8).numpy()  # float8 / float4_x2 codes as bytes
        else:
            arr = x.numpy()
    elif isinstance(x, np.ndarray):
        arr = x
    elif hasattr(x, "__array_interface__") or hasattr(x, "__array__"):
        arr = np.asarray(x)
    else:
        raise _core.InvalidArgument(f"{what}: expected a NumPy array or a CPU torch tensor, got {type(x).__name__}")
    if not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
    return arr, source


def as_input(x, source=None, what="input"):
    """A float32 / float16 / uint16-bf16 array and its source type name."""
    arr, src = to_numpy(x, what)
    if src:
        if source not in (None, "", "bf16"):
            raise _core.InvalidArgument(f"{what}: torch.bfloat16 tensor but source={source!r}")
        return arr, "bf16"
    if arr.dtype.kind == "f" and arr.dtype.itemsize in (2, 4) and arr.dtype.names is None:
        if arr.dtype.itemsize == 2 and arr.dtype != np.float16:
            raise _core.InvalidArgument(f"{what}: dtype {arr.dtype} is not float16")
    elif arr.dtype.name == "bfloat16":  # ml_dtypes.bfloat16
        arr, src = arr.view(np.uint16), "bf16"
        return arr, "bf16"
    return arr, (source or "")


def as_bytes(x, what):
    """A uint8 view of codes or packed bytes (any 1-byte dtype: ml_dtypes float8/6/4, torch float8)."""
    arr, _ = to_numpy(x, what, allow_device_copy=True)
    if arr.dtype.itemsize != 1:
        raise _core.InvalidArgument(f"{what}: expected 1-byte codes (uint8, float8/6/4), got dtype {arr.dtype}")
    return arr.view(np.uint8)


def view_as(codes, fmt, like="numpy"):
    """uint8 codes viewed as the float8/6/4 dtype of ml_dtypes (like="numpy")
    or torch (like="torch"); raises UnknownName when that library has none."""
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    if like == "numpy":
        try:
            import ml_dtypes  # noqa: PLC0415
        except ImportError as ex:
            raise _core.UnknownName("view_as: ml_dtypes is not installed (NumPy has no float8/6/4 dtypes)") from ex
        name = ML_DTYPES.get(fmt)
        if name is None or not hasattr(ml_dtypes, name):
            raise _core.UnknownName(f"view_as: ml_dtypes has no dtype for {fmt}")
        return codes.view(getattr(ml_dtypes, name))
    if like == "torch":
        import torch  # noqa: PLC0415

        name = TORCH_DTYPES.get(fmt)
        if fmt == "e2m1":
            name = "float4_e2m1fn_x2"  # two codes per byte: pass packed data
        if name is None or not hasattr(torch, name):
            raise _core.UnknownName(f"view_as: torch has no dtype for {fmt}")
        return torch.from_numpy(codes).view(getattr(torch, name))
    raise _core.UnknownName(f"view_as: like must be 'numpy' or 'torch', got {like!r}")
