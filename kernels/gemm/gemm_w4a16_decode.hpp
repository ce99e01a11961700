// gemm_w4a16_decode.hpp - the w4a16 decode kernel (M <= 64, B widened in
// registers; gemm_w4a16_decode.cu) and the mma.sync one (gemm_w4a16_mma.cu),
// called by w4a16_gemm_launch.
#pragma once

#include <cuda_runtime.h>

#include "mxk/gemm.hpp"

namespace mxk::gemm {

// x validated by the caller; cols: rows of A per block (8, 16, 32, 64; 0 =
// cfg::w4_rs_cols); sms: the device's multiprocessors.
void w4a16_decode_launch(const W4a16GemmArgs& x, int cols, int sms, cudaStream_t stream);

// The mma.sync decode kernel (gemm_w4a16_mma.cu), x validated by the caller;
// form: cfg::W4Mma code 100 TR + 10 TG + NT (0 = cfg::w4_mma_form).
void w4a16_mma_launch(const W4a16GemmArgs& x, int form, int sms, cudaStream_t stream);

}  // namespace mxk::gemm
