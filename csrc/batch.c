/* batch.c - creating a batch of replicated worlds, reading and writing its state.
 *
 * All memory is allocated here, at creation (DESIGN.md section 3); stepping
 * never allocates. Every write through the API is validated first and changes
 * nothing when it fails. */
#include "batch.h"

#include "articulation_host.h"
#include "constraint_host.h"
#include "mover_host.h"
#include "backend.h"
#include "cuda_api.h"
#include "error.h"
#include "solver_simd.h"
#include "events.h"
#include "huge_pages.h"
#include "contact.h"
#include "world_init.h"
#include "step.h"

static size_t tp_align16(size_t n) { return (n + 15u) & ~(size_t)15u; }

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

tp_batch_def tp_default_batch_def(void)
{
    tp_batch_def def;
    memset(&def, 0, sizeof def);
    def.worlds = 1;
    def.backend = TP_BACKEND_CPU;
    return def;
}

/* ---------------------------------------------------------------- create / destroy */

static size_t batch_bytes_per_world(int bodies, int capacity)
{
    /* pos 3, quat 4, v 3, w 3, force 3, torque 3, inv_mass 1, inv_inertia 6,
     * friction 1, quiet_timer 1, quiet_v 3, contact_f 3 floats; flags, sleep_state,
     * body_awake bytes; island label; two contact buffers. Per world: gravity
     * 3 floats, 4 counts + 2 contact counts, fault byte, episode, world mark
     * byte and world list entry. */
    return (size_t)bodies * (35 * sizeof(float) + 3) + 3 * sizeof(float) + 8 * sizeof(int32_t) + 2 +
           2 * (size_t)capacity * (sizeof(tp_contact) + sizeof(tp_contact_ref));
}

/* Shape k of body model bm (its one shape when it is not a compound). */
static int body_shape(const tp_model *model, const tp_body_model *bm, int k)
{
    return bm->shape_count ? model->shapes[bm->shape_first + k].shape : bm->shape;
}

/* The default contact capacity: `cap`, or less where the model cannot make
 * that many points: for every pair of bodies that may collide (one dynamic or
 * a link, not parent and child links, not filtered out or excluded:
 * kernels/broadphase.h), the most points of each pair of their shapes
 * (tp_shape_pair_points); at least one manifold's worth. A robot gets what
 * its links can touch. */
static int model_contact_bound(const tp_model *model, int cap)
{
    const tp_body_model *bm = model->bodies;
    long long points = 0;
    for (int a = 0; a < model->body_count && points < cap; ++a)
        for (int b = a + 1; b < model->body_count && points < cap; ++b) {
            int moves = bm[a].type == TP_BODY_DYNAMIC || bm[a].link || bm[b].type == TP_BODY_DYNAMIC || bm[b].link;
            if (!moves || tp_models_adjacent(bm, a, b) || tp_models_filtered(bm, a, b)) continue;
            int na = bm[a].shape_count ? bm[a].shape_count : 1, nb = bm[b].shape_count ? bm[b].shape_count : 1;
            for (int i = 0; i < na; ++i)
                for (int j = 0; j < nb; ++j)
                    points += tp_shape_pair_points(body_shape(model, &bm[a], i), body_shape(model, &bm[b], j));
        }
    if (points < TP_MAX_MANIFOLD_POINTS) points = TP_MAX_MANIFOLD_POINTS;
    return points < cap ? (int)points : cap;
}

static void batch_free_arrays(tp_batch *b)
{
    void *arrays[] = {b->pos, b->quat, b->v, b->w, b->force, b->torque, b->inv_mass, b->inv_inertia,
                      b->friction, b->flags, b->sleep_state, b->counts_block, b->quiet_timer, b->quiet_v, b->gravity,
                      b->schedule, b->contact_f, b->island, b->contacts[0], b->contacts[1], b->contact_refs[0],
                      b->contact_refs[1], b->contact_count[0], b->contact_count[1], b->episode, b->world_mark, b->world_list, b->polys};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) free(arrays[i]);
    if (b->scratch)
        for (int t = 0; t < b->threads; ++t) free(b->scratch[t]);
    free(b->scratch);
    free(b->stage_seconds);
}

static int batch_alloc_arrays(tp_batch *b)
{
    size_t n = (size_t)b->worlds * (size_t)b->bodies, W = (size_t)b->worlds;
    b->pos = calloc(3 * n, sizeof(float));
    b->quat = calloc(4 * n, sizeof(float));
    b->v = calloc(3 * n, sizeof(float));
    b->w = calloc(3 * n, sizeof(float));
    b->force = calloc(3 * n, sizeof(float));
    b->torque = calloc(3 * n, sizeof(float));
    b->inv_mass = calloc(n, sizeof(float));
    b->inv_inertia = calloc(6 * n, sizeof(float));
    b->friction = calloc(n, sizeof(float));
    b->flags = calloc(n, 1);
    b->sleep_state = calloc(n, 1);
    b->quiet_timer = calloc(n, sizeof(float));
    b->quiet_v = calloc(3 * n, sizeof(float));
    b->gravity = calloc(3 * W, sizeof(float));
    /* The counts in one block (batch.h, counts_block): 4 int32 arrays, then bytes. */
    char *counts = b->counts_block = calloc(4 * W * sizeof(int32_t) + W + n, 1);
    if (!counts) return 0;
    b->awake_count = (int32_t *)counts;
    b->sleeping_count = b->awake_count + W;
    b->checking_count = b->sleeping_count + W;
    b->contact_overflow = b->checking_count + W;
    b->faults = (uint8_t *)(b->contact_overflow + W);
    b->body_awake = b->faults + W;
    b->schedule = calloc((size_t)b->model->event_count + 1, sizeof *b->schedule);
    b->contact_f = calloc(3 * n, sizeof(float));
    b->island = calloc(n, sizeof(int32_t));
    b->episode = calloc(W, sizeof(uint32_t));
    b->world_mark = calloc(W, 1);
    b->world_list = calloc(W, sizeof(int32_t));
    if (!b->island || !b->episode || !b->world_mark || !b->world_list) return 0;
    b->polys = calloc(b->bodies > 0 ? (size_t)b->bodies : 1, sizeof(tp_poly));
    if (!b->polys) return 0;
    tp_build_body_polys(b->model->bodies, b->bodies, b->model->hulls, b->polys);
    size_t cap = (size_t)b->contact_capacity * W;
    for (int i = 0; i < 2; ++i) {
        b->contacts[i] = calloc(cap, sizeof(tp_contact));
        b->contact_refs[i] = calloc(cap, sizeof(tp_contact_ref));
        b->contact_count[i] = calloc(W, sizeof(int32_t));
        if (!b->contacts[i] || !b->contact_refs[i] || !b->contact_count[i]) return 0;
        tp_advise_huge_pages(b->contacts[i], cap * sizeof(tp_contact));
        tp_advise_huge_pages(b->contact_refs[i], cap * sizeof(tp_contact_ref));
    }
    /* One scratch block per CPU thread, reused by every world it steps. */
    b->simd_offset = tp_align16(tp_step_scratch_bytes(b->bodies, b->contact_capacity));
    b->scratch_bytes = b->simd_offset + tp_align16(tp_simd_scratch_bytes(b->simd, b->bodies, b->contact_capacity));
    b->scratch = calloc((size_t)b->threads, sizeof(void *));
    b->stage_seconds = calloc((size_t)b->threads * TP_STAGE_COUNT, sizeof(double));
    if (!b->scratch || !b->stage_seconds) return 0;
    for (int t = 0; t < b->threads; ++t) {
        b->scratch[t] = aligned_alloc(16, b->scratch_bytes);
        if (!b->scratch[t]) return 0;
    }
    return b->contact_f && b->pos && b->quat && b->v && b->w && b->force && b->torque && b->inv_mass && b->inv_inertia &&
           b->friction && b->flags && b->sleep_state && b->body_awake && b->quiet_timer && b->quiet_v && b->gravity &&
           b->awake_count && b->sleeping_count && b->checking_count && b->contact_overflow && b->faults &&
           b->schedule;
}

/* The host layout of the batch's arrays (kernels/layout.h). */
static void batch_fill_layout(tp_batch *b)
{
    tp_layout *L = &b->layout;
    L->worlds = b->worlds;
    L->bodies = b->bodies;
    L->capacity = b->contact_capacity;
    L->solve_sleeping = !b->model->def.sleep.skip_constraints;
    L->assembly = b->model->def.sleep.enabled && b->model->def.sleep.policy == TP_SLEEP_ASSEMBLY;
    L->dt = b->model->def.dt;
    L->reuse_manifolds = b->model->def.solver.warm_starting;
    L->model = b->model->bodies;
    L->shapes = b->model->shapes;
    L->shape_total = b->model->shape_total;
    L->polys = b->polys;
    L->hulls = b->model->hulls;
    L->hull_total = b->model->hull_total;
    L->pos = b->pos;
    L->quat = b->quat;
    L->v = b->v;
    L->w = b->w;
    L->force = b->force;
    L->torque = b->torque;
    L->inv_mass = b->inv_mass;
    L->inv_inertia = b->inv_inertia;
    L->friction = b->friction;
    L->quiet_timer = b->quiet_timer;
    L->quiet_v = b->quiet_v;
    L->gravity = b->gravity;
    L->contact_f = b->contact_f;
    L->island = b->island;
    L->flags = b->flags;
    L->sleep_state = b->sleep_state;
    L->body_awake = b->body_awake;
    L->faults = b->faults;
    L->awake_count = b->awake_count;
    L->sleeping_count = b->sleeping_count;
    L->checking_count = b->checking_count;
    L->contact_overflow = b->contact_overflow;
    for (int i = 0; i < 2; ++i) {
        L->contacts[i] = b->contacts[i];
        L->contact_refs[i] = b->contact_refs[i];
        L->contact_count[i] = b->contact_count[i];
    }
}

static tp_status resolve_backend(const tp_batch_def *def, tp_backend *out)
{
    if ((unsigned)def->backend > TP_BACKEND_AUTO)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "batch definition: backend: unknown backend %d", (int)def->backend);
    if (def->backend == TP_BACKEND_AUTO) {
        *out = tp_cuda_probe(NULL, 0) > 0 ? TP_BACKEND_CUDA : TP_BACKEND_CPU;
        return TP_OK;
    }
    if (def->backend == TP_BACKEND_CUDA) {
        if (!tp_cuda_built())
            return tp_fail(TP_ERR_BACKEND, "backend cuda: this build of torpor has no CUDA backend "
                                           "(configure with nvcc available to build it)");
        char why[256] = "";
        if (tp_cuda_probe(why, sizeof why) <= 0)
            return tp_fail(TP_ERR_BACKEND, "backend cuda: no CUDA device is available on this machine (%s); "
                                           "use the cpu backend", why);
    }
    *out = def->backend;
    return TP_OK;
}

/* The device ordinal against the backend in use and the devices there are. */
static tp_status check_device(const tp_batch_def *def, tp_backend backend)
{
    if (def->device < 0)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "batch definition: device: must be >= 0, got %d", def->device);
    if (backend == TP_BACKEND_CPU) {
        if (def->device != 0)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "batch definition: device: %d asked for, but the backend is cpu%s "
                           "(a device ordinal is for the cuda backend)", def->device,
                           def->backend == TP_BACKEND_AUTO ? " (auto found no CUDA device)" : "");
        return TP_OK;
    }
    int n = tp_cuda_device_count();
    if (def->device >= n)
        return tp_fail(TP_ERR_BACKEND, "batch definition: device: CUDA device %d does not exist; this machine has %d "
                       "(ordinals 0 to %d)", def->device, n, n - 1);
    return TP_OK;
}

/* The batch's slice of a sharded run: first_world and total_worlds. */
static tp_status check_shard(const tp_batch_def *d)
{
    if (d->first_world < 0)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "batch definition: first_world: must be >= 0, got %d", d->first_world);
    if (d->first_world > INT_MAX - d->worlds)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "batch definition: first_world + worlds = %d + %d is past %d",
                       d->first_world, d->worlds, INT_MAX);
    if (d->total_worlds != 0 && d->total_worlds < d->first_world + d->worlds)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "batch definition: total_worlds: %d is fewer than first_world + worlds "
                       "= %d + %d", d->total_worlds, d->first_world, d->worlds);
    return TP_OK;
}

tp_status tp_batch_create(const tp_model *model, const tp_batch_def *def, tp_batch **out)
{
    if (!out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_create: out is NULL");
    *out = NULL;
    if (!model) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_create: model is NULL");
    tp_batch_def d = def ? *def : tp_default_batch_def();
    if (d.worlds < 1 || d.worlds > TP_MAX_WORLDS)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "batch definition: worlds: must be in [1, %d], got %d", TP_MAX_WORLDS,
                       d.worlds);
    if (d.threads < 0 || d.threads > 4096)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "batch definition: threads: must be in [0, 4096], got %d", d.threads);
    if (d.link_point_capacity < 0)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "batch definition: link_point_capacity: must be >= 0, got %d",
                       d.link_point_capacity);
    if (d.contact_capacity < 0)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "batch definition: contact_capacity: must be >= 0, got %d",
                       d.contact_capacity);
    tp_status st = check_shard(&d);
    if (st != TP_OK) return st;
    tp_backend backend = TP_BACKEND_CPU;
    if ((st = resolve_backend(&d, &backend)) != TP_OK) return st;
    if ((st = check_device(&d, backend)) != TP_OK) return st;
    tp_simd simd = TP_SIMD_OFF;
    st = tp_simd_resolve(d.simd, &simd);
    if (st != TP_OK) return st;

    tp_batch *b = calloc(1, sizeof *b);
    if (!b) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_batch_create: out of memory");
    b->model = model;
    b->backend = backend;
    b->worlds = d.worlds;
    b->first_world = d.first_world;
    b->reset_keyframe = -1;
    b->total_worlds = d.total_worlds ? d.total_worlds : d.first_world + d.worlds;
    b->device = backend == TP_BACKEND_CUDA ? d.device : 0;
    b->bodies = model->body_count;
    b->threads = d.threads > 0 ? d.threads : omp_get_max_threads();
    /* links collide like dynamic bodies (dynamic_count counts them as kinematic) */
    int links = model->artic ? model->artic->km.joint_count : 0;
    b->contact_capacity = d.contact_capacity > 0 ? d.contact_capacity
                                                 : model_contact_bound(model, 16 * (model->dynamic_count + links) + 32);
    b->link_point_capacity = d.link_point_capacity;
    b->seed = d.has_seed ? d.seed : model->def.randomize.seed;
    b->profile_stages = d.profile_stages != 0;
    b->simd = backend == TP_BACKEND_CPU ? simd : TP_SIMD_OFF;
    if (!batch_alloc_arrays(b)) {
        size_t bytes = batch_bytes_per_world(b->bodies, b->contact_capacity) * (size_t)b->worlds;
        int b_capacity = b->contact_capacity;
        batch_free_arrays(b);
        free(b);
        return tp_fail(TP_ERR_OUT_OF_MEMORY,
                       "tp_batch_create: could not allocate %.2f GiB for %d worlds of %d bodies (%.1f KiB per world, "
                       "contact capacity %d points); use fewer worlds or a smaller contact_capacity",
                       (double)bytes / 1073741824.0, d.worlds, model->body_count,
                       (double)bytes / (double)d.worlds / 1024.0, b_capacity);
    }
    batch_fill_layout(b);
    st = tp_artic_batch_create(b); /* after the layout: it adds the joint arrays to it */
    if (st == TP_OK) st = tp_cons_batch_create(b); /* constraint state, into the layout too */
    if (st == TP_OK) st = tp_mover_batch_create(b); /* mover state, into the layout too */
    if (st != TP_OK) {
        tp_batch_destroy(b);
        return st;
    }
    for (int w = 0; w < b->worlds; ++w) tp_batch_init_world(b, w);
    st = tp_events_schedule(b);
    b->ops = backend == TP_BACKEND_CUDA ? &tp_cuda_backend : &tp_cpu_backend;
    if (st == TP_OK) st = b->ops->create(b);
    if (st != TP_OK) {
        tp_batch_destroy(b);
        return st;
    }
    *out = b;
    return TP_OK;
}

void tp_batch_destroy(tp_batch *b)
{
    if (!b) return;
    if (b->ops) b->ops->destroy(b);
    tp_artic_batch_destroy(b);
    tp_cons_batch_destroy(b);
    tp_mover_batch_destroy(b);
    tp_sensors_free(b);
    batch_free_arrays(b);
    free(b);
}

size_t tp_batch_memory_bytes(const tp_batch *b)
{
    if (!b) return 0;
    size_t W = (size_t)b->worlds;
    size_t shared = (size_t)b->threads * (b->scratch_bytes + sizeof(void *)) + tp_artic_batch_shared_bytes(b) +
                    ((size_t)b->model->event_count + 1) * sizeof *b->schedule + (size_t)b->bodies * sizeof(tp_poly);
    return batch_bytes_per_world(b->bodies, b->contact_capacity) + tp_artic_batch_bytes_per_world(b) +
           tp_cons_batch_bytes_per_world(b) + tp_mover_batch_bytes_per_world(b) + (shared + W - 1) / W;
}

size_t tp_batch_device_memory_bytes(const tp_batch *b)
{
    if (!b) return 0;
    return (b->ops->device_bytes(b) + (size_t)b->worlds - 1) / (size_t)b->worlds;
}

size_t tp_batch_contact_memory_bytes(const tp_batch *b)
{
    if (!b) return 0;
    return 2 * (size_t)b->contact_capacity * (sizeof(tp_contact) + sizeof(tp_contact_ref)) + 2 * sizeof(int32_t);
}

/* ---------------------------------------------------------------- stepping */

tp_status tp_batch_step(tp_batch *b, int steps)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_step: batch is NULL");
    if (steps < 0) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_step: steps must be >= 0, got %d", steps);
    for (int s = 0; s < steps; ++s) {
        tp_status st = tp_events_apply_due(b);
        if (st != TP_OK) return st;
        if (s == steps - 1 && (st = tp_sensors_before_step(b)) != TP_OK) return st;
        if ((st = b->ops->step(b)) != TP_OK) return st;
        b->step_count++;
        if (s == steps - 1 && (st = tp_sensors_after_step(b)) != TP_OK) return st;
    }
    return TP_OK;
}

/* ---------------------------------------------------------------- accessors */

int tp_batch_worlds(const tp_batch *b) { return b ? b->worlds : 0; }
int tp_batch_bodies(const tp_batch *b) { return b ? b->bodies : 0; }
tp_backend tp_batch_backend(const tp_batch *b) { return b ? b->backend : TP_BACKEND_CPU; }
int tp_batch_threads(const tp_batch *b) { return b ? b->threads : 0; }
tp_simd tp_batch_simd(const tp_batch *b) { return b ? b->simd : TP_SIMD_OFF; }
int64_t tp_batch_step_count(const tp_batch *b) { return b ? b->step_count : 0; }
int tp_batch_first_world(const tp_batch *b) { return b ? b->first_world : 0; }
int tp_batch_device(const tp_batch *b) { return b ? b->device : 0; }
uint64_t tp_batch_seed(const tp_batch *b) { return b ? b->seed : 0; }
double tp_batch_time(const tp_batch *b) { return b ? (double)b->step_count * (double)b->model->def.dt : 0.0; }
const tp_model *tp_batch_model(const tp_batch *b) { return b ? b->model : NULL; }

/* The view's counters (what tp_batch_counts gives); the rest NULL. */
static void view_counts(const tp_batch *b, tp_state_view *out)
{
    memset(out, 0, sizeof *out);
    out->worlds = b->worlds;
    out->bodies = b->bodies;
    out->body_awake = b->body_awake;
    out->awake_count = b->awake_count;
    out->sleeping_count = b->sleeping_count;
    out->checking_count = b->checking_count;
    out->contact_overflow = b->contact_overflow;
    out->faults = b->faults;
}

/* The whole view of the host arrays (what tp_batch_state gives). */
static void view_all(const tp_batch *b, tp_state_view *out)
{
    view_counts(b, out);
    out->pos = b->pos;
    out->quat = b->quat;
    out->v = b->v;
    out->w = b->w;
    out->sleep_state = b->sleep_state;
    out->quiet_timer = b->quiet_timer;
    out->removed = b->flags; /* TP_FLAG_REMOVED is bit 0, the only flag so far */
    out->contact_f = b->contact_f;
    out->island = b->island;
}

tp_status tp_batch_state(tp_batch *b, tp_state_view *out)
{
    if (!b || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_state: batch or out is NULL");
    tp_status st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_STATE);
    if (st != TP_OK) return st;
    view_all(b, out);
    return TP_OK;
}

tp_status tp_batch_device_state(tp_batch *b, tp_state_view *out)
{
    if (!b || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_device_state: batch or out is NULL");
    tp_state_view v;
    view_all(b, &v);
    tp_status st = b->ops->device_view(b, &v); /* host pointers -> their device twins */
    if (st == TP_OK) *out = v; /* nothing written on failure */
    return st;
}

tp_status tp_batch_counts(tp_batch *b, tp_state_view *out)
{
    if (!b || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_counts: batch or out is NULL");
    tp_status st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_COUNTS);
    if (st != TP_OK) return st;
    view_counts(b, out);
    return TP_OK;
}

/* ---------------------------------------------------------------- hashing */

/* FNV-1a, 64-bit (Fowler, Noll, Vo): simple, fast, and byte-order explicit. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
#define TP_FNV_OFFSET 0xcbf29ce484222325ull

static uint64_t world_hash(const tp_batch *b, int w)
{
    uint64_t h = TP_FNV_OFFSET;
    size_t o = (size_t)w * (size_t)b->bodies;
    for (int i = 0; i < b->bodies; ++i) {
        size_t k = o + (size_t)i;
        h = fnv1a(h, b->pos + 3 * k, 3 * sizeof(float));
        h = fnv1a(h, b->quat + 4 * k, 4 * sizeof(float));
        h = fnv1a(h, b->v + 3 * k, 3 * sizeof(float));
        h = fnv1a(h, b->w + 3 * k, 3 * sizeof(float));
        h = fnv1a(h, b->sleep_state + k, 1);
        h = fnv1a(h, b->quiet_timer + k, sizeof(float));
        h = fnv1a(h, b->flags + k, 1);
    }
    return fnv1a(h, b->faults + w, 1);
}

/* The batch hash so far, h, with one more world hash (its bytes little-endian). */
static uint64_t hash_add_world(uint64_t h, uint64_t world)
{
    unsigned char bytes[8];
    for (int k = 0; k < 8; ++k) bytes[k] = (unsigned char)(world >> (8 * k));
    return fnv1a(h, bytes, 8);
}

static tp_status check_world(const tp_batch *b, int world, const char *call)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    if (world < 0 || world >= b->worlds)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: world %d out of range [0, %d)", call, world, b->worlds);
    return TP_OK;
}

tp_status tp_batch_world_hash(tp_batch *b, int world, uint64_t *out)
{
    tp_status st = check_world(b, world, "tp_batch_world_hash");
    if (st != TP_OK) return st;
    if (!out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_world_hash: out is NULL");
    if ((st = tp_batch_pull(b, world, world, TP_MIRROR_STATE)) != TP_OK) return st;
    *out = world_hash(b, world);
    return TP_OK;
}

tp_status tp_batch_state_hash(tp_batch *b, uint64_t *out)
{
    if (!b || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_state_hash: batch or out is NULL");
    tp_status st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_STATE);
    if (st != TP_OK) return st;
    uint64_t h = TP_FNV_OFFSET;
    for (int w = 0; w < b->worlds; ++w) h = hash_add_world(h, world_hash(b, w));
    *out = h;
    return TP_OK;
}

uint64_t tp_world_hashes_combine(const uint64_t *world_hashes, int count)
{
    if (!world_hashes) return 0;
    uint64_t h = TP_FNV_OFFSET;
    for (int w = 0; w < count; ++w) h = hash_add_world(h, world_hashes[w]);
    return h;
}

/* ---------------------------------------------------------------- contacts */

tp_status tp_batch_contacts(tp_batch *b, int world, tp_contact_info *out, int capacity, int *count)
{
    tp_status st = check_world(b, world, "tp_batch_contacts");
    if (st != TP_OK) return st;
    if (!count) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_contacts: count is NULL");
    if (capacity < 0)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_contacts: capacity must be >= 0, got %d", capacity);
    if (capacity > 0 && !out)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_contacts: out is NULL but capacity is %d", capacity);
    if ((st = tp_batch_pull(b, world, world, TP_MIRROR_ALL)) != TP_OK) return st;
    int n = b->contact_count[b->current][world];
    const tp_contact *c = b->contacts[b->current] + (size_t)world * (size_t)b->contact_capacity;
    tp_world wd = tp_batch_world(b, world);
    for (int i = 0; i < n && i < capacity; ++i) {
        tp_contact_info *o = &out[i];
        tp_vec3 pa = tp_body_point(&wd, c[i].body_a, c[i].local_a), pb = tp_body_point(&wd, c[i].body_b, c[i].local_b);
        o->body_a = c[i].body_a;
        o->body_b = c[i].body_b;
        tp_v3_store(o->point, tp_scale(tp_add(pa, pb), 0.5f));
        memcpy(o->normal, c[i].normal, sizeof o->normal);
        o->separation = c[i].separation;
        o->normal_force = c[i].normal_force;
        o->friction_force[0] = c[i].tangent_force[0];
        o->friction_force[1] = c[i].tangent_force[1];
        o->feature = c[i].feature;
        o->key = c[i].key;
    }
    *count = n;
    return TP_OK;
}

/* ---------------------------------------------------------------- stage profile */

const char *tp_stage_name(tp_stage stage)
{
    switch (stage) {
#define TP_STAGE_NAME(NAME, name, runs, launch)                                                                        \
    case TP_STAGE_##NAME: return #name;
        TP_STEP_STAGES(TP_STAGE_NAME)
#undef TP_STAGE_NAME
    case TP_STAGE_COUNT: break;
    }
    return NULL;
}

tp_status tp_batch_stage_seconds(const tp_batch *b, double seconds[TP_STAGE_COUNT])
{
    if (!b || !seconds) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_stage_seconds: batch or seconds is NULL");
    for (int k = 0; k < TP_STAGE_COUNT; ++k) {
        seconds[k] = 0.0;
        for (int t = 0; t < b->threads; ++t) seconds[k] += b->stage_seconds[t * TP_STAGE_COUNT + k];
    }
    return TP_OK;
}
