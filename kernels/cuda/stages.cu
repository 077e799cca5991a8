/* stages.cu - the step's kernels: every stage of kernels/step.h's list,
 * launched as its last column says, calling the same stage functions as the
 * CPU backend (compiled with --fmad=false, so a world computes the same bits).
 *
 *   TP_LAUNCH_WORLD  one thread per world: tp_world_stage_kernel<stage>
 *   TP_LAUNCH_GROUP  a group of lanes per world (part of a warp, a warp or
 *                    a few), several worlds per block, the stage run as
 *                    lane tid of nth, the world's hot data in shared memory
 *                    (kernels/solve_group.h): tp_group_stage_kernel<stage>
 *   TP_LAUNCH_PAIRS  the collide stage: a group of lanes per world lists
 *                    its candidate pairs (the world's boxes in shared
 *                    memory), one block packs them end to end, a
 *                    thread per pair computes a manifold,
 *                    a thread per world gathers them in the CPU's order, and
 *                    a thread per world with more pairs than slots collides
 *                    it whole (kernels/collide_pairs.h)
 *   TP_LAUNCH_WAKE   the wake stage: a thread per world applies the
 *                    contact wakes, and a thread per world in which
 *                    something woke collides again (kernels/step.h,
 *                    tp_stage_wake_begin / tp_stage_wake_again)
 *   TP_LAUNCH_SORT   the contact sort: up to TP_SORT_BLOCK_MAX contacts
 *                    per world, a block per busy world sorting its own keys
 *                    (CUB BlockRadixSort, cub_sort.cu); above, the global
 *                    form (kernels/contact_sort.h): keys exported per world,
 *                    one CUB sort of every world's keys, contacts permuted
 *                    per world
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

/* Is stage S one of the busy-only stages (the IF node's body)? Those launch
 * over the compacted list of busy worlds (tp_busy_list_kernel), so the
 * threads or blocks that have work are the first ones and the rest leave at
 * once; the others launch over every world. */
template <int S> __device__ static bool busy_only() { return !tp_stage_runs(S, TP_WORK_IDLE); }

/* The world that item i (thread or block) of stage S's launch works on, -1 if none. */
template <int S> __device__ static int world_of_item(const tp_dev &d, int i)
{
    if (busy_only<S>()) return i < *d.busy_count ? d.busy_list[i] : -1;
    return i < d.L.worlds ? i : -1;
}

/* A stage, one thread per world. The plan stage also writes the world's
 * busy flag, from which tp_busy_list_kernel makes the list. */
template <int S> __global__ void tp_world_stage_kernel(tp_dev d, int current, tp_step_params p)
{
    int w = world_of_item<S>(d, blockIdx.x * blockDim.x + threadIdx.x);
    if (w < 0) return;
    tp_world_step s = world_step_of(d, w, current);
    if (S == TP_STEP_PLAN || tp_stage_runs(S, s.rec->work)) tp_stage_run(S, &s, &p, 0, 1);
    if (S == TP_STEP_PLAN) d.busy_flag[w] = s.rec->work == TP_WORK_BUSY;
}

/* A stage, a group of P.lanes threads per world and P.worlds_per_block
 * worlds per block (kernels/solve_group.h: the lanes, the group barrier and
 * what goes into shared memory; memory.cu sizes the plan and refuses a world
 * whose velocities do not fit). Group g of block k works on item
 * k * worlds_per_block + g of the busy list. */
template <int S>
__global__ void __launch_bounds__(TP_SOLVE_BLOCK_THREADS) tp_group_stage_kernel(tp_dev d, int current,
                                                                               tp_step_params p, tp_solve_plan P)
{
    extern __shared__ __align__(16) char tp_group_shared[];
    int group = (int)threadIdx.x / P.lanes, lane = (int)threadIdx.x % P.lanes;
    int w = world_of_item<S>(d, (int)blockIdx.x * P.worlds_per_block + group);
    if (w < 0) return; /* the whole group leaves together */
    tp_world_step s = world_step_of(d, w, current);
    if (!tp_stage_runs(S, s.rec->work)) return; /* the whole group leaves together */
    tp_solve_group_run(S, &s, &p, &P, tp_group_shared + (size_t)group * P.world_bytes, lane);
}

/* The collide stage, cut for a thread per candidate pair
 * (kernels/collide_pairs.h). 1: a group of P.lanes threads per listed world
 * lists its candidate pairs (tp_collide_list_pairs_lanes: boxes, bitonic
 * sort and sweep, kernels/broadphase.h), P.worlds_per_block worlds per
 * block, each world's work area in the block's shared memory or, for worlds
 * too large for it (P.shared == 0), in d.list_work. Group g of block k works
 * on item k * worlds_per_block + g of the busy list. */
__global__ void __launch_bounds__(TP_LIST_BLOCK_THREADS) tp_pairs_list_kernel(tp_dev d, int current, tp_list_plan P)
{
    extern __shared__ __align__(16) char tp_list_shared[];
    int group = (int)threadIdx.x / P.lanes, lane = (int)threadIdx.x % P.lanes;
    int w = world_of_item<TP_STEP_COLLIDE>(d, (int)blockIdx.x * P.worlds_per_block + group);
    if (w < 0) return; /* the whole group leaves together */
    tp_world_step s = world_step_of(d, w, current);
    if (s.rec->work != TP_WORK_BUSY) return; /* the whole group leaves together */
    char *work = P.shared ? tp_list_shared + (size_t)group * P.world_bytes : d.list_work + (size_t)w * P.world_bytes;
    int n = tp_collide_list_pairs_lanes(&s.wd, work, d.pairs + (size_t)w * (size_t)d.pair_slots, d.pair_slots, lane,
                                        P.lanes);
    if (lane == 0) d.pair_count[w] = n;
}

/* 1': one block packs the listed worlds' pairs end to end: pair_first[k] =
 * the pairs of listed worlds before k (tp_pairs_for_narrowphase), and
 * pair_first[busy_count] their total. A block-wide exclusive scan chunk by
 * chunk: an inclusive scan within each warp by shuffles (Kogge-Stone, as in
 * the CUDA programming guide's __shfl_up_sync example), the warps' totals
 * scanned by warp 0, plus the chunks before. Integers only. */
#define TP_SCAN_THREADS 1024
__global__ void __launch_bounds__(TP_SCAN_THREADS) tp_pairs_scan_kernel(tp_dev d)
{
    __shared__ int warp_sum[TP_SCAN_THREADS / 32];
    __shared__ int base;
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, count = *d.busy_count;
    if (tid == 0) base = 0;
    __syncthreads();
    for (int first = 0; first < count; first += TP_SCAN_THREADS) { /* the same trip count in every thread */
        int k = first + tid;
        int n = k < count ? tp_pairs_for_narrowphase(d.pair_count[d.busy_list[k]], d.pair_slots) : 0;
        int incl = n;
        for (int o = 1; o < 32; o <<= 1) {
            int up = __shfl_up_sync(0xffffffffu, incl, o);
            if (lane >= o) incl += up;
        }
        if (lane == 31) warp_sum[warp] = incl;
        __syncthreads();
        if (warp == 0) {
            int v = warp_sum[lane], x = v;
            for (int o = 1; o < 32; o <<= 1) {
                int up = __shfl_up_sync(0xffffffffu, x, o);
                if (lane >= o) x += up;
            }
            warp_sum[lane] = x - v; /* exclusive: the warps before */
        }
        __syncthreads();
        if (k < count) d.pair_first[k] = base + warp_sum[warp] + incl - n;
        __syncthreads(); /* every thread has read base and warp_sum */
        if (tid == TP_SCAN_THREADS - 1) base += warp_sum[warp] + incl;
        __syncthreads();
    }
    if (tid == 0) d.pair_first[count] = base;
}

/* 2: thread t computes packed pair t: slot t - pair_first[k] of listed world
 * k (tp_pair_item_world). The launch covers W x pair_slots threads (fixed
 * when the graph is captured); those past the total leave at once. */
#define TP_PAIR_THREADS 128 /* threads per block of the thread-per-pair narrowphase */
#define TP_PAIR_MIN_BLOCKS 4 /* asked of ptxas: 4 x 128 threads per SM, so at most 128 registers (docs/cuda.md) */
__global__ void __launch_bounds__(TP_PAIR_THREADS, TP_PAIR_MIN_BLOCKS) tp_pairs_narrow_kernel(tp_dev d, int current)
{
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x), count = *d.busy_count;
    if (count == 0 || t >= d.pair_first[count]) return;
    int k = tp_pair_item_world(d.pair_first, count, t), w = d.busy_list[k];
    tp_world wd = tp_layout_world_stepping(&d.L, w, current);
    tp_collide_pair_slot(&wd, d.L.polys, d.pairs + (size_t)w * (size_t)d.pair_slots + (t - d.pair_first[k]));
}

/* 3: a thread per listed world pushes the manifolds' points in slot order. */
__global__ void tp_pairs_gather_kernel(tp_dev d, int current)
{
    int w = world_of_item<TP_STEP_COLLIDE>(d, blockIdx.x * blockDim.x + threadIdx.x);
    if (w < 0) return;
    tp_world_step s = world_step_of(d, w, current);
    if (s.rec->work != TP_WORK_BUSY || d.pair_count[w] > d.pair_slots) return;
    tp_stage_collide_gather(&s, d.pairs + (size_t)w * (size_t)d.pair_slots, d.pair_count[w]);
}

/* 3': a listed world with more candidate pairs than slots: the CPU's stage,
 * one thread (rare; in its own launch so that the gather stays small). */
__global__ void tp_pairs_whole_kernel(tp_dev d, int current, tp_step_params p)
{
    int w = world_of_item<TP_STEP_COLLIDE>(d, blockIdx.x * blockDim.x + threadIdx.x);
    if (w < 0) return;
    tp_world_step s = world_step_of(d, w, current);
    if (s.rec->work != TP_WORK_BUSY || d.pair_count[w] <= d.pair_slots) return;
    tp_stage_run(TP_STEP_COLLIDE, &s, &p, 0, 1);
}

/* The wake stage (TP_LAUNCH_WAKE), cut as kernels/step.h cuts it. 1: a
 * thread per listed world applies the contact wakes (tp_stage_wake_begin): a
 * few operations per body and contact, every busy step. */
__global__ void tp_wake_begin_kernel(tp_dev d, int current, tp_step_params p)
{
    int w = world_of_item<TP_STEP_WAKE>(d, blockIdx.x * blockDim.x + threadIdx.x);
    if (w < 0) return;
    tp_world_step s = world_step_of(d, w, current);
    if (s.rec->work != TP_WORK_BUSY) return;
    tp_stage_wake_begin(&s, &p);
}

/* 2: a listed world in which something woke collides again, one thread
 * (tp_stage_wake_again: the narrowphase, rare; in a launch of its own so
 * that the begin kernel stays small, as tp_pairs_whole_kernel is for the
 * collide stage). */
__global__ void tp_wake_again_kernel(tp_dev d, int current, tp_step_params p)
{
    int w = world_of_item<TP_STEP_WAKE>(d, blockIdx.x * blockDim.x + threadIdx.x);
    if (w < 0) return;
    tp_world_step s = world_step_of(d, w, current);
    if (s.rec->work != TP_WORK_BUSY || !s.rec->again) return;
    tp_stage_wake_again(&s, &p);
}

/* The global sort, before: busy world w's keys into its segment. */
__global__ void tp_sort_export_kernel(tp_dev d, int current)
{
    int w = world_of_item<TP_STEP_SORT>(d, blockIdx.x * blockDim.x + threadIdx.x);
    if (w < 0) return;
    tp_world_step s = world_step_of(d, w, current);
    if (s.rec->work != TP_WORK_BUSY) return;
    tp_contact_keys_export(s.contacts, *s.contact_count, w, d.L.capacity, d.keys_in + (size_t)w * (size_t)d.L.capacity);
}

/* The global sort, after: busy world w's contacts in the order of its sorted slots. */
__global__ void tp_sort_permute_kernel(tp_dev d, int current)
{
    int w = world_of_item<TP_STEP_SORT>(d, blockIdx.x * blockDim.x + threadIdx.x);
    if (w < 0) return;
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

/* One block of TP_LIST_THREADS: the busy worlds' indices in increasing order
 * into d.busy_list, their number into d.busy_count, and the IF node's
 * condition (some world is busy). A stream compaction by a block-wide
 * exclusive scan of the flags, chunk by chunk: each warp counts its flags with
 * a ballot, a thread's place is the popcount of the ballot's lower lanes plus
 * the counts of the warps before it plus the chunks before (the classic
 * ballot-scan compaction, e.g. Harris, Sengupta and Owens, "Parallel Prefix
 * Sum (Scan) with CUDA", GPU Gems 3, ch. 39, and Billeter, Olsson and
 * Assarsson, "Efficient stream compaction on wide SIMD many-core
 * architectures", HPG 2009). Integer only, so the list is the same on every
 * run; the order does not matter for the results anyway (worlds are
 * independent), but an ordered list is the one tests/test_stages.c replays. */
#define TP_LIST_THREADS 1024
__global__ void __launch_bounds__(TP_LIST_THREADS) tp_busy_list_kernel(tp_dev d, cudaGraphConditionalHandle handle)
{
    __shared__ int warp_count[TP_LIST_THREADS / 32];
    __shared__ int base;
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    if (tid == 0) base = 0;
    __syncthreads();
    for (int first = 0; first < d.L.worlds; first += TP_LIST_THREADS) { /* the same trip count in every thread */
        int w = first + tid;
        int flag = w < d.L.worlds && d.busy_flag[w];
        unsigned int votes = __ballot_sync(0xffffffffu, flag);
        if (lane == 0) warp_count[warp] = __popc(votes);
        __syncthreads();
        int place = base + __popc(votes & ((1u << lane) - 1u));
        for (int k = 0; k < warp; ++k) place += warp_count[k];
        if (flag) d.busy_list[place] = w;
        __syncthreads(); /* every thread has read base and warp_count */
        if (tid == 0)
            for (int k = 0; k < TP_LIST_THREADS / 32; ++k) base += warp_count[k];
        __syncthreads();
    }
    if (tid == 0) {
        *d.busy_count = base;
        cudaGraphSetConditional(handle, base > 0 ? 1u : 0u);
    }
}

/* World indices and episodes passed by value (16 KiB of kernel parameters:
 * CUDA 12.1+ on Volta and later take 32,764 bytes), so no host buffer has to
 * outlive an asynchronous copy. */
struct tp_reset_list {
    int32_t world[TP_RESET_CHUNK];
    uint32_t episode[TP_RESET_CHUNK]; /* the world's episode: its draws (kernels/philox.h) */
};

/* Block k resets world list.world[k] as tp_batch_init_world does on the host:
 * the per-world part (thread 0; the contact sensors at 0 when on), a thread
 * per body with cuRAND's draws, the constraint table and state and the mover
 * state (words over the block's threads: kernels/constraint.h, mover.h), then
 * (thread 0) the joints, actuators and links with the robot randomization's
 * draws (kernels/robot_randomize.h), and the counts. Launched outside the step's graph, on the batch's stream. */
__global__ void tp_reset_kernel(tp_dev d, tp_randomize_params r, tp_reset_list list, tp_sensor_arrays sensors)
{
    int w = list.world[blockIdx.x];
    if (threadIdx.x == 0) { /* first, so that the world view reads the reset gravity */
        tp_world_init_globals(&d.L.contact_count[0][w], &d.L.contact_count[1][w], d.L.gravity + 3 * w, d.gravity0,
                              &d.L.contact_overflow[w], &d.L.faults[w]);
        if (sensors.force) tp_contact_sensors_clear_world(&sensors, w); /* no contacts yet */
    }
    __syncthreads();
    tp_world wd = tp_layout_world(&d.L, w);
    for (int i = threadIdx.x; i < d.L.bodies; i += blockDim.x) tp_world_init_body_curand(&wd, i, &d.body_init[i], &r, list.episode[blockIdx.x]);
    __syncthreads();
    if (wd.cons) tp_cons_world_reset(wd.cons, wd.cons_state, d.cons_model, wd.cons_count, threadIdx.x, blockDim.x);
    if (wd.mover_state) tp_mover_world_reset(wd.mover_state, d.mover_initial, wd.mover_count, threadIdx.x, blockDim.x);
    if (threadIdx.x == 0) {
        if (d.L.artic) /* joints at their drawn initial values, links placed over the drawn bodies */
            tp_artic_reset_in_layout(&d.L, &d.artic_initial, w, list.episode[blockIdx.x], &wd,
                                     d.L.artic_scratch + (size_t)w * d.L.artic_scratch_bytes);
        tp_world_count(&wd, d.L.awake_count + w, d.L.sleeping_count + w, d.L.checking_count + w);
    }
}

/* ---------------------------------------------------------------- launches */

static unsigned int world_blocks(int worlds) { return (unsigned int)((worlds + TP_WORLD_THREADS - 1) / TP_WORLD_THREADS); }

static cudaError_t launch_pairs(tp_cuda_batch *c, int current, cudaStream_t s)
{
    const tp_dev &d = c->d;
    const tp_list_plan &L = c->list_plan;
    tp_pairs_list_kernel<<<(unsigned int)((d.L.worlds + L.worlds_per_block - 1) / L.worlds_per_block),
                           (unsigned int)L.block_threads, L.block_bytes, s>>>(d, current, L);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    tp_pairs_scan_kernel<<<1, TP_SCAN_THREADS, 0, s>>>(d);
    if ((err = cudaGetLastError()) != cudaSuccess) return err;
    size_t threads = (size_t)d.L.worlds * (size_t)d.pair_slots; /* fits an int: memory.cu checks */
    tp_pairs_narrow_kernel<<<(unsigned int)((threads + TP_PAIR_THREADS - 1) / TP_PAIR_THREADS), TP_PAIR_THREADS, 0, s>>>(
        d, current);
    if ((err = cudaGetLastError()) != cudaSuccess) return err;
    tp_pairs_gather_kernel<<<world_blocks(d.L.worlds), TP_WORLD_THREADS, 0, s>>>(d, current);
    if ((err = cudaGetLastError()) != cudaSuccess) return err;
    tp_pairs_whole_kernel<<<world_blocks(d.L.worlds), TP_WORLD_THREADS, 0, s>>>(d, current, c->step);
    return cudaGetLastError();
}

static cudaError_t launch_wake(tp_cuda_batch *c, int current, cudaStream_t s)
{
    const tp_dev &d = c->d;
    tp_wake_begin_kernel<<<world_blocks(d.L.worlds), TP_WORLD_THREADS, 0, s>>>(d, current, c->step);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    tp_wake_again_kernel<<<world_blocks(d.L.worlds), TP_WORLD_THREADS, 0, s>>>(d, current, c->step);
    return cudaGetLastError();
}

static cudaError_t launch_sort(tp_cuda_batch *c, int current, cudaStream_t s)
{
    const tp_dev &d = c->d;
    if (d.L.capacity <= TP_SORT_BLOCK_MAX) return tp_launch_block_sort(d, current, s);
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
    } else if constexpr (LAUNCH == TP_LAUNCH_PAIRS) {
        return launch_pairs(c, current, s);
    } else if constexpr (LAUNCH == TP_LAUNCH_WAKE) {
        return launch_wake(c, current, s);
    } else if constexpr (LAUNCH == TP_LAUNCH_GROUP) {
        const tp_solve_plan &P = c->solve_plan;
        unsigned int blocks = (unsigned int)((d.L.worlds + P.worlds_per_block - 1) / P.worlds_per_block);
        size_t shared = S == TP_STEP_SOLVE ? P.block_bytes : 0; /* only the solve stages data in shared memory */
        tp_group_stage_kernel<S><<<blocks, (unsigned int)P.block_threads, shared, s>>>(d, current, c->step, P);
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

template <int S, int LAUNCH> static cudaError_t allow_shared_as(size_t bytes)
{
    if constexpr (LAUNCH == TP_LAUNCH_GROUP)
        return cudaFuncSetAttribute(tp_group_stage_kernel<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    else
        return cudaSuccess;
}

cudaError_t tp_group_stages_allow_shared(size_t bytes)
{
    if (cudaError_t err = cudaFuncSetAttribute(tp_pairs_list_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)bytes))
        return err;
#define TP_ALLOW_CASE(NAME, name, runs, launch)                                                                        \
    if (cudaError_t err = allow_shared_as<TP_STEP_##NAME, launch>(bytes)) return err;
    TP_STEP_STAGES(TP_ALLOW_CASE)
#undef TP_ALLOW_CASE
    return cudaSuccess;
}

cudaError_t tp_launch_busy_list(const tp_dev &d, cudaGraphConditionalHandle handle, cudaStream_t s)
{
    tp_busy_list_kernel<<<1, TP_LIST_THREADS, 0, s>>>(d, handle);
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
    tp_reset_kernel<<<(unsigned int)count, TP_BLOCK_THREADS, 0, s>>>(c->d, c->randomize, list, c->sensors);
    return cudaGetLastError();
}
