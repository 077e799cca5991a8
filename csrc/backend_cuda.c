/* backend_cuda.c - the CUDA backend as the batch sees it: the device side
 * (kernels/cuda/, reached through cuda_api.h only) plus the host mirror of its
 * state (csrc/mirror.h), which this file keeps.
 *
 * The device is authoritative while stepping; the batch's host arrays are
 * refreshed on request (tp_batch_state, hashes) and sent back after host
 * writes, world by world. Resets are drawn on the device with cuRAND. */
#include "backend.h"

#include "articulation_host.h"
#include "constraint_host.h"
#include "cuda_api.h"
#include "error.h"
#include "model.h"
#include "mover_host.h"

#include <stdlib.h>

_Static_assert(TP_CUDA_GROUP_BODIES == TP_MIRROR_BODIES && TP_CUDA_GROUP_COUNTS == TP_MIRROR_COUNTS &&
                   TP_CUDA_GROUP_CONTACTS == TP_MIRROR_CONTACTS && TP_CUDA_GROUP_SENSORS == TP_MIRROR_SENSORS &&
                   TP_CUDA_GROUP_CONSTRAINTS == TP_MIRROR_CONSTRAINTS,
               "kernels/cuda/cuda_api.h's groups are csrc/mirror.h's");

typedef struct tp_cuda_host {
    tp_cuda_batch *dev;
    tp_mirror mirror;     /* which worlds the host or the device changed */
    int32_t *reset_list;  /* [W] the worlds of one reset call, each once */
    uint8_t *reset_mark;  /* [W] world already in the list */
    tp_sensor_arrays sensors; /* the device's sensor arrays: those on so far (kernels/sensors.h) */
} tp_cuda_host;

static tp_cuda_host *host_of(const tp_batch *b) { return (tp_cuda_host *)b->backend_data; }

static tp_status device_failed(tp_batch *b, tp_status st)
{
    return tp_fail(st, "%s", tp_cuda_error(host_of(b)->dev));
}

/* Every operation below first makes the batch's device current on this
 * thread (tp_batch_def.device): no CUDA state of the process ties the library
 * to one device. */
static tp_status use_device(tp_batch *b)
{
    tp_status st = tp_cuda_use_device(host_of(b)->dev);
    return st == TP_OK ? TP_OK : device_failed(b, st);
}

static tp_status cuda_reset_worlds(tp_batch *b, const int *worlds, int count)
{
    tp_cuda_host *h = host_of(b);
    tp_status st = use_device(b);
    if (st != TP_OK) return st;
    int n = 0; /* each world once: two blocks must not write the same world */
    for (int i = 0; i < count; ++i)
        if (!h->reset_mark[worlds[i]]) {
            h->reset_mark[worlds[i]] = 1;
            h->reset_list[n++] = worlds[i];
        }
    /* marked before the launch: a world that may have been reset must never
     * have older host bytes pushed over it */
    for (int i = 0; i < n; ++i) {
        h->reset_mark[h->reset_list[i]] = 0;
        tp_mirror_device_changed(&h->mirror, h->reset_list[i], h->reset_list[i]);
    }
    st = tp_cuda_reset(h->dev, h->reset_list, b->episode, n);
    return st == TP_OK ? TP_OK : device_failed(b, st);
}

static tp_status cuda_create(tp_batch *b)
{
    tp_cuda_host *h = calloc(1, sizeof *h);
    if (!h) return tp_fail(TP_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
    b->backend_data = h;
    tp_cuda_setup s;
    s.host = b->layout;
    s.body_init = b->model->body_init;
    for (int k = 0; k < 3; ++k) s.gravity0[k] = b->model->def.gravity[k];
    s.step = tp_batch_step_params(b);
    s.randomize = tp_batch_randomize_params(b);
    s.device = b->device;
    s.artic_initial = b->model->artic ? tp_artic_batch_initial(b) : (tp_artic_initial){0};
    s.cons_model = b->model->cons ? b->model->cons->table : NULL;
    s.mover_initial = b->model->movers ? b->model->movers->initial : NULL;
    char err[512];
    tp_status st = tp_cuda_create(&s, &h->dev, err, sizeof err);
    if (st != TP_OK) return tp_fail(st, "%s", err);
    if ((st = tp_mirror_init(&h->mirror, b->worlds, tp_cuda_copy, tp_cuda_wait, h->dev)) != TP_OK) return st;
    const tp_cuda_array *arrays = NULL;
    int n = tp_cuda_arrays(h->dev, &arrays);
    for (int i = 0; i < n; ++i)
        if ((st = tp_mirror_add(&h->mirror, arrays[i].host, arrays[i].device, arrays[i].world_bytes,
                                arrays[i].group)) != TP_OK)
            return st;
    void *span_host = NULL, *span_device = NULL;
    size_t span = tp_cuda_counts_span(h->dev, &span_host, &span_device);
    if (span && (st = tp_mirror_set_span(&h->mirror, TP_MIRROR_COUNTS, span_host, span_device, span)) != TP_OK)
        return st;
    h->reset_list = malloc((size_t)b->worlds * sizeof(int32_t));
    h->reset_mark = calloc((size_t)b->worlds, 1);
    if (!h->reset_list || !h->reset_mark) return tp_fail(TP_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
    /* The device draws its own initial state with cuRAND, as every later reset
     * does; the host's copy (drawn with kernels/philox.h) is the same bits. */
    for (int w = 0; w < b->worlds; ++w) h->reset_list[w] = w;
    tp_mirror_device_changed(&h->mirror, 0, b->worlds - 1);
    if ((st = tp_cuda_reset(h->dev, h->reset_list, b->episode, b->worlds)) != TP_OK) return device_failed(b, st);
    if ((st = tp_cuda_wait(h->dev)) != TP_OK) return device_failed(b, st); /* faults show here */
    return TP_OK;
}

static void cuda_destroy(tp_batch *b)
{
    tp_cuda_host *h = host_of(b);
    if (!h) return;
    if (h->dev) tp_cuda_use_device(h->dev); /* (tp_cuda_destroy selects it too) */
    tp_cuda_destroy(h->dev);
    tp_mirror_free(&h->mirror);
    free(h->reset_list);
    free(h->reset_mark);
    free(h);
    b->backend_data = NULL;
}

static tp_status cuda_step(tp_batch *b)
{
    tp_cuda_host *h = host_of(b);
    tp_status st = use_device(b);
    if (st != TP_OK) return st;
    st = tp_mirror_push(&h->mirror); /* the worlds the host wrote */
    if (st != TP_OK) return st == TP_ERR_CUDA ? device_failed(b, st) : st;
    if ((st = tp_cuda_step(h->dev, b->current)) != TP_OK) return device_failed(b, st);
    b->current = 1 - b->current;
    tp_mirror_device_changed(&h->mirror, 0, b->worlds - 1);
    return TP_OK;
}

static tp_status cuda_pull(tp_batch *b, int first, int last, int groups)
{
    tp_status st = use_device(b);
    if (st != TP_OK) return st;
    st = tp_mirror_pull(&host_of(b)->mirror, first, last, groups);
    return st == TP_ERR_CUDA ? device_failed(b, st) : st;
}

static tp_status cuda_begin_write(tp_batch *b, int first, int last)
{
    tp_status st = use_device(b);
    if (st != TP_OK) return st;
    st = tp_mirror_begin_write(&host_of(b)->mirror, first, last);
    return st == TP_ERR_CUDA ? device_failed(b, st) : st;
}

static size_t cuda_device_bytes(const tp_batch *b) { return tp_cuda_device_bytes(host_of(b)->dev); }

/* The device twin of host array `host` (one of the mirrored arrays), or NULL. */
static const void *device_twin(const tp_cuda_host *h, const void *host)
{
    const tp_cuda_array *arrays = NULL;
    int n = tp_cuda_arrays(h->dev, &arrays);
    for (int i = 0; i < n; ++i)
        if (arrays[i].host == host) return arrays[i].device;
    return NULL;
}

static tp_status cuda_device_view(tp_batch *b, tp_state_view *view)
{
    tp_cuda_host *h = host_of(b);
    tp_status st = use_device(b);
    if (st != TP_OK) return st;
    st = tp_mirror_push(&h->mirror); /* host writes not yet sent */
    if (st == TP_OK) st = tp_cuda_wait(h->dev); /* the last step finished */
    if (st != TP_OK) return st == TP_ERR_CUDA ? device_failed(b, st) : st;
    const void **fields[] = {(const void **)&view->pos, (const void **)&view->quat, (const void **)&view->v,
                             (const void **)&view->w, (const void **)&view->body_awake,
                             (const void **)&view->sleep_state, (const void **)&view->quiet_timer,
                             (const void **)&view->removed, (const void **)&view->awake_count,
                             (const void **)&view->sleeping_count, (const void **)&view->checking_count,
                             (const void **)&view->contact_overflow, (const void **)&view->faults,
                             (const void **)&view->contact_f, (const void **)&view->island};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
        const void *device = device_twin(h, *fields[i]);
        if (!device) return tp_fail(TP_ERR_BACKEND, "tp_batch_device_state: array %zu has no device twin", i);
        *fields[i] = device;
    }
    return TP_OK;
}

/* The sensors the host turned on get device twins, mirrored in
 * TP_MIRROR_SENSORS: the IMU's v, w and a (its "before" part stays on the
 * device), the contact sensors' force and touching. */
static tp_status cuda_sensors_on(tp_batch *b)
{
    tp_cuda_host *h = host_of(b);
    tp_status st = use_device(b);
    if (st != TP_OK) return st;
    tp_sensor_arrays was = h->sensors, *H = &b->sensors;
    int adds = (H->imu && !was.imu ? 3 : 0) + (H->force && !was.force && H->count > 0 ? 2 : 0);
    if (h->mirror.count + adds > TP_MIRROR_MAX_ARRAYS)
        return tp_fail(TP_ERR_CAPACITY, "cuda: the sensors need %d more mirrored arrays than TP_MIRROR_MAX_ARRAYS (%d)",
                       h->mirror.count + adds - TP_MIRROR_MAX_ARRAYS, TP_MIRROR_MAX_ARRAYS);
    if ((st = tp_cuda_sensors_on(h->dev, H, b->current, &h->sensors)) != TP_OK) return device_failed(b, st);
    const int G = TP_MIRROR_SENSORS;
    if (H->imu && !was.imu) {
        size_t n = 3 * (size_t)b->worlds * (size_t)b->bodies, wb = 3 * (size_t)b->bodies * sizeof(float);
        for (size_t k = 0; k < 3 && st == TP_OK; ++k)
            st = tp_mirror_add(&h->mirror, H->imu + k * n, h->sensors.imu + k * n, wb, G);
    }
    if (st == TP_OK && H->force && !was.force && H->count > 0) {
        st = tp_mirror_add(&h->mirror, H->force, h->sensors.force, 3 * (size_t)H->count * sizeof(float), G);
        if (st == TP_OK) st = tp_mirror_add(&h->mirror, H->touching, h->sensors.touching, (size_t)H->count, G);
    }
    return st;
}

static tp_status cuda_sensors_before_step(tp_batch *b)
{
    tp_cuda_host *h = host_of(b);
    tp_status st = use_device(b);
    if (st != TP_OK) return st;
    st = tp_mirror_push(&h->mirror); /* the velocities the host wrote count as "before" */
    if (st != TP_OK) return st == TP_ERR_CUDA ? device_failed(b, st) : st;
    st = tp_cuda_sensors_before_step(h->dev);
    return st == TP_OK ? TP_OK : device_failed(b, st);
}

static tp_status cuda_sensors_after_step(tp_batch *b)
{
    tp_cuda_host *h = host_of(b);
    tp_status st = use_device(b);
    if (st == TP_OK && (st = tp_cuda_sensors_after_step(h->dev, b->current)) != TP_OK) return device_failed(b, st);
    return st;
}

const tp_backend_ops tp_cuda_backend = {
    cuda_create,
    cuda_destroy,
    cuda_step,
    cuda_pull,
    cuda_begin_write,
    cuda_reset_worlds,
    cuda_device_bytes,
    cuda_device_view,
    cuda_sensors_on,
    cuda_sensors_before_step,
    cuda_sensors_after_step,
};

int tp_cuda_device_count(void) { return tp_cuda_probe(NULL, 0); }
