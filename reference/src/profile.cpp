// profile.cpp - library profiles (C13): the registry of named policy tuples
// per (library, source type, format) and the policy strings that name them.
//
// The facts behind each entry (library source files and versions) are in its
// `version` and `note`; conformance/survey/ measures them on a GPU machine and
// the profile tests assert them (see mx/profile.hpp for the bases).
#include "mx/profile.hpp"

#include "mx/error.hpp"
#include "mx/recipe.hpp"

namespace mx {
namespace {

ConvPolicy pol(Rounding r, Overflow o, NanPolicy n) {
  ConvPolicy p;
  p.rounding = r;
  p.overflow = o;
  p.nan = n;
  return p;
}

struct Builder {
  std::vector<ProfileEntry> v;
  // One entry per source type in `sources`.
  void add(std::string_view profile, std::initializer_list<InType> sources, Fmt f,
           std::string_view mode, bool is_default, const ConvPolicy& p, ProfileBasis b,
           std::string_view api, std::string_view version, std::string_view note) {
    for (InType s : sources) {
      ProfileEntry e;
      e.profile = profile;
      e.source = s;
      e.fmt = f;
      e.mode = mode;
      e.is_default = is_default;
      e.policy = p;
      e.basis = b;
      e.api = api;
      e.version = version;
      e.note = note;
      v.push_back(e);
    }
  }
  void none(std::string_view profile, Fmt f, std::string_view api, std::string_view version,
            std::string_view note, std::initializer_list<InType> sources = {InType::f32, InType::bf16, InType::f16}) {
    for (InType s : sources) {
      ProfileEntry e;
      e.profile = profile;
      e.source = s;
      e.fmt = f;
      e.offered = false;
      e.basis = ProfileBasis::source;
      e.api = api;
      e.version = version;
      e.note = note;
      v.push_back(e);
    }
  }
};

// Versions the tuples were measured on: the survey of 2026-11-26 on an NVIDIA
// H100 80GB HBM3 (driver 580.159.04), conformance/survey/REPORT-h100.md; the
// recorded outputs are conformance/survey/h100/ and profile_recorded_test
// replays every entry below against them.
constexpr std::string_view kTorchVer = "torch 2.11.0+cu130";
constexpr std::string_view kMlVer = "ml_dtypes 0.6.0";
constexpr std::string_view kCudaVer = "CUDA 13.0 (NVRTC via CuPy 14.2.0), driver 580.159.04, H100";
constexpr std::string_view kTritonVer = "triton 3.6.0, H100 (sm_90)";
constexpr std::string_view kJaxVer = "jax 0.11.2, jaxlib 0.11.2";
constexpr std::string_view kMeasured = "measured byte for byte (every bf16/fp16 pattern, structured fp32 set)";

const auto kAll = {InType::f32, InType::bf16, InType::f16};

// MXINT8 (two's complement times 2^-6) and the unsigned ue4m3 scale are
// formats no surveyed library has a dtype for.
void none_int8_ue4m3(Builder& b, std::string_view name, std::string_view version) {
  b.none(name, Fmt::int8, "-", version, "no MXINT8 dtype (an int8 cast is an integer cast, not c/64)");
  b.none(name, Fmt::ue4m3, "-", version, "no unsigned e4m3 dtype");
}

void add_torch(Builder& b, std::string_view name, bool cuda) {
  // c10 fp8e4m3fn_from_fp32_value: |x| >= 480 (and Inf, NaN) -> 0x7F, sign
  // ORed in; below that RNE by bit arithmetic, so 464 ties to 448 and
  // (464, 480) round to 0x7F: overflow gives NaN with the sign.
  const ConvPolicy e4 = pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_keep_sign);
  // c10 fp8e5m2_from_fp32_value: NaN -> 0x7F | sign, |x| >= 2^16 and Inf ->
  // 0x7C | sign, RNE below (a carry reaches 0x7C).
  ConvPolicy e5 = pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_canonical);
  e5.nan_sign = NanSign::nan_sign_input;
  // Measured: on the GPU a half NaN loses its sign (-NaN -> 0x7F for both
  // fp8 formats), unlike the CPU path; every other fp16 input agrees.
  const ConvPolicy fp8_half_cuda = pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_canonical);
  // c10 fp8e8m0fnu_from_fp32_value: exponent field of |x| plus a round-up
  // from guard/round/sticky bits (ties up, as C2 rne for ue8m0); NaN/Inf ->
  // 0xFF; the sign bit is ignored; a subnormal input has implied bit 0, so
  // values below 2^-126 round on a 2^-126 grid (lowest_as_zero).
  ConvPolicy e8 = pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_default);
  e8.negative_unsigned = NegativeUnsigned::neg_magnitude;
  e8.lowest = LowestCode::lowest_as_zero;
  const ProfileBasis m = ProfileBasis::measured;
  const std::string_view e4api = "x.to(torch.float8_e4m3fn)", e5api = "x.to(torch.float8_e5m2)";
  if (cuda) {
    b.add(name, {InType::f32, InType::bf16}, Fmt::e4m3, "", true, e4, m, e4api, kTorchVer, kMeasured);
    b.add(name, {InType::f16}, Fmt::e4m3, "", true, fp8_half_cuda, m, e4api, kTorchVer,
          "measured; -NaN gives 0x7F here but 0xFF on the CPU");
    b.add(name, {InType::f32, InType::bf16}, Fmt::e5m2, "", true, e5, m, e5api, kTorchVer, kMeasured);
    b.add(name, {InType::f16}, Fmt::e5m2, "", true, fp8_half_cuda, m, e5api, kTorchVer,
          "measured; -NaN gives 0x7F here but 0xFF on the CPU");
  } else {
    b.add(name, kAll, Fmt::e4m3, "", true, e4, m, e4api, kTorchVer, kMeasured);
    b.add(name, kAll, Fmt::e5m2, "", true, e5, m, e5api, kTorchVer, kMeasured);
  }
  b.add(name, kAll, Fmt::ue8m0, "", true, e8, m, "x.to(torch.float8_e8m0fnu)", kTorchVer, kMeasured);
  b.none(name, Fmt::e2m1, "x.to(torch.float4_e2m1fn_x2)", kTorchVer,
         "float4_e2m1fn_x2 is a packed storage dtype without a cast from float types (the survey's "
         "x.to() raised)");
  for (Fmt f : {Fmt::e3m2, Fmt::e2m3}) b.none(name, f, "-", kTorchVer, "torch has no fp6 dtype");
  none_int8_ue4m3(b, name, kTorchVer);
}

// ml_dtypes' ConvertImpl (kSaturate = false): Inf -> +-infinity(), NaN ->
// +-quiet_NaN(), overflow -> infinity(); e4m3fn's infinity is its NaN 0x7F,
// e5m2's quiet NaN is 0x7E.
ConvPolicy ml_fp8() { return pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_keep_sign); }
// e8m0: zero -> NaN, negative -> NaN, overflow -> infinity() = 0xFF; the
// target's exponent field 0 is rounded as a subnormal binade.
ConvPolicy ml_e8m0() {
  ConvPolicy e8 = pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_default);
  e8.zero_nozero = ZeroNoZero::zero_to_nan;
  e8.lowest = LowestCode::lowest_as_zero;
  return e8;
}

void add_ml_dtypes(Builder& b) {
  const std::string_view api = "np.asarray(x).astype(ml_dtypes.<dtype>)";
  const ProfileBasis m = ProfileBasis::measured;
  // fp6/fp4: infinity() is +max (so overflow and Inf give +-max); quiet_NaN()
  // is the code 0b1'00..0 (-0), and -quiet_NaN() flips it to +0.
  ConvPolicy small = pol(Rounding::rne, Overflow::saturate, NanPolicy::nan_to_zero);
  small.nan_sign = NanSign::nan_sign_inverted;
  // (ml_dtypes' main branch has a half -> e5m2 path that keeps NaN payload
  // bits; 0.6.0, measured here, does not: fp16 follows the fp32 rule.)
  for (Fmt f : {Fmt::e4m3, Fmt::e5m2}) b.add("ml_dtypes", kAll, f, "", true, ml_fp8(), m, api, kMlVer, kMeasured);
  for (Fmt f : {Fmt::e3m2, Fmt::e2m3, Fmt::e2m1}) b.add("ml_dtypes", kAll, f, "", true, small, m, api, kMlVer, kMeasured);
  b.add("ml_dtypes", kAll, Fmt::ue8m0, "", true, ml_e8m0(), m, api, kMlVer, kMeasured);
  none_int8_ue4m3(b, "ml_dtypes", kMlVer);
}

// JAX/XLA, CPU and GPU backends (eager and jax.jit gave the same bytes).
void add_jax(Builder& b, std::string_view name, bool gpu) {
  const ProfileBasis m = ProfileBasis::measured;
  const std::string_view api = gpu ? "x.astype(jnp.<dtype>) on the GPU" : "x.astype(jnp.<dtype>) on the CPU";
  // fp8 on the GPU: overflow and Inf give NaN/Inf (not cvt's satfinite), a
  // NaN gives the canonical 0x7F whatever its sign.
  const ConvPolicy fp8_plain = pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_canonical);
  if (gpu) {
    for (Fmt f : {Fmt::e4m3, Fmt::e5m2}) b.add(name, kAll, f, "", true, fp8_plain, m, api, kJaxVer, kMeasured);
  } else {
    // The CPU keeps the NaN's sign (ml_dtypes' rule) except bf16/fp16 -> e5m2.
    b.add(name, kAll, Fmt::e4m3, "", true, ml_fp8(), m, api, kJaxVer, kMeasured);
    b.add(name, {InType::f32}, Fmt::e5m2, "", true, ml_fp8(), m, api, kJaxVer, kMeasured);
    b.add(name, {InType::bf16, InType::f16}, Fmt::e5m2, "", true, fp8_plain, m, api, kJaxVer,
          "measured; -NaN gives 0x7E|sign from fp32 but 0x7F from bf16/fp16");
  }
  // fp6: NaN -> zero with the NaN's sign, and overflow/Inf (under rne) the
  // same as a NaN of that sign: the format's "NaN" is zero.
  ConvPolicy fp6 = pol(Rounding::rne, Overflow::saturate, NanPolicy::nan_to_zero);
  fp6.overflow_nospecial = OverflowNoSpecial::overflow_as_nan;
  for (Fmt f : {Fmt::e3m2, Fmt::e2m3}) b.add(name, kAll, f, "", true, fp6, m, api, kJaxVer, kMeasured);
  // fp4: overflow saturates, but every NaN becomes -0 (code 0x8).
  ConvPolicy fp4 = pol(Rounding::rne, Overflow::saturate, NanPolicy::nan_to_zero);
  fp4.nan_sign = NanSign::nan_sign_negative;
  b.add(name, kAll, Fmt::e2m1, "", true, fp4, m, api, kJaxVer, kMeasured);
  b.add(name, kAll, Fmt::ue8m0, "", true, ml_e8m0(), m, api, kJaxVer, kMeasured);
  none_int8_ue4m3(b, name, kJaxVer);
}

void add_triton(Builder& b) {
  const ProfileBasis m = ProfileBasis::measured;
  // tl.float8e4nv / tl.float8e5 with fp_downcast_rounding: rtne (the
  // default) lowers to cvt.rn.satfinite on sm_90.
  const ConvPolicy rn = pol(Rounding::rne, Overflow::saturate, NanPolicy::nan_canonical);
  // rtz compiles only for fp32 -> e5m2 on sm_90 with triton 3.6.0: its
  // software path lets Inf through as Inf (propagate; finite overflow under
  // rtz is max finite either way).
  const ConvPolicy rz = pol(Rounding::rtz, Overflow::propagate, NanPolicy::nan_canonical);
  for (Fmt f : {Fmt::e4m3, Fmt::e5m2}) {
    const std::string_view api = f == Fmt::e4m3 ? "x.to(tl.float8e4nv, fp_downcast_rounding=...)"
                                                : "x.to(tl.float8e5, fp_downcast_rounding=...)";
    b.add("triton", kAll, f, "rtne", true, rn, m, api, kTritonVer, kMeasured);
  }
  b.add("triton", {InType::f32}, Fmt::e5m2, "rtz", false, rz, m,
        "x.to(tl.float8e5, fp_downcast_rounding='rtz')", kTritonVer, kMeasured);
  // The other rtz casts fail to compile on sm_90 ("PassManager::run failed"):
  // a library limitation recorded by the survey, so they are not offered.
  for (const auto& [src, f] : {std::pair{InType::f32, Fmt::e4m3}, std::pair{InType::bf16, Fmt::e4m3},
                               std::pair{InType::f16, Fmt::e4m3}, std::pair{InType::bf16, Fmt::e5m2},
                               std::pair{InType::f16, Fmt::e5m2}}) {
    ProfileEntry e;
    e.profile = "triton";
    e.source = src;
    e.fmt = f;
    e.mode = "rtz";
    e.is_default = false;
    e.offered = false;
    e.basis = m;
    e.api = "fp_downcast_rounding='rtz'";
    e.version = kTritonVer;
    e.note = "does not compile on sm_90 (PassManager::run failed)";
    b.v.push_back(e);
  }
  for (Fmt f : {Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::ue8m0}) {
    b.none("triton", f, "-", kTritonVer, "Triton has no scalar dtype for this format");
  }
  none_int8_ue4m3(b, "triton", kTritonVer);
}

void add_cuda(Builder& b) {
  const ProfileBasis m = ProfileBasis::measured;
  const std::string_view nt =
      "measured on the H100 (__nv_cvt_float*/bf16raw*/halfraw* on the device) and on the host build "
      "(conformance/crosscheck)";
  b.add("cuda", kAll, Fmt::e4m3, "satfinite", true, pol(Rounding::rne, Overflow::saturate, NanPolicy::nan_canonical),
        m, "__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)", kCudaVer, nt);
  b.add("cuda", kAll, Fmt::e4m3, "nosat", false, pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_canonical),
        m, "__nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3)", kCudaVer, nt);
  b.add("cuda", kAll, Fmt::e5m2, "satfinite", true, pol(Rounding::rne, Overflow::saturate, NanPolicy::nan_canonical),
        m, "__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2)", kCudaVer, nt);
  b.add("cuda", kAll, Fmt::e5m2, "nosat", false, pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_canonical),
        m, "__nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2)", kCudaVer, nt);
  for (Fmt f : {Fmt::e3m2, Fmt::e2m3, Fmt::e2m1}) {
    const bool fp4 = f == Fmt::e2m1;
    b.add("cuda", kAll, f, "rn", true, pol(Rounding::rne, Overflow::saturate, NanPolicy::nan_to_max), m,
          fp4 ? "__nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest)" : "__nv_cvt_float_to_fp6(x, __NV_E*M*, cudaRoundNearest)",
          kCudaVer, nt);
    b.add("cuda", kAll, f, "rz", false, pol(Rounding::rtz, Overflow::saturate, NanPolicy::nan_to_max), m,
          fp4 ? "__nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundZero)" : "__nv_cvt_float_to_fp6(x, __NV_E*M*, cudaRoundZero)",
          kCudaVer, nt);
  }
  // e8m0: |x| (the sign is dropped); the __nv_fp8_e8m0 constructor uses
  // __NV_SATFINITE and cudaRoundPosInf, the default mode here.
  const auto e8 = [](Rounding r, Overflow o) {
    ConvPolicy p = pol(r, o, NanPolicy::nan_default);
    p.negative_unsigned = NegativeUnsigned::neg_magnitude;
    return p;
  };
  const auto E8S = {InType::f32, InType::bf16};
  b.add("cuda", E8S, Fmt::ue8m0, "satfinite-rp", true, e8(Rounding::ru, Overflow::saturate), m,
        "__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf)", kCudaVer, nt);
  b.add("cuda", E8S, Fmt::ue8m0, "satfinite-rz", false, e8(Rounding::rtz, Overflow::saturate), m,
        "__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero)", kCudaVer, nt);
  b.add("cuda", E8S, Fmt::ue8m0, "nosat-rp", false, e8(Rounding::ru, Overflow::propagate), m,
        "__nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundPosInf)", kCudaVer, nt);
  b.add("cuda", E8S, Fmt::ue8m0, "nosat-rz", false, e8(Rounding::rtz, Overflow::propagate), m,
        "__nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundZero)", kCudaVer, nt);
  b.none("cuda", Fmt::ue8m0, "-", kCudaVer, "CUDA has no half -> e8m0 conversion", {InType::f16});
  none_int8_ue4m3(b, "cuda", kCudaVer);
}

std::vector<ProfileEntry> build_entries() {
  Builder b;
  add_torch(b, "torch-cpu", false);
  add_torch(b, "torch-cuda", true);
  add_ml_dtypes(b);
  add_jax(b, "jax-cpu", false);
  add_jax(b, "jax-gpu", true);
  add_triton(b);
  add_cuda(b);
  for (auto& e : b.v) {
    if (e.offered) validate_policy(e.fmt, e.policy);  // a bad table entry fails at first use
  }
  return b.v;
}

std::string source_name(InType t) { return std::string(in_type_name(t)); }

std::string describe_modes(const std::vector<const ProfileEntry*>& c) {
  std::string s;
  for (const auto* e : c) {
    if (!s.empty()) s += "; ";
    s += std::string(e->mode) + " = " + policy_string(e->policy) + (e->is_default ? " (default)" : "");
  }
  return s;
}

}  // namespace

std::string_view profile_basis_name(ProfileBasis b) {
  switch (b) {
    case ProfileBasis::measured: return "measured";
    case ProfileBasis::source: return "source";
    case ProfileBasis::pending: return "pending";
  }
  return "?";
}

const std::vector<ProfileInfo>& profile_infos() {
  static const std::vector<ProfileInfo> v = {
      {"ocp", "OCP MX v1.0 / reference/SPEC.md C2", "the C2 default policies (rne, saturate, canonical NaN); options allowed"},
      {"torch-cpu", "PyTorch (CPU)", "x.to(dtype) on a CPU tensor; fixed"},
      {"torch-cuda", "PyTorch (CUDA)", "x.to(dtype) on a CUDA tensor; fixed"},
      {"ml_dtypes", "ml_dtypes", "np.asarray(x).astype(ml_dtypes.<dtype>); fixed"},
      {"jax-cpu", "JAX / XLA (CPU)", "x.astype(jnp.<dtype>) on the CPU backend; fixed"},
      {"jax-gpu", "JAX / XLA (GPU)", "x.astype(jnp.<dtype>) on the GPU backend; fixed"},
      {"triton", "Triton", "x.to(tl.<fp8 dtype>, fp_downcast_rounding=rtne|rtz): --rounding rne|rtz"},
      {"cuda", "CUDA toolkit __nv_cvt_*", "saturation (--overflow saturate|propagate) and rounding as the API offers"},
  };
  return v;
}

const std::vector<ProfileEntry>& profile_entries() {
  static const std::vector<ProfileEntry> v = build_entries();
  return v;
}

const ProfileEntry& find_profile_entry(std::string_view profile, InType source, Fmt fmt,
                                       const PolicyOverrides& o) {
  bool known = false;
  std::string names;
  for (const auto& i : profile_infos()) {
    names += (names.empty() ? "" : ", ") + std::string(i.name);
    known = known || i.name == profile;
  }
  if (!known || profile == "ocp") {
    throw UnknownName("unknown profile '" + std::string(profile) + "' (expected one of " + names + ")");
  }
  std::vector<const ProfileEntry*> c;
  for (const auto& e : profile_entries()) {
    if (e.profile == profile && e.source == source && e.fmt == fmt) c.push_back(&e);
  }
  const std::string what = "profile " + std::string(profile) + ", " + source_name(source) + " -> " +
                           std::string(desc(fmt).name);
  if (c.empty() || !c.front()->offered) {
    throw InvalidArgument(what + ": the library has no such cast" +
                          (c.empty() ? std::string() : " (" + std::string(c.front()->note) + ")"));
  }
  if (o.nan || !o.modifiers.empty()) {
    throw InvalidArgument(what + ": a library profile fixes the NaN and C13 rules; use --profile ocp "
                                 "(or none) to choose them");
  }
  const bool fixed = c.size() == 1 && c.front()->mode.empty();
  std::vector<const ProfileEntry*> m;
  for (const auto* e : c) {
    if (o.rounding && e->policy.rounding != *o.rounding) continue;
    if (o.overflow && e->policy.overflow != *o.overflow) continue;
    m.push_back(e);
  }
  if (m.empty()) {
    if (fixed) {
      throw InvalidArgument(what + ": fixed by the library (" + std::string(c.front()->api) + " is " +
                            policy_string(c.front()->policy) + "); drop --rounding/--overflow");
    }
    throw InvalidArgument(what + ": no mode with the requested rounding/overflow; the API offers " +
                          describe_modes(c));
  }
  for (const auto* e : m) {
    if (e->is_default) return *e;
  }
  if (m.size() > 1) {
    throw InvalidArgument(what + ": several modes match; add --rounding or --overflow (" +
                          describe_modes(m) + ")");
  }
  return *m.front();
}

ConvPolicy resolve_policy(std::string_view profile, InType source, Fmt fmt, const PolicyOverrides& o) {
  if (!profile.empty() && profile != "ocp") return find_profile_entry(profile, source, fmt, o).policy;
  ConvPolicy p;
  for (const auto& m : o.modifiers) {
    if (!apply_policy_value(p, m)) {
      throw UnknownName("unknown policy value '" + m + "' (see mxconform encode --help)");
    }
  }
  if (o.rounding) p.rounding = *o.rounding;
  if (o.overflow) p.overflow = *o.overflow;
  if (o.nan) p.nan = *o.nan;
  validate_policy(fmt, p);
  return p;
}

bool apply_policy_value(ConvPolicy& p, std::string_view name) {
  if (set_c13_value(p, name)) return true;
  if (name == "rne" || name == "rtz" || name == "rna" || name == "sr" || name == "ru") {
    p.rounding = parse_rounding(name);
  } else if (name == "saturate" || name == "propagate") {
    p.overflow = parse_overflow(name);
  } else if (name.substr(0, 4) == "nan_" && name != "nan_sign_rule") {
    try {
      p.nan = parse_nan_policy(name);
    } catch (const UnknownName&) {
      return false;
    }
  } else if (name == "int8_full" || name == "int8_symmetric") {
    p.int8 = name == "int8_full" ? Int8Range::int8_full : Int8Range::int8_symmetric;
  } else if (name == "flush_input_subnormals") {
    p.flush_input_subnormals = true;
  } else {
    return false;
  }
  return true;
}

std::string policy_string(const ConvPolicy& p) {
  std::string s = std::string(rounding_name(p.rounding)) + ":" + std::string(overflow_name(p.overflow));
  if (p.nan != NanPolicy::nan_default) s += ":" + std::string(nan_policy_name(p.nan));
  if (p.int8 != Int8Range::int8_full) s += ":int8_symmetric";
  if (p.flush_input_subnormals) s += ":flush_input_subnormals";
  for (const auto& m : c13_modifiers(p)) s += ":" + m;
  return s;
}

ConvPolicy parse_policy(std::string_view s) {
  ConvPolicy p;
  if (s.empty()) return p;
  std::size_t start = 0;
  while (true) {
    const std::size_t c = s.find(':', start);
    const std::string_view part = s.substr(start, c == std::string_view::npos ? std::string_view::npos : c - start);
    if (!apply_policy_value(p, part)) {
      std::string known = "rne, rtz, rna, sr, ru, saturate, propagate, nan_canonical, nan_keep_sign, "
                          "nan_to_max, nan_to_zero, int8_full, int8_symmetric, flush_input_subnormals";
      for (const auto& n : c13_value_names()) known += ", " + n;
      throw UnknownName("policy '" + std::string(s) + "': unknown value '" + std::string(part) +
                        "' (known: " + known + ")");
    }
    if (c == std::string_view::npos) break;
    start = c + 1;
  }
  return p;
}

}  // namespace mx
