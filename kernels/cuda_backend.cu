/* cuda_backend.cu - the CUDA backend: device state and the step on the GPU.
 *
 * The device holds the authoritative state of every world in the same
 * world-major layout as the host (DESIGN.md section 3); the host arrays of the
 * batch are a mirror refreshed on request. Each stage kernel calls the same
 * kernels/ header functions as the CPU backend's tp_world_step, in the same
 * order, compiled with --fmad=false, so a world computes the same bits on both
 * (DESIGN.md section 5). docs/cuda.md describes the stages, the graph and the
 * memory; in short, one step is one CUDA graph launch:
 *
 *   has_work       one thread per world: busy / idle / faulted, OR of "busy"
 *   set_if         one thread: cudaGraphSetConditional(any world busy)
 *   IF any busy:
 *     collide      one thread per world: v_start, broadphase + narrowphase
 *                  (unsorted), the world's keys with per-world sentinels
 *     CUB sort     DeviceRadixSort::SortPairs over all W x capacity keys
 *     islands      one thread per world: gather by the sorted slots, islands,
 *                  wakes (re-collide if an island woke), warm-start match
 *     color        one thread per world: tp_solver_color
 *     solve        one thread block per world: tp_solver_substeps_block,
 *                  velocities in shared memory where they fit
 *   finish         one thread per world: forces, sleep, clear, finite, counts
 *
 * Nothing in the step allocates, synchronises or copies to the host. Until a
 * GPU has run it, none of this is measured: docs/gpu-results.md says so. */
extern "C" {
#include "cuda_backend.h"
#include "error.h"
}
#include "contact.h"
#include "cuda_launch.h"
#include "curand_draws.h"
#include "world_step.h"

#include <cuda_runtime.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* What the step does with a world (tp_cuda_batch.work). */
#define TP_WORK_FAULTED 0 /* frozen until reset: nothing but contact_count = 0 */
#define TP_WORK_IDLE 1    /* nothing awake: contact_f = 0, counts */
#define TP_WORK_BUSY 2    /* the whole step */

#define TP_WORLD_THREADS 64 /* threads per block of the one-thread-per-world kernels */
#define TP_SOLVE_THREADS 64 /* threads per world in the solve kernel (untuned) */
#define TP_SHARED_LIMIT (48 * 1024) /* dynamic shared memory without opting in */

/* Device pointers and sizes, passed by value to every kernel. */
struct tp_dev {
    float *pos, *quat, *v, *w, *force, *torque, *inv_mass, *inv_inertia, *friction, *quiet_timer, *gravity;
    float *contact_f;
    int32_t *island;
    uint8_t *flags, *sleep_state, *body_awake, *faults;
    int32_t *awake_count, *sleeping_count, *checking_count, *contact_overflow;
    tp_contact *contacts[2];
    int32_t *contact_count[2];
    const tp_body_model *model;
    const tp_body_init *body_init; /* [bodies] the model's template, for resets */
    float gravity0[3];            /* the model's gravity, for resets */
    char *scratch;                /* per world: collide, solver, island scratch */
    size_t collide_bytes, solver_bytes, scratch_bytes;
    uint8_t *work;                /* [W] TP_WORK_* of this step */
    int32_t *step_overflow;       /* [W] overflow of the first collision pass */
    unsigned int *any_busy;       /* [1] OR of work == BUSY, reset by set_if */
    uint64_t *keys_in, *keys_out; /* [W * capacity] contact keys, per-world sentinels */
    int32_t *slots_in, *slots_out;/* [W * capacity] slot within the world (i % capacity) */
    int solve_sleeping, worlds, bodies, capacity;
    float dt;
};

#define TP_DEVICE_ARRAYS 40 /* room for list_arrays' entries */

struct tp_device_array {
    void **device;     /* where the device pointer lives in tp_dev */
    void *host;        /* the host array, NULL for device-only arrays */
    size_t bytes;
    size_t world_bytes;/* bytes of one world in a world-major array, 0 for the rest */
    int group;         /* TP_MIRROR_BODIES / _COUNTS / _CONTACTS if mirrored per world, 0 if not */
};

struct tp_cuda_batch {
    tp_dev d;
    void *sort_temp;
    size_t sort_temp_bytes;
    int sort_items;               /* W * capacity */
    size_t solve_shared;          /* dynamic shared bytes of the solve kernel (0: global memory) */
    cudaStream_t stream, body_stream;
    cudaGraph_t graph[2];         /* one per double-buffer parity b->current */
    cudaGraphExec_t exec[2];
    int graphs_ready;
    tp_mirror mirror;             /* which worlds the host or the device changed (csrc/mirror.h) */
    int32_t *reset_host;          /* [W] the reset list being built */
    uint8_t *reset_mark;          /* [W] world already in the list */
    struct tp_device_array arrays[TP_DEVICE_ARRAYS];
    int array_count;              /* arrays listed (more than TP_DEVICE_ARRAYS is a bug, reported at creation) */
};

static tp_status cuda_fail(cudaError_t err, const char *what)
{
    return tp_fail(TP_ERR_CUDA, "cuda: %s failed: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
}
#define TP_CUDA_TRY(call, what)                                                                                        \
    do {                                                                                                               \
        cudaError_t tp_err_ = (call);                                                                                  \
        if (tp_err_ != cudaSuccess) return cuda_fail(tp_err_, what);                                                   \
    } while (0)

static char tp_probe_message[256] = "not probed";

extern "C" int tp_cuda_built(void) { return 1; }

extern "C" int tp_cuda_device_count(void)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        snprintf(tp_probe_message, sizeof tp_probe_message, "%s", cudaGetErrorString(err));
        cudaGetLastError(); /* clear the sticky error of a failed probe */
        return 0;
    }
    snprintf(tp_probe_message, sizeof tp_probe_message, "%d device(s)", n);
    return n;
}

extern "C" const char *tp_cuda_probe_message(void) { return tp_probe_message; }

static void add_array(tp_cuda_batch *c, void **device, void *host, size_t bytes, size_t world_bytes, int group)
{
    if (c->array_count++ >= TP_DEVICE_ARRAYS) return; /* counted: tp_cuda_batch_create fails loudly */
    tp_device_array *a = &c->arrays[c->array_count - 1];
    a->device = device;
    a->host = host;
    a->bytes = bytes;
    a->world_bytes = world_bytes;
    a->group = group;
}

/* A world-major host array of the batch, mirrored per world. */
static void add_world_array(tp_cuda_batch *c, int worlds, void **device, void *host, size_t world_bytes, int group)
{
    add_array(c, device, host, world_bytes * (size_t)worlds, world_bytes, group);
}

/* The list of device arrays, in one place so upload, mirror and free agree. */
static void list_arrays(tp_cuda_batch *c, tp_batch *b)
{
    tp_dev *d = &c->d;
    int W = b->worlds;
    size_t B = (size_t)b->bodies, f = sizeof(float), i32 = sizeof(int32_t);
    const int S = TP_MIRROR_BODIES, N = TP_MIRROR_COUNTS;
    c->array_count = 0;
    add_world_array(c, W, (void **)&d->pos, b->pos, 3 * B * f, S);
    add_world_array(c, W, (void **)&d->quat, b->quat, 4 * B * f, S);
    add_world_array(c, W, (void **)&d->v, b->v, 3 * B * f, S);
    add_world_array(c, W, (void **)&d->w, b->w, 3 * B * f, S);
    add_world_array(c, W, (void **)&d->force, b->force, 3 * B * f, S);
    add_world_array(c, W, (void **)&d->torque, b->torque, 3 * B * f, S);
    add_world_array(c, W, (void **)&d->inv_mass, b->inv_mass, B * f, S);
    add_world_array(c, W, (void **)&d->inv_inertia, b->inv_inertia, 6 * B * f, S);
    add_world_array(c, W, (void **)&d->friction, b->friction, B * f, S);
    add_world_array(c, W, (void **)&d->quiet_timer, b->quiet_timer, B * f, S);
    add_world_array(c, W, (void **)&d->gravity, b->gravity, 3 * f, S);
    add_world_array(c, W, (void **)&d->flags, b->flags, B, S);
    add_world_array(c, W, (void **)&d->sleep_state, b->sleep_state, B, S);
    add_world_array(c, W, (void **)&d->contact_f, b->contact_f, 3 * B * f, S);
    add_world_array(c, W, (void **)&d->island, b->island, B * i32, S);
    add_world_array(c, W, (void **)&d->body_awake, b->body_awake, B, N);
    add_world_array(c, W, (void **)&d->faults, b->faults, 1, N);
    add_world_array(c, W, (void **)&d->awake_count, b->awake_count, i32, N);
    add_world_array(c, W, (void **)&d->sleeping_count, b->sleeping_count, i32, N);
    add_world_array(c, W, (void **)&d->checking_count, b->checking_count, i32, N);
    add_world_array(c, W, (void **)&d->contact_overflow, b->contact_overflow, i32, N);
    for (int i = 0; i < 2; ++i) {
        add_world_array(c, W, (void **)&d->contacts[i], b->contacts[i], (size_t)b->contact_capacity * sizeof(tp_contact),
                        TP_MIRROR_CONTACTS);
        add_world_array(c, W, (void **)&d->contact_count[i], b->contact_count[i], i32, TP_MIRROR_CONTACTS);
    }
    /* The model's tables: uploaded once, never mirrored. */
    add_array(c, (void **)&d->model, (void *)b->model->bodies, B * sizeof(tp_body_model), 0, 0);
    add_array(c, (void **)&d->body_init, (void *)b->model->body_init, B * sizeof(tp_body_init), 0, 0);
    /* Device-only: per-world scratch, stage flags, the global sort's arrays. */
    size_t cap = (size_t)b->contact_capacity * (size_t)W;
    d->collide_bytes = tp_solver_align(tp_collide_scratch_bytes(b->bodies, b->contact_capacity));
    d->solver_bytes = tp_solver_align(tp_solver_scratch_bytes(b->bodies, b->contact_capacity));
    d->scratch_bytes = d->collide_bytes + d->solver_bytes + tp_solver_align(tp_island_scratch_bytes(b->bodies));
    add_array(c, (void **)&d->scratch, NULL, d->scratch_bytes * (size_t)W, 0, 0);
    add_array(c, (void **)&d->work, NULL, (size_t)W, 0, 0);
    add_array(c, (void **)&d->step_overflow, NULL, (size_t)W * i32, 0, 0);
    add_array(c, (void **)&d->any_busy, NULL, sizeof(unsigned int), 0, 0);
    add_array(c, (void **)&d->keys_in, NULL, cap * sizeof(uint64_t), 0, 0);
    add_array(c, (void **)&d->keys_out, NULL, cap * sizeof(uint64_t), 0, 0);
    add_array(c, (void **)&d->slots_in, NULL, cap * i32, 0, 0);
    add_array(c, (void **)&d->slots_out, NULL, cap * i32, 0, 0);
    add_array(c, &c->sort_temp, NULL, c->sort_temp_bytes, 0, 0);
    d->solve_sleeping = !b->model->def.sleep.skip_constraints;
    d->dt = b->model->def.dt;
    d->worlds = b->worlds;
    d->bodies = b->bodies;
    d->capacity = b->contact_capacity;
    for (int k = 0; k < 3; ++k) d->gravity0[k] = b->model->def.gravity[k];
}

/* The model's tables, once, at creation. The per-world state is not uploaded:
 * the reset kernel writes every world's (tp_cuda_batch_create). */
static tp_status upload_model(tp_batch *b)
{
    tp_cuda_batch *c = b->cuda;
    for (int i = 0; i < c->array_count; ++i)
        if (c->arrays[i].host && !c->arrays[i].group)
            TP_CUDA_TRY(cudaMemcpyAsync(*c->arrays[i].device, c->arrays[i].host, c->arrays[i].bytes,
                                        cudaMemcpyHostToDevice, c->stream), "upload of the model");
    TP_CUDA_TRY(cudaStreamSynchronize(c->stream), "upload of the model");
    return TP_OK;
}

/* The mirror's copies (csrc/mirror.h): asynchronous on the batch's stream,
 * then one synchronisation before the host reads. */
static tp_status mirror_copy(void *ctx, void *dst, const void *src, size_t bytes, int to_device)
{
    tp_cuda_batch *c = (tp_cuda_batch *)ctx;
    TP_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, c->stream),
                to_device ? "upload of host writes" : "download of the state");
    return TP_OK;
}

static tp_status mirror_wait(void *ctx)
{
    TP_CUDA_TRY(cudaStreamSynchronize(((tp_cuda_batch *)ctx)->stream), "synchronisation of a state copy");
    return TP_OK;
}

/* ---------------------------------------------------------------- kernels */

/* The key no contact of world w can have, above all of w's real keys and
 * below all of world w + 1's: the world field w, every lower bit set (a real
 * key has body_a < body_b <= 32767, so body_a never is 0x7FFF). Filling a
 * world's unused slots with it keeps each world's capacity keys together in
 * the sorted array: world w's sorted keys are slots [w cap, (w + 1) cap). */
__device__ static uint64_t world_sentinel(int w)
{
    return ((uint64_t)(uint32_t)w << TP_KEY_WORLD_SHIFT) | ((UINT64_C(1) << TP_KEY_WORLD_SHIFT) - 1u);
}

__global__ void tp_sort_init_kernel(tp_dev d)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, n = (size_t)d.worlds * (size_t)d.capacity;
    if (i >= n) return;
    d.keys_in[i] = world_sentinel((int)(i / (size_t)d.capacity));
    d.slots_in[i] = (int32_t)(i % (size_t)d.capacity);
}

/* The view of world w, as tp_batch_world builds it on the host. */
__device__ static tp_world world_view(const tp_dev &d, int w)
{
    size_t o = (size_t)w * (size_t)d.bodies;
    tp_world wd;
    wd.index = w;
    wd.bodies = d.bodies;
    wd.model = d.model;
    wd.pos = d.pos + 3 * o;
    wd.quat = d.quat + 4 * o;
    wd.v = d.v + 3 * o;
    wd.w = d.w + 3 * o;
    wd.force = d.force + 3 * o;
    wd.torque = d.torque + 3 * o;
    wd.inv_mass = d.inv_mass + o;
    wd.inv_inertia = d.inv_inertia + 6 * o;
    wd.friction = d.friction + o;
    wd.flags = d.flags + o;
    wd.sleep_state = d.sleep_state + o;
    wd.body_awake = d.body_awake + o;
    wd.quiet_timer = d.quiet_timer + o;
    wd.contact_f = d.contact_f + 3 * o;
    wd.island = d.island + o;
    wd.solve_sleeping = d.solve_sleeping;
    wd.dt = d.dt;
    for (int k = 0; k < 3; ++k) wd.gravity[k] = d.gravity[3 * w + k];
    return wd;
}

__device__ static char *world_scratch(const tp_dev &d, int w) { return d.scratch + (size_t)w * d.scratch_bytes; }

/* The buffers of world w's step, as csrc/step.c sets them up. */
__device__ static tp_world_buffers world_buffers(const tp_dev &d, int w, int current)
{
    size_t cap = (size_t)d.capacity;
    int next = 1 - current;
    tp_world_buffers buf;
    buf.contacts = d.contacts[next] + (size_t)w * cap;
    buf.previous = d.contacts[current] + (size_t)w * cap;
    buf.prev_count = d.contact_count[current][w];
    buf.capacity = d.capacity;
    buf.collide_scratch = world_scratch(d, w);
    buf.solver_scratch = world_scratch(d, w) + d.collide_bytes;
    buf.island_scratch = world_scratch(d, w) + d.collide_bytes + d.solver_bytes;
    buf.contact_count = 0;
    buf.overflow = 0;
    return buf;
}

/* Stage "has_work": what the step does with each world; any_busy |= busy.
 * Integer OR: the result does not depend on the order of the atomics. */
__global__ void tp_has_work_kernel(tp_dev d)
{
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int busy = 0;
    if (w < d.worlds) {
        int work = TP_WORK_FAULTED;
        if (!d.faults[w]) {
            tp_world wd = world_view(d, w);
            work = tp_world_has_work(&wd) ? TP_WORK_BUSY : TP_WORK_IDLE;
        }
        d.work[w] = (uint8_t)work;
        busy = work == TP_WORK_BUSY;
    }
    if (__syncthreads_or(busy) && threadIdx.x == 0) atomicOr(d.any_busy, 1u);
}

/* One thread: the IF node runs its body when some world is busy; any_busy is
 * cleared for the next step. */
__global__ void tp_set_if_kernel(tp_dev d, cudaGraphConditionalHandle handle)
{
    unsigned int any = *d.any_busy;
    *d.any_busy = 0u;
    cudaGraphSetConditional(handle, any ? 1u : 0u);
}

/* Stage "collide" (the first half of tp_world_collide_and_wake): v_start, the
 * unsorted contacts, and the world's slots of the global key array. */
__global__ void tp_collide_kernel(tp_dev d, int current)
{
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= d.worlds || d.work[w] != TP_WORK_BUSY) return;
    tp_world wd = world_view(d, w);
    tp_world_buffers buf = world_buffers(d, w, current);
    tp_island_work iw = tp_island_work_at(buf.island_scratch, d.bodies);
    tp_world_save_v_start(&wd, iw.v_start);
    int over = 0;
    int n = tp_collide_world_unsorted(&wd, buf.collide_scratch, buf.contacts, buf.capacity, &over);
    d.step_overflow[w] = over;
    d.contact_count[1 - current][w] = n;
    uint64_t *keys = d.keys_in + (size_t)w * (size_t)d.capacity;
    for (int i = 0; i < n; ++i) keys[i] = buf.contacts[i].key;
    for (int i = n; i < d.capacity; ++i) keys[i] = world_sentinel(w);
}

/* Stage "islands": the world's contacts put in key order by the slots of the
 * global sort (what tp_contacts_sort does on the CPU), then the rest of
 * tp_world_collide_and_wake and the warm-start match. */
__global__ void tp_islands_kernel(tp_dev d, int current, tp_step_params p)
{
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= d.worlds || d.work[w] != TP_WORK_BUSY) return;
    int next = 1 - current;
    tp_world wd = world_view(d, w);
    tp_world_buffers buf = world_buffers(d, w, current);
    tp_island_work iw = tp_island_work_at(buf.island_scratch, d.bodies);
    int n = d.contact_count[next][w];
    tp_contacts_permute(buf.contacts, n, d.slots_out + (size_t)w * (size_t)d.capacity);
    buf.overflow = d.step_overflow[w];
    n = tp_world_islands_and_wake(&wd, &buf, n, p.solver.dt, iw.parent, iw.root_flags);
    if (p.solver.warm_starting) tp_match_impulses(buf.contacts, n, buf.previous, buf.prev_count);
    d.contact_count[next][w] = n;
    d.contact_overflow[w] += buf.overflow;
}

/* Stage "color": tp_solver_color, one thread per world (the greedy first-fit
 * is sequential in key order). */
__global__ void tp_color_kernel(tp_dev d, int current, tp_step_params p)
{
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= d.worlds || d.work[w] != TP_WORK_BUSY) return;
    tp_world wd = world_view(d, w);
    tp_world_buffers buf = world_buffers(d, w, current);
    tp_solver_work work = tp_solver_work_at(buf.solver_scratch, d.bodies, d.capacity);
    tp_solver_color(&wd, buf.contacts, d.contact_count[1 - current][w], &work, &p.solver);
}

/* Stage "solve": one block per world runs tp_solver_substeps_block; the
 * world's v and w live in shared memory when use_shared (6 x bodies floats). */
__global__ void tp_solve_kernel(tp_dev d, int current, tp_step_params p, int use_shared)
{
    extern __shared__ float tp_shared_vw[];
    int w = blockIdx.x;
    if (d.work[w] != TP_WORK_BUSY) return; /* the whole block leaves together */
    int tid = threadIdx.x, nth = blockDim.x;
    tp_world wd = world_view(d, w);
    tp_world_buffers buf = world_buffers(d, w, current);
    tp_solver_work work = tp_solver_work_at(buf.solver_scratch, d.bodies, d.capacity);
    int n = d.contact_count[1 - current][w], nv = 3 * d.bodies;
    float *v_global = wd.v, *w_global = wd.w;
    if (use_shared) {
        for (int k = tid; k < nv; k += nth) {
            tp_shared_vw[k] = v_global[k];
            tp_shared_vw[nv + k] = w_global[k];
        }
        wd.v = tp_shared_vw;
        wd.w = tp_shared_vw + nv;
        __syncthreads();
    }
    tp_solver_substeps_block(&wd, buf.contacts, n, &work, &p.solver, tid, nth);
    if (use_shared) {
        __syncthreads();
        for (int k = tid; k < nv; k += nth) {
            v_global[k] = tp_shared_vw[k];
            w_global[k] = tp_shared_vw[nv + k];
        }
    }
}

/* Stage "finish" (always runs): the end of tp_world_step and csrc/step.c's
 * world_step for each kind of world. */
__global__ void tp_finish_kernel(tp_dev d, int current, tp_step_params p)
{
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= d.worlds) return;
    int next = 1 - current, work = d.work[w];
    if (work == TP_WORK_FAULTED) { /* frozen until reset (acceptance case C12) */
        d.contact_count[next][w] = 0;
        return;
    }
    tp_world wd = world_view(d, w);
    if (work == TP_WORK_IDLE) {
        tp_world_step_idle(&wd);
        d.contact_count[next][w] = 0;
    } else {
        tp_world_buffers buf = world_buffers(d, w, current);
        tp_island_work iw = tp_island_work_at(buf.island_scratch, d.bodies);
        tp_solver_work sw = tp_solver_work_at(buf.solver_scratch, d.bodies, d.capacity);
        int n = d.contact_count[next][w];
        if (!tp_world_step_finish(&wd, &p, buf.contacts, n, sw.rows, iw.v_start, iw.root_flags)) d.faults[w] = 1;
    }
    tp_world_count(&wd, d.awake_count + w, d.sleeping_count + w, d.checking_count + w);
}

/* Up to this many worlds are reset per launch, their indices passed by value
 * (16 KiB of kernel parameters: CUDA 12.1+ on Volta and later take 32,764
 * bytes), so no host buffer has to outlive an asynchronous copy. */
#define TP_RESET_CHUNK 4096
struct tp_reset_list {
    int32_t world[TP_RESET_CHUNK];
};

/* Reset: block k resets world list.world[k], as tp_batch_init_world does: the
 * per-world part (thread 0), then a thread per body with cuRAND's draws
 * (kernels/curand_draws.h), then the counts. Launched outside the step's graph,
 * on its stream. */
__global__ void tp_reset_kernel(tp_dev d, tp_randomize_params r, tp_reset_list list)
{
    int w = list.world[blockIdx.x];
    if (threadIdx.x == 0) /* first, so that world_view reads the reset gravity (never uninitialised memory) */
        tp_world_init_globals(&d.contact_count[0][w], &d.contact_count[1][w], d.gravity + 3 * w, d.gravity0,
                              &d.contact_overflow[w], &d.faults[w]);
    __syncthreads();
    tp_world wd = world_view(d, w);
    for (int i = threadIdx.x; i < d.bodies; i += blockDim.x) tp_world_init_body_curand(&wd, i, &d.body_init[i], &r);
    __syncthreads();
    if (threadIdx.x == 0) tp_world_count(&wd, d.awake_count + w, d.sleeping_count + w, d.checking_count + w);
}

/* ---------------------------------------------------------------- the graph */

static unsigned int world_blocks(int worlds) { return (unsigned int)((worlds + TP_WORLD_THREADS - 1) / TP_WORLD_THREADS); }

/* The IF node's body: collision, sort, islands, coloring, propagation. */
static tp_status launch_body(tp_cuda_batch *c, int current, const tp_step_params &p, cudaStream_t s)
{
    const tp_dev &d = c->d;
    unsigned int grid = world_blocks(d.worlds);
    tp_collide_kernel<<<grid, TP_WORLD_THREADS, 0, s>>>(d, current);
    TP_CUDA_TRY(cudaGetLastError(), "launch of tp_collide_kernel");
    size_t temp_bytes = c->sort_temp_bytes;
    TP_CUDA_TRY((cudaError_t)tp_cub_sort_pairs(c->sort_temp, &temp_bytes, d.keys_in, d.keys_out, d.slots_in,
                                               d.slots_out, c->sort_items, s),
                "the contact sort (cub::DeviceRadixSort::SortPairs)");
    tp_islands_kernel<<<grid, TP_WORLD_THREADS, 0, s>>>(d, current, p);
    TP_CUDA_TRY(cudaGetLastError(), "launch of tp_islands_kernel");
    tp_color_kernel<<<grid, TP_WORLD_THREADS, 0, s>>>(d, current, p);
    TP_CUDA_TRY(cudaGetLastError(), "launch of tp_color_kernel");
    tp_solve_kernel<<<(unsigned int)d.worlds, TP_SOLVE_THREADS, c->solve_shared, s>>>(d, current, p,
                                                                                      c->solve_shared > 0);
    TP_CUDA_TRY(cudaGetLastError(), "launch of tp_solve_kernel");
    return TP_OK;
}

/* Everything after cudaStreamBeginCaptureToGraph on the main stream. */
static tp_status capture_step(tp_cuda_batch *c, cudaGraph_t g, int current, const tp_step_params &p,
                              int *body_capturing)
{
    const tp_dev &d = c->d;
    cudaGraphConditionalHandle handle;
    TP_CUDA_TRY(cudaGraphConditionalHandleCreate(&handle, g, 0u, cudaGraphCondAssignDefault),
                "cudaGraphConditionalHandleCreate");
    tp_has_work_kernel<<<world_blocks(d.worlds), TP_WORLD_THREADS, 0, c->stream>>>(d);
    TP_CUDA_TRY(cudaGetLastError(), "launch of tp_has_work_kernel");
    tp_set_if_kernel<<<1, 1, 0, c->stream>>>(d, handle);
    TP_CUDA_TRY(cudaGetLastError(), "launch of tp_set_if_kernel");

    cudaStreamCaptureStatus status;
    const cudaGraphNode_t *deps = NULL;
    size_t ndeps = 0;
    TP_CUDA_TRY(cudaStreamGetCaptureInfo(c->stream, &status, NULL, NULL, &deps, NULL, &ndeps),
                "cudaStreamGetCaptureInfo");
    cudaGraphNodeParams np = {}; /* every reserved byte zero, as cudaGraphAddNode asks */
    np.type = cudaGraphNodeTypeConditional;
    np.conditional.handle = handle;
    np.conditional.type = cudaGraphCondTypeIf;
    np.conditional.size = 1;
    cudaGraphNode_t if_node;
    TP_CUDA_TRY(cudaGraphAddNode(&if_node, g, deps, NULL, ndeps, &np), "cudaGraphAddNode (IF node)");

    cudaGraph_t body = np.conditional.phGraph_out[0];
    TP_CUDA_TRY(cudaStreamBeginCaptureToGraph(c->body_stream, body, NULL, NULL, 0, cudaStreamCaptureModeRelaxed),
                "cudaStreamBeginCaptureToGraph (IF body)");
    *body_capturing = 1;
    tp_status st = launch_body(c, current, p, c->body_stream);
    if (st != TP_OK) return st;
    cudaGraph_t body_out = NULL;
    *body_capturing = 0;
    TP_CUDA_TRY(cudaStreamEndCapture(c->body_stream, &body_out), "cudaStreamEndCapture (IF body)");
    TP_CUDA_TRY(cudaStreamUpdateCaptureDependencies(c->stream, &if_node, NULL, 1, cudaStreamSetCaptureDependencies),
                "cudaStreamUpdateCaptureDependencies");

    tp_finish_kernel<<<world_blocks(d.worlds), TP_WORLD_THREADS, 0, c->stream>>>(d, current, p);
    TP_CUDA_TRY(cudaGetLastError(), "launch of tp_finish_kernel");
    return TP_OK;
}

/* Capture the step for double-buffer parity `current` into graph[current]
 * and instantiate it. On failure every capture is ended and the graph freed. */
static tp_status build_graph(tp_batch *b, int current)
{
    tp_cuda_batch *c = b->cuda;
    tp_step_params p = tp_batch_step_params(b);
    if (c->exec[current]) { /* left by an earlier attempt that failed on the other parity */
        cudaGraphExecDestroy(c->exec[current]);
        c->exec[current] = NULL;
    }
    if (c->graph[current]) {
        cudaGraphDestroy(c->graph[current]);
        c->graph[current] = NULL;
    }
    cudaGraph_t g = NULL;
    TP_CUDA_TRY(cudaGraphCreate(&g, 0), "cudaGraphCreate");
    cudaError_t err = cudaStreamBeginCaptureToGraph(c->stream, g, NULL, NULL, 0, cudaStreamCaptureModeThreadLocal);
    if (err != cudaSuccess) {
        cudaGraphDestroy(g);
        return cuda_fail(err, "cudaStreamBeginCaptureToGraph");
    }
    int body_capturing = 0;
    tp_status st = capture_step(c, g, current, p, &body_capturing);
    cudaGraph_t scrap = NULL;
    if (body_capturing) cudaStreamEndCapture(c->body_stream, &scrap);
    cudaGraph_t captured = NULL;
    err = cudaStreamEndCapture(c->stream, &captured);
    if (st == TP_OK && err != cudaSuccess) st = cuda_fail(err, "cudaStreamEndCapture");
    if (st == TP_OK && (err = cudaGraphInstantiate(&c->exec[current], g, 0)) != cudaSuccess)
        st = cuda_fail(err, "cudaGraphInstantiate");
    if (st != TP_OK) {
        cudaGetLastError();
        cudaGraphDestroy(g);
        return st;
    }
    c->graph[current] = g;
    return TP_OK;
}

/* ---------------------------------------------------------------- entry points */

static tp_status launch_reset(tp_batch *b, int n);

extern "C" tp_status tp_cuda_batch_create(tp_batch *b)
{
    tp_cuda_batch *c = (tp_cuda_batch *)calloc(1, sizeof *c);
    if (!c) return tp_fail(TP_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
    b->cuda = c;
    size_t items = (size_t)b->worlds * (size_t)b->contact_capacity;
    if (items > (size_t)INT_MAX)
        return tp_fail(TP_ERR_CAPACITY,
                       "cuda: %d worlds x %d contacts per world = %zu sort items, more than the contact sort "
                       "takes (%d)",
                       b->worlds, b->contact_capacity, items, INT_MAX);
    c->sort_items = (int)items;
    /* CUB's temporary storage for the full-capacity sort, asked for once. */
    TP_CUDA_TRY((cudaError_t)tp_cub_sort_pairs(NULL, &c->sort_temp_bytes, NULL, NULL, NULL, NULL, c->sort_items,
                                               NULL),
                "the contact sort's storage query (cub::DeviceRadixSort::SortPairs)");
    if (c->sort_temp_bytes == 0) c->sort_temp_bytes = 1;
    size_t shared = 6 * (size_t)b->bodies * sizeof(float);
    c->solve_shared = shared <= TP_SHARED_LIMIT ? shared : 0;
    list_arrays(c, b);
    if (c->array_count > TP_DEVICE_ARRAYS)
        return tp_fail(TP_ERR_CAPACITY, "cuda: %d device arrays listed, room for %d (raise TP_DEVICE_ARRAYS)",
                       c->array_count, TP_DEVICE_ARRAYS);
    size_t total = 0;
    for (int i = 0; i < c->array_count; ++i) total += c->arrays[i].bytes;
    TP_CUDA_TRY(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate");
    TP_CUDA_TRY(cudaStreamCreateWithFlags(&c->body_stream, cudaStreamNonBlocking), "cudaStreamCreate");
    for (int i = 0; i < c->array_count; ++i) {
        cudaError_t err = cudaMalloc(c->arrays[i].device, c->arrays[i].bytes);
        if (err != cudaSuccess) {
            size_t free_bytes = 0, total_bytes = 0;
            cudaGetLastError();
            cudaMemGetInfo(&free_bytes, &total_bytes);
            size_t per_world = total / (size_t)b->worlds + 1;
            return tp_fail(TP_ERR_OUT_OF_MEMORY,
                           "cuda: could not allocate %zu bytes of device memory for %d worlds (%zu bytes per world); "
                           "%zu bytes are free, enough for about %zu worlds",
                           total, b->worlds, per_world, free_bytes, free_bytes / per_world);
        }
    }
    TP_CUDA_TRY(cudaMemsetAsync(c->d.any_busy, 0, sizeof(unsigned int), c->stream), "cudaMemsetAsync");
    if (items > 0) {
        tp_sort_init_kernel<<<(unsigned int)((items + 255) / 256), 256, 0, c->stream>>>(c->d);
        TP_CUDA_TRY(cudaGetLastError(), "launch of tp_sort_init_kernel");
    }
    tp_status st = upload_model(b);
    if (st != TP_OK) return st;
    st = tp_mirror_init(&c->mirror, b->worlds, mirror_copy, mirror_wait, c);
    if (st != TP_OK) return st;
    for (int i = 0; i < c->array_count; ++i)
        if (c->arrays[i].group && (st = tp_mirror_add(&c->mirror, c->arrays[i].host, *c->arrays[i].device,
                                                      c->arrays[i].world_bytes, c->arrays[i].group)) != TP_OK)
            return st;
    c->reset_host = (int32_t *)malloc((size_t)b->worlds * sizeof(int32_t));
    c->reset_mark = (uint8_t *)calloc((size_t)b->worlds, 1);
    if (!c->reset_host || !c->reset_mark) return tp_fail(TP_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
    /* The device draws its own initial state with cuRAND, as every later reset
     * does; the host's copy (drawn with kernels/philox.h) is the same bits. */
    for (int w = 0; w < b->worlds; ++w) c->reset_host[w] = w;
    if ((st = launch_reset(b, b->worlds)) != TP_OK) return st;
    TP_CUDA_TRY(cudaStreamSynchronize(c->stream), "the initial reset of every world"); /* faults show here */
    return TP_OK;
}

extern "C" void tp_cuda_batch_destroy(tp_batch *b)
{
    tp_cuda_batch *c = b->cuda;
    if (!c) return;
    for (int i = 0; i < 2; ++i) {
        if (c->exec[i]) cudaGraphExecDestroy(c->exec[i]);
        if (c->graph[i]) cudaGraphDestroy(c->graph[i]);
    }
    for (int i = 0; i < c->array_count && i < TP_DEVICE_ARRAYS; ++i)
        if (*c->arrays[i].device) cudaFree(*c->arrays[i].device);
    tp_mirror_free(&c->mirror);
    free(c->reset_host);
    free(c->reset_mark);
    if (c->body_stream) cudaStreamDestroy(c->body_stream);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c);
    b->cuda = NULL;
}

extern "C" size_t tp_cuda_device_bytes(const tp_batch *b)
{
    const tp_cuda_batch *c = b->cuda;
    size_t total = 0;
    for (int i = 0; i < c->array_count && i < TP_DEVICE_ARRAYS; ++i) total += c->arrays[i].bytes;
    return total;
}

extern "C" tp_status tp_cuda_step(tp_batch *b)
{
    tp_cuda_batch *c = b->cuda;
    tp_status st = tp_mirror_push(&c->mirror); /* the worlds the host wrote */
    if (st != TP_OK) return st;
    if (!c->graphs_ready) { /* captured once per batch, at the first step */
        for (int parity = 0; parity < 2; ++parity)
            if ((st = build_graph(b, parity)) != TP_OK) return st;
        c->graphs_ready = 1;
    }
    TP_CUDA_TRY(cudaGraphLaunch(c->exec[b->current], c->stream), "cudaGraphLaunch (the step)");
    b->current = 1 - b->current;
    tp_mirror_device_changed(&c->mirror, 0, b->worlds - 1);
    return TP_OK;
}

extern "C" tp_status tp_cuda_pull(tp_batch *b, int first, int last, int groups)
{
    return tp_mirror_pull(&b->cuda->mirror, first, last, groups);
}

extern "C" tp_status tp_cuda_begin_host_write(tp_batch *b, int first, int last)
{
    return tp_mirror_begin_write(&b->cuda->mirror, first, last);
}

/* Reset worlds reset_host[0 .. n), each listed once, on the device. */
static tp_status launch_reset(tp_batch *b, int n)
{
    tp_cuda_batch *c = b->cuda;
    tp_randomize_params r = tp_batch_randomize_params(b);
    for (int first = 0; first < n; first += TP_RESET_CHUNK) {
        int count = n - first < TP_RESET_CHUNK ? n - first : TP_RESET_CHUNK;
        tp_reset_list list = {};
        memcpy(list.world, c->reset_host + first, (size_t)count * sizeof(int32_t));
        /* marked before the launch is checked: a world that may have been reset
         * must never have older host bytes pushed over it */
        for (int i = first; i < first + count; ++i)
            tp_mirror_device_changed(&c->mirror, c->reset_host[i], c->reset_host[i]);
        tp_reset_kernel<<<(unsigned int)count, TP_SOLVE_THREADS, 0, c->stream>>>(c->d, r, list);
        TP_CUDA_TRY(cudaGetLastError(), "launch of tp_reset_kernel");
    }
    return TP_OK;
}

extern "C" tp_status tp_cuda_reset_worlds(tp_batch *b, const int *worlds, int count)
{
    tp_cuda_batch *c = b->cuda;
    int n = 0; /* each world once: two blocks must not write the same world */
    for (int i = 0; i < count; ++i)
        if (!c->reset_mark[worlds[i]]) {
            c->reset_mark[worlds[i]] = 1;
            c->reset_host[n++] = worlds[i];
        }
    for (int i = 0; i < n; ++i) c->reset_mark[c->reset_host[i]] = 0;
    return launch_reset(b, n);
}
