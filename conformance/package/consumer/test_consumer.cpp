// test_consumer.cpp - gates a consumer's "kernels" (hand-written here) against
// the installed reference with the mx/testing/gtest.hpp assertions. The
// expected bytes are worked out by hand from reference/SPEC.md (C1, C2, C3,
// C4); DeliberateMismatch.* must fail with the first-difference report
// (conformance/package/run_consumer.sh checks both).
#include <cstdint>
#include <vector>

#include "mx/convert.hpp"
#include "mx/quantize.hpp"
#include "mx/testing/gtest.hpp"

namespace {

// The consumer's e2m1 encoder under test: here the reference itself.
std::vector<std::uint8_t> my_e2m1(const std::vector<float>& x) {
  std::vector<std::uint8_t> c;
  for (float v : x) c.push_back(static_cast<std::uint8_t>(mx::encode(mx::Fmt::e2m1, v)));
  return c;
}

// The consumer's MXFP8 kernel for a block of 32 ones: C3 floor gives
// e = floor(log2 1) - emax_elem(e4m3) = -8, scale code 127 - 8 = 0x77; each
// element is 1 * 2^8 = 256 = e4m3 exponent field 8 + 7 = 15, mantissa 0: 0x78.
void my_mxfp8_ones(std::vector<std::uint8_t>* data, std::vector<std::uint8_t>* scales) {
  data->assign(32, 0x78);
  scales->assign(1, 0x77);
}

mx::TensorView ones_view(const std::vector<float>& x) {
  mx::TensorView v;
  v.data = x.data();
  v.rows = 1;
  v.cols = static_cast<std::int64_t>(x.size());
  return v;
}

}  // namespace

TEST(Pass, E2m1BytesByHand) {
  // C1 e2m1 values 0, 0.5, 1, 1.5, 2, 3, 4, 6 are codes 0..7; -0.25 is the tie
  // between -0 and -0.5 and goes to the even code -0 (0x8); 5 is the tie
  // between 4 (0x6) and 6 (0x7): even 0x6; 7 saturates to 6 (0x7).
  const std::vector<std::uint8_t> want = {0, 1, 2, 3, 4, 5, 6, 7, 0x8, 0x6, 0x7};
  EXPECT_MX_BYTES_EQ(want, my_e2m1({0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.25f, 5, 7}));
}

TEST(Pass, Mxfp8KernelEqualsReference) {
  const std::vector<float> x(32, 1.0f);
  std::vector<std::uint8_t> data, scales;
  my_mxfp8_ones(&data, &scales);
  EXPECT_MX_QUANTIZED_EQ("mxfp8_e4m3", ones_view(x), mx::QuantizeOptions{}, data, scales);
}

TEST(DeliberateMismatch, OneCodeOff) {
  const std::vector<float> x(32, 1.0f);
  std::vector<std::uint8_t> data, scales;
  my_mxfp8_ones(&data, &scales);
  data[5] = 0x79;
  EXPECT_MX_QUANTIZED_EQ("mxfp8_e4m3", ones_view(x), mx::QuantizeOptions{}, data, scales);
}
