/* memory.cu - the device side of a batch: its arrays, the model's tables
 * uploaded once, the copies the host mirror asks for, and the device probe.
 *
 * Every array of the host layout has a device twin of the same size and
 * layout (DESIGN.md section 3); the per-world ones are listed for the mirror
 * (tp_cuda_arrays) with their group: the per-body state, the counts a sleep
 * measurement reads each step, and the contact buffers. */
#include "cub_sort.h"
#include "cuda_batch.cuh"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" int tp_cuda_built(void) { return 1; }

extern "C" int tp_cuda_probe(char *why, size_t size)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        if (why && size) snprintf(why, size, "%s", cudaGetErrorString(err));
        cudaGetLastError(); /* clear the sticky error of a failed probe */
        return 0;
    }
    if (n == 0 && why && size) snprintf(why, size, "no CUDA device found");
    return n;
}

tp_status tp_cuda_fail(tp_cuda_batch *c, cudaError_t err, const char *what)
{
    snprintf(c->error, sizeof c->error, "cuda: %s failed: %s (%s)", what, cudaGetErrorString(err),
             cudaGetErrorName(err));
    return TP_ERR_CUDA;
}

extern "C" const char *tp_cuda_error(const tp_cuda_batch *c) { return c ? c->error : "cuda: no batch"; }

/* One allocation of `bytes`; host: its twin (uploaded once when `upload`). */
static tp_device_array *add_array(tp_cuda_batch *c, void **device, const void *host, size_t bytes, int upload)
{
    if (c->array_count++ >= TP_DEVICE_ARRAYS) return NULL; /* counted: creation fails loudly */
    tp_device_array *a = &c->arrays[c->array_count - 1];
    a->device = device;
    a->host = host;
    a->bytes = bytes;
    a->upload = upload;
    a->mirror = -1;
    return a;
}

/* A world-major array of the layout, mirrored per world in `group`. */
static void add_world_array(tp_cuda_batch *c, void **device, void *host, size_t world_bytes, int group)
{
    tp_device_array *a = add_array(c, device, host, world_bytes * (size_t)c->d.L.worlds, 0);
    if (!a) return;
    a->mirror = c->mirrored_count;
    tp_cuda_array *m = &c->mirrored[c->mirrored_count++];
    m->host = host;
    m->device = NULL; /* filled once allocated (tp_cuda_create) */
    m->world_bytes = world_bytes;
    m->group = group;
}

/* The articulation arrays of a model with joints: the joint arrays mirrored
 * with the bodies (a host write of joints or a link impulse changes both),
 * the per-world robot parameters too (written with the same begin_write),
 * the stage's scratch device-only, the model's tables and initial arrays
 * uploaded once, and the kernel model itself (c->artic_model, filled with
 * the tables' device addresses by link_artic_model before the upload). */
static void list_artic_arrays(tp_cuda_batch *c, const tp_cuda_setup *s)
{
    const tp_layout *H = &s->host;
    tp_layout *D = &c->d.L;
    const tp_artic_model *km = H->artic;
    size_t nq = (size_t)km->nq * sizeof(float), nv = (size_t)km->nv * sizeof(float);
    const int S = TP_CUDA_GROUP_BODIES;
    add_world_array(c, (void **)&D->joint_q, H->joint_q, nq, S);
    add_world_array(c, (void **)&D->joint_qd, H->joint_qd, nv, S);
    add_world_array(c, (void **)&D->joint_f, H->joint_f, nv, S);
    add_world_array(c, (void **)&D->joint_target_q, H->joint_target_q, nv, S);
    add_world_array(c, (void **)&D->joint_target_qd, H->joint_target_qd, nv, S);
    if (H->ctrl) add_world_array(c, (void **)&D->ctrl, H->ctrl, (size_t)km->actuator_count * sizeof(float), S);
    add_world_array(c, (void **)&D->actuator_f, H->actuator_f, nv, S);
    add_world_array(c, (void **)&D->limit_f, H->limit_f, nv, S);
    add_world_array(c, (void **)&D->link_scale, H->link_scale, (size_t)km->joint_count * sizeof(float), S);
    add_world_array(c, (void **)&D->link_com, H->link_com, 3 * (size_t)km->joint_count * sizeof(float), S);
    add_world_array(c, (void **)&D->joint_params, H->joint_params, (size_t)km->joint_count * TP_AJP_COUNT * sizeof(float), S);
    if (H->actuator_params)
        add_world_array(c, (void **)&D->actuator_params, H->actuator_params,
                        (size_t)km->actuator_count * sizeof(tp_artic_actuator), S);
    add_array(c, (void **)&D->artic_scratch, NULL, H->artic_scratch_bytes * (size_t)H->worlds, 0);
    add_array(c, (void **)&c->artic_joints, km->joints, (size_t)km->joint_count * sizeof(tp_artic_joint), 1);
    add_array(c, (void **)&c->artic_trees, km->trees, (size_t)km->tree_count * sizeof(tp_artic_tree), 1);
    if (km->actuator_count > 0)
        add_array(c, (void **)&c->artic_actuators, km->actuators, (size_t)km->actuator_count * sizeof(tp_artic_actuator), 1);
    tp_artic_initial *I = &c->d.artic_initial;
    I->robot = s->artic_initial.robot; /* its settings; added_of uploaded below */
    add_array(c, (void **)&I->q0, s->artic_initial.q0, nq, 1);
    add_array(c, (void **)&I->qd0, s->artic_initial.qd0, nv, 1);
    add_array(c, (void **)&I->target_q0, s->artic_initial.target_q0, nv, 1);
    add_array(c, (void **)&I->target_qd0, s->artic_initial.target_qd0, nv, 1);
    if (s->artic_initial.ctrl0 && km->actuator_count > 0) /* the model's keyframe's controls (randomize.keyframe) */
        add_array(c, (void **)&I->ctrl0, s->artic_initial.ctrl0, (size_t)km->actuator_count * sizeof(float), 1);
    add_array(c, (void **)&I->robot.added_of, s->artic_initial.robot.added_of, (size_t)km->joint_count * sizeof(int32_t), 1);
    if (km->actuator_count > 0)
        add_array(c, (void **)&I->robot.actuator_type, s->artic_initial.robot.actuator_type,
                  (size_t)km->actuator_count * sizeof(int32_t), 1);
    add_array(c, (void **)&D->artic, &c->artic_model, sizeof(tp_artic_model), 1);
}

/* Constraints and movers: each world's constraint table and state and its
 * mover state mirrored in their own group (read by the read-outs, written by
 * the per-world writes and events), the model's constraint table, mover table
 * and movers' initial state uploaded once (the reset kernel copies them into
 * a world). */
static void list_link_arrays(tp_cuda_batch *c, const tp_cuda_setup *s)
{
    const tp_layout *H = &s->host;
    tp_layout *D = &c->d.L;
    const int G = TP_CUDA_GROUP_CONSTRAINTS;
    size_t C = (size_t)H->cons_count, M = (size_t)H->mover_count;
    if (H->cons) {
        add_world_array(c, (void **)&D->cons, H->cons, C * sizeof(tp_cons_model), G);
        add_world_array(c, (void **)&D->cons_state, H->cons_state, C * sizeof(tp_cons_state), G);
        add_array(c, (void **)&c->d.cons_model, s->cons_model, C * sizeof(tp_cons_model), 1);
    }
    if (H->movers) {
        add_array(c, (void **)&D->movers, H->movers, M * sizeof(tp_mover_model), 1);
        add_world_array(c, (void **)&D->mover_state, H->mover_state, M * sizeof(tp_mover_state), G);
        add_array(c, (void **)&c->d.mover_initial, s->mover_initial, M * sizeof(tp_mover_state), 1);
    }
}

/* The kernel model as the device reads it: the batch's, its tables the device's. */
static void link_artic_model(tp_cuda_batch *c, const tp_cuda_setup *s)
{
    if (!s->host.artic) return;
    c->artic_model = *s->host.artic;
    c->artic_model.joints = c->artic_joints;
    c->artic_model.trees = c->artic_trees;
    c->artic_model.actuators = s->host.artic->actuator_count > 0 ? c->artic_actuators : NULL;
}

/* The list of device arrays, in one place so allocation, upload, the mirror
 * and free agree. */
static void list_arrays(tp_cuda_batch *c, const tp_cuda_setup *s)
{
    const tp_layout *H = &s->host;
    tp_layout *D = &c->d.L;
    size_t B = (size_t)H->bodies, f = sizeof(float), i32 = sizeof(int32_t);
    const int S = TP_CUDA_GROUP_BODIES, N = TP_CUDA_GROUP_COUNTS;
    add_world_array(c, (void **)&D->pos, H->pos, 3 * B * f, S);
    add_world_array(c, (void **)&D->quat, H->quat, 4 * B * f, S);
    add_world_array(c, (void **)&D->v, H->v, 3 * B * f, S);
    add_world_array(c, (void **)&D->w, H->w, 3 * B * f, S);
    add_world_array(c, (void **)&D->force, H->force, 3 * B * f, S);
    add_world_array(c, (void **)&D->torque, H->torque, 3 * B * f, S);
    add_world_array(c, (void **)&D->inv_mass, H->inv_mass, B * f, S);
    add_world_array(c, (void **)&D->inv_inertia, H->inv_inertia, 6 * B * f, S);
    add_world_array(c, (void **)&D->friction, H->friction, B * f, S);
    add_world_array(c, (void **)&D->quiet_timer, H->quiet_timer, B * f, S);
    add_world_array(c, (void **)&D->quiet_v, H->quiet_v, 3 * B * f, S);
    add_world_array(c, (void **)&D->gravity, H->gravity, 3 * f, S);
    add_world_array(c, (void **)&D->flags, H->flags, B, S);
    add_world_array(c, (void **)&D->sleep_state, H->sleep_state, B, S);
    add_world_array(c, (void **)&D->contact_f, H->contact_f, 3 * B * f, S);
    add_world_array(c, (void **)&D->island, H->island, B * i32, S);
    add_world_array(c, (void **)&D->body_awake, H->body_awake, B, N);
    add_world_array(c, (void **)&D->faults, H->faults, 1, N);
    add_world_array(c, (void **)&D->awake_count, H->awake_count, i32, N);
    add_world_array(c, (void **)&D->sleeping_count, H->sleeping_count, i32, N);
    add_world_array(c, (void **)&D->checking_count, H->checking_count, i32, N);
    add_world_array(c, (void **)&D->contact_overflow, H->contact_overflow, i32, N);
    for (int i = 0; i < 2; ++i) {
        add_world_array(c, (void **)&D->contacts[i], H->contacts[i], (size_t)H->capacity * sizeof(tp_contact),
                        TP_CUDA_GROUP_CONTACTS);
        /* device-only: the host never reads them, and a world's count of 0
         * (creation, reset) means they are never read before written */
        add_array(c, (void **)&D->contact_refs[i], NULL,
                  (size_t)H->worlds * (size_t)H->capacity * sizeof(tp_contact_ref), 0);
        add_world_array(c, (void **)&D->contact_count[i], H->contact_count[i], i32, TP_CUDA_GROUP_CONTACTS);
    }
    /* The model's tables: uploaded once, never mirrored. */
    add_array(c, (void **)&D->model, H->model, B * sizeof(tp_body_model), 1);
    if (H->shapes) add_array(c, (void **)&D->shapes, H->shapes, (size_t)H->shape_total * sizeof(tp_shape_model), 1);
    add_array(c, (void **)&c->d.body_init, s->body_init, B * sizeof(tp_body_init), 1);
    add_array(c, (void **)&D->polys, c->host_polys, B * sizeof(tp_poly), 1);
    if (H->hulls) add_array(c, (void **)&D->hulls, H->hulls, (size_t)H->hull_total * sizeof(tp_poly), 1);
    if (H->artic) list_artic_arrays(c, s);
    list_link_arrays(c, s);
    /* Device-only: per-world step scratch, the busy flags and list, the global sort's arrays. */
    size_t items = (size_t)c->sort_items;
    c->d.scratch_bytes = tp_solver_align(tp_step_scratch_bytes(H->bodies, H->capacity));
    add_array(c, (void **)&c->d.scratch, NULL, c->d.scratch_bytes * (size_t)H->worlds, 0);
    add_array(c, (void **)&c->d.busy_flag, NULL, (size_t)H->worlds, 0);
    add_array(c, (void **)&c->d.busy_list, NULL, (size_t)H->worlds * i32, 0);
    add_array(c, (void **)&c->d.busy_count, NULL, i32, 0);
    add_array(c, (void **)&c->d.pairs, NULL, (size_t)H->worlds * (size_t)c->d.pair_slots * sizeof(tp_pair_slot), 0);
    add_array(c, (void **)&c->d.pair_count, NULL, (size_t)H->worlds * i32, 0);
    add_array(c, (void **)&c->d.pair_first, NULL, ((size_t)H->worlds + 1) * i32, 0);
    c->d.list_work = NULL;
    if (!c->list_plan.shared)
        add_array(c, (void **)&c->d.list_work, NULL, (size_t)H->worlds * c->list_plan.world_bytes, 0);
    add_array(c, (void **)&c->d.keys_in, NULL, items * sizeof(uint64_t), 0);
    add_array(c, (void **)&c->d.keys_out, NULL, items * sizeof(uint64_t), 0);
    add_array(c, (void **)&c->d.slots_in, NULL, items * i32, 0);
    add_array(c, (void **)&c->d.slots_out, NULL, items * i32, 0);
    add_array(c, &c->sort_temp, NULL, c->sort_temp_bytes, 0);
}

/* The counts group (what tp_batch_counts reads after every step) as one
 * device allocation laid out like its host twins, when those lie in one
 * block (csrc/batch.c allocates them so): the mirror then reads every world's
 * counts with one copy (csrc/mirror.h, spans). The arrays stay listed (the
 * mirror copies them one by one for a part of the worlds) but are carved out
 * of the span instead of allocated. Host arrays that are not one block keep
 * their own allocations. */
static void carve_counts(tp_cuda_batch *c)
{
    const char *lo = NULL, *hi = NULL;
    size_t sum = 0;
    for (int i = 0; i < c->array_count; ++i) {
        tp_device_array *a = &c->arrays[i];
        if (a->mirror < 0 || c->mirrored[a->mirror].group != TP_CUDA_GROUP_COUNTS) continue;
        const char *h = (const char *)a->host;
        if (!lo || h < lo) lo = h;
        if (!hi || h + a->bytes > hi) hi = h + a->bytes;
        sum += a->bytes;
    }
    if (!lo || (size_t)(hi - lo) != sum) return; /* not one block without gaps: separate arrays */
    for (int i = 0; i < c->array_count; ++i) {
        tp_device_array *a = &c->arrays[i];
        if (a->mirror < 0 || c->mirrored[a->mirror].group != TP_CUDA_GROUP_COUNTS) continue;
        a->carved = 1;
        a->offset = (size_t)((const char *)a->host - lo);
    }
    c->span_host = lo;
    c->span_bytes = sum;
}

static tp_status allocate(tp_cuda_batch *c)
{
    size_t total = tp_cuda_device_bytes(c);
    if (c->span_bytes && cudaMalloc(&c->span_device, c->span_bytes) != cudaSuccess) {
        cudaGetLastError();
        c->span_device = NULL;
        snprintf(c->error, sizeof c->error, "cuda: could not allocate %zu bytes of device memory for the counts of %d "
                 "worlds", c->span_bytes, c->d.L.worlds);
        return TP_ERR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < c->array_count; ++i) {
        if (c->arrays[i].carved) {
            *c->arrays[i].device = (char *)c->span_device + c->arrays[i].offset;
            continue;
        }
        cudaError_t err = cudaMalloc(c->arrays[i].device, c->arrays[i].bytes);
        if (err != cudaSuccess) {
            size_t free_bytes = 0, total_bytes = 0;
            cudaGetLastError();
            cudaMemGetInfo(&free_bytes, &total_bytes);
            size_t per_world = total / (size_t)c->d.L.worlds + 1;
            snprintf(c->error, sizeof c->error,
                     "cuda: could not allocate %zu bytes of device memory for %d worlds (%zu bytes per world); "
                     "%zu bytes are free, enough for about %zu worlds",
                     total, c->d.L.worlds, per_world, free_bytes, free_bytes / per_world);
            return TP_ERR_OUT_OF_MEMORY;
        }
    }
    for (int i = 0; i < c->array_count; ++i)
        if (c->arrays[i].mirror >= 0) c->mirrored[c->arrays[i].mirror].device = *c->arrays[i].device;
    return TP_OK;
}

/* Page-lock the batch's host arrays that the mirror copies (cudaHostRegister),
 * so each cudaMemcpyAsync of the mirror is a direct DMA from or to them,
 * not a staged copy through a driver buffer, and is asynchronous for real.
 * The arrays are the host library's own allocations (csrc/batch.c, one
 * calloc each), so they are registered in place and unregistered in
 * tp_cuda_destroy, which the batch calls before it frees them. An array
 * whose registration fails stays pageable, which is slower to copy but moves
 * the same bytes: two small arrays may share a page, which can be registered
 * once only (cudaErrorHostMemoryAlreadyRegistered), and some sandboxed or
 * virtualised hosts refuse page-locking altogether (cudaErrorNotSupported).
 * So a failure here never fails creation; c->pinned_bytes says how much is
 * pinned. */
static void pin_host_arrays(tp_cuda_batch *c)
{
    if (c->span_bytes) { /* the counts' block, once (its arrays share pages) */
        if (cudaHostRegister((void *)c->span_host, c->span_bytes, cudaHostRegisterDefault) == cudaSuccess) {
            c->span_pinned = 1;
            c->pinned_bytes += c->span_bytes;
        } else {
            cudaGetLastError();
        }
    }
    for (int i = 0; i < c->array_count; ++i) {
        tp_device_array *a = &c->arrays[i];
        if (a->mirror < 0 || !a->host || a->bytes == 0 || a->carved) continue;
        if (cudaHostRegister((void *)a->host, a->bytes, cudaHostRegisterDefault) == cudaSuccess) {
            a->pinned = 1;
            c->pinned_bytes += a->bytes;
        } else {
            cudaGetLastError(); /* not a sticky error; cleared so no later check sees it */
        }
    }
}

/* The solve stage runs a group of lanes per world, several worlds per block
 * (kernels/solve_group.h, tp_solve_plan): lanes from the model's dynamic
 * bodies, the worlds' v and w always in shared memory, more of their data
 * where it fits TP_SOLVE_SHARED_TARGET per block. Above the default 48 KiB per
 * block a kernel must opt in (cudaFuncSetAttribute, up to the device's
 * cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KiB on sm_90); a world whose v
 * and w do not fit a block (even alone in it) is refused here, at creation,
 * rather than run on global memory. */
static tp_status size_group_shared(tp_cuda_batch *c, const tp_layout *H)
{
    int device = 0, optin = 0;
    TP_CUDA_TRY(c, cudaGetDevice(&device), "cudaGetDevice");
    TP_CUDA_TRY(c, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
                "cudaDeviceGetAttribute (shared memory per block)");
    /* a tree is one unit of the coloring and runs on a lane of its own (kernels/articulation_contact.h) */
    int lanes = tp_solve_lanes(tp_solve_movers(H->model, H->bodies) + (H->artic ? H->artic->tree_count : 0));
    /* A tuning knob for the device check (tests/gpu/run.sh), not API: the
     * lanes per world of the solve. Any count gives the same bits. */
    if (const char *env = getenv("TORPOR_CUDA_SOLVE_LANES")) {
        char *end = NULL;
        long v = strtol(env, &end, 10);
        if (*env == '\0' || *end || v < 1 || v > TP_SOLVE_MAX_LANES || (v & (v - 1))) {
            snprintf(c->error, sizeof c->error,
                     "cuda: TORPOR_CUDA_SOLVE_LANES=\"%s\": must be a power of two from 1 to %d", env, TP_SOLVE_MAX_LANES);
            return TP_ERR_INVALID_ARGUMENT;
        }
        lanes = (int)v;
    }
    tp_solve_plan P = tp_solve_plan_make(H->bodies, H->capacity, lanes, (size_t)optin);
    if (P.block_bytes > (size_t)optin) {
        size_t per_world = 6 * (size_t)H->bodies * sizeof(float);
        snprintf(c->error, sizeof c->error,
                 "cuda: a world of %d bodies needs %zu bytes of shared memory per block for the solve stage (v and w, "
                 "24 bytes per body); this device allows %d bytes per block, so at most %d bodies per world on the "
                 "CUDA backend: use the CPU backend for this scene",
                 H->bodies, per_world, optin, optin / (int)(6 * sizeof(float)));
        return TP_ERR_CAPACITY;
    }
    c->solve_plan = P;
    /* The collide stage's listing (kernels/collide_pairs.h): its work areas in
     * shared memory, or in d.list_work (list_arrays) for worlds too large. */
    c->list_plan = tp_list_plan_make(H->bodies, 0, (size_t)optin);
    /* The attribute is the kernel's, for every batch of the process: set to
     * the device's limit, not to this batch's need, so a later batch with
     * smaller worlds does not lower it under an earlier one's launches. It is
     * a ceiling only; each launch asks for its own bytes. */
    TP_CUDA_TRY(c, tp_group_stages_allow_shared((size_t)optin), "cudaFuncSetAttribute (MaxDynamicSharedMemorySize)");
    return TP_OK;
}

/* The model's tables, once; the per-world state is written by the resets. */
static tp_status upload_model(tp_cuda_batch *c)
{
    for (int i = 0; i < c->array_count; ++i)
        if (c->arrays[i].upload)
            TP_CUDA_TRY(c, cudaMemcpyAsync(*c->arrays[i].device, c->arrays[i].host, c->arrays[i].bytes,
                                           cudaMemcpyHostToDevice, c->stream),
                        "upload of the model");
    TP_CUDA_TRY(c, cudaMemsetAsync(c->d.busy_count, 0, sizeof(int32_t), c->stream), "cudaMemsetAsync");
    TP_CUDA_TRY(c, tp_launch_sort_init(c->d, c->sort_items, c->stream), "launch of tp_sort_init_kernel");
    TP_CUDA_TRY(c, cudaStreamSynchronize(c->stream), "upload of the model");
    return TP_OK;
}

static tp_status setup(tp_cuda_batch *c, const tp_cuda_setup *s)
{
    c->d.L = s->host; /* sizes and settings; every pointer is replaced below */
    for (int k = 0; k < 3; ++k) c->d.gravity0[k] = s->gravity0[k];
    c->step = s->step;
    c->randomize = s->randomize;
    size_t items = (size_t)s->host.worlds * (size_t)s->host.capacity;
    if (items > (size_t)INT_MAX) {
        snprintf(c->error, sizeof c->error,
                 "cuda: %d worlds x %d contacts per world = %zu sort items, more than the contact sort takes (%d)",
                 s->host.worlds, s->host.capacity, items, INT_MAX);
        return TP_ERR_CAPACITY;
    }
    c->sort_items = (int)items;
    c->d.pair_slots = tp_pair_capacity(s->host.capacity);
    if ((size_t)s->host.worlds * (size_t)c->d.pair_slots > (size_t)INT_MAX) {
        snprintf(c->error, sizeof c->error, "cuda: %d worlds x %d pair slots per world is more than the narrowphase "
                 "launch takes (%d)", s->host.worlds, c->d.pair_slots, INT_MAX);
        return TP_ERR_CAPACITY;
    }
    c->host_polys = (tp_poly *)calloc((size_t)s->host.bodies > 0 ? (size_t)s->host.bodies : 1, sizeof(tp_poly));
    if (!c->host_polys) {
        snprintf(c->error, sizeof c->error, "cuda: out of host memory for %d polytopes", s->host.bodies);
        return TP_ERR_OUT_OF_MEMORY;
    }
    tp_build_body_polys(s->host.model, s->host.bodies, s->host.hulls, c->host_polys);
    /* CUB's temporary storage for the full-capacity sort, asked for once. */
    TP_CUDA_TRY(c, (cudaError_t)tp_cub_sort_pairs(NULL, &c->sort_temp_bytes, NULL, NULL, NULL, NULL, c->sort_items, NULL),
                "the contact sort's storage query (cub::DeviceRadixSort::SortPairs)");
    if (c->sort_temp_bytes == 0) c->sort_temp_bytes = 1;
    tp_status st = size_group_shared(c, &s->host);
    if (st != TP_OK) return st;
    list_arrays(c, s);
    if (c->array_count > TP_DEVICE_ARRAYS) {
        snprintf(c->error, sizeof c->error, "cuda: %d device arrays listed, room for %d (raise TP_DEVICE_ARRAYS)",
                 c->array_count, TP_DEVICE_ARRAYS);
        return TP_ERR_CAPACITY;
    }
    carve_counts(c);
    TP_CUDA_TRY(c, cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate");
    TP_CUDA_TRY(c, cudaStreamCreateWithFlags(&c->body_stream, cudaStreamNonBlocking), "cudaStreamCreate");
    st = allocate(c);
    if (st != TP_OK) return st;
    link_artic_model(c, s);
    pin_host_arrays(c);
    return upload_model(c);
}

extern "C" tp_status tp_cuda_create(const tp_cuda_setup *s, tp_cuda_batch **out, char *err, size_t err_size)
{
    *out = NULL;
    tp_cuda_batch *c = (tp_cuda_batch *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, err_size, "cuda: out of host memory");
        return TP_ERR_OUT_OF_MEMORY;
    }
    c->device = s->device;
    tp_status st = tp_cuda_use_device(c);
    if (st == TP_OK) st = setup(c, s);
    if (st != TP_OK) {
        snprintf(err, err_size, "%s", c->error);
        tp_cuda_destroy(c);
        return st;
    }
    *out = c;
    return TP_OK;
}

extern "C" tp_status tp_cuda_use_device(tp_cuda_batch *c)
{
    TP_CUDA_TRY(c, cudaSetDevice(c->device), "cudaSetDevice");
    return TP_OK;
}

extern "C" void tp_cuda_destroy(tp_cuda_batch *c)
{
    if (!c) return;
    cudaSetDevice(c->device); /* its memory and streams are that device's (a failure shows in the frees) */
    for (int i = 0; i < 2; ++i) {
        if (c->exec[i]) cudaGraphExecDestroy(c->exec[i]);
        if (c->graph[i]) cudaGraphDestroy(c->graph[i]);
    }
    for (int i = 0; i < c->array_count && i < TP_DEVICE_ARRAYS; ++i) {
        if (c->arrays[i].pinned) cudaHostUnregister((void *)c->arrays[i].host);
        if (*c->arrays[i].device && !c->arrays[i].carved) cudaFree(*c->arrays[i].device);
    }
    if (c->span_pinned) cudaHostUnregister((void *)c->span_host);
    if (c->span_device) cudaFree(c->span_device);
    tp_cuda_sensors_free(c);
    free(c->host_polys);
    if (c->body_stream) cudaStreamDestroy(c->body_stream);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c);
}

extern "C" int tp_cuda_arrays(const tp_cuda_batch *c, const tp_cuda_array **arrays)
{
    *arrays = c->mirrored;
    return c->mirrored_count;
}

extern "C" size_t tp_cuda_counts_span(const tp_cuda_batch *c, void **host, void **device)
{
    *host = (void *)c->span_host;
    *device = c->span_device;
    return c->span_device ? c->span_bytes : 0;
}

extern "C" size_t tp_cuda_device_bytes(const tp_cuda_batch *c)
{
    size_t total = 0;
    for (int i = 0; i < c->array_count && i < TP_DEVICE_ARRAYS; ++i) total += c->arrays[i].bytes; /* carved too */
    return total + c->sensor_bytes;
}

extern "C" tp_status tp_cuda_copy(void *ctx, void *dst, const void *src, size_t bytes, int to_device)
{
    tp_cuda_batch *c = (tp_cuda_batch *)ctx;
    TP_CUDA_TRY(c, cudaMemcpyAsync(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, c->stream),
                to_device ? "upload of host writes" : "download of the state");
    return TP_OK;
}

extern "C" tp_status tp_cuda_wait(void *ctx)
{
    tp_cuda_batch *c = (tp_cuda_batch *)ctx;
    TP_CUDA_TRY(c, cudaStreamSynchronize(c->stream), "synchronisation of a state copy");
    return TP_OK;
}
