/* solver_simd_sse2.c - the wide sweeps in 4 SSE2 lanes (csrc/solver_simd_wide.h). */
#define TP_SIMD_WIDTH 4
#include "solver_simd_wide.h"
