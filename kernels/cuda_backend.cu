/* cuda_backend.cu - the CUDA backend: device state and the step on the GPU.
 *
 * The device holds the authoritative state of every world in the same
 * world-major layout as the host (DESIGN.md section 3); the host arrays of the
 * batch are a mirror refreshed on request. Each stage calls the same kernels/
 * headers as the CPU backend, compiled with --fmad=false, so a world computes
 * the same bits on both (DESIGN.md section 5).
 *
 * Status: the whole world step (collision, contact sort, coloring, solver,
 * integration, islands, sleep, fault detection, counts) runs on the device, one thread per
 * world, through kernels/world_step.h. Splitting it into per-stage kernels
 * (block-per-world propagation, CUB's global sort), graph capture with the
 * conditional node are the CUDA backend issue's work. It
 * has not yet run on a GPU: docs/gpu-results.md says so. */
extern "C" {
#include "cuda_backend.h"
#include "error.h"
}
#include "contact.h"
#include "world_step.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

struct tp_device_array {
    void **device;     /* where the device pointer lives in tp_cuda_batch */
    void *host;        /* the host mirror */
    size_t bytes;
};

struct tp_cuda_batch {
    float *pos, *quat, *v, *w, *force, *torque, *inv_mass, *inv_inertia, *friction, *quiet_timer, *gravity;
    float *contact_f;
    int32_t *island;
    int solve_sleeping;
    tp_contact *contacts[2];
    int32_t *contact_count[2];
    char *scratch;                /* per world: collide then solver scratch */
    size_t collide_bytes, solver_bytes, scratch_bytes;
    uint8_t *flags, *sleep_state, *body_awake, *faults;
    int32_t *awake_count, *sleeping_count, *checking_count, *contact_overflow;
    tp_body_model *model;
    cudaStream_t stream;
    int host_dirty;    /* host mirror changed: upload before the next step */
    int device_newer;  /* device stepped: download before the host reads */
    struct tp_device_array arrays[32];
    int array_count;
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

static void add_array(tp_cuda_batch *c, void **device, void *host, size_t bytes)
{
    tp_device_array *a = &c->arrays[c->array_count++];
    a->device = device;
    a->host = host;
    a->bytes = bytes;
}

/* The list of mirrored arrays, in one place so upload, download and free agree. */
static void list_arrays(tp_cuda_batch *c, tp_batch *b)
{
    size_t n = (size_t)b->worlds * (size_t)b->bodies, W = (size_t)b->worlds;
    c->array_count = 0;
    add_array(c, (void **)&c->pos, b->pos, 3 * n * sizeof(float));
    add_array(c, (void **)&c->quat, b->quat, 4 * n * sizeof(float));
    add_array(c, (void **)&c->v, b->v, 3 * n * sizeof(float));
    add_array(c, (void **)&c->w, b->w, 3 * n * sizeof(float));
    add_array(c, (void **)&c->force, b->force, 3 * n * sizeof(float));
    add_array(c, (void **)&c->torque, b->torque, 3 * n * sizeof(float));
    add_array(c, (void **)&c->inv_mass, b->inv_mass, n * sizeof(float));
    add_array(c, (void **)&c->inv_inertia, b->inv_inertia, 6 * n * sizeof(float));
    add_array(c, (void **)&c->friction, b->friction, n * sizeof(float));
    add_array(c, (void **)&c->quiet_timer, b->quiet_timer, n * sizeof(float));
    add_array(c, (void **)&c->gravity, b->gravity, 3 * W * sizeof(float));
    add_array(c, (void **)&c->flags, b->flags, n);
    add_array(c, (void **)&c->sleep_state, b->sleep_state, n);
    add_array(c, (void **)&c->body_awake, b->body_awake, n);
    add_array(c, (void **)&c->faults, b->faults, W);
    add_array(c, (void **)&c->awake_count, b->awake_count, W * sizeof(int32_t));
    add_array(c, (void **)&c->sleeping_count, b->sleeping_count, W * sizeof(int32_t));
    add_array(c, (void **)&c->checking_count, b->checking_count, W * sizeof(int32_t));
    add_array(c, (void **)&c->contact_overflow, b->contact_overflow, W * sizeof(int32_t));
    add_array(c, (void **)&c->contact_f, b->contact_f, 3 * n * sizeof(float));
    add_array(c, (void **)&c->island, b->island, n * sizeof(int32_t));
    c->solve_sleeping = !b->model->def.sleep.skip_constraints;
    size_t cap = (size_t)b->contact_capacity * W;
    for (int i = 0; i < 2; ++i) {
        add_array(c, (void **)&c->contacts[i], b->contacts[i], cap * sizeof(tp_contact));
        add_array(c, (void **)&c->contact_count[i], b->contact_count[i], W * sizeof(int32_t));
    }
    /* Device-only scratch (no host mirror: host pointer NULL), then the model
     * table, which is uploaded once and never downloaded: both sit at the end. */
    c->collide_bytes = tp_solver_align(tp_collide_scratch_bytes(b->bodies, b->contact_capacity));
    c->solver_bytes = tp_solver_align(tp_solver_scratch_bytes(b->bodies, b->contact_capacity));
    c->scratch_bytes = c->collide_bytes + c->solver_bytes + tp_solver_align(tp_island_scratch_bytes(b->bodies));
    add_array(c, (void **)&c->scratch, NULL, c->scratch_bytes * W);
    add_array(c, (void **)&c->model, (void *)b->model->bodies, (size_t)b->bodies * sizeof(tp_body_model));
}

static tp_status upload(tp_batch *b)
{
    tp_cuda_batch *c = b->cuda;
    for (int i = 0; i < c->array_count; ++i)
        if (c->arrays[i].host)
            TP_CUDA_TRY(cudaMemcpyAsync(*c->arrays[i].device, c->arrays[i].host, c->arrays[i].bytes,
                                        cudaMemcpyHostToDevice, c->stream), "upload of the state");
    TP_CUDA_TRY(cudaStreamSynchronize(c->stream), "upload of the state");
    c->host_dirty = 0;
    return TP_OK;
}

extern "C" tp_status tp_cuda_batch_create(tp_batch *b)
{
    tp_cuda_batch *c = (tp_cuda_batch *)calloc(1, sizeof *c);
    if (!c) return tp_fail(TP_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
    b->cuda = c;
    list_arrays(c, b);
    size_t total = 0;
    for (int i = 0; i < c->array_count; ++i) total += c->arrays[i].bytes;
    TP_CUDA_TRY(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate");
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
    return upload(b);
}

extern "C" void tp_cuda_batch_destroy(tp_batch *b)
{
    tp_cuda_batch *c = b->cuda;
    if (!c) return;
    for (int i = 0; i < c->array_count; ++i)
        if (*c->arrays[i].device) cudaFree(*c->arrays[i].device);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c);
    b->cuda = NULL;
}

__global__ void tp_world_step_kernel(tp_cuda_batch c, int worlds, int bodies, int capacity, int current,
                                     tp_step_params p)
{
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= worlds) return;
    size_t o = (size_t)w * (size_t)bodies, cap = (size_t)capacity;
    int next = 1 - current;
    tp_world wd;
    wd.index = w;
    wd.bodies = bodies;
    wd.model = c.model;
    wd.pos = c.pos + 3 * o;
    wd.quat = c.quat + 4 * o;
    wd.v = c.v + 3 * o;
    wd.w = c.w + 3 * o;
    wd.force = c.force + 3 * o;
    wd.torque = c.torque + 3 * o;
    wd.inv_mass = c.inv_mass + o;
    wd.inv_inertia = c.inv_inertia + 6 * o;
    wd.friction = c.friction + o;
    wd.flags = c.flags + o;
    wd.sleep_state = c.sleep_state + o;
    wd.body_awake = c.body_awake + o;
    wd.quiet_timer = c.quiet_timer + o;
    wd.contact_f = c.contact_f + 3 * o;
    wd.island = c.island + o;
    wd.solve_sleeping = c.solve_sleeping;
    for (int k = 0; k < 3; ++k) wd.gravity[k] = c.gravity[3 * w + k];
    if (c.faults[w]) {
        c.contact_count[next][w] = 0;
    } else {
        tp_world_buffers buf;
        buf.contacts = c.contacts[next] + (size_t)w * cap;
        buf.previous = c.contacts[current] + (size_t)w * cap;
        buf.prev_count = c.contact_count[current][w];
        buf.capacity = capacity;
        buf.collide_scratch = c.scratch + (size_t)w * c.scratch_bytes;
        buf.solver_scratch = c.scratch + (size_t)w * c.scratch_bytes + c.collide_bytes;
        buf.island_scratch = c.scratch + (size_t)w * c.scratch_bytes + c.collide_bytes + c.solver_bytes;
        if (!tp_world_step(&wd, &p, &buf)) c.faults[w] = 1;
        c.contact_count[next][w] = buf.contact_count;
        c.contact_overflow[w] += buf.overflow;
    }
    tp_world_count(&wd, c.awake_count + w, c.sleeping_count + w, c.checking_count + w);
}

extern "C" tp_status tp_cuda_step(tp_batch *b)
{
    tp_cuda_batch *c = b->cuda;
    if (c->host_dirty) {
        tp_status st = upload(b);
        if (st != TP_OK) return st;
    }
    int threads = 64, blocks = (b->worlds + threads - 1) / threads;
    tp_world_step_kernel<<<blocks, threads, 0, c->stream>>>(*c, b->worlds, b->bodies, b->contact_capacity,
                                                             b->current, tp_batch_step_params(b));
    TP_CUDA_TRY(cudaGetLastError(), "launch of tp_world_step_kernel");
    b->current = 1 - b->current;
    c->device_newer = 1;
    return TP_OK;
}

extern "C" tp_status tp_cuda_download(tp_batch *b)
{
    tp_cuda_batch *c = b->cuda;
    if (!c->device_newer) return TP_OK;
    /* The scratch and the model table (the last two arrays) are not state. */
    for (int i = 0; i < c->array_count - 2; ++i)
        TP_CUDA_TRY(cudaMemcpyAsync(c->arrays[i].host, *c->arrays[i].device, c->arrays[i].bytes,
                                    cudaMemcpyDeviceToHost, c->stream), "download of the state");
    TP_CUDA_TRY(cudaStreamSynchronize(c->stream), "download of the state");
    c->device_newer = 0;
    return TP_OK;
}

extern "C" tp_status tp_cuda_begin_host_write(tp_batch *b)
{
    tp_status st = tp_cuda_download(b);
    if (st != TP_OK) return st;
    b->cuda->host_dirty = 1;
    return TP_OK;
}
