/* stages.cu - the step's kernels: every stage of kernels/step.h's list,
 * launched as its last column says, calling the same stage functions as the
 * CPU backend (compiled with --fmad=false, so a world computes the same bits).
 *
 *   TP_LAUNCH_WORLD  one thread per world: tp_world_stage_kernel<stage>
 *   TP_LAUNCH_BLOCK  one block per world, its threads sharing the stage as
 *                    tid of nth, v and w in shared memory where they fit:
 *                    tp_block_stage_kernel<stage>
 *   TP_LAUNCH_SORT   the global form of the contact sort (kernels/
 *                    contact_sort.h): keys exported per world, one CUB sort
 *                    of every world's keys, contacts permuted per world
 * tests/test_stages.c runs the same plan on the host. */
#include "cub_sort.h"
#include "cuda_batch.cuh"
#include "curand_draws.h"

#include <string.h>

/* World w's step, as tp_cpu_step sees it (kernels/step.h). */
__device__ static tp_world_step world_step_of(const tp_dev &d, int w, int current)
{
    return tp_world_step_at(&d.L, w, current, d.scratch + (size_t)w * d.scratch_bytes);
}

/* A stage, one thread per world. The plan stage also ORs "busy" into
 * d.any_busy (integer OR: the result does not depend on the atomics' order). */
template <int S> __global__ void tp_world_stage_kernel(tp_dev d, int current, tp_step_params p)
{
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int busy = 0;
    if (w < d.L.worlds) {
        tp_world_step s = world_step_of(d, w, current);
        if (S == TP_STEP_PLAN || tp_stage_runs(S, s.rec->work)) tp_stage_run(S, &s, &p, 0, 1);
        busy = s.rec->work == TP_WORK_BUSY;
    }
    if (S == TP_STEP_PLAN && __syncthreads_or(busy) && threadIdx.x == 0) atomicOr(d.any_busy, 1u);
}

/* A stage, one block per world; the world's v and w live in shared memory
 * when use_shared (6 x bodies floats). */
template <int S> __global__ void tp_block_stage_kernel(tp_dev d, int current, tp_step_params p, int use_shared)
{
    extern __shared__ float tp_shared_vw[];
    int w = blockIdx.x;
    tp_world_step s = world_step_of(d, w, current);
    if (!tp_stage_runs(S, s.rec->work)) return; /* the whole block leaves together */
    int tid = threadIdx.x, nth = blockDim.x, nv = 3 * d.L.bodies;
    float *v_global = s.wd.v, *w_global = s.wd.w;
    if (use_shared) {
        for (int k = tid; k < nv; k += nth) {
            tp_shared_vw[k] = v_global[k];
            tp_shared_vw[nv + k] = w_global[k];
        }
        s.wd.v = tp_shared_vw;
        s.wd.w = tp_shared_vw + nv;
        __syncthreads();
    }
    tp_stage_run(S, &s, &p, tid, nth);
    if (use_shared) {
        __syncthreads();
        for (int k = tid; k < nv; k += nth) {
            v_global[k] = tp_shared_vw[k];
            w_global[k] = tp_shared_vw[nv + k];
        }
    }
}

/* The global sort, before: busy world w's keys into its segment. */
__global__ void tp_sort_export_kernel(tp_dev d, int current)
{
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= d.L.worlds) return;
    tp_world_step s = world_step_of(d, w, current);
    if (s.rec->work != TP_WORK_BUSY) return;
    tp_contact_keys_export(s.contacts, *s.contact_count, w, d.L.capacity, d.keys_in + (size_t)w * (size_t)d.L.capacity);
}

/* The global sort, after: busy world w's contacts in the order of its sorted slots. */
__global__ void tp_sort_permute_kernel(tp_dev d, int current)
{
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= d.L.worlds) return;
    tp_world_step s = world_step_of(d, w, current);
    if (s.rec->work != TP_WORK_BUSY) return;
    tp_contacts_permute(s.contacts, *s.contact_count, d.slots_out + (size_t)w * (size_t)d.L.capacity);
}

__global__ void tp_sort_init_kernel(tp_dev d)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, n = (size_t)d.L.worlds * (size_t)d.L.capacity;
    if (i >= n) return;
    d.keys_in[i] = tp_world_sentinel_key((int)(i / (size_t)d.L.capacity));
    d.slots_in[i] = (int32_t)(i % (size_t)d.L.capacity);
}

/* One thread: the IF node runs its body when some world is busy. */
__global__ void tp_set_if_kernel(tp_dev d, cudaGraphConditionalHandle handle)
{
    unsigned int any = *d.any_busy;
    *d.any_busy = 0u;
    cudaGraphSetConditional(handle, any ? 1u : 0u);
}

/* World indices and episodes passed by value (16 KiB of kernel parameters:
 * CUDA 12.1+ on Volta and later take 32,764 bytes), so no host buffer has to
 * outlive an asynchronous copy. */
struct tp_reset_list {
    int32_t world[TP_RESET_CHUNK];
    uint32_t episode[TP_RESET_CHUNK]; /* the world's episode: its draws (kernels/philox.h) */
};

/* Block k resets world list.world[k] as tp_batch_init_world does on the host:
 * the per-world part (thread 0), a thread per body with cuRAND's draws, then
 * the counts. Launched outside the step's graph, on the batch's stream. */
__global__ void tp_reset_kernel(tp_dev d, tp_randomize_params r, tp_reset_list list)
{
    int w = list.world[blockIdx.x];
    if (threadIdx.x == 0) /* first, so that the world view reads the reset gravity */
        tp_world_init_globals(&d.L.contact_count[0][w], &d.L.contact_count[1][w], d.L.gravity + 3 * w, d.gravity0,
                              &d.L.contact_overflow[w], &d.L.faults[w]);
    __syncthreads();
    tp_world wd = tp_layout_world(&d.L, w);
    for (int i = threadIdx.x; i < d.L.bodies; i += blockDim.x) tp_world_init_body_curand(&wd, i, &d.body_init[i], &r, list.episode[blockIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) tp_world_count(&wd, d.L.awake_count + w, d.L.sleeping_count + w, d.L.checking_count + w);
}

/* ---------------------------------------------------------------- launches */

static unsigned int world_blocks(int worlds) { return (unsigned int)((worlds + TP_WORLD_THREADS - 1) / TP_WORLD_THREADS); }

static cudaError_t launch_sort(tp_cuda_batch *c, int current, cudaStream_t s)
{
    const tp_dev &d = c->d;
    tp_sort_export_kernel<<<world_blocks(d.L.worlds), TP_WORLD_THREADS, 0, s>>>(d, current);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    size_t temp_bytes = c->sort_temp_bytes;
    err = (cudaError_t)tp_cub_sort_pairs(c->sort_temp, &temp_bytes, d.keys_in, d.keys_out, d.slots_in, d.slots_out,
                                         c->sort_items, s);
    if (err != cudaSuccess) return err;
    tp_sort_permute_kernel<<<world_blocks(d.L.worlds), TP_WORLD_THREADS, 0, s>>>(d, current);
    return cudaGetLastError();
}

template <int S, int LAUNCH> static cudaError_t launch_as(tp_cuda_batch *c, int current, cudaStream_t s)
{
    const tp_dev &d = c->d;
    if constexpr (LAUNCH == TP_LAUNCH_SORT) {
        return launch_sort(c, current, s);
    } else if constexpr (LAUNCH == TP_LAUNCH_BLOCK) {
        tp_block_stage_kernel<S><<<(unsigned int)d.L.worlds, TP_BLOCK_THREADS, c->block_shared, s>>>(
            d, current, c->step, c->block_shared > 0);
    } else {
        tp_world_stage_kernel<S><<<world_blocks(d.L.worlds), TP_WORLD_THREADS, 0, s>>>(d, current, c->step);
    }
    return cudaGetLastError();
}

cudaError_t tp_launch_stage(tp_cuda_batch *c, int stage, int current, cudaStream_t s)
{
    switch (stage) {
#define TP_LAUNCH_CASE(NAME, name, runs, launch)                                                                       \
    case TP_STEP_##NAME: return launch_as<TP_STEP_##NAME, launch>(c, current, s);
        TP_STEP_STAGES(TP_LAUNCH_CASE)
#undef TP_LAUNCH_CASE
    }
    return cudaErrorInvalidValue;
}

cudaError_t tp_launch_set_if(const tp_dev &d, cudaGraphConditionalHandle handle, cudaStream_t s)
{
    tp_set_if_kernel<<<1, 1, 0, s>>>(d, handle);
    return cudaGetLastError();
}

cudaError_t tp_launch_sort_init(const tp_dev &d, int items, cudaStream_t s)
{
    if (items <= 0) return cudaSuccess;
    tp_sort_init_kernel<<<(unsigned int)((items + 255) / 256), 256, 0, s>>>(d);
    return cudaGetLastError();
}

cudaError_t tp_launch_reset(const tp_cuda_batch *c, const int32_t *worlds, const uint32_t *episode, int count,
                            cudaStream_t s)
{
    tp_reset_list list;
    memset(&list, 0, sizeof list);
    memcpy(list.world, worlds, (size_t)count * sizeof(int32_t));
    for (int i = 0; i < count; ++i) list.episode[i] = episode[worlds[i]];
    tp_reset_kernel<<<(unsigned int)count, TP_BLOCK_THREADS, 0, s>>>(c->d, c->randomize, list);
    return cudaGetLastError();
}
