// mx/testing/diff.hpp - first-difference diagnostics for byte buffers and
// quantized tensors (C2-C8), shared by the gtest helpers (mx/testing/gtest.hpp)
// and the Python package (mxconform.testing), so that a C++ and a Python gate
// report a mismatch in the same words: the first differing block, its inputs
// in hex, the expected and observed scale and codes, and the clause.
// Header-only; depends on libmxref only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mx/layout.hpp"
#include "mx/pack.hpp"
#include "mx/quantize.hpp"
#include "mx/recipe.hpp"

namespace mx::testing {

inline std::string hex_of(std::uint64_t v, int digits) {
  std::string s(static_cast<std::size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = "0123456789abcdef"[v & 0xF];
  return s;
}

// "" when equal; otherwise a report naming the first differing byte.
inline std::string describe_bytes_difference(const std::uint8_t* expected, std::int64_t ne, const std::uint8_t* observed,
                                             std::int64_t no) {
  const std::int64_t n = std::min(ne, no);
  std::int64_t first = -1, count = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (expected[i] != observed[i]) {
      if (first < 0) first = i;
      ++count;
    }
  }
  if (first < 0 && ne == no) return "";
  std::string s;
  if (ne != no) s += "sizes differ: expected " + std::to_string(ne) + " bytes, observed " + std::to_string(no) + "\n";
  if (first < 0) return s + "the common " + std::to_string(n) + " bytes are equal";
  s += std::to_string(count) + " of " + std::to_string(n) + " bytes differ; first at byte " + std::to_string(first) +
       ": observed " + hex_of(observed[first], 2) + ", expected " + hex_of(expected[first], 2) + "\n";
  const std::int64_t a = std::max<std::int64_t>(0, first - 4), b = std::min(n, first + 12);
  std::string e = "  expected [" + std::to_string(a) + ".." + std::to_string(b - 1) + "]:", o = "  observed [" +
      std::to_string(a) + ".." + std::to_string(b - 1) + "]:";
  for (std::int64_t i = a; i < b; ++i) {
    e += " " + hex_of(expected[i], 2);
    o += " " + hex_of(observed[i], 2);
  }
  return s + e + "\n" + o;
}

// Input element i of a tensor in its own type, as hex.
inline std::string input_hex(const TensorView& x, std::int64_t i) {
  if (x.type == InType::f32) return hex_of(load_as_f32_bits(x.data, x.type, i), 8);
  std::uint16_t h;
  std::memcpy(&h, static_cast<const std::uint8_t*>(x.data) + 2 * i, 2);
  return hex_of(h, 4);
}

// "" when `observed` holds the same codes, scales and bytes as `expected`
// (same recipe, shape and options); otherwise the report. `x` (optional)
// is the input tensor, for the block's inputs.
inline std::string describe_quantized_difference(const Quantized& e, const Quantized& o, const TensorView* x = nullptr) {
  if (e.batch != o.batch || e.rows != o.rows || e.cols != o.cols || e.recipe.name() != o.recipe.name() ||
      e.opts.axis != o.opts.axis) {
    throw InvalidArgument("quantized tensors are not comparable (recipe " + o.recipe.name() + " vs " + e.recipe.name() +
                          ", or shape or axis differ)");
  }
  const bool col = e.opts.axis == Axis::colwise;
  const std::int64_t V = e.recipe.block;
  std::int64_t ediff = 0, sdiff = 0, fb = -1, fm = 0, fk = 0;
  for (std::int64_t b = 0; b < e.batch; ++b) {
    for (std::int64_t m = 0; m < e.rows; ++m) {
      for (std::int64_t k = 0; k < e.cols; ++k) {
        const bool ed = element_code_at(e, b, m, k) != element_code_at(o, b, m, k);
        const bool blk_start = (col ? m : k) % V == 0;
        const bool sd = scale_code_at(e, b, m, k) != scale_code_at(o, b, m, k);
        if (ed) ++ediff;
        if (sd && blk_start) ++sdiff;
        if ((ed || sd) && fb < 0) fb = b, fm = m, fk = k;
      }
    }
  }
  const std::string what = e.recipe.name() + " (" + std::string(axis_name(e.opts.axis)) + ", data " +
                           std::string(data_order_name(e.opts.data_order)) + ", scales " +
                           std::string(scale_layout_name(e.opts.scale_layout)) + ", " +
                           std::string(packing_name(e.opts.packing)) + ")";
  const std::int64_t n = e.batch * e.rows * e.cols;
  if (fb < 0) {
    // Same codes and scales: the bytes may still differ in padding (C6 pack
    // bits, C7 tcgen05 padding).
    std::string d = describe_bytes_difference(e.data.data(), static_cast<std::int64_t>(e.data.size()), o.data.data(),
                                              static_cast<std::int64_t>(o.data.size()));
    if (!d.empty()) return what + ": codes equal but data bytes differ (padding bits must be 0)  [C6]\n" + d;
    d = describe_bytes_difference(e.scales.data(), static_cast<std::int64_t>(e.scales.size()), o.scales.data(),
                                  static_cast<std::int64_t>(o.scales.size()));
    if (!d.empty()) return what + ": scales equal but scale bytes differ (padding must be 00)  [C7]\n" + d;
    return "";
  }
  const std::int64_t i0 = ((col ? fm : fk) / V) * V, i1 = std::min(col ? e.rows : e.cols, i0 + V) - 1;
  const auto at = [&](std::int64_t j, std::int64_t* mm, std::int64_t* kk) {
    *mm = col ? j : fm;
    *kk = col ? fk : j;
  };
  std::string s = what + ": " + std::to_string(ediff) + " of " + std::to_string(n) + " element codes and " +
                  std::to_string(sdiff) + " block scales differ\n";
  s += "first differing block: batch " + std::to_string(fb) + ", " + (col ? "rows " : "cols ") + std::to_string(i0) + ".." +
       std::to_string(i1) + " of " + (col ? "column " : "row ") + std::to_string(col ? fk : fm) + " (block " +
       std::to_string(i0 / V) + ")\n";
  if (x != nullptr && x->data != nullptr) {
    s += std::string("  inputs (") + std::string(in_type_name(x->type)) + " hex):";
    for (std::int64_t j = i0; j <= i1; ++j) {
      std::int64_t mm, kk;
      at(j, &mm, &kk);
      s += " " + input_hex(*x, (fb * e.rows + mm) * e.cols + kk);
    }
    s += "\n";
  }
  const std::uint8_t es = scale_code_at(e, fb, fm, fk), os = scale_code_at(o, fb, fm, fk);
  s += "  scale    expected " + hex_of(es, 2) + ", observed " + hex_of(os, 2) + (es == os ? " (equal)" : "") + "\n";
  std::string ec = "  codes    expected", oc = "  codes    observed";
  std::int64_t first_code = -1;
  for (std::int64_t j = i0; j <= i1; ++j) {
    std::int64_t mm, kk;
    at(j, &mm, &kk);
    const auto a = element_code_at(e, fb, mm, kk), b = element_code_at(o, fb, mm, kk);
    if (a != b && first_code < 0) first_code = j;
    ec += " " + hex_of(a, 2);
    oc += " " + hex_of(b, 2);
  }
  s += ec + "\n" + oc + "\n";
  if (first_code >= 0) s += "  first differing code at " + std::string(col ? "row " : "col ") + std::to_string(first_code) + "\n";
  const Recipe& r = e.recipe;
  std::string clause;
  if (r.is_nvfp4()) {
    clause = es != os ? "C5 (NVFP4 ue4m3 block scale)" : "C5 (NVFP4 element encode, e2m1)";
  } else if (es != os) {
    clause = "C3 (scale rule " + std::string(scale_rule_name(r.rule)) + ")";
  } else {
    clause = "C2 (encode " + std::string(desc(r.elem).name) + ": " + std::string(rounding_name(r.conv.rounding)) + ", " +
             std::string(overflow_name(r.conv.overflow)) + ")";
  }
  s += "  clause: " + clause + "; recipe " + r.name() + " [" + (r.is_nvfp4() ? "C5" : "C4") + "]";
  return s;
}

// An observed tensor with the geometry of `like` (the reference's answer
// for the same recipe, shape and options) and the caller's bytes; throws
// ShapeError when a buffer's size differs.
inline Quantized with_bytes(const Quantized& like, const std::uint8_t* data, std::int64_t data_bytes,
                            const std::uint8_t* scales, std::int64_t scale_bytes) {
  if (data_bytes != static_cast<std::int64_t>(like.data.size())) {
    throw ShapeError("data has " + std::to_string(data_bytes) + " bytes, expected " + std::to_string(like.data.size()) +
                     " for " + like.recipe.name() + " [" + std::to_string(like.batch) + ", " + std::to_string(like.rows) +
                     ", " + std::to_string(like.cols) + "]");
  }
  if (scale_bytes != static_cast<std::int64_t>(like.scales.size())) {
    throw ShapeError("scales have " + std::to_string(scale_bytes) + " bytes, expected " +
                     std::to_string(like.scales.size()) + " (layout " +
                     std::string(scale_layout_name(like.opts.scale_layout)) + ")");
  }
  Quantized q = like;
  q.data.assign(data, data + data_bytes);
  q.scales.assign(scales, scales + scale_bytes);
  return q;
}

}  // namespace mx::testing
