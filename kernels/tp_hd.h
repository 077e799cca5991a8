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

/* A barrier between the phases of a stage that a whole CUDA thread block runs
 * together (the solver's substeps, kernels/solver.h): `nth` is the number of
 * threads taking part. With one thread (the CPU backend, or any one-thread
 * caller) it is nothing; on the device with nth > 1 it is __syncthreads(), and
 * nth is the same for every thread of the block, so all of them reach it.
 * A host test may define its own before including this (tests/test_stages.c
 * runs a block as an OpenMP team). */
#if defined(TP_BARRIER)
/* defined by the includer */
#elif defined(__CUDA_ARCH__)
#define TP_BARRIER(nth)                                                                                                \
    do {                                                                                                               \
        if ((nth) > 1) __syncthreads();                                                                                \
    } while (0)
#else
#define TP_BARRIER(nth) ((void)(nth))
#endif

#endif
