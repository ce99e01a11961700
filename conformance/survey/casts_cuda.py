"""conformance/survey/casts_cuda.py - survey worker for the CUDA toolkit's
__nv_cvt_* conversions run ON THE DEVICE, and CuPy's own casts.

One small CUDA source (CUDA_SRC) wraps every scalar conversion of
cuda_fp8.h / cuda_fp6.h / cuda_fp4.h in an elementwise kernel that takes the
mode as integers and selects the header's named enumerators in a switch:
  fp8   float / double / bfloat16raw / halfraw -> __NV_E4M3, __NV_E5M2
        x __NV_SATFINITE, __NV_NOSAT (rounding is always to nearest even)
  fp6   float / double / bfloat16raw / halfraw -> __NV_E2M3, __NV_E3M2
        x cudaRoundNearest, cudaRoundZero (the modes the header accepts)
  fp4   float / double / bfloat16raw / halfraw -> __NV_E2M1
        x cudaRoundNearest, cudaRoundZero
  e8m0  float / double / bfloat16raw (no half variant exists)
        x __NV_SATFINITE, __NV_NOSAT x cudaRoundZero, cudaRoundPosInf
The 'double' input is the fp32 set widened by NumPy (astype(float64)).
Compiled with NVRTC through cupy.RawModule, or with nvcc -cubin when NVRTC
fails (the manifest says which).
"""

import os
import shutil
import subprocess
import tempfile

import numpy as np

import inputs as survey_inputs

CUDA_SRC = r"""
#include <cuda_fp8.h>
#include <cuda_fp6.h>
#include <cuda_fp4.h>

__device__ __forceinline__ __nv_saturation_t sat_of(int s) {
  return s ? __NV_SATFINITE : __NV_NOSAT;
}
__device__ __forceinline__ cudaRoundMode rnd_of(int r) {
  switch (r) { case 1: return cudaRoundZero; case 2: return cudaRoundPosInf; default: return cudaRoundNearest; }
}
__device__ __forceinline__ float in_f32(const void* p, long long i) {
  return __uint_as_float(static_cast<const unsigned*>(p)[i]);
}
__device__ __forceinline__ double in_f64(const void* p, long long i) {
  return static_cast<const double*>(p)[i];
}
__device__ __forceinline__ __nv_bfloat16_raw in_bf16(const void* p, long long i) {
  __nv_bfloat16_raw r; r.x = static_cast<const unsigned short*>(p)[i]; return r;
}
__device__ __forceinline__ __half_raw in_f16(const void* p, long long i) {
  __half_raw r; r.x = static_cast<const unsigned short*>(p)[i]; return r;
}

// src: 0 float, 1 double, 2 bf16raw, 3 halfraw
// fam: 0 fp8 (fmt 0 e4m3, 1 e5m2; sat), 1 fp6 (fmt 0 e2m3, 1 e3m2; rnd),
//      2 fp4 (rnd), 3 e8m0 (sat, rnd)
extern "C" __global__ void survey_cvt(const void* x, unsigned char* y, long long n,
                                      int src, int fam, int fmt, int sat, int rnd) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned char out = 0;
  const __nv_fp8_interpretation_t f8 = fmt ? __NV_E5M2 : __NV_E4M3;
  const __nv_fp6_interpretation_t f6 = fmt ? __NV_E3M2 : __NV_E2M3;
  const __nv_saturation_t s = sat_of(sat);
  const cudaRoundMode r = rnd_of(rnd);
  if (fam == 0) {
    if (src == 0) out = __nv_cvt_float_to_fp8(in_f32(x, i), s, f8);
    else if (src == 1) out = __nv_cvt_double_to_fp8(in_f64(x, i), s, f8);
    else if (src == 2) out = __nv_cvt_bfloat16raw_to_fp8(in_bf16(x, i), s, f8);
    else out = __nv_cvt_halfraw_to_fp8(in_f16(x, i), s, f8);
  } else if (fam == 1) {
    if (src == 0) out = __nv_cvt_float_to_fp6(in_f32(x, i), f6, r);
    else if (src == 1) out = __nv_cvt_double_to_fp6(in_f64(x, i), f6, r);
    else if (src == 2) out = __nv_cvt_bfloat16raw_to_fp6(in_bf16(x, i), f6, r);
    else out = __nv_cvt_halfraw_to_fp6(in_f16(x, i), f6, r);
  } else if (fam == 2) {
    if (src == 0) out = __nv_cvt_float_to_fp4(in_f32(x, i), __NV_E2M1, r);
    else if (src == 1) out = __nv_cvt_double_to_fp4(in_f64(x, i), __NV_E2M1, r);
    else if (src == 2) out = __nv_cvt_bfloat16raw_to_fp4(in_bf16(x, i), __NV_E2M1, r);
    else out = __nv_cvt_halfraw_to_fp4(in_f16(x, i), __NV_E2M1, r);
  } else {
    if (src == 0) out = __nv_cvt_float_to_e8m0(in_f32(x, i), s, r);
    else if (src == 1) out = __nv_cvt_double_to_e8m0(in_f64(x, i), s, r);
    else out = __nv_cvt_bfloat16raw_to_e8m0(in_bf16(x, i), s, r);
  }
  y[i] = out;
}
"""

FUNC_NAMES = {
    (0, 0): "__nv_cvt_float_to_fp8", (0, 1): "__nv_cvt_double_to_fp8",
    (0, 2): "__nv_cvt_bfloat16raw_to_fp8", (0, 3): "__nv_cvt_halfraw_to_fp8",
    (1, 0): "__nv_cvt_float_to_fp6", (1, 1): "__nv_cvt_double_to_fp6",
    (1, 2): "__nv_cvt_bfloat16raw_to_fp6", (1, 3): "__nv_cvt_halfraw_to_fp6",
    (2, 0): "__nv_cvt_float_to_fp4", (2, 1): "__nv_cvt_double_to_fp4",
    (2, 2): "__nv_cvt_bfloat16raw_to_fp4", (2, 3): "__nv_cvt_halfraw_to_fp4",
    (3, 0): "__nv_cvt_float_to_e8m0", (3, 1): "__nv_cvt_double_to_e8m0",
    (3, 2): "__nv_cvt_bfloat16raw_to_e8m0",
}
SAT = {1: "__NV_SATFINITE", 0: "__NV_NOSAT"}
RND = {0: "cudaRoundNearest", 1: "cudaRoundZero", 2: "cudaRoundPosInf"}
RND_SHORT = {0: "rn", 1: "rz", 2: "rp"}


def cast_table():
    """(family, fmt, target, sat, rnd, mode suffix, option text) for every mode the APIs offer."""
    rows = []
    for fmt, target, interp in ((0, "e4m3", "__NV_E4M3"), (1, "e5m2", "__NV_E5M2")):
        for sat in (1, 0):
            rows.append((0, fmt, target, sat, 0, SAT[sat][5:].lower(), f"{SAT[sat]}, {interp}"))
    for fmt, target, interp in ((0, "e2m3", "__NV_E2M3"), (1, "e3m2", "__NV_E3M2")):
        for rnd in (0, 1):
            rows.append((1, fmt, target, 1, rnd, RND_SHORT[rnd], f"{interp}, {RND[rnd]}"))
    for rnd in (0, 1):
        rows.append((2, 0, "e2m1", 1, rnd, RND_SHORT[rnd], f"__NV_E2M1, {RND[rnd]}"))
    for sat in (1, 0):
        for rnd in (1, 2):
            rows.append((3, 0, "ue8m0", sat, rnd, f"{SAT[sat][5:].lower()}-{RND_SHORT[rnd]}",
                         f"{SAT[sat]}, {RND[rnd]}"))
    return rows


def _include_dirs():
    dirs = []
    for env in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(env):
            dirs.append(os.path.join(os.environ[env], "include"))
    nvcc = shutil.which("nvcc")
    if nvcc:
        dirs.append(os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))),
                                 "include"))
    dirs += ["/usr/local/cuda/include", "/usr/local/cuda-13.0/include"]
    try:
        import nvidia  # noqa: PLC0415 - pip CUDA wheels keep headers under nvidia/*/include
        for base in getattr(nvidia, "__path__", []):
            for sub in ("cuda_runtime", "cuda_nvrtc", "cu13", "cuda_cccl"):
                dirs.append(os.path.join(base, sub, "include"))
    except Exception:  # noqa: BLE001
        pass
    return [d for d in dict.fromkeys(dirs) if os.path.isfile(os.path.join(d, "cuda_fp8.h"))]


def compile_module(cp, rec):
    """cupy.RawModule from NVRTC, else from an nvcc-built cubin."""
    inc = _include_dirs()
    rec.version("cuda_include_dirs", inc)
    errors = []
    try:
        mod = cp.RawModule(code=CUDA_SRC, options=("-std=c++17",) + tuple(f"-I{d}" for d in inc))
        mod.get_function("survey_cvt")
        rec.version("cuda_compiler", "nvrtc (cupy.RawModule)")
        return mod
    except Exception as ex:  # noqa: BLE001
        errors.append("nvrtc: " + " ".join(str(ex).split())[:800])
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if nvcc:
        arch = f"sm_{cp.cuda.Device(0).compute_capability}"  # e.g. '90' -> sm_90
        tmp = tempfile.mkdtemp(prefix="survey-cuda-")
        cu, cubin = os.path.join(tmp, "survey.cu"), os.path.join(tmp, "survey.cubin")
        with open(cu, "w") as f:
            f.write(CUDA_SRC)
        p = subprocess.run([nvcc, "-cubin", f"-arch={arch}", "-std=c++17", "-o", cubin, cu],
                           capture_output=True, text=True, timeout=120, check=False)
        if p.returncode == 0:
            mod = cp.RawModule(path=cubin)
            mod.get_function("survey_cvt")
            ver = subprocess.run([nvcc, "--version"], capture_output=True, text=True,
                                 check=False).stdout.strip().splitlines()
            rec.version("cuda_compiler", f"nvcc -cubin -arch={arch}: {ver[-1] if ver else '?'}")
            return mod
        errors.append("nvcc: " + " ".join(p.stderr.split())[:800])
    else:
        errors.append("nvcc: not found")
    raise RuntimeError("could not compile the CUDA conversion kernel: " + " | ".join(errors))


def worker_cuda(rec):
    import cupy as cp  # noqa: PLC0415

    rec.version("cupy", cp.__version__)
    rec.version("numpy", np.__version__)
    rec.version("cuda_runtime", int(cp.cuda.runtime.runtimeGetVersion()))
    rec.version("cuda_driver", int(cp.cuda.runtime.driverGetVersion()))
    props = cp.cuda.runtime.getDeviceProperties(0)
    rec.version("cuda_device", props["name"].decode() if isinstance(props["name"], bytes)
                else str(props["name"]))
    try:
        mod = compile_module(cp, rec)
    except Exception as ex:  # noqa: BLE001
        for src_name in ("fp32", "bf16", "fp16"):
            for fam, fmt, target, sat, rnd, suffix, opts in cast_table():
                rec.unsupported("cuda", "device", src_name, target, suffix, "?", target,
                                f"kernel not compiled: {ex}")
        return
    kern = mod.get_function("survey_cvt")

    def launcher(src, fam, fmt, sat, rnd, source):
        def run(b):
            host = b.view(np.float32).astype(np.float64) if src == 1 else b
            x = cp.asarray(np.ascontiguousarray(host))
            n = x.size
            y = cp.zeros(n, dtype=cp.uint8)
            kern(((n + 255) // 256,), (256,),
                 (x, y, np.int64(n), np.int32(src), np.int32(fam), np.int32(fmt),
                  np.int32(sat), np.int32(rnd)))
            return cp.asnumpy(y)
        return run

    for source, srcs in (("fp32", (0, 1)), ("bf16", (2,)), ("fp16", (3,))):
        bits = survey_inputs.source_bits(source)
        for src in srcs:
            for fam, fmt, target, sat, rnd, suffix, opts in cast_table():
                fname = FUNC_NAMES.get((fam, src))
                in_name = ("float", "double", "bf16raw", "halfraw")[src]
                mode = f"{in_name}:{suffix}"
                if fname is None:
                    rec.unsupported("cuda", "device", source, target, mode, "-", target,
                                    f"the CUDA toolkit has no {in_name} -> {target} conversion")
                    continue
                rec.cast(library="cuda", backend="device", source=source, target=target,
                         mode=mode, api=f"{fname}(x, {opts})", dtype_name=target,
                         run=launcher(src, fam, fmt, sat, rnd, source), bits=bits)


def worker_cupy_astype(rec):
    """CuPy's own casts: CuPy has NumPy's dtypes only; record what astype to the
    ml_dtypes MX dtypes does (expected: refused)."""
    import cupy as cp  # noqa: PLC0415

    rec.version("cupy", cp.__version__)
    try:
        import ml_dtypes  # noqa: PLC0415
    except Exception as ex:  # noqa: BLE001
        rec.note(f"ml_dtypes not importable ({ex}); CuPy astype not tried")
        return
    from casts_host import MX_DTYPES  # noqa: PLC0415

    for source, npdt in (("fp32", np.float32), ("fp16", np.float16)):
        bits = survey_inputs.source_bits(source)
        for target, name in MX_DTYPES.items():
            dt = getattr(ml_dtypes, name, None)
            if dt is None:
                continue

            def run(b, dt=dt, npdt=npdt):
                y = cp.asarray(b.view(npdt)).astype(dt)
                return cp.asnumpy(y).view(np.uint8)

            rec.cast(library="cupy", backend="cuda", source=source, target=target,
                     mode="astype", api=f"cupy.asarray(x).astype(ml_dtypes.{name})",
                     dtype_name=name, run=run, bits=bits, check=False)
