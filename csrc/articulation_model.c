/* articulation_model.c - joints of a model: definitions, checks, compilation
 * into trees for kernels/articulation.h, and the model's joint queries. */
#include "articulation_host.h"
#include "error.h"
#include "model.h"
#include "names.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tp_joint_def tp_default_joint_def(void)
{
    tp_joint_def d;
    memset(&d, 0, sizeof d);
    d.type = TP_JOINT_REVOLUTE;
    d.parent = -1;
    d.child = -1;
    d.axis[2] = 1.0f;
    return d;
}


/* ---------------------------------------------------------------- checks */

static int is_one_dof(tp_joint_type t) { return t == TP_JOINT_REVOLUTE || t == TP_JOINT_PRISMATIC; }

/* The first of `n` settings that is not 0, or -1. */
static int first_set(const float *const *vals, int n)
{
    for (int i = 0; i < n; ++i)
        if (*vals[i] != 0.0f) return i;
    return -1;
}

/* Settings a joint type or drive does not use must stay at their defaults:
 * one given anyway would be silently ignored (kp without a drive leaves the
 * joint limp). The field named is the one that was set. */
static int check_unused(const tp_joint_def *d, char *field, size_t field_len, char *reason, size_t reason_len)
{
    const char *t = tp_joint_type_names[d->type];
    int k;
    if (!is_one_dof(d->type)) {
        if (d->has_limits) return CHECK_FAIL("limits", "a %s joint has no limits (only revolute and prismatic)", t);
        if (d->drive != TP_DRIVE_NONE) return CHECK_FAIL("drive", "a %s joint has no drive (only revolute and prismatic)", t);
        const float *drive[] = {&d->kp, &d->kd, &d->max_effort, &d->target_q, &d->target_qd, &d->ref};
        const char *drive_names[] = {"kp", "kd", "max_effort", "target_q", "target_qd"};
        if ((k = first_set(drive, 5)) >= 0)
            return CHECK_FAIL(drive_names[k], "a %s joint has no drive (only revolute and prismatic)", t);
        const float *spring[] = {&d->stiffness, &d->rest};
        const char *spring_names[] = {"stiffness", "rest"};
        if ((k = first_set(spring, 2)) >= 0)
            return CHECK_FAIL(spring_names[k], "a %s joint has no spring (only revolute and prismatic)", t);
        const float *start[] = {&d->q0, &d->qd0};
        const char *start_names[] = {"q0", "qd0"};
        if ((k = first_set(start, 2)) >= 0) return CHECK_FAIL(start_names[k], "a %s joint has no scalar q0 / qd0", t);
    } else if (d->drive == TP_DRIVE_NONE) {
        const float *gains[] = {&d->kp, &d->kd, &d->max_effort};
        const char *gain_names[] = {"kp", "kd", "max_effort"};
        if ((k = first_set(gains, 3)) >= 0)
            return CHECK_FAIL(gain_names[k], "has no effect without a drive; give \"drive\": \"position\" or \"velocity\"");
    } else if (d->drive == TP_DRIVE_VELOCITY) {
        const float *gains[] = {&d->kp, &d->kd};
        const char *gain_names[] = {"kp", "kd"};
        if ((k = first_set(gains, 2)) >= 0)
            return CHECK_FAIL(gain_names[k], "a velocity motor takes no kp or kd (it holds target_qd with at most "
                              "max_effort)");
    }
    if (d->type == TP_JOINT_FREE && (d->anchor[0] != 0.0f || d->anchor[1] != 0.0f || d->anchor[2] != 0.0f))
        return CHECK_FAIL("anchor", "a free joint has no anchor (its coordinates are the body origin and orientation)");
    if (d->type == TP_JOINT_FREE || d->type == TP_JOINT_FIXED) {
        const float *passive[] = {&d->damping, &d->friction, &d->armature};
        const char *passive_names[] = {"damping", "friction", "armature"};
        if ((k = first_set(passive, 3)) >= 0)
            return CHECK_FAIL(passive_names[k], "a %s joint has no damping, friction or armature", t);
    }
    return 1;
}

int tp_joint_def_check(const tp_joint_def *d, int body_count, char *field, size_t field_len, char *reason,
                       size_t reason_len)
{
    if ((unsigned)d->type >= TP_JOINT_TYPE_COUNT) return CHECK_FAIL("type", "unknown joint type %d", (int)d->type);
    if (d->child < 0 || d->child >= body_count)
        return CHECK_FAIL("child", "must be a body index in [0, %d), got %d", body_count, d->child);
    if (d->parent < -1 || d->parent >= body_count)
        return CHECK_FAIL("parent", "must be -1 (the world) or a body index in [0, %d), got %d", body_count, d->parent);
    if (d->parent == d->child) return CHECK_FAIL("parent", "a body cannot be its own parent");
    const float *vals[] = {d->axis, d->axis + 1, d->axis + 2, d->anchor, d->anchor + 1, d->anchor + 2, &d->q0,
                           &d->qd0, &d->lower, &d->upper, &d->damping, &d->friction, &d->armature, &d->stiffness,
                           &d->rest, &d->kp, &d->kd, &d->max_effort, &d->target_q, &d->target_qd};
    const char *names[] = {"axis[0]", "axis[1]", "axis[2]", "anchor[0]", "anchor[1]", "anchor[2]", "q0", "qd0",
                           "lower", "upper", "damping", "friction", "armature", "stiffness", "rest", "kp", "kd",
                           "max_effort", "target_q", "target_qd", "ref"};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; ++i)
        if (!isfinite(*vals[i])) return CHECK_FAIL(names[i], "must be a finite number, got %g", (double)*vals[i]);
    const float *bounded[] = {&d->q0, &d->rest, &d->target_q, &d->ref};
    const char *b_names[] = {"q0", "rest", "target_q", "ref"};
    for (int i = 0; i < 4; ++i)
        if (!(fabsf(*bounded[i]) <= TP_MAX_JOINT_Q))
            return CHECK_FAIL(b_names[i], "must be within [%g, %g] rad or m (TP_MAX_JOINT_Q), got %g",
                              -(double)TP_MAX_JOINT_Q, (double)TP_MAX_JOINT_Q, (double)*bounded[i]);
    const float *rates[] = {&d->qd0, &d->target_qd};
    const char *r_names[] = {"qd0", "target_qd"};
    for (int i = 0; i < 2; ++i)
        if (!(fabsf(*rates[i]) <= TP_MAX_JOINT_QD))
            return CHECK_FAIL(r_names[i], "must be within [%g, %g] rad/s or m/s (TP_MAX_JOINT_QD), got %g",
                              -(double)TP_MAX_JOINT_QD, (double)TP_MAX_JOINT_QD, (double)*rates[i]);
    for (int k = 0; k < 3; ++k)
        if (!(fabsf(d->anchor[k]) <= TP_MAX_SIZE)) {
            char path[32];
            snprintf(path, sizeof path, "anchor[%d]", k);
            return CHECK_FAIL(path, "must be within [%g, %g] m of the link's origin (docs/scene-format.md, \"Bounds\"), "
                              "got %g", -(double)TP_MAX_SIZE, (double)TP_MAX_SIZE, (double)d->anchor[k]);
        }
    /* any finite direction but all zeros: the compiler normalizes lengths from 1e-45 to 3e38 (axis_unit) */
    if (is_one_dof(d->type) && d->axis[0] == 0.0f && d->axis[1] == 0.0f && d->axis[2] == 0.0f)
        return CHECK_FAIL("axis", "must not be of zero length");
    if (d->has_limits && !(d->lower <= d->upper))
        return CHECK_FAIL("limits", "lower must be <= upper, got lower %g > upper %g", (double)d->lower, (double)d->upper);
    const float *nonneg[] = {&d->damping, &d->friction, &d->armature, &d->stiffness, &d->kp, &d->kd, &d->max_effort};
    const char *nn_names[] = {"damping", "friction", "armature", "stiffness", "kp", "kd", "max_effort"};
    for (int i = 0; i < 7; ++i)
        if (*nonneg[i] < 0.0f) return CHECK_FAIL(nn_names[i], "must be >= 0, got %g", (double)*nonneg[i]);
    if ((unsigned)d->drive > TP_DRIVE_VELOCITY) return CHECK_FAIL("drive", "unknown drive mode %d", (int)d->drive);
    if (d->drive == TP_DRIVE_VELOCITY && !(d->max_effort > 0.0f))
        return CHECK_FAIL("max_effort", "a velocity motor needs max_effort > 0, got %g", (double)d->max_effort);
    return check_unused(d, field, field_len, reason, reason_len);
}

/* Index of the joint whose child is `body`, or -1. */
static int joint_of_child(const tp_joint_def *defs, int count, int body)
{
    for (int i = 0; i < count; ++i)
        if (defs[i].child == body) return i;
    return -1;
}

int tp_joint_of_child(const tp_joint_def *defs, int count, int body) { return joint_of_child(defs, count, body); }

int tp_model_link_joint(const tp_model *m, int body)
{
    if (!m || !m->artic) return -1;
    return joint_of_child(m->artic->defs, m->artic->km.joint_count, body);
}

int tp_event_refused_on_link(tp_event_action a)
{
    return a == TP_EVENT_SET_VELOCITY || a == TP_EVENT_SET_ANGULAR_VELOCITY || a == TP_EVENT_TELEPORT ||
           a == TP_EVENT_REMOVE;
}

void tp_link_write_reason(char *reason, size_t reason_len, int body, const char *body_name, int joint,
                          const char *joint_name)
{
    snprintf(reason, reason_len,
             "body %d (%s) is the link of joints[%d] (%s), an articulation link: its pose and velocity follow "
             "joint_q and joint_qd; write those (tp_batch_set_joints), or apply a force or an impulse",
             body, body_name, joint, joint_name);
}

/* The checks of tp_joint_tree_check with of_child[body] (the first joint whose
 * child the body is, or -1) and state[joint] (0 unseen, 1 on the walk now,
 * 2 reaches the world) at hand: O(joints) in all, where a lookup per walk
 * step made a chain of n links cost n^3 (3000 links: 7.6 s to load). */
static int tree_check(const tp_joint_def *defs, int count, const tp_body_def *bodies, int *of_child, uint8_t *state,
                      int *joint, char *field, size_t field_len, char *reason, size_t reason_len)
{
    for (int i = count - 1; i >= 0; --i) of_child[defs[i].child] = i;
    for (int i = 0; i < count; ++i) {
        const tp_joint_def *d = &defs[i];
        *joint = i;
        int first = of_child[d->child];
        if (first != i) return CHECK_FAIL("child", "body %d is already the child of joints[%d]", d->child, first);
        if (bodies[d->child].type != TP_BODY_DYNAMIC)
            return CHECK_FAIL("child", "the link body %d must be dynamic (not static or kinematic)", d->child);
        if (d->type == TP_JOINT_FREE && d->parent != -1)
            return CHECK_FAIL("type", "a free joint must be the root of its tree (parent the world)");
        if (d->parent >= 0 && of_child[d->parent] < 0)
            return CHECK_FAIL("parent", "body %d is not a link (no joint has it as child); use the world for a base",
                         d->parent);
    }
    /* Only once every parent is known to be a link can the walk to the root
     * look up each parent's joint: before that, a joint whose ancestor has a
     * parent that is no link sent the walk to defs[-1]. A walk that meets a
     * joint of its own path is in a loop; one that meets a joint known to
     * reach the world stops there. */
    for (int i = 0; i < count; ++i) {
        *joint = i;
        int at = i;
        while (at >= 0 && state[at] == 0) {
            state[at] = 1;
            at = defs[at].parent >= 0 ? of_child[defs[at].parent] : -1;
        }
        if (at >= 0 && state[at] == 1)
            return CHECK_FAIL("parent", "the joints form a loop through body %d", defs[i].child);
        for (at = i; at >= 0 && state[at] == 1; at = defs[at].parent >= 0 ? of_child[defs[at].parent] : -1)
            state[at] = 2;
    }
    return 1;
}

int tp_joint_tree_check(const tp_joint_def *defs, int count, const tp_body_def *bodies, int body_count, int *joint,
                        char *field, size_t field_len, char *reason, size_t reason_len)
{
    *joint = 0;
    int *of_child = malloc(((size_t)body_count + 1) * sizeof *of_child);
    uint8_t *state = calloc((size_t)count + 1, 1);
    int ok = of_child && state;
    if (!ok) {
        CHECK_FAIL("joints", "out of memory checking %d joints", count);
    } else {
        for (int b = 0; b < body_count; ++b) of_child[b] = -1;
        ok = tree_check(defs, count, bodies, of_child, state, joint, field, field_len, reason, reason_len);
    }
    free(of_child);
    free(state);
    return ok;
}

/* ---------------------------------------------------------------- builder */

tp_status tp_artic_builder_add(tp_artic_builder *ab, int body_count, const tp_joint_def *def, int *out_index)
{
    if (!def) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_builder_add_joint: def is NULL");
    int index = ab->count;
    char field[64], reason[256];
    if (!tp_joint_def_check(def, body_count, field, sizeof field, reason, sizeof reason))
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "joints[%d] (%s): %s: %s", index, def->name ? def->name : "unnamed",
                       field, reason);
    char auto_name[32];
    snprintf(auto_name, sizeof auto_name, "joint%d", index);
    const char *name = def->name ? def->name : auto_name;
    if (name[0] == '\0') return tp_fail(TP_ERR_INVALID_ARGUMENT, "joints[%d]: name: must not be empty", index);
    for (int i = 0; i < ab->count; ++i)
        if (strcmp(ab->names[i], name) == 0)
            return tp_fail(TP_ERR_INVALID_ARGUMENT, "joints[%d]: name: \"%s\" is already the name of joints[%d]",
                           index, name, i);
    if (ab->count == ab->capacity) {
        int cap = ab->capacity ? 2 * ab->capacity : 16;
        tp_joint_def *defs = realloc(ab->defs, (size_t)cap * sizeof *defs);
        if (!defs) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_add_joint: out of memory");
        ab->defs = defs;
        char **names = realloc(ab->names, (size_t)cap * sizeof *names);
        if (!names) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_add_joint: out of memory");
        ab->names = names;
        ab->capacity = cap;
    }
    size_t n = strlen(name) + 1;
    char *copy = malloc(n);
    if (!copy) return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_builder_add_joint: out of memory");
    memcpy(copy, name, n);
    ab->defs[index] = *def;
    ab->defs[index].name = copy;
    ab->names[index] = copy;
    ab->count++;
    if (out_index) *out_index = index;
    return TP_OK;
}

void tp_artic_builder_free(tp_artic_builder *ab)
{
    for (int i = 0; i < ab->count; ++i) free(ab->names[i]);
    free(ab->names);
    free(ab->defs);
    tp_actuator_builder_free(ab);
    memset(ab, 0, sizeof *ab);
}


