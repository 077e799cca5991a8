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

/* TP_HD for a dispatcher whose first argument picks a stage (kernels/step.h,
 * tp_stage_run): inlined always, so that in a kernel that passes a constant
 * only the chosen stage is compiled into it. Left to nvcc's choice, the
 * dispatcher stayed a call and every kernel carried the stack of the deepest
 * stage (the narrowphase's polytopes: 13 KiB on the solve kernel, whose
 * stage needs none). */
#ifdef __CUDACC__
#define TP_HD_DISPATCH __host__ __device__ static __forceinline__
#else
#define TP_HD_DISPATCH static inline
#endif

/* A barrier between the phases of a stage that a group of `nth` threads runs
 * together (the solver's substeps, kernels/solver.h; the groups are laid out
 * by kernels/solve_group.h). With one thread (the CPU backend, or any
 * one-thread caller) it is nothing. On the device a group is nth consecutive
 * threads of the block starting at a multiple of nth (nth a power of two):
 * up to 32 it is part of one warp and waits with __syncwarp over its own
 * lanes; above, it is nth / 32 whole warps and waits at named barrier
 * 1 + threadIdx.x / nth with nth threads (groups of one block never wait
 * for each other; 0 is __syncthreads'). It is PTX's non-aligned
 * `barrier.sync`, not the aligned `bar.sync`: the group reaches it straight
 * after lane-0-only sections (the shock pass, the serial tail), where its
 * threads need not be converged. Both order the memory
 * accesses of the threads taking part, shared and global. nth is the same
 * for every thread of a group, so all of them reach it. A host test may
 * define its own before including this (tests/test_stages.c runs a group's
 * lanes as coroutines that switch here). */
#if defined(TP_BARRIER)
/* defined by the includer */
#elif defined(__CUDA_ARCH__)
__device__ static inline void tp_group_barrier(int nth)
{
    if (nth <= 1) return;
    if (nth <= 32) {
        unsigned int lane = threadIdx.x & 31u, first = lane & ~(unsigned int)(nth - 1);
        unsigned int mask = nth == 32 ? 0xffffffffu : ((1u << nth) - 1u) << first;
        __syncwarp(mask);
    } else {
        asm volatile("barrier.sync %0, %1;" ::"r"(1 + (int)threadIdx.x / nth), "r"(nth) : "memory");
    }
}
#define TP_BARRIER(nth) tp_group_barrier(nth)
#else
#define TP_BARRIER(nth) ((void)(nth))
#endif

/* Lane t's share [*lo, *hi) of n items cut into `parts` contiguous ranges
 * in order (the counting phases of kernels/coloring.h and kernels/sleep.h). */
TP_HD void tp_lanes_range(int n, int t, int parts, int *lo, int *hi)
{
    *lo = (int)((long long)n * t / parts);
    *hi = (int)((long long)n * (t + 1) / parts);
}

/* Compare-and-swap of a 32-bit integer shared by the lanes of a group
 * (kernels/islands.h, the lane-parallel union-find): *p becomes v if it was
 * `expect`; returns what *p was. On the device atomicCAS; on the host the
 * lanes of a group never run at once (the CPU backend runs one lane, the
 * replay in tests/test_stages.c runs them one after the other), so a plain
 * compare and store is the same operation. Integers only: the result of a
 * step never depends on which lane won. */
#if defined(__CUDA_ARCH__)
#define TP_CAS32(p, expect, v) atomicCAS((int *)(p), (int)(expect), (int)(v))
#else
static inline int tp_cas32_host(volatile int *p, int expect, int v)
{
    int old = *p;
    if (old == expect) *p = v;
    return old;
}
#define TP_CAS32(p, expect, v) tp_cas32_host((volatile int *)(p), (int)(expect), (int)(v))
#endif

#endif
