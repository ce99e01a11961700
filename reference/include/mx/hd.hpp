// mx/hd.hpp - MX_HD marks constexpr functions that CUDA device code may call.
#pragma once

#if defined(__CUDACC__)
#define MX_HD __host__ __device__
#else
#define MX_HD
#endif
