/* solver_simd_avx2.c - the wide sweeps in 8 AVX2 lanes (csrc/solver_simd_wide.h); compiled
 * with -mavx2 and without -mfma (CMakeLists.txt), run only where the CPU has AVX2. */
#define TP_SIMD_WIDTH 8
#include "solver_simd_wide.h"
