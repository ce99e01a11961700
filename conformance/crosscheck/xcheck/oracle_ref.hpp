// xcheck/oracle_ref.hpp - the slow exact oracle (reference/oracle, namespace
// mxo, exact rational arithmetic from the contract's definitions, no code
// shared with the fast path) as the expected side of C2 comparisons.
// The mxo enums list their members in the order of the mx enums, so the
// policy converts member by member (checked below by name).
#pragma once

#include <cstdint>

#include "mx/convert.hpp"
#include "oracle.hpp"
#include "xcheck/apfloat_ref.hpp"
#include "xcheck/inputs.hpp"
#include "xcheck/sweep.hpp"

namespace xcheck {

inline mxo::Policy to_oracle(const mx::ConvPolicy& p) {
  mxo::Policy q;
  q.rounding = static_cast<mxo::Rounding>(p.rounding);
  q.overflow = static_cast<mxo::Overflow>(p.overflow);
  q.nan = static_cast<mxo::NanPolicy>(p.nan);
  q.int8 = static_cast<mxo::Int8Range>(p.int8);
  q.flush_input_subnormals = p.flush_input_subnormals;
  return q;
}

// The enum orders agree (names compared, not values).
inline bool oracle_enums_match() {
  for (auto r : {mx::Rounding::rne, mx::Rounding::rtz, mx::Rounding::rna, mx::Rounding::sr, mx::Rounding::ru}) {
    if (std::string(rounding_name(r)) != mxo::rounding_name(static_cast<mxo::Rounding>(r))) return false;
  }
  for (mx::Fmt f : {mx::Fmt::e4m3, mx::Fmt::e5m2, mx::Fmt::e3m2, mx::Fmt::e2m3, mx::Fmt::e2m1, mx::Fmt::int8,
                    mx::Fmt::ue8m0, mx::Fmt::ue4m3}) {
    if (std::string(mx::desc(f).name) != mxo::fmt_name(static_cast<mxo::Fmt>(f))) return false;
  }
  return true;
}

// Random bits for `sr`, deterministic in the input.
inline std::uint32_t sr_bits(std::uint32_t input) {
  return static_cast<std::uint32_t>(splitmix64(0x5352ull ^ input));
}

inline Outcome oracle_case(mx::Fmt f, const mx::ConvPolicy& p, Src src, std::uint32_t bits) {
  const std::uint32_t rb = p.rounding == mx::Rounding::sr ? sr_bits(bits) : 0u;
  const std::uint32_t ref = ref_encode(f, p, src, bits, rb);
  const mxo::Fmt of = static_cast<mxo::Fmt>(f);
  std::uint32_t want = 0;
  switch (src) {
    case Src::f32: want = mxo::encode_f32(of, bits, to_oracle(p), rb); break;
    case Src::bf16: want = mxo::encode(of, mxo::from_bf16(static_cast<std::uint16_t>(bits)), to_oracle(p), rb); break;
    case Src::f16: want = mxo::encode(of, mxo::from_f16(static_cast<std::uint16_t>(bits)), to_oracle(p), rb); break;
  }
  return plain(bits, want, ref);
}

}  // namespace xcheck
