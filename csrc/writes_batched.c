/* writes_batched.c - writes of many worlds in one call, per-world parameters,
 * episodes and resets by selection (include/torpor.h, "batched writes and
 * episodes").
 *
 * Each call runs in three passes, so that a bad value anywhere changes nothing:
 * check the selection and every value of every selected
 * row; make the selected worlds current on the host (a copy on CUDA, nothing on
 * the CPU); write. The writes are those of the single-body calls
 * (csrc/body_ops.c), body by body, so a batched write and the same single
 * writes give the same bits. */
#include "batch.h"

#include "articulation_host.h"
#include "batch_wake.h"
#include "body_ops.h"
#include "error.h"
#include "manifold.h" /* TP_CONTACT_MARGIN */

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- selections */

/* Rows of the data arrays of a selection. */
static int sel_rows(const tp_batch *b, const tp_world_select *s)
{
    return s && s->indices ? s->count : b->worlds;
}

/* World of row r, or -1 if the row is not selected (a mask's 0). */
static int sel_world(const tp_world_select *s, int r)
{
    if (!s) return r;
    if (s->indices) return s->indices[r];
    return !s->mask || s->mask[r] ? r : -1;
}

/* What tp_world_list(NULL, count) and tp_world_mask(NULL) point at: an empty
 * list (count 0) selects no world; a NULL list of count != 0 and a NULL mask
 * are marked here for check_select to refuse (NULL itself would select every
 * world, and a stand-in array would be read past its one element). */
static const int32_t empty_list[1], null_list[1];
static const uint8_t null_mask[1];

tp_world_select tp_world_list(const int32_t *indices, int count)
{
    tp_world_select s = {indices ? indices : count == 0 ? empty_list : null_list, count, NULL};
    return s;
}

tp_world_select tp_world_mask(const uint8_t *mask)
{
    tp_world_select s = {NULL, 0, mask ? mask : null_mask};
    return s;
}

/* A selection made by tp_world_list(NULL, count != 0) or tp_world_mask(NULL). */
static tp_status check_null_select(const tp_world_select *s, const char *call)
{
    if (s->indices == null_list)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: select.indices is NULL with count %d (tp_world_list(NULL, %d)); "
                       "give the indices, or count 0 for no world; nothing was changed", call, s->count, s->count);
    if (s->mask == null_mask)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: select.mask is NULL (tp_world_mask(NULL)); give a mask of one "
                       "byte per world, or a NULL selection for every world; nothing was changed", call);
    return TP_OK;
}

/* An index list must name each world once, in range; a list and a mask are
 * not both given; tp_world_list(NULL, count != 0) and tp_world_mask(NULL) are
 * refused. */
static tp_status check_select(tp_batch *b, const tp_world_select *s, const char *call)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    tp_status null_st = s ? check_null_select(s, call) : TP_OK;
    if (null_st) return null_st;
    if (s && s->indices && s->mask)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: select gives both indices and mask; give one (or neither: "
                       "every world); nothing was changed", call);
    if (!s || !s->indices) return TP_OK;
    if (s->count < 0) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: select.count must be >= 0, got %d", call, s->count);
    tp_status st = TP_OK;
    int i = 0;
    for (; i < s->count && st == TP_OK; ++i) {
        int w = s->indices[i];
        if (w < 0 || w >= b->worlds)
            st = tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: select.indices[%d] = %d out of range [0, %d); nothing was changed",
                         call, i, w, b->worlds);
        else if (b->world_mark[w])
            st = tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: select.indices[%d] = %d names world %d a second time; nothing "
                         "was changed", call, i, w, w);
        else
            b->world_mark[w] = 1;
    }
    for (int j = 0; j < i; ++j) /* clear what this call marked (the scratch is all 0 between calls) */
        if (s->indices[j] >= 0 && s->indices[j] < b->worlds) b->world_mark[s->indices[j]] = 0;
    return st;
}

/* Every value of the selected rows of `data` ([rows][n]) is finite and in
 * [lo, hi]. */
static tp_status check_values(const tp_batch *b, const tp_world_select *s, const float *data, int n, float lo, float hi,
                              const char *call, const char *name)
{
    if (!data) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", call, name);
    int rows = sel_rows(b, s);
    for (int r = 0; r < rows; ++r) {
        if (sel_world(s, r) < 0) continue;
        const float *x = data + (size_t)r * (size_t)n;
        for (int i = 0; i < n; ++i) {
            if (isfinite(x[i]) && x[i] >= lo && x[i] <= hi) continue;
            char range[64] = "";
            if (isfinite(lo) || isfinite(hi)) snprintf(range, sizeof range, " and within [%g, %g]", (double)lo, (double)hi);
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s[%d][%d] (world %d) must be finite%s, got %g; nothing was "
                           "changed", call, name, r, i, sel_world(s, r), range, (double)x[i]);
        }
    }
    return TP_OK;
}

/* A [rows][B][k] vector array: finite everywhere. */
static tp_status check_vectors(const tp_batch *b, const tp_world_select *s, const float *data, int k, const char *call,
                               const char *name)
{
    return check_values(b, s, data, b->bodies * k, -INFINITY, INFINITY, call, name);
}

/* Quaternions [rows][B][4]: finite and none zero. */
static tp_status check_quats(const tp_batch *b, const tp_world_select *s, const float *quat, const char *call)
{
    tp_status st = check_vectors(b, s, quat, 4, call, "quat");
    if (st) return st;
    int rows = sel_rows(b, s);
    for (int r = 0; r < rows; ++r) {
        if (sel_world(s, r) < 0) continue;
        for (int i = 0; i < b->bodies; ++i) {
            const float *q = quat + 4 * ((size_t)r * (size_t)b->bodies + (size_t)i);
            if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f)
                return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: quat[%d][%d] (world %d) is the zero quaternion; nothing "
                               "was changed", call, r, i, sel_world(s, r));
        }
    }
    return TP_OK;
}

/* Make every selected world current on the host before it is written. */
static tp_status begin_writes(tp_batch *b, const tp_world_select *s)
{
    if (!s || (!s->indices && !s->mask)) return tp_batch_begin_write(b, 0, b->worlds - 1);
    int rows = sel_rows(b, s);
    for (int r = 0; r < rows; ++r) {
        int w = sel_world(s, r);
        tp_status st = w < 0 ? TP_OK : tp_batch_begin_write(b, w, w);
        if (st) return st;
    }
    return TP_OK;
}

/* Body i of world w takes writes: present, and dynamic or kinematic unless
 * `any_type`. */
static int writable(const tp_batch *b, size_t k, int i, int any_type)
{
    return !(b->flags[k] & TP_FLAG_REMOVED) && (any_type || b->model->bodies[i].type != TP_BODY_STATIC);
}

static int is_zero3(const float *v) { return v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.0f; }

/* Row r, body i of a [rows][B][k] array. */
static const float *at(const tp_batch *b, const float *data, int r, int i, int k)
{
    return data + (size_t)k * ((size_t)r * (size_t)b->bodies + (size_t)i);
}

/* ---------------------------------------------------------------- forces, impulses */

/* What to do with one body's vector row. */
typedef enum { APPLY_FORCE, APPLY_TORQUE, APPLY_IMPULSE } apply_kind;

static tp_status apply_one(tp_batch *b, apply_kind kind, int w, int i, const float *x, const float *point)
{
    if (kind == APPLY_FORCE) return tp_op_add_force(b, w, i, x, point);
    if (kind == APPLY_TORQUE) return tp_op_add_torque(b, w, i, x);
    return tp_op_add_impulse(b, w, i, x, point);
}

static tp_status apply_rows(tp_batch *b, const tp_world_select *s, apply_kind kind, const float *x, const float *point,
                            const char *call, const char *name)
{
    tp_status st;
    if ((st = check_select(b, s, call)) || (st = check_vectors(b, s, x, 3, call, name)) ||
        (point && (st = check_vectors(b, s, point, 3, call, "point"))) || (st = begin_writes(b, s)))
        return st;
    int rows = sel_rows(b, s);
    for (int r = 0; r < rows; ++r) {
        int w = sel_world(s, r);
        if (w < 0) continue;
        for (int i = 0; i < b->bodies; ++i) {
            size_t k = (size_t)w * (size_t)b->bodies + (size_t)i;
            const float *xi = at(b, x, r, i, 3);
            if (is_zero3(xi) || !writable(b, k, i, 0)) continue; /* a zero force is no wake event */
            if ((st = apply_one(b, kind, w, i, xi, point ? at(b, point, r, i, 3) : NULL))) return st;
        }
    }
    return TP_OK;
}

tp_status tp_batch_apply_forces(tp_batch *b, const tp_world_select *s, const float *force, const float *point)
{
    return apply_rows(b, s, APPLY_FORCE, force, point, "tp_batch_apply_forces", "force");
}

tp_status tp_batch_apply_torques(tp_batch *b, const tp_world_select *s, const float *torque)
{
    return apply_rows(b, s, APPLY_TORQUE, torque, NULL, "tp_batch_apply_torques", "torque");
}

tp_status tp_batch_apply_impulses(tp_batch *b, const tp_world_select *s, const float *impulse, const float *point)
{
    return apply_rows(b, s, APPLY_IMPULSE, impulse, point, "tp_batch_apply_impulses", "impulse");
}

/* ---------------------------------------------------------------- poses, velocities */

static int differs(const float *a, const float *b, int n)
{
    for (int i = 0; i < n; ++i)
        if (a[i] != b[i]) return 1;
    return 0;
}

/* Articulation links' rows (worlds current on the host): a link's pose and
 * velocity follow its tree's joint_q / joint_qd, so a row that would change
 * one is refused, naming it; a row equal to the link's present value (a state
 * array read back and written as it is) is skipped. */
static tp_status check_link_rows(const tp_batch *b, const tp_world_select *s, const float *pos, const float *quat,
                                 const float *v, const float *w, const char *call)
{
    if (!b->artic) return TP_OK;
    int rows = sel_rows(b, s);
    for (int r = 0; r < rows; ++r) {
        int wd = sel_world(s, r);
        if (wd < 0) continue;
        for (int i = 0; i < b->bodies; ++i) {
            size_t k = (size_t)wd * (size_t)b->bodies + (size_t)i;
            if (!b->model->bodies[i].link || (b->flags[k] & TP_FLAG_REMOVED)) continue;
            const char *what = NULL;
            if (pos && differs(at(b, pos, r, i, 3), b->pos + 3 * k, 3)) what = "pos";
            else if (quat && differs(at(b, quat, r, i, 4), b->quat + 4 * k, 4)) what = "quat";
            else if (v && differs(at(b, v, r, i, 3), b->v + 3 * k, 3)) what = "v";
            else if (w && differs(at(b, w, r, i, 3), b->w + 3 * k, 3)) what = "w";
            if (what)
                return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: %s[%d][%d] (world %d): body %d (%s) is an articulation "
                               "link (the child of joint \"%s\"): its pose and velocity follow the tree's joint "
                               "coordinates; write joint_q / joint_qd with tp_batch_set_joints (a row equal to the "
                               "link's present value is accepted and skipped); nothing was changed", call, what, r, i,
                               wd, i, b->model->body_names[i], tp_model_joint_name(b->model, tp_model_link_joint(b->model, i)));
        }
    }
    return TP_OK;
}

/* Write poses (if pos) and velocities (if v or w; the other keeps its value)
 * of the selected rows, waking each body written. Values checked by the caller. */
static tp_status write_state(tp_batch *b, const tp_world_select *s, const float *pos, const float *quat,
                             const float *v, const float *w)
{
    int rows = sel_rows(b, s);
    for (int r = 0; r < rows; ++r) {
        int wd = sel_world(s, r);
        if (wd < 0) continue;
        for (int i = 0; i < b->bodies; ++i) {
            size_t k = (size_t)wd * (size_t)b->bodies + (size_t)i;
            tp_status st = TP_OK;
            if (!writable(b, k, i, 0) || b->model->bodies[i].link) continue; /* links: check_link_rows */
            if (pos) st = tp_op_set_pose(b, wd, i, at(b, pos, r, i, 3), at(b, quat, r, i, 4));
            if (!st && (v || w))
                st = tp_op_set_velocity(b, wd, i, v ? at(b, v, r, i, 3) : b->v + 3 * k, w ? at(b, w, r, i, 3) : b->w + 3 * k);
            if (st) return st;
        }
    }
    return TP_OK;
}

tp_status tp_batch_set_poses(tp_batch *b, const tp_world_select *s, const float *pos, const float *quat)
{
    const char *call = "tp_batch_set_poses";
    tp_status st;
    if ((st = check_select(b, s, call)) || (st = check_vectors(b, s, pos, 3, call, "pos")) ||
        (st = check_quats(b, s, quat, call)) || (st = begin_writes(b, s)) ||
        (st = check_link_rows(b, s, pos, quat, NULL, NULL, call)))
        return st;
    return write_state(b, s, pos, quat, NULL, NULL);
}

tp_status tp_batch_set_velocities(tp_batch *b, const tp_world_select *s, const float *v, const float *w)
{
    const char *call = "tp_batch_set_velocities";
    tp_status st;
    if ((st = check_select(b, s, call)) || (st = check_vectors(b, s, v, 3, call, "v")) ||
        (st = check_vectors(b, s, w, 3, call, "w")) || (st = begin_writes(b, s)) ||
        (st = check_link_rows(b, s, NULL, NULL, v, w, call)))
        return st;
    return write_state(b, s, NULL, NULL, v, w);
}

/* ---------------------------------------------------------------- per-world parameters */

tp_status tp_batch_set_gravities(tp_batch *b, const tp_world_select *s, const float *g)
{
    const char *call = "tp_batch_set_gravities";
    tp_status st;
    if ((st = check_select(b, s, call)) || (st = check_values(b, s, g, 3, -500.0f, 500.0f, call, "gravity")) ||
        (st = begin_writes(b, s)))
        return st;
    int rows = sel_rows(b, s);
    for (int r = 0; r < rows; ++r) {
        int w = sel_world(s, r);
        if (w < 0) continue;
        float *gw = b->gravity + 3 * w;
        const float *gr = g + 3 * (size_t)r;
        if (gw[0] == gr[0] && gw[1] == gr[1] && gw[2] == gr[2]) continue; /* no change, no wake */
        memcpy(gw, gr, 3 * sizeof(float));
        tp_wake_world(b, w); /* a change of gravity wakes everything in the world */
    }
    return TP_OK;
}

/* Set the mass scale of link `body` in world w (kernel order from the body);
 * a changed one wakes its tree. */
static void set_link_scale(tp_batch *b, int w, int body, float value)
{
    const tp_artic_model *km = &b->model->artic->km;
    float *scale = b->artic->link_scale + (size_t)w * (size_t)km->joint_count + (b->model->bodies[body].link - 1);
    if (*scale == value) return;
    *scale = value;
    tp_wake_trees(b, w);
}

tp_status tp_batch_set_mass_scales(tp_batch *b, const tp_world_select *s, const float *scale)
{
    const char *call = "tp_batch_set_mass_scales";
    tp_status st;
    /* the bounds of randomize.mass_scale: within them a scaled mass keeps its inverse finite */
    if ((st = check_select(b, s, call)) ||
        (st = check_values(b, s, scale, b->bodies, TP_MIN_MASS_SCALE, TP_MAX_MASS_SCALE, call, "scale")) ||
        (st = begin_writes(b, s)))
        return st;
    int rows = sel_rows(b, s);
    for (int r = 0; r < rows; ++r) {
        int w = sel_world(s, r);
        if (w < 0) continue;
        for (int i = 0; i < b->bodies; ++i) {
            size_t k = (size_t)w * (size_t)b->bodies + (size_t)i;
            const tp_body_init *t = &b->model->body_init[i];
            if (b->model->bodies[i].link && writable(b, k, i, 0)) { /* the tree integrates with it */
                set_link_scale(b, w, i, scale[(size_t)r * (size_t)b->bodies + (size_t)i]);
                continue;
            }
            if (!t->dynamic || !writable(b, k, i, 0)) continue;
            /* the same operations as the randomized draw (kernels/world_init.h),
             * so writing a drawn scale back gives the drawn bits */
            float inv_scale = 1.0f / scale[(size_t)r * (size_t)b->bodies + (size_t)i];
            float inv_mass = t->inv_mass * inv_scale;
            if (inv_mass == b->inv_mass[k] && t->inv_inertia[0] * inv_scale == b->inv_inertia[6 * k]) continue;
            b->inv_mass[k] = inv_mass;
            for (int c = 0; c < 6; ++c) b->inv_inertia[6 * k + c] = t->inv_inertia[c] * inv_scale;
            tp_wake_body(b, w, i);
        }
    }
    return TP_OK;
}

tp_status tp_batch_set_frictions(tp_batch *b, const tp_world_select *s, const float *friction)
{
    const char *call = "tp_batch_set_frictions";
    tp_status st;
    if ((st = check_select(b, s, call)) ||
        (st = check_values(b, s, friction, b->bodies, 0.0f, INFINITY, call, "friction")) || (st = begin_writes(b, s)))
        return st;
    int rows = sel_rows(b, s);
    for (int r = 0; r < rows; ++r) {
        int w = sel_world(s, r);
        if (w < 0) continue;
        for (int i = 0; i < b->bodies; ++i) {
            size_t k = (size_t)w * (size_t)b->bodies + (size_t)i;
            float f = friction[(size_t)r * (size_t)b->bodies + (size_t)i];
            if (!writable(b, k, i, 1) || b->friction[k] == f) continue; /* no change, no wake */
            b->friction[k] = f;
            if (b->model->bodies[i].type == TP_BODY_DYNAMIC)
                tp_wake_body(b, w, i);
            else /* in no island: wake what may touch it (as a removal does) */
                tp_wake_sphere(b, w, b->pos + 3 * k, b->model->bodies[i].bound_radius + TP_CONTACT_MARGIN);
        }
    }
    return TP_OK;
}

/* ---------------------------------------------------------------- episodes and resets */

tp_status tp_batch_episodes(const tp_batch *b, uint32_t *out)
{
    if (!b || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_episodes: batch or out is NULL");
    memcpy(out, b->episode, (size_t)b->worlds * sizeof(uint32_t));
    return TP_OK;
}

/* Reset the selected worlds (selection checked by the caller). */
static tp_status reset_selected(tp_batch *b, const tp_world_select *s)
{
    if (s && s->indices) return tp_op_reset_unique_worlds(b, s->indices, s->count); /* checked: each once */
    int n = 0;
    for (int w = 0; w < b->worlds; ++w)
        if (sel_world(s, w) >= 0) b->world_list[n++] = w;
    return tp_op_reset_unique_worlds(b, b->world_list, n);
}

tp_status tp_batch_reset_worlds(tp_batch *b, const tp_world_select *s)
{
    tp_status st = check_select(b, s, "tp_batch_reset_worlds");
    return st ? st : reset_selected(b, s);
}

tp_status tp_batch_reset_to_state(tp_batch *b, const tp_world_select *s, const float *pos, const float *quat,
                                  const float *v, const float *w)
{
    const char *call = "tp_batch_reset_to_state";
    tp_status st;
    if ((st = check_select(b, s, call)) || (st = check_vectors(b, s, pos, 3, call, "pos")) ||
        (st = check_quats(b, s, quat, call)) || (v && (st = check_vectors(b, s, v, 3, call, "v"))) ||
        (w && (st = check_vectors(b, s, w, 3, call, "w"))))
        return st;
    if ((st = reset_selected(b, s)) || (st = begin_writes(b, s))) return st;
    /* (a reset world is all awake with its timers at 0: the writes' wakes change nothing) */
    return write_state(b, s, pos, quat, v, w);
}

/* ---------------------------------------------------------------- selections for other writers */

int tp_select_rows(const tp_batch *b, const tp_world_select *s) { return sel_rows(b, s); }
int tp_select_world(const tp_world_select *s, int r) { return sel_world(s, r); }
tp_status tp_select_check(tp_batch *b, const tp_world_select *s, const char *call) { return check_select(b, s, call); }
tp_status tp_select_begin_writes(tp_batch *b, const tp_world_select *s) { return begin_writes(b, s); }
