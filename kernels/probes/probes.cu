// probes.cu - MMA probe kernels: run one MMA instruction per warp (mma.sync)
// or warpgroup (wgmma) on register images the host supplies, and return D.
//
// Forms and PTX syntax: PTX ISA 9.0 sections 9.7.14.5.14 (mma, incl.
// .block_scale), 9.7.15.5 (wgmma.mma_async), 9.7.15.5.1 (shared memory
// matrix layout and descriptor). wgmma needs sm_90a; the block-scaled mma.sync
// forms need sm_120a: each is compiled only where the target has it, and the
// other targets get a stub that traps (form_runnable() keeps the host from
// launching it).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mx/error.hpp"
#include "probe_kernels.hpp"

namespace mxk::probes {
namespace {

using mx::MmaForm;
using mx::Operand;

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 890)
#define MXP_HAVE_FP8_MMA 1
#endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define MXP_HAVE_WGMMA 1
#endif
#if defined(__CUDA_ARCH_FEAT_SM120_ALL) || defined(__CUDA_ARCH_FEAT_SM121_ALL)
#define MXP_HAVE_BLOCK_SCALE 1
#endif

__device__ __forceinline__ float f(std::uint32_t u) { return __uint_as_float(u); }

// ---- mma.sync --------------------------------------------------------------

template <int F>
__device__ void mma_op(const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c, std::uint32_t* d) {
  constexpr MmaForm form = static_cast<MmaForm>(F);
  if constexpr (form == MmaForm::mma_f64_m8n8k4) {
    double da = __hiloint2double(static_cast<int>(a[1]), static_cast<int>(a[0]));
    double db = __hiloint2double(static_cast<int>(b[1]), static_cast<int>(b[0]));
    double c0 = __hiloint2double(static_cast<int>(c[1]), static_cast<int>(c[0]));
    double c1 = __hiloint2double(static_cast<int>(c[3]), static_cast<int>(c[2]));
    double d0, d1;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(d0), "=d"(d1)
                 : "d"(da), "d"(db), "d"(c0), "d"(c1));
    d[0] = static_cast<std::uint32_t>(__double2loint(d0));
    d[1] = static_cast<std::uint32_t>(__double2hiint(d0));
    d[2] = static_cast<std::uint32_t>(__double2loint(d1));
    d[3] = static_cast<std::uint32_t>(__double2hiint(d1));
  } else if constexpr (form == MmaForm::mma_s8_m16n8k32) {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]),
          "r"(c[3]));
  } else if constexpr (form == MmaForm::mma_tf32_m16n8k8) {
    float r0, r1, r2, r3;
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};"
        : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(f(c[0])), "f"(f(c[1])),
          "f"(f(c[2])), "f"(f(c[3])));
    d[0] = __float_as_uint(r0); d[1] = __float_as_uint(r1); d[2] = __float_as_uint(r2); d[3] = __float_as_uint(r3);
  } else {
    float r0, r1, r2, r3;
#define MXP_MMA4(INSTR)                                                                                    \
  asm volatile(INSTR " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                          \
               : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)                                                    \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(f(c[0])), "f"(f(c[1])), \
                 "f"(f(c[2])), "f"(f(c[3])))
    if constexpr (form == MmaForm::mma_f16_m16n8k16) {
      MXP_MMA4("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
    } else if constexpr (form == MmaForm::mma_bf16_m16n8k16) {
      MXP_MMA4("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
    } else if constexpr (form == MmaForm::mma_e4m3_m16n8k32) {
#ifdef MXP_HAVE_FP8_MMA
      MXP_MMA4("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32");
#else
      __trap();
#endif
    } else if constexpr (form == MmaForm::mma_e5m2_m16n8k32) {
#ifdef MXP_HAVE_FP8_MMA
      MXP_MMA4("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32");
#else
      __trap();
#endif
    }
#undef MXP_MMA4
    d[0] = __float_as_uint(r0); d[1] = __float_as_uint(r1); d[2] = __float_as_uint(r2); d[3] = __float_as_uint(r3);
  }
}

// One warp per tile; images are [tile][32 lanes][regs * words].
template <int F, int AW, int BW, int CW>
__global__ void mma_kernel(const std::uint32_t* __restrict__ ai, const std::uint32_t* __restrict__ bi,
                           const std::uint32_t* __restrict__ ci, std::uint32_t* __restrict__ di, int ntiles) {
  const int warp = static_cast<int>(blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32);
  const int lane = static_cast<int>(threadIdx.x & 31);
  if (warp >= ntiles) return;  // whole warps exit together
  std::uint32_t a[AW], b[BW], c[CW], d[CW];
  const std::size_t t = static_cast<std::size_t>(warp) * 32 + static_cast<std::size_t>(lane);
#pragma unroll
  for (int i = 0; i < AW; ++i) a[i] = ai[t * AW + i];
#pragma unroll
  for (int i = 0; i < BW; ++i) b[i] = bi[t * BW + i];
#pragma unroll
  for (int i = 0; i < CW; ++i) c[i] = ci[t * CW + i];
  mma_op<F>(a, b, c, d);
#pragma unroll
  for (int i = 0; i < CW; ++i) di[t * CW + i] = d[i];
}

// ---- wgmma -----------------------------------------------------------------


#ifdef MXP_HAVE_WGMMA
__device__ __forceinline__ std::uint64_t smem_desc(const void* p, int lbo, int sbo) {
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  std::uint64_t d = 0;
  d |= static_cast<std::uint64_t>((addr & 0x3FFFF) >> 4);
  d |= static_cast<std::uint64_t>((lbo >> 4) & 0x3FFF) << 16;
  d |= static_cast<std::uint64_t>((sbo >> 4) & 0x3FFF) << 32;
  return d;  // base offset 0, layout type 0 (no swizzle, "interleave")
}
#endif

// One warpgroup (128 threads) per tile. A [64][32 bytes] and B [8][32 bytes]
// are placed in the K-major no-swizzle canonical layout: 8x16-byte core
// matrices, core (i, j) (i along M/N, j along K) at byte (2i + j) * 128.
template <int F, bool RS>
__global__ void __launch_bounds__(128) wgmma_kernel(const std::uint32_t* __restrict__ ai,
                                                    const std::uint8_t* __restrict__ am,
                                                    const std::uint8_t* __restrict__ bm,
                                                    const std::uint32_t* __restrict__ ci,
                                                    std::uint32_t* __restrict__ di, int use_c, int variant) {
#ifdef MXP_HAVE_WGMMA
  constexpr int kSmemA = 4096, kSmemB = 1024;
  __shared__ alignas(1024) std::uint8_t sA[kSmemA];
  __shared__ alignas(1024) std::uint8_t sB[kSmemB];
  const int tid = static_cast<int>(threadIdx.x);
  const std::size_t tile = blockIdx.x;
  for (int i = tid; i < kSmemA; i += 128) sA[i] = 0xFF;  // poison: NaN in bf16, e4m3 and e5m2
  for (int i = tid; i < kSmemB; i += 128) sB[i] = 0xFF;
  __syncthreads();
  if (!RS) {
    for (int i = tid; i < 64 * 32; i += 128) {
      const int m = i / 32, kb = i % 32;
      sA[((m / 8) * 2 + kb / 16) * 128 + (m % 8) * 16 + kb % 16] = am[tile * 2048 + static_cast<std::size_t>(i)];
    }
  }
  for (int i = tid; i < 8 * 32; i += 128) {
    const int n = i / 32, kb = i % 32;
    sB[(kb / 16) * 128 + n * 16 + kb % 16] = bm[tile * 256 + static_cast<std::size_t>(i)];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const int lbo = variant == 0 ? 128 : 256, sbo = variant == 0 ? 256 : 128;
  const std::uint64_t da = smem_desc(sA, lbo, sbo), db = smem_desc(sB, lbo, sbo);
  const std::size_t t = tile * 128 + static_cast<std::size_t>(tid);
  float d0 = f(ci[t * 4 + 0]), d1 = f(ci[t * 4 + 1]), d2 = f(ci[t * 4 + 2]), d3 = f(ci[t * 4 + 3]);
  std::uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  if (RS) {
    a0 = ai[t * 4 + 0]; a1 = ai[t * 4 + 1]; a2 = ai[t * 4 + 2]; a3 = ai[t * 4 + 3];
  }
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  constexpr MmaForm form = static_cast<MmaForm>(F);
  if constexpr (form == MmaForm::wgmma_bf16_m64n8k16_ss) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0,%1,%2,%3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db), "r"(use_c) : "memory");
  } else if constexpr (form == MmaForm::wgmma_bf16_m64n8k16_rs) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, p, 1, 1, 0;\n}\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(db), "r"(use_c) : "memory");
  } else if constexpr (form == MmaForm::wgmma_e4m3_m64n8k32_ss) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%0,%1,%2,%3}, %4, %5, p, 1, 1;\n}\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db), "r"(use_c) : "memory");
  } else if constexpr (form == MmaForm::wgmma_e4m3_m64n8k32_rs) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, p, 1, 1;\n}\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(db), "r"(use_c) : "memory");
  } else if constexpr (form == MmaForm::wgmma_e5m2_m64n8k32_ss) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2 {%0,%1,%2,%3}, %4, %5, p, 1, 1;\n}\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db), "r"(use_c) : "memory");
  } else {
    static_assert(form == MmaForm::wgmma_e5m2_m64n8k32_rs, "wgmma_kernel: not a wgmma form");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2 {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, p, 1, 1;\n}\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(db), "r"(use_c) : "memory");
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  di[t * 4 + 0] = __float_as_uint(d0);
  di[t * 4 + 1] = __float_as_uint(d1);
  di[t * 4 + 2] = __float_as_uint(d2);
  di[t * 4 + 3] = __float_as_uint(d3);
#else
  (void)ai; (void)am; (void)bm; (void)ci; (void)di; (void)use_c; (void)variant;
  __trap();
#endif
}

// ---- block-scaled mma.sync (sm_120a) ---------------------------------------

template <int F, int BA, int TA, int BB, int TB>
__global__ void scale_kernel(const std::uint32_t* __restrict__ ai, const std::uint32_t* __restrict__ bi,
                             const std::uint32_t* __restrict__ ci, const std::uint32_t* __restrict__ sfa,
                             const std::uint32_t* __restrict__ sfb, std::uint32_t* __restrict__ di) {
#ifdef MXP_HAVE_BLOCK_SCALE
  const int lane = static_cast<int>(threadIdx.x & 31);
  const std::uint32_t* a = ai + lane * 4;
  const std::uint32_t* b = bi + lane * 2;
  const std::uint32_t* c = ci + lane * 4;
  float r0, r1, r2, r3;
  constexpr MmaForm form = static_cast<MmaForm>(F);
#define MXP_BS(INSTR)                                                                                       \
  asm volatile(INSTR " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, %14, {%15,%16}, %17, {%18,%19};" \
               : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)                                                     \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(f(c[0])), "f"(f(c[1])), \
                 "f"(f(c[2])), "f"(f(c[3])), "r"(sfa[lane]), "n"(BA), "n"(TA), "r"(sfb[lane]), "n"(BB), "n"(TB))
  if constexpr (form == MmaForm::mma_mxf8f6f4_m16n8k32) {
    MXP_BS("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0");
  } else if constexpr (form == MmaForm::mma_mxf4_m16n8k64) {
    MXP_BS("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0");
  } else {
    MXP_BS("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3");
  }
#undef MXP_BS
  di[lane * 4 + 0] = __float_as_uint(r0);
  di[lane * 4 + 1] = __float_as_uint(r1);
  di[lane * 4 + 2] = __float_as_uint(r2);
  di[lane * 4 + 3] = __float_as_uint(r3);
#else
  (void)ai; (void)bi; (void)ci; (void)sfa; (void)sfb; (void)di;
  __trap();
#endif
}

// ---- host side -------------------------------------------------------------

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw mx::Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

template <typename T>
struct DevBuf {
  T* p = nullptr;
  explicit DevBuf(const std::vector<T>& h) {
    if (h.empty()) return;
    check(cudaMalloc(&p, h.size() * sizeof(T)), "cudaMalloc");
    check(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  explicit DevBuf(std::size_t n) {
    check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
    check(cudaMemset(p, 0x7F, n * sizeof(T)), "cudaMemset poison");  // 0x7F7F7F7F: unwritten D shows
  }
  ~DevBuf() { if (p) cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
};

void require(bool ok, const std::string& msg) {
  if (!ok) throw mx::InvalidArgument(msg);
}

template <int F>
void launch_mma(TileBatch& b) {
  constexpr MmaForm form = static_cast<MmaForm>(F);
  constexpr int AW = mx::form_info(form).a_regs * (form == MmaForm::mma_f64_m8n8k4 ? 2 : 1);
  constexpr int BW = mx::form_info(form).b_regs * (form == MmaForm::mma_f64_m8n8k4 ? 2 : 1);
  constexpr int CW = mx::form_info(form).c_regs * (form == MmaForm::mma_f64_m8n8k4 ? 2 : 1);
  const std::size_t nt = static_cast<std::size_t>(b.ntiles);
  require(b.a_img.size() == nt * 32 * AW && b.b_img.size() == nt * 32 * BW && b.c_img.size() == nt * 32 * CW,
          "run_batch: register images do not match the form and tile count");
  DevBuf<std::uint32_t> a(b.a_img), bb(b.b_img), c(b.c_img), d(nt * 32 * CW);
  const int blocks = (b.ntiles + 3) / 4;
  mma_kernel<F, AW, BW, CW><<<blocks, 128>>>(a.p, bb.p, c.p, d.p, b.ntiles);
  check(cudaGetLastError(), "mma_kernel launch");
  check(cudaDeviceSynchronize(), "mma_kernel");
  b.d_img.resize(nt * 32 * CW);
  check(cudaMemcpy(b.d_img.data(), d.p, b.d_img.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
}

template <int F, bool RS>
void launch_wgmma(TileBatch& b, int variant) {
  const std::size_t nt = static_cast<std::size_t>(b.ntiles);
  require(b.c_img.size() == nt * 128 * 4 && b.b_mat.size() == nt * 256 &&
              (RS ? b.a_img.size() == nt * 128 * 4 : b.a_mat.size() == nt * 2048),
          "run_batch: wgmma operands do not match the tile count");
  std::vector<std::uint32_t> a_img = RS ? b.a_img : std::vector<std::uint32_t>(1, 0);
  std::vector<std::uint8_t> a_mat = RS ? std::vector<std::uint8_t>(1, 0) : b.a_mat;
  DevBuf<std::uint32_t> a(a_img), c(b.c_img), d(nt * 512);
  DevBuf<std::uint8_t> am(a_mat), bm(b.b_mat);
  wgmma_kernel<F, RS><<<b.ntiles, 128>>>(a.p, am.p, bm.p, c.p, d.p, b.use_c, variant);
  check(cudaGetLastError(), "wgmma_kernel launch");
  check(cudaDeviceSynchronize(), "wgmma_kernel");
  b.d_img.resize(nt * 512);
  check(cudaMemcpy(b.d_img.data(), d.p, b.d_img.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
}

template <int F, int BA, int TA, int BB, int TB>
void launch_scale(TileBatch& b, const std::vector<std::uint32_t>& sfa, const std::vector<std::uint32_t>& sfb) {
  require(b.ntiles == 1 && b.a_img.size() == 128 && b.b_img.size() == 64 && b.c_img.size() == 128 &&
              sfa.size() == 32 && sfb.size() == 32,
          "run_scale_batch: one tile of 32-lane images and 32 scale words per operand expected");
  DevBuf<std::uint32_t> a(b.a_img), bb(b.b_img), c(b.c_img), sa(sfa), sb(sfb), d(std::size_t{128});
  scale_kernel<F, BA, TA, BB, TB><<<1, 32>>>(a.p, bb.p, c.p, sa.p, sb.p, d.p);
  check(cudaGetLastError(), "scale_kernel launch");
  check(cudaDeviceSynchronize(), "scale_kernel");
  b.d_img.resize(128);
  check(cudaMemcpy(b.d_img.data(), d.p, 512, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
}

// Selector combinations compiled (immediates in PTX): every byte-id/thread-id
// of A with B's at (0, 0), and every one of B with A's at (0, 0).
#define MXP_SEL_LIST(X, F)                                                                   \
  X(F, 0, 0, 0, 0) X(F, 1, 0, 0, 0) X(F, 2, 0, 0, 0) X(F, 3, 0, 0, 0) X(F, 0, 1, 0, 0)       \
  X(F, 1, 1, 0, 0) X(F, 2, 1, 0, 0) X(F, 3, 1, 0, 0) X(F, 0, 0, 1, 0) X(F, 0, 0, 2, 0)       \
  X(F, 0, 0, 3, 0) X(F, 0, 0, 0, 1) X(F, 0, 0, 0, 2) X(F, 0, 0, 0, 3) X(F, 0, 0, 1, 1)       \
  X(F, 0, 0, 2, 2) X(F, 0, 0, 3, 3)
#define MXP_SEL_LIST_2X(X, F) \
  X(F, 0, 0, 0, 0) X(F, 2, 0, 0, 0) X(F, 0, 1, 0, 0) X(F, 2, 1, 0, 0) X(F, 0, 0, 2, 0) X(F, 0, 0, 0, 1) \
  X(F, 0, 0, 0, 2) X(F, 0, 0, 0, 3) X(F, 0, 0, 2, 3)
#define MXP_SEL_LIST_4X(X, F) \
  X(F, 0, 0, 0, 0) X(F, 0, 1, 0, 0) X(F, 0, 0, 0, 1) X(F, 0, 0, 0, 2) X(F, 0, 0, 0, 3)

}  // namespace

int words_per_reg(MmaForm f, Operand) { return f == MmaForm::mma_f64_m8n8k4 ? 2 : 1; }

bool device_info(std::string* name, int* cc_major, int* cc_minor, std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why) *why = e != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(e) : "no CUDA device";
    return false;
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    if (why) *why = "cudaGetDeviceProperties failed";
    return false;
  }
  if (name) *name = p.name;
  if (cc_major) *cc_major = p.major;
  if (cc_minor) *cc_minor = p.minor;
  return true;
}

bool form_runnable(MmaForm f, std::string* why) {
  int ma = 0, mi = 0;
  std::string name;
  if (!device_info(&name, &ma, &mi, why)) return false;
  const int cc = ma * 10 + mi;
  const mx::MmaFormInfo& fi = mx::form_info(f);
  if (fi.sm >= 120) {
    if (cc == 120 || cc == 121) return true;
    if (why) *why = "needs sm_120a (mma.sync .block_scale exists only on sm_120a/sm_121a); device " + name + " is sm_" +
                    std::to_string(cc);
    return false;
  }
  if (fi.threads == 128) {
    if (cc == 90) return true;
    if (why) *why = "needs sm_90a (wgmma); device " + name + " is sm_" + std::to_string(cc);
    return false;
  }
  if (cc < fi.sm) {
    if (why) *why = "needs sm_" + std::to_string(fi.sm) + "+; device " + name + " is sm_" + std::to_string(cc);
    return false;
  }
  return true;
}

void run_batch(MmaForm f, TileBatch& b, int smem_variant) {
  std::string why;
  if (!form_runnable(f, &why)) throw mx::InvalidArgument(std::string(mx::form_info(f).name) + ": " + why);
  if (b.ntiles <= 0) throw mx::InvalidArgument("run_batch: no tiles");
  switch (f) {
    case MmaForm::mma_f16_m16n8k16: return launch_mma<0>(b);
    case MmaForm::mma_bf16_m16n8k16: return launch_mma<1>(b);
    case MmaForm::mma_tf32_m16n8k8: return launch_mma<2>(b);
    case MmaForm::mma_e4m3_m16n8k32: return launch_mma<3>(b);
    case MmaForm::mma_e5m2_m16n8k32: return launch_mma<4>(b);
    case MmaForm::mma_s8_m16n8k32: return launch_mma<5>(b);
    case MmaForm::mma_f64_m8n8k4: return launch_mma<6>(b);
    case MmaForm::wgmma_bf16_m64n8k16_rs: return launch_wgmma<7, true>(b, smem_variant);
    case MmaForm::wgmma_bf16_m64n8k16_ss: return launch_wgmma<8, false>(b, smem_variant);
    case MmaForm::wgmma_e4m3_m64n8k32_rs: return launch_wgmma<9, true>(b, smem_variant);
    case MmaForm::wgmma_e4m3_m64n8k32_ss: return launch_wgmma<10, false>(b, smem_variant);
    case MmaForm::wgmma_e5m2_m64n8k32_rs: return launch_wgmma<14, true>(b, smem_variant);
    case MmaForm::wgmma_e5m2_m64n8k32_ss: return launch_wgmma<15, false>(b, smem_variant);
    default: throw mx::InvalidArgument(std::string(mx::form_info(f).name) + ": block-scaled; use run_scale_batch");
  }
}

std::vector<ScaleSel> scale_selectors(MmaForm f) {
  std::vector<ScaleSel> out;
#define MXP_PUSH(F, BA, TA, BB, TB) out.push_back({BA, TA, BB, TB});
  if (f == MmaForm::mma_mxf8f6f4_m16n8k32) { MXP_SEL_LIST(MXP_PUSH, 11) }
  else if (f == MmaForm::mma_mxf4_m16n8k64) { MXP_SEL_LIST_2X(MXP_PUSH, 12) }
  else if (f == MmaForm::mma_mxf4nvf4_m16n8k64) { MXP_SEL_LIST_4X(MXP_PUSH, 13) }
#undef MXP_PUSH
  return out;
}

void run_scale_batch(MmaForm f, const ScaleSel& s, TileBatch& b, const std::vector<std::uint32_t>& sfa,
                     const std::vector<std::uint32_t>& sfb) {
  std::string why;
  if (!form_runnable(f, &why)) throw mx::InvalidArgument(std::string(mx::form_info(f).name) + ": " + why);
#define MXP_CALL(F, BA, TA, BB, TB) \
  if (s.byte_a == BA && s.tid_a == TA && s.byte_b == BB && s.tid_b == TB) return launch_scale<F, BA, TA, BB, TB>(b, sfa, sfb);
  if (f == MmaForm::mma_mxf8f6f4_m16n8k32) { MXP_SEL_LIST(MXP_CALL, 11) }
  else if (f == MmaForm::mma_mxf4_m16n8k64) { MXP_SEL_LIST_2X(MXP_CALL, 12) }
  else if (f == MmaForm::mma_mxf4nvf4_m16n8k64) { MXP_SEL_LIST_4X(MXP_CALL, 13) }
#undef MXP_CALL
  throw mx::InvalidArgument("run_scale_batch: selector combination not compiled");
}

}  // namespace mxk::probes
