// fast_quantize_test.cpp - issue 15 (label cpu): mx::FastQuantizer and
// mx::FastDequantizer (reference/src/fast_quantize.cpp) give the bytes of the
// reference's encode_scaled, quantize and dequantize. Expected values come
// from the reference (whose own tests tie it to the oracle and to hand
// tables) and from the checked-in golden vectors (vectors/convert,
// vectors/quantize), never from the fast path.
//
//  - every bf16 and every fp16 input at every scale exponent -127..127, for
//    each element format under the default policy (2 x 2^16 x 255 per format);
//  - every policy the fast path covers (rne/rna/rtz, saturate/propagate, the
//    NaN policies, C13 zero signs and overflow_as_nan, int8 ranges, input
//    flushing) on every bf16 input at a spread of scale exponents;
//  - fp32 inputs: random patterns and bf16 patterns with the 16 low bits set
//    to the sticky/half cases, at random scale exponents;
//  - the golden convert and quantize vectors;
//  - whole tensors against mx::quantize / mx::dequantize: every recipe base,
//    scale rule, axis, layout, packing and input type, specials mixed in.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mx/error.hpp"
#include "mx/fast_quantize.hpp"
#include "mx/recipe.hpp"

namespace {

std::string hex(std::uint64_t v, int d) {
  char b[32];
  std::snprintf(b, sizeof b, "%0*llx", d, static_cast<unsigned long long>(v));
  return b;
}

// Runs f(i) for i in [0, n) on every core; returns the number of failures
// f reported, and the first failing message in *first.
template <class F>
std::int64_t parallel_count(std::int64_t n, F&& f, std::string* first) {
  const unsigned th = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::int64_t> next{0}, bad{0};
  std::mutex mu;
  auto work = [&] {
    for (std::int64_t i; (i = next.fetch_add(1)) < n;) {
      std::string why;
      if (!f(i, &why)) {
        if (bad.fetch_add(1) == 0) {
          std::lock_guard<std::mutex> lk(mu);
          *first = why;
        }
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < th; ++k) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return bad.load();
}

// One scale exponent's sweep over the 2^16 bf16 or fp16 inputs, through
// encode() and through encode_many() (the vectorised loop, on runs of
// several lengths so that vector bodies and scalar tails both meet specials).
bool sweep_16(const mx::Recipe& r, const mx::FastQuantizer& fq, bool f16, int e, std::string* why) {
  std::vector<std::uint32_t> x(65536);
  for (std::uint32_t h = 0; h < 65536; ++h) {
    x[h] = f16 ? mx::f16_to_f32_bits(static_cast<std::uint16_t>(h)) : mx::bf16_to_f32_bits(static_cast<std::uint16_t>(h));
  }
  std::vector<std::uint8_t> many(65536);
  const std::int64_t run = 1 + (e + 127) % 37;
  for (std::int64_t i = 0; i < 65536; i += run) fq.encode_many(x.data() + i, std::min<std::int64_t>(run, 65536 - i), e, many.data() + i);
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const std::uint32_t want = mx::encode_scaled(r.elem, x[h], e, r.conv);
    const std::uint32_t got = fq.encode(x[h], e), got_many = many[h];
    if (got != want || got_many != want) {
      *why = r.name() + (f16 ? " fp16 " : " bf16 ") + hex(h, 4) + " (fp32 " + hex(x[h], 8) + ") at scale 2^" + std::to_string(e) +
             ": fast " + hex(got, 2) + ", encode_many " + hex(got_many, 2) + ", reference " + hex(want, 2);
      return false;
    }
  }
  return true;
}

TEST(FastQuantize, EveryBf16AndFp16InputAtEveryScaleExponent) {
  for (const char* name : {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    const mx::FastQuantizer fq(r);
    std::string first;
    const std::int64_t bad = parallel_count(2 * 255, [&](std::int64_t i, std::string* why) {
      return sweep_16(r, fq, i >= 255, static_cast<int>(i % 255) - 127, why);
    }, &first);
    EXPECT_EQ(bad, 0) << first;
  }
}

TEST(FastQuantize, EveryCoveredPolicyOnEveryBf16Input) {
  const std::vector<std::string> mods = {
      "",       ":rna",           ":rtz",      ":propagate", ":rtz:propagate", ":rna:propagate", ":nan_keep_sign",
      ":nan_to_max", ":nan_to_zero", ":flush_input_subnormals", ":int8_symmetric", ":zero_underflow_positive",
      ":zero_positive", ":overflow_as_nan", ":overflow_as_nan:rtz", ":nan_sign_input", ":nan_keep_payload"};
  const std::vector<int> exps = {-127, -126, -100, -30, -12, -8, -3, -1, 0, 1, 2, 5, 9, 15, 40, 100, 126, 127};
  std::int64_t tried = 0;
  for (const char* base : {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8"}) {
    for (const auto& m : mods) {
      mx::Recipe r;
      try {
        r = mx::parse_recipe(std::string(base) + m);
        mx::validate_policy(r.elem, r.conv);
      } catch (const mx::Error&) {
        continue;  // the modifier does not apply to this format
      }
      ASSERT_TRUE(mx::FastQuantizer::supports(r)) << r.name();
      const mx::FastQuantizer fq(r);
      std::string first;
      const std::int64_t bad = parallel_count(static_cast<std::int64_t>(exps.size()), [&](std::int64_t i, std::string* why) {
        return sweep_16(r, fq, false, exps[static_cast<std::size_t>(i)], why);
      }, &first);
      EXPECT_EQ(bad, 0) << first;
      ++tried;
    }
  }
  EXPECT_GE(tried, 50);
  // Not covered: sr, NVFP4, scale formats as elements.
  EXPECT_FALSE(mx::FastQuantizer::supports(mx::parse_recipe("mxfp8_e4m3:sr")));
  EXPECT_FALSE(mx::FastQuantizer::supports(mx::parse_recipe("nvfp4")));
  EXPECT_THROW(mx::FastQuantizer(mx::parse_recipe("nvfp4")), mx::InvalidArgument);
}

TEST(FastQuantize, SampledFp32Inputs) {
  const std::uint32_t low[] = {0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0x4000, 0xC000};
  for (const char* name : {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8", "mxfp8_e4m3:rna",
                           "mxfp4:rtz", "mxint8:rna"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    const mx::FastQuantizer fq(r);
    std::string first;
    const std::int64_t bad = parallel_count(64, [&](std::int64_t part, std::string* why) {
      std::mt19937_64 g(static_cast<std::uint64_t>(part) * 7919u + 1u);
      for (int i = 0; i < 40000; ++i) {
        const std::uint64_t u = g();
        const std::uint32_t x = (i & 1) ? static_cast<std::uint32_t>(u)
                                        : ((static_cast<std::uint32_t>(u) & 0xFFFF0000u) | low[(u >> 32) % 8]);
        const int e = static_cast<int>((u >> 40) % 255) - 127;
        std::uint8_t many = 0;
        fq.encode_many(&x, 1, e, &many);
        const std::uint32_t want = mx::encode_scaled(r.elem, x, e, r.conv), got = fq.encode(x, e);
        if (got != want || many != want) {
          *why = r.name() + " fp32 " + hex(x, 8) + " at 2^" + std::to_string(e) + ": fast " + hex(got, 2) + ", reference " + hex(want, 2);
          return false;
        }
      }
      return true;
    }, &first);
    EXPECT_EQ(bad, 0) << first;
  }
}

// ---- golden vectors --------------------------------------------------------

std::vector<std::string> split(const std::string& s, char c) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string f; std::getline(ss, f, c);) v.push_back(f);
  return v;
}
std::uint32_t hexu(const std::string& s) { return static_cast<std::uint32_t>(std::stoul(s, nullptr, 16)); }
std::string header(const std::vector<std::string>& lines, const std::string& key) {
  for (const auto& l : lines) {
    if (l.rfind("# " + key + ": ", 0) == 0) return l.substr(key.size() + 4);
  }
  return {};
}
std::vector<std::string> lines_of(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::vector<std::string> v;
  for (std::string l; std::getline(f, l);) v.push_back(l);
  return v;
}

TEST(FastQuantize, GoldenConvertVectors) {
  std::int64_t rows = 0;
  for (const auto& ent : std::filesystem::directory_iterator(std::filesystem::path(MX_SOURCE_DIR) / "vectors/convert")) {
    const auto L = lines_of(ent.path());
    const std::string fmt = header(L, "format"), input = header(L, "input");
    const mx::Fmt f = mx::parse_format(fmt);
    bool in_body = false;
    for (const auto& l : L) {
      if (l.empty() || l[0] == '#') continue;
      if (!in_body) {
        in_body = true;  // the column names
        continue;
      }
      const auto c = split(l, ',');
      if (c.size() < 8 || c[1] == "sr") continue;
      mx::Recipe r;
      r.elem = f;
      r.conv.rounding = mx::parse_rounding(c[1]);
      r.conv.overflow = mx::parse_overflow(c[2]);
      r.conv.nan = mx::parse_nan_policy(c[3]);
      if (c[4] == "int8_symmetric") r.conv.int8 = mx::Int8Range::int8_symmetric;
      r.conv.flush_input_subnormals = c[5] == "1";
      if (!mx::FastQuantizer::supports(r)) continue;
      const mx::FastQuantizer fq(r);
      const std::uint32_t in = hexu(c[0]);
      const std::uint32_t x = input == "fp32" ? in : (input == "bf16" ? mx::bf16_to_f32_bits(static_cast<std::uint16_t>(in))
                                                                        : mx::f16_to_f32_bits(static_cast<std::uint16_t>(in)));
      EXPECT_EQ(fq.encode(x, 0), hexu(c[7])) << ent.path().filename() << ": " << l;
      ++rows;
    }
  }
  EXPECT_GT(rows, 10000);
}

TEST(FastQuantize, GoldenQuantizeVectors) {
  std::int64_t rows = 0;
  for (const char* axis : {"rowwise", "colwise"}) {
    for (const auto& ent : std::filesystem::directory_iterator(std::filesystem::path(MX_SOURCE_DIR) / "vectors/quantize" / axis)) {
      const auto L = lines_of(ent.path());
      const mx::Recipe r = mx::parse_recipe(header(L, "recipe"));
      if (!mx::FastQuantizer::supports(r)) continue;
      const mx::FastQuantizer fq(r);
      bool in_body = false;
      for (const auto& l : L) {
        if (l.empty() || l[0] == '#') continue;
        if (!in_body) {
          in_body = true;
          continue;
        }
        const auto c = split(l, ',');
        const auto mk = split(c[0], 'x');
        const std::int64_t M = std::stoll(mk[0]), K = std::stoll(mk[1]);
        std::vector<std::uint32_t> x(static_cast<std::size_t>(M * K));
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = hexu(c[1].substr(i * 8, 8));
        const bool col = std::string(axis) == "colwise";
        std::vector<std::uint8_t> data(static_cast<std::size_t>(M * K)), sc(static_cast<std::size_t>(c[2].size() / 2));
        fq.rows(x.data(), mx::InType::f32, M, K, col ? mx::Axis::colwise : mx::Axis::rowwise, mx::Packing::container8, data.data(),
                sc.data());
        std::string gs, ge;
        for (auto b : sc) gs += hex(b, 2);
        const int sh = mx::desc(r.elem).bits == 4 ? 2 : 0;  // container8 keeps e2m1 in bits 5..2 (C6)
        for (auto b : data) ge += hex(b >> sh, 2);
        EXPECT_EQ(gs, c[2]) << ent.path().filename() << " " << c[0];
        EXPECT_EQ(ge, c[3]) << ent.path().filename() << " " << c[0];
        ++rows;
      }
    }
  }
  EXPECT_GT(rows, 100);
}

// ---- whole tensors ------------------------------------------------------------

std::vector<std::uint8_t> tensor_bytes(std::int64_t n, mx::InType t, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<std::uint8_t> raw;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t u = g();
    std::uint32_t v = (static_cast<std::uint32_t>(u) & 0x807FFFFFu) | (static_cast<std::uint32_t>(90 + (u >> 32) % 70) << 23);
    if (i % 97 == 0) v = static_cast<std::uint32_t>(u >> 8) & 0x807FFFFFu;  // subnormal or zero
    if (i % 211 == 3) v = 0x7FC00000u | static_cast<std::uint32_t>(u >> 63 << 31);
    if (i % 307 == 7) v = 0xFF800000u;
    if (i % 401 == 9) v = 0x7F7FFFFFu;
    if (t == mx::InType::f32) {
      for (int b = 0; b < 4; ++b) raw.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
    } else {
      const std::uint16_t h = t == mx::InType::bf16 ? static_cast<std::uint16_t>(v >> 16) : static_cast<std::uint16_t>(u >> 16);
      raw.push_back(static_cast<std::uint8_t>(h));
      raw.push_back(static_cast<std::uint8_t>(h >> 8));
    }
  }
  return raw;
}

TEST(FastQuantize, TensorsEqualQuantizeAndDequantize) {
  const std::int64_t B = 2, M = 40, K = 72;  // short last blocks both ways
  int combos = 0;
  for (const auto t : {mx::InType::f32, mx::InType::bf16, mx::InType::f16}) {
    const auto raw = tensor_bytes(B * M * K, t, 11 + static_cast<int>(t));
    const mx::TensorView v{raw.data(), t, B, M, K};
    for (const auto& base : mx::recipe_base_names()) {
      for (const char* mod : {"", ":ceil", ":even", ":rceil", ":rna", ":nonfinite_block_ignore"}) {
        if (base == "nvfp4" && *mod) continue;
        const mx::Recipe r = mx::parse_recipe(base + mod);
        for (const char* ax : {"rowwise", "colwise"}) {
          for (const auto lay : {mx::ScaleLayout::dense, mx::ScaleLayout::dense_colwise, mx::ScaleLayout::tcgen05}) {
            for (const auto pk : {mx::Packing::packed, mx::Packing::container8}) {
              mx::QuantizeOptions o;
              o.axis = mx::parse_axis(ax);
              o.scale_layout = lay;
              o.packing = pk;
              if (o.axis == mx::Axis::rowwise && lay == mx::ScaleLayout::dense_colwise) continue;
              const std::string what = r.name() + " " + ax + " " + std::string(mx::scale_layout_name(lay)) + " " +
                                       std::string(mx::packing_name(pk)) + " " + std::string(mx::in_type_name(t));
              const mx::Quantized want = mx::quantize(r, v, o);
              const mx::Quantized got = mx::quantize_fast(r, v, o);
              ASSERT_TRUE(got.data == want.data) << what << ": data";
              ASSERT_TRUE(got.scales == want.scales) << what << ": scales";
              for (const auto out : {mx::Fmt::fp32, mx::Fmt::bf16, mx::Fmt::fp16}) {
                ASSERT_TRUE(mx::dequantize_fast(want, out) == mx::dequantize(want, out)) << what << ": dequantize";
              }
              ++combos;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(combos, 3 * (6 * 6 + 1) * 5 * 2);
}

TEST(FastQuantize, BlocksOfSpecialValues) {
  // One row per block kind, 40 elements (a full block of 32 and a short one of 8):
  // zeros (both signs), all NaN, one Inf among normals, subnormals only, the
  // largest finite values, tiny beside huge (underflow), one NaN among normals.
  const std::vector<std::vector<std::uint32_t>> kinds = {
      {0x00000000u, 0x80000000u}, {0x7FC00000u, 0xFFC00001u}, {0x3F800000u, 0x7F800000u, 0xC0400000u},
      {0x00000001u, 0x807FFFFFu, 0x00400000u}, {0x7F7FFFFFu, 0xFF7FFFFEu}, {0x00800000u, 0x7E800000u, 0x80000001u},
      {0x3F800000u, 0x7F800001u, 0x3E000000u}};
  const std::int64_t K = 40, M = static_cast<std::int64_t>(kinds.size());
  std::vector<std::uint32_t> x;
  for (const auto& k : kinds) {
    for (std::int64_t i = 0; i < K; ++i) x.push_back(k[static_cast<std::size_t>(i) % k.size()]);
  }
  int n = 0;
  for (const auto& base : mx::recipe_base_names()) {
    if (base == "nvfp4") continue;
    for (const char* mod : {"", ":rceil", ":even", ":nonfinite_block_ignore", ":rtz:propagate"}) {
      const mx::Recipe r = mx::parse_recipe(base + mod);
      for (const char* ax : {"rowwise", "colwise"}) {
        mx::QuantizeOptions o;
        o.axis = mx::parse_axis(ax);
        const mx::TensorView v{x.data(), mx::InType::f32, 1, o.axis == mx::Axis::rowwise ? M : K, o.axis == mx::Axis::rowwise ? K : M};
        const mx::Quantized want = mx::quantize(r, v, o), got = mx::quantize_fast(r, v, o);
        EXPECT_TRUE(got.scales == want.scales) << r.name() << " " << ax << ": scales";
        EXPECT_TRUE(got.data == want.data) << r.name() << " " << ax << ": data";
        ++n;
      }
    }
  }
  EXPECT_EQ(n, 6 * 5 * 2);
}

TEST(FastDequantize, RandomCodesScalesAndGlobalAmax) {
  // Any data and scale bytes (0xFF NaN blocks, container8 bytes with stray
  // high bits, NVFP4 with any global amax) dequantize like the reference.
  std::mt19937_64 g(5);
  int n = 0;
  for (const auto& name : mx::recipe_names()) {
    const mx::Recipe r = mx::parse_recipe(name);
    for (const auto pk : {mx::Packing::packed, mx::Packing::container8}) {
      for (const char* ax : {"rowwise", "colwise"}) {
        const mx::TensorView v{reinterpret_cast<const void*>(1), mx::InType::f32, 1, 40, 72};
        mx::QuantizeOptions o;
        o.axis = mx::parse_axis(ax);
        o.packing = pk;
        mx::Quantized q = mx::quantized_shape(r, v, o);
        for (auto& b : q.data) b = static_cast<std::uint8_t>(g());
        for (auto& b : q.scales) b = static_cast<std::uint8_t>(g());
        q.global_amax_bits = static_cast<std::uint32_t>(g());
        for (const auto out : {mx::Fmt::fp32, mx::Fmt::bf16, mx::Fmt::fp16}) {
          ASSERT_TRUE(mx::dequantize_fast(q, out) == mx::dequantize(q, out)) << name << " " << ax;
        }
        ++n;
      }
    }
  }
  EXPECT_GT(n, 40);
}

}  // namespace
