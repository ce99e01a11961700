"""conformance/survey/casts_host.py - survey workers for NumPy, ml_dtypes and JAX/XLA.

Each worker converts every source type (fp32 structured set, all bf16, all
fp16; inputs.py) to every MX dtype the library has, the way a new user
would (`astype`), and hands the codes to the Recorder. Target names are the
project's format names (C1): e4m3, e5m2, e3m2, e2m3, e2m1, ue8m0.
"""

import numpy as np

import inputs as survey_inputs

SOURCES = ("fp32", "bf16", "fp16")

# project format name -> ml_dtypes / jax.numpy attribute
MX_DTYPES = {
    "e4m3": "float8_e4m3fn",
    "e5m2": "float8_e5m2",
    "e3m2": "float6_e3m2fn",
    "e2m3": "float6_e2m3fn",
    "e2m1": "float4_e2m1fn",
    "ue8m0": "float8_e8m0fnu",
}


def _np_source(bits, source, bf16_dtype):
    if source == "fp32":
        return bits.view(np.float32)
    if source == "fp16":
        return bits.view(np.float16)
    if bf16_dtype is None:
        raise TypeError("no bfloat16 dtype available")
    return bits.view(bf16_dtype)


def _codes(y):
    y = np.asarray(y)
    if y.dtype.itemsize != 1:
        raise TypeError(f"result dtype {y.dtype} is not one byte per element")
    return y.view(np.uint8)


def worker_numpy(rec):
    """Control: NumPy's own fp32 -> fp16 cast (IEEE RNE), exercising the machinery
    on any machine. It is no MX format and is not part of the report."""
    rec.version("numpy", np.__version__)
    bits = survey_inputs.source_bits("fp32")
    rec.cast(library="numpy", backend="cpu", source="fp32", target="fp16", mode="astype",
             api="x.astype(np.float16)", dtype_name="float16",
             run=lambda b: b.view(np.float32).astype(np.float16).view(np.uint16), bits=bits,
             run_scalar=lambda v: np.array([np.float16(np.uint32(v).view(np.float32))])
             .view(np.uint16)[0],
             run_strided=lambda b: np.stack([b, b]).T.copy().T[0].view(np.float32)
             .astype(np.float16).view(np.uint16))


def worker_ml_dtypes(rec):
    import ml_dtypes  # noqa: PLC0415 - optional on this machine

    rec.version("ml_dtypes", ml_dtypes.__version__)
    rec.version("numpy", np.__version__)
    bf16 = getattr(ml_dtypes, "bfloat16", None)
    for source in SOURCES:
        bits = survey_inputs.source_bits(source)
        for target, name in MX_DTYPES.items():
            dt = getattr(ml_dtypes, name, None)
            api = f"np_array.astype(ml_dtypes.{name})"
            if dt is None:
                rec.unsupported("ml_dtypes", "cpu", source, target, "astype", api, name,
                                f"ml_dtypes {ml_dtypes.__version__} has no {name}")
                continue

            def run(b, dt=dt, source=source):
                return _codes(_np_source(b, source, bf16).astype(dt))

            def run_scalar(v, dt=dt, source=source):
                # the scalar constructor: ml_dtypes.float8_e4m3fn(np.float32(x))
                src = _np_source(np.array([v], dtype=np.uint32 if source == "fp32" else np.uint16),
                                 source, bf16)[0]
                return np.array([dt(src)]).view(np.uint8)[0]

            def run_strided(b, dt=dt, source=source):
                wide = np.zeros((b.size, 3), dtype=b.dtype)
                wide[:, 1] = b
                return _codes(_np_source(wide, source, bf16)[:, 1].astype(dt))

            rec.cast(library="ml_dtypes", backend="cpu", source=source, target=target,
                     mode="astype", api=api, dtype_name=name, run=run, bits=bits,
                     run_scalar=run_scalar, run_strided=run_strided)


def worker_jax(rec, backend):
    """backend: 'cpu' or 'gpu'. Eager astype and jax.jit(astype), each recorded."""
    import jax  # noqa: PLC0415
    import jax.numpy as jnp  # noqa: PLC0415

    rec.version("jax", jax.__version__)
    try:
        import jaxlib  # noqa: PLC0415

        rec.version("jaxlib", getattr(jaxlib, "__version__", "?"))
    except Exception:  # noqa: BLE001
        pass
    try:
        from importlib import metadata  # noqa: PLC0415

        for d in metadata.distributions():
            n = (d.metadata.get("Name") or "").lower()
            if n.startswith("jax") or n.startswith("ml-dtypes") or n.startswith("ml_dtypes"):
                rec.version("dist:" + n, d.version)
    except Exception:  # noqa: BLE001
        pass
    import ml_dtypes  # noqa: PLC0415

    devs = jax.devices(backend)
    dev = devs[0]
    rec.version(f"jax_device_{backend}", f"{dev.platform}: {getattr(dev, 'device_kind', dev)}")
    lib = "jax"
    for source in SOURCES:
        bits = survey_inputs.source_bits(source)
        for target, name in MX_DTYPES.items():
            dt = getattr(jnp, name, None)
            api = f"jax.device_put(x, {backend}).astype(jnp.{name})"
            if dt is None and getattr(ml_dtypes, name, None) is not None:
                dt = getattr(ml_dtypes, name)  # no jnp alias: try the ml_dtypes dtype itself
                api = f"jax.device_put(x, {backend}).astype(ml_dtypes.{name})"
            if dt is None:
                rec.unsupported(lib, backend, source, target, "eager", api, name,
                                f"jax {jax.__version__} has no jnp.{name}")
                rec.unsupported(lib, backend, source, target, "jit", api, name,
                                f"jax {jax.__version__} has no jnp.{name}")
                continue

            def put(b, source=source):
                return jax.device_put(_np_source(b, source, ml_dtypes.bfloat16), dev)

            def run(b, dt=dt):
                return _codes(jax.device_get(put(b).astype(dt)))

            def run_scalar(v, dt=dt, source=source):
                x = jax.device_put(_np_source(np.array([v], dtype=np.uint32 if source == "fp32"
                                                       else np.uint16), source,
                                              ml_dtypes.bfloat16)[0], dev)
                return np.asarray(jax.device_get(x.astype(dt))).reshape(1).view(np.uint8)[0]

            def run_strided(b, dt=dt):
                wide = put(np.repeat(b, 2))  # [b0 b0 b1 b1 ...]; take every other on device
                return _codes(jax.device_get(wide[::2].astype(dt)))

            eager = rec.cast(library=lib, backend=backend, source=source, target=target,
                             mode="eager", api=api, dtype_name=name, run=run, bits=bits,
                             run_scalar=run_scalar, run_strided=run_strided)
            jitted = jax.jit(lambda a, dt=dt: a.astype(dt))
            rec.cast(library=lib, backend=backend, source=source, target=target, mode="jit",
                     api=f"jax.jit(lambda a: a.astype(jnp.{name}))(x on {backend})",
                     dtype_name=name, run=lambda b, f=jitted: _codes(jax.device_get(f(put(b)))),
                     bits=bits, check=eager is None)
            rec.compare_entries(f"{lib}/{backend}/{source}/{target}/eager",
                                f"{lib}/{backend}/{source}/{target}/jit",
                                "jit and eager astype differ")
