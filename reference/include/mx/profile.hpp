// mx/profile.hpp - library profiles (C13): the named policy tuple that
// reproduces a real library's element cast, per (library, source type,
// format), so that a kernel can be tested against "what torch does" as well
// as against the OCP default.
//
// Profiles: ocp (the C2 defaults), torch-cpu, torch-cuda, ml_dtypes, jax-cpu,
// jax-gpu, triton, cuda. torch, ml_dtypes and jax are fixed (x.to(dtype) /
// astype take no options); triton and cuda take rounding (and for cuda
// saturation) as their APIs do, so they hold one entry per API mode and the
// caller picks one with --rounding / --overflow (the default mode is what the
// API does with no option: Triton's default rounding, the CUDA class
// constructors' saturation and rounding).
//
// Every entry says where its tuple comes from (ProfileBasis): measured byte
// for byte against the library, read from the library's source, or pending
// (provisional until the survey data, conformance/survey/, confirms it).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mx/convert.hpp"
#include "mx/format.hpp"

namespace mx {

enum class ProfileBasis : std::uint8_t {
  measured,  // compared byte for byte with the library's own outputs
  source,    // read from the library's source code or documentation, not yet measured
  pending,   // provisional: to be filled in from the survey's measurements
};
std::string_view profile_basis_name(ProfileBasis b);

struct ProfileEntry {
  std::string_view profile;  // "torch-cpu"
  InType source;
  Fmt fmt;
  std::string_view mode;     // "" for fixed profiles; "satfinite", "rz", "rtne", ...
  bool is_default = true;    // the mode used when the caller asks for none
  bool offered = true;       // false: the library has no such cast (note says why)
  ConvPolicy policy;
  ProfileBasis basis = ProfileBasis::pending;
  std::string_view api;      // the library call, e.g. "x.to(torch.float8_e4m3fn)"
  std::string_view version;  // the library version the tuple was measured on / read from
  std::string_view note;     // one line: the evidence, or what remains to measure
};

struct ProfileInfo {
  std::string_view name;
  std::string_view library;      // "PyTorch (CPU)"
  std::string_view description;  // one line
};

// Every profile name with a description, "ocp" first.
const std::vector<ProfileInfo>& profile_infos();
// Every entry of every library profile (not "ocp", which is ConvPolicy{} everywhere).
const std::vector<ProfileEntry>& profile_entries();

// Caller's choices on top of a profile (or of the C2 defaults for "ocp").
struct PolicyOverrides {
  std::optional<Rounding> rounding;
  std::optional<Overflow> overflow;
  std::optional<NanPolicy> nan;
  std::vector<std::string> modifiers;  // further C2/C13 value names (ocp only)
};

// The entry of `profile` for (source, fmt) under the overrides. Throws
// UnknownName for an unknown profile, InvalidArgument when the profile has no
// such cast, when a fixed profile is given an option, or when an API profile
// has no mode with the requested rounding/overflow (the message lists the
// modes it offers). Not valid for "ocp".
const ProfileEntry& find_profile_entry(std::string_view profile, InType source, Fmt fmt,
                                       const PolicyOverrides& o = {});

// The policy to encode with: "ocp" (or empty) = ConvPolicy{} plus the
// overrides (validated for the format); a library profile = its entry's
// policy. Throws as find_profile_entry / validate_policy.
ConvPolicy resolve_policy(std::string_view profile, InType source, Fmt fmt,
                          const PolicyOverrides& o = {});

// A policy as ':'-joined value names: rounding, overflow, then every other
// field that differs from the default (C2 NaN/int8/flush, C13), e.g.
// "rne:propagate:nan_keep_sign". parse_policy reads the same form (any
// order, any subset; unnamed fields keep their defaults) and throws
// UnknownName naming the bad part.
std::string policy_string(const ConvPolicy& p);
ConvPolicy parse_policy(std::string_view s);
// Applies one value name (C2 or C13) to p; false if the name is not known.
bool apply_policy_value(ConvPolicy& p, std::string_view name);

}  // namespace mx
