// c6_pack_test.cpp - SPEC C6: packing worked examples by hand, and
// pack/unpack vs the oracle's bit-level packing for random rows.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "common.hpp"
#include "mx/pack.hpp"

using namespace cpu;
using mx::Fmt;

namespace {
struct PackRow {
  Fmt f;
  mx::Packing p;
  std::vector<std::uint8_t> codes, bytes;
  const char* why;
};
std::string bytes_hex(const std::vector<std::uint8_t>& b) {
  std::string s = "[";
  for (std::size_t i = 0; i < b.size(); ++i) s += (i ? " " : "") + hex(b[i]);
  return s + "]";
}
}  // namespace

TEST(C6, WorkedExamples) {
  const PackRow rows[] = {
      {Fmt::e2m1, mx::Packing::packed, {0x1, 0x2, 0x3}, {0x21, 0x03}, "C6: e2m1 element 2i low nibble, 2i+1 high; odd row pads 0"},
      {Fmt::e2m1, mx::Packing::packed, {0xF, 0x8}, {0x8F}, "C6: e2m1 two per byte"},
      {Fmt::e3m2, mx::Packing::packed, {0x3F, 0x00, 0x15, 0x2A}, {0x3F, 0x50, 0xA9}, "C6: fp6 LE bit stream, 4 codes in 3 bytes"},
      {Fmt::e2m3, mx::Packing::packed, {0x01}, {0x01}, "C6: fp6 one code pads its byte with zero bits"},
      {Fmt::e2m3, mx::Packing::packed, {0x00, 0x3F}, {0xC0, 0x0F}, "C6: fp6 second code straddles the byte"},
      {Fmt::e2m1, mx::Packing::container8, {0xF, 0x1}, {0x3C, 0x04}, "C6: container8 e2m1 in bits 5..2"},
      {Fmt::e3m2, mx::Packing::container8, {0x3F, 0x15}, {0x3F, 0x15}, "C6: container8 fp6 in bits 5..0"},
      {Fmt::e4m3, mx::Packing::packed, {0xAB, 0x7F}, {0xAB, 0x7F}, "C6: 8-bit formats one code per byte"},
  };
  for (const auto& r : rows) {
    const auto n = static_cast<std::int64_t>(r.codes.size());
    std::vector<std::uint8_t> out(static_cast<std::size_t>(mx::packed_row_bytes(r.f, n, r.p)), 0xEE);
    mx::pack_row(r.f, r.codes.data(), n, r.p, out.data());
    EXPECT_EQ(out, r.bytes) << r.why << ": codes " << bytes_hex(r.codes) << " => observed " << bytes_hex(out)
                            << ", expected " << bytes_hex(r.bytes);
    EXPECT_EQ(mxo::pack_row(to_o(r.f), r.codes, r.p == mx::Packing::container8), r.bytes) << r.why << " (oracle)";
    std::vector<std::uint8_t> back(r.codes.size());
    mx::unpack_row(r.f, out.data(), n, r.p, back.data());
    EXPECT_EQ(back, r.codes) << r.why << ": unpack(pack) must give the codes back";
  }
}

RC_GTEST_PROP(C6Props, PackEqualsOracleAndRoundTrips, ()) {
  const Fmt f = *rc::gen::element(Fmt::e2m1, Fmt::e3m2, Fmt::e2m3, Fmt::e4m3, Fmt::int8);
  const mx::Packing p = *rc::gen::element(mx::Packing::packed, mx::Packing::container8);
  const int bitsz = mx::desc(f).bits;
  const auto codes = *rc::gen::container<std::vector<std::uint8_t>>(
      static_cast<std::size_t>(*rc::gen::inRange(0, 100)),
      rc::gen::map(rc::gen::arbitrary<std::uint8_t>(), [bitsz](std::uint8_t c) {
        return static_cast<std::uint8_t>(bitsz == 8 ? c : c & ((1u << bitsz) - 1u));
      }));
  const auto n = static_cast<std::int64_t>(codes.size());
  std::vector<std::uint8_t> out(static_cast<std::size_t>(mx::packed_row_bytes(f, n, p)), 0xEE);
  if (n) mx::pack_row(f, codes.data(), n, p, out.data());
  const auto want = mxo::pack_row(to_o(f), codes, p == mx::Packing::container8);
  RC_ASSERT_MSG(out == want, ("C6: pack " + std::string(mx::desc(f).name) + " " + std::string(mx::packing_name(p)) +
                              " codes " + bytes_hex(codes) + " => observed " + bytes_hex(out) + ", expected " +
                              bytes_hex(want))
                                 .c_str());
  std::vector<std::uint8_t> back(codes.size());
  if (n) mx::unpack_row(f, out.data(), n, p, back.data());
  RC_ASSERT(back == codes);
}
