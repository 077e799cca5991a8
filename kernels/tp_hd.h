/* tp_hd.h - the one macro that lets a stage be written once for gcc and nvcc.
 *
 * Every stage of the step is written in a header under kernels/ whose functions
 * are marked TP_HD. Under nvcc they become __host__ __device__ functions that a
 * CUDA kernel (kernels/ *.cu) calls; under a C compiler they are static inline
 * functions that the CPU backend (csrc/) calls in loops over worlds. Both builds
 * use IEEE float32 without contraction (-ffp-contract=off, --fmad=false), so the
 * same source gives the same bits (DESIGN.md section 5). */
#ifndef TP_HD_H
#define TP_HD_H

#ifdef __CUDACC__
#define TP_HD __host__ __device__ static inline
#else
#define TP_HD static inline
#endif

#endif
