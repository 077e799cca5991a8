/* articulation_world.c - a batch's joint, actuator, link-scale and robot
 * parameter arrays: creation, a world's reset (with its robot randomization)
 * and an impulse on a link. The public joint calls are csrc/articulation_batch.c. */
#include "articulation_host.h"
#include "articulation_impulse.h"
#include "batch.h"
#include "error.h"

#include <stddef.h>
#include <stdlib.h>

static const tp_artic_host *host_of(const tp_batch *b) { return b->model->artic; }

/* The actuator arrays into a and the layout: the controls ctrl [W][nu] (held
 * until written), the actuator and limit forces per dof [W][nv]; a world's
 * reset zeroes them (kernels/articulation_reset.h). 0 on out of memory. */
static int actuators_create(tp_batch *b, tp_artic_batch *a)
{
    const tp_artic_model *km = &b->model->artic->km;
    size_t W = (size_t)b->worlds;
    a->ctrl = calloc(W * (size_t)km->actuator_count + 1, sizeof(float));
    a->act_f = calloc(W * (size_t)km->nv + 1, sizeof(float));
    a->limit_f = calloc(W * (size_t)km->nv + 1, sizeof(float));
    if (!a->ctrl || !a->act_f || !a->limit_f) return 0;
    b->layout.ctrl = km->actuator_count > 0 ? a->ctrl : NULL;
    b->layout.actuator_f = a->act_f;
    b->layout.limit_f = a->limit_f;
    return 1;
}

/* The link mass scales [W][J] (kernel order), all 1 until a reset draws
 * them, and the link COM offsets [W][J][3], all 0 (csrc/link_coms.c). */
static int link_scales_create(tp_batch *b, tp_artic_batch *a)
{
    int J = b->model->artic->km.joint_count;
    size_t n = (size_t)b->worlds * (size_t)J;
    a->link_scale = malloc((n + 1) * sizeof(float));
    a->link_com = calloc(3 * n + 1, sizeof(float));
    if (!a->link_scale || !a->link_com) return 0;
    for (size_t i = 0; i < n; ++i) a->link_scale[i] = 1.0f;
    b->layout.link_scale = a->link_scale;
    b->layout.link_com = a->link_com;
    b->layout.link_count = J;
    return 1;
}

/* The robot parameters [W][J][TP_AJP_COUNT] and [W][nu] (csrc/robot_params.c);
 * each reset sets them (kernels/robot_randomize.h). 0 on out of memory. */
static int params_create(tp_batch *b, tp_artic_batch *a)
{
    const tp_artic_model *km = &b->model->artic->km;
    size_t W = (size_t)b->worlds;
    a->joint_params = malloc((W * (size_t)km->joint_count * TP_AJP_COUNT + 1) * sizeof(float));
    a->actuator_params = malloc((W * (size_t)km->actuator_count + 1) * sizeof(tp_artic_actuator));
    if (!a->joint_params || !a->actuator_params) return 0;
    b->layout.joint_params = a->joint_params;
    b->layout.actuator_params = km->actuator_count > 0 ? a->actuator_params : NULL;
    return 1;
}

tp_status tp_artic_batch_create(tp_batch *b)
{
    const tp_artic_host *h = host_of(b);
    if (!h) return TP_OK;
    tp_artic_batch *a = calloc(1, sizeof *a);
    if (!a) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_batch_create: out of memory for the joint arrays");
    b->artic = a;
    size_t W = (size_t)b->worlds, nq = (size_t)h->km.nq, nv = (size_t)h->km.nv;
    a->q = calloc(W * nq + 1, sizeof(float)); /* + 1: a tree of fixed joints has no coordinates */
    a->qd = calloc(W * nv + 1, sizeof(float));
    a->f = calloc(W * nv + 1, sizeof(float));
    a->target_q = calloc(W * nv + 1, sizeof(float));
    a->target_qd = calloc(W * nv + 1, sizeof(float));
    /* link points: the batch's, or 8 per link + 16 (a box link on the ground
     * has a manifold of 4), never more than the contact capacity */
    a->km = h->km;
    int points = b->link_point_capacity > 0 ? b->link_point_capacity : 8 * h->km.joint_count + 16;
    a->km.point_capacity = points < b->contact_capacity ? points : b->contact_capacity;
    /* one scratch block per CPU thread, 64-byte aligned so threads share no cache line */
    a->scratch_bytes = (tp_artic_scratch_bytes(&a->km, b->contact_capacity) + 63u) & ~(size_t)63u;
    a->scratch = aligned_alloc(64, (size_t)b->threads * a->scratch_bytes);
    if (!(a->q && a->qd && a->f && a->target_q && a->target_qd && a->scratch && actuators_create(b, a) &&
          link_scales_create(b, a) && params_create(b, a)))
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_batch_create: out of memory for the joint arrays (%d worlds, %d "
                                             "threads with %zu bytes of scratch each)", b->worlds, b->threads, a->scratch_bytes);
    tp_layout *L = &b->layout;
    L->artic = &a->km;
    L->joint_q = a->q;
    L->joint_qd = a->qd;
    L->joint_f = a->f;
    L->joint_target_q = a->target_q;
    L->joint_target_qd = a->target_qd;
    L->artic_scratch = NULL; /* the CPU's are per thread (csrc/step.c); the CUDA backend gives each world one */
    L->artic_scratch_bytes = a->scratch_bytes;
    return TP_OK;
}

size_t tp_artic_batch_bytes_per_world(const tp_batch *b)
{
    if (!b->artic) return 0;
    const tp_artic_model *km = &host_of(b)->km;
    size_t params = b->artic->joint_params ? (size_t)km->joint_count * TP_AJP_COUNT * sizeof(float) +
                                                 (size_t)km->actuator_count * sizeof(tp_artic_actuator)
                                           : 0;
    return ((size_t)km->nq + 6 * (size_t)km->nv + (size_t)km->actuator_count + 4 * (size_t)km->joint_count) * sizeof(float) +
           params;
}

size_t tp_artic_batch_shared_bytes(const tp_batch *b)
{
    return b->artic ? (size_t)b->threads * b->artic->scratch_bytes : 0;
}

char *tp_artic_batch_scratch(tp_batch *b, int t)
{
    return b->artic->scratch + (size_t)t * b->artic->scratch_bytes;
}

void tp_artic_batch_destroy(tp_batch *b)
{
    tp_artic_batch *a = b->artic;
    if (!a) return;
    void *arrays[] = {a->q, a->qd, a->f, a->target_q, a->target_qd, a->ctrl, a->act_f, a->limit_f, a->link_scale, a->link_com, a->joint_params,
                      a->actuator_params, a->scratch};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) free(arrays[i]);
    free(a);
    b->artic = NULL;
}

tp_artic_world tp_artic_batch_world(tp_batch *b, int w)
{
    tp_artic_batch *a = b->artic;
    tp_artic_world s = tp_artic_world_at(&host_of(b)->km, a->q, a->qd, a->f, a->target_q, a->target_qd, w);
    tp_artic_world_actuators(&host_of(b)->km, &s, a->ctrl, a->act_f, a->limit_f, w);
    tp_artic_world_link_scales(&host_of(b)->km, &s, a->link_scale, w);
    tp_artic_world_link_coms(&host_of(b)->km, &s, a->link_com, w);
    tp_artic_world_params(&host_of(b)->km, &s, a->joint_params, a->actuator_params, w);
    return s;
}

void tp_artic_batch_publish(tp_batch *b, int w)
{
    tp_artic_world s = tp_artic_batch_world(b, w);
    tp_world wd = tp_batch_world(b, w);
    tp_artic_world_publish(&host_of(b)->km, &s, &wd, tp_artic_batch_scratch(b, 0));
}

void tp_artic_batch_impulse(tp_batch *b, int w, int body, const float p[3], const float point[3], const float L[3])
{
    tp_artic_world s = tp_artic_batch_world(b, w);
    tp_vec3 zero = tp_v3(0.0f, 0.0f, 0.0f);
    tp_artic_apply_impulse(&host_of(b)->km, &s, tp_artic_batch_scratch(b, 0),
                           b->model->bodies[body].link - 1, p ? tp_v3_load(p) : zero, point ? tp_v3_load(point) : zero,
                           point == NULL, L ? tp_v3_load(L) : zero);
    tp_artic_batch_publish(b, w);
}

void tp_artic_batch_init_world(tp_batch *b, int w)
{
    const tp_artic_host *h = host_of(b);
    if (!h || !b->artic) return;
    tp_artic_initial init = tp_artic_batch_initial(b); /* with the robot randomization of this episode */
    tp_world wd = tp_batch_world(b, w);
    tp_artic_reset_in_layout(&b->layout, &init, w, b->episode[w], &wd, tp_artic_batch_scratch(b, 0));
}
