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

constexpr std::string_view kTorchVer = "torch 2.11 (c10/util/Float8_*.h)";
constexpr std::string_view kMlVer = "ml_dtypes main (include/float8.h, mxfloat.h)";
constexpr std::string_view kCudaVer = "CUDA 13.0 (cuda_fp8.h, cuda_fp6.h, cuda_fp4.h)";
constexpr std::string_view kTritonVer = "triton 3.6";
constexpr std::string_view kJaxVer = "jax 0.11.2";

void add_torch(Builder& b, std::string_view name, bool cuda) {
  const auto S = {InType::f32, InType::bf16, InType::f16};
  // c10 fp8e4m3fn_from_fp32_value: |x| >= 480 (and Inf, NaN) -> 0x7F, sign
  // ORed in; below that RNE by bit arithmetic, so 464 ties to 448 and
  // (464, 480) round to 0x7F: overflow gives NaN with the sign.
  ConvPolicy e4 = pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_keep_sign);
  // c10 fp8e5m2_from_fp32_value: NaN -> 0x7F | sign, |x| >= 2^16 and Inf ->
  // 0x7C | sign, RNE below (a carry reaches 0x7C).
  ConvPolicy e5 = pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_canonical);
  e5.nan_sign = NanSign::nan_sign_input;
  // c10 fp8e8m0fnu_from_fp32_value: exponent field of |x| plus a round-up
  // from guard/round/sticky bits (ties up, as C2 rne for ue8m0); NaN/Inf ->
  // 0xFF; the sign bit is ignored; a subnormal input has implied bit 0, so
  // values below 2^-126 round on a 2^-126 grid (lowest_as_zero).
  ConvPolicy e8 = pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_default);
  e8.negative_unsigned = NegativeUnsigned::neg_magnitude;
  e8.lowest = LowestCode::lowest_as_zero;
  const ProfileBasis basis = cuda ? ProfileBasis::pending : ProfileBasis::source;
  const std::string_view nt =
      cuda ? "provisional: the same c10 functions compiled for the device; pending the survey"
           : "read from c10 (bf16/fp16 widen to float first); pending the survey";
  b.add(name, S, Fmt::e4m3, "", true, e4, basis, "x.to(torch.float8_e4m3fn)", kTorchVer, nt);
  b.add(name, S, Fmt::e5m2, "", true, e5, basis, "x.to(torch.float8_e5m2)", kTorchVer, nt);
  b.add(name, S, Fmt::ue8m0, "", true, e8, basis, "x.to(torch.float8_e8m0fnu)", kTorchVer, nt);
  b.none(name, Fmt::e2m1, "x.to(torch.float4_e2m1fn_x2)", kTorchVer,
         "float4_e2m1fn_x2 is a packed storage dtype without a cast from float types");
  for (Fmt f : {Fmt::e3m2, Fmt::e2m3}) b.none(name, f, "-", kTorchVer, "torch has no fp6 dtype");
}

void add_ml_dtypes(Builder& b, std::string_view name, std::string_view api_prefix,
                   std::string_view version, ProfileBasis basis, std::string_view note) {
  // ConvertImpl (kSaturate = false): Inf -> +-infinity(), NaN -> +-quiet_NaN(),
  // overflow -> infinity(); e4m3fn's infinity is its NaN 0x7F, e5m2's quiet
  // NaN is 0x7E.
  const ConvPolicy e4 = pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_keep_sign);
  const ConvPolicy e5 = e4;
  // Half -> e5m2 has its own path: bits >> 8 with RNE; a NaN keeps its sign
  // and top payload bits and gets the quiet bit.
  ConvPolicy e5_half = e4;
  e5_half.nan_payload = NanPayload::nan_keep_payload;
  // fp6/fp4: infinity() is +max (so overflow and Inf give +-max); quiet_NaN()
  // is the code 0b1'00..0 (-0), and -quiet_NaN() flips it to +0.
  ConvPolicy small = pol(Rounding::rne, Overflow::saturate, NanPolicy::nan_to_zero);
  small.nan_sign = NanSign::nan_sign_inverted;
  // e8m0: zero -> NaN, negative -> NaN, overflow -> infinity() = 0xFF; the
  // target's exponent field 0 is rounded as a subnormal binade.
  ConvPolicy e8 = pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_default);
  e8.zero_nozero = ZeroNoZero::zero_to_nan;
  e8.lowest = LowestCode::lowest_as_zero;
  const std::string_view api = api_prefix;
  b.add(name, {InType::f32, InType::bf16, InType::f16}, Fmt::e4m3, "", true, e4, basis, api, version, note);
  b.add(name, {InType::f32, InType::bf16}, Fmt::e5m2, "", true, e5, basis, api, version, note);
  b.add(name, {InType::f16}, Fmt::e5m2, "", true, e5_half, basis, api, version, note);
  for (Fmt f : {Fmt::e3m2, Fmt::e2m3, Fmt::e2m1}) {
    b.add(name, {InType::f32, InType::bf16, InType::f16}, f, "", true, small, basis, api, version, note);
  }
  b.add(name, {InType::f32, InType::bf16, InType::f16}, Fmt::ue8m0, "", true, e8, basis, api, version, note);
}

void add_jax_gpu(Builder& b) {
  // XLA's GPU emitter lowers f32/bf16 (extended to f32) and f16 -> f8E4M3FN /
  // f8E5M2 to cvt.rn.satfinite (xla/backends/gpu/codegen/transforms
  // convert_float_nvidia): saturate, NaN -> 0x7F.
  const ConvPolicy fp8 = pol(Rounding::rne, Overflow::saturate, NanPolicy::nan_canonical);
  const auto S = {InType::f32, InType::bf16, InType::f16};
  const std::string_view nt = "read from XLA's convert_float_nvidia lowering (sm_89+); pending the survey";
  b.add("jax-gpu", S, Fmt::e4m3, "", true, fp8, ProfileBasis::source, "jnp.astype(jnp.float8_e4m3fn) on GPU", kJaxVer, nt);
  b.add("jax-gpu", S, Fmt::e5m2, "", true, fp8, ProfileBasis::source, "jnp.astype(jnp.float8_e5m2) on GPU", kJaxVer, nt);
  // fp6/fp4/e8m0 on the GPU: no lowering read; provisional = ml_dtypes' rules.
  Builder tmp;
  add_ml_dtypes(tmp, "jax-gpu", "jnp.astype on GPU", kJaxVer, ProfileBasis::pending,
                "provisional (ml_dtypes' rules); pending the survey");
  for (const auto& e : tmp.v) {
    if (e.fmt != Fmt::e4m3 && e.fmt != Fmt::e5m2) b.v.push_back(e);
  }
}

void add_triton(Builder& b) {
  const auto S = {InType::f32, InType::bf16, InType::f16};
  // On sm_89+ Triton lowers fp32/fp16 -> fp8e4nv/fp8e5 with rtne to
  // cvt.rn.satfinite; rtz has a software path. Both pending the survey.
  const ConvPolicy rn = pol(Rounding::rne, Overflow::saturate, NanPolicy::nan_canonical);
  const ConvPolicy rz = pol(Rounding::rtz, Overflow::saturate, NanPolicy::nan_canonical);
  for (Fmt f : {Fmt::e4m3, Fmt::e5m2}) {
    const std::string_view api = f == Fmt::e4m3 ? "x.to(tl.float8e4nv, fp_downcast_rounding=...)"
                                                : "x.to(tl.float8e5, fp_downcast_rounding=...)";
    b.add("triton", S, f, "rtne", true, rn, ProfileBasis::pending, api, kTritonVer,
          "provisional (cvt.rn.satfinite on sm_90); pending the survey");
    b.add("triton", S, f, "rtz", false, rz, ProfileBasis::pending, api, kTritonVer,
          "provisional; pending the survey");
  }
  for (Fmt f : {Fmt::e3m2, Fmt::e2m3, Fmt::e2m1, Fmt::ue8m0}) {
    b.none("triton", f, "-", kTritonVer, "Triton has no scalar dtype for this format");
  }
}

void add_cuda(Builder& b) {
  const auto S = {InType::f32, InType::bf16, InType::f16};
  const std::string_view nt =
      "measured on the host build (conformance/crosscheck, every fp32/bf16/fp16 input); device pending the survey";
  b.add("cuda", S, Fmt::e4m3, "satfinite", true, pol(Rounding::rne, Overflow::saturate, NanPolicy::nan_canonical),
        ProfileBasis::measured, "__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)", kCudaVer, nt);
  b.add("cuda", S, Fmt::e4m3, "nosat", false, pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_canonical),
        ProfileBasis::measured, "__nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3)", kCudaVer, nt);
  b.add("cuda", S, Fmt::e5m2, "satfinite", true, pol(Rounding::rne, Overflow::saturate, NanPolicy::nan_canonical),
        ProfileBasis::measured, "__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2)", kCudaVer, nt);
  b.add("cuda", S, Fmt::e5m2, "nosat", false, pol(Rounding::rne, Overflow::propagate, NanPolicy::nan_canonical),
        ProfileBasis::measured, "__nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2)", kCudaVer, nt);
  for (Fmt f : {Fmt::e3m2, Fmt::e2m3, Fmt::e2m1}) {
    const bool fp4 = f == Fmt::e2m1;
    b.add("cuda", S, f, "rn", true, pol(Rounding::rne, Overflow::saturate, NanPolicy::nan_to_max),
          ProfileBasis::measured,
          fp4 ? "__nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest)" : "__nv_cvt_float_to_fp6(x, __NV_E*M*, cudaRoundNearest)",
          kCudaVer, nt);
    b.add("cuda", S, f, "rz", false, pol(Rounding::rtz, Overflow::saturate, NanPolicy::nan_to_max),
          ProfileBasis::measured,
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
  b.add("cuda", E8S, Fmt::ue8m0, "satfinite-rp", true, e8(Rounding::ru, Overflow::saturate), ProfileBasis::measured,
        "__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf)", kCudaVer, nt);
  b.add("cuda", E8S, Fmt::ue8m0, "satfinite-rz", false, e8(Rounding::rtz, Overflow::saturate), ProfileBasis::measured,
        "__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero)", kCudaVer, nt);
  b.add("cuda", E8S, Fmt::ue8m0, "nosat-rp", false, e8(Rounding::ru, Overflow::propagate), ProfileBasis::measured,
        "__nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundPosInf)", kCudaVer, nt);
  b.add("cuda", E8S, Fmt::ue8m0, "nosat-rz", false, e8(Rounding::rtz, Overflow::propagate), ProfileBasis::measured,
        "__nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundZero)", kCudaVer, nt);
  b.none("cuda", Fmt::ue8m0, "-", kCudaVer, "CUDA has no half -> e8m0 conversion", {InType::f16});
}

std::vector<ProfileEntry> build_entries() {
  Builder b;
  add_torch(b, "torch-cpu", false);
  add_torch(b, "torch-cuda", true);
  add_ml_dtypes(b, "ml_dtypes", "np.asarray(x).astype(ml_dtypes.<dtype>)", kMlVer, ProfileBasis::source,
                "read from ml_dtypes' ConvertImpl; pending the survey (the device's version may be older)");
  add_ml_dtypes(b, "jax-cpu", "jnp.astype on CPU", kJaxVer, ProfileBasis::pending,
                "provisional (XLA's CPU casts are tested against ml_dtypes); pending the survey");
  add_jax_gpu(b);
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
      {"ocp", "OCP MX v1.0 / CONTRACT C2", "the C2 default policies (rne, saturate, canonical NaN); options allowed"},
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
