/* mjcf_keyframes.c - MJCF's <keyframe>: every <key> as a torpor keyframe
 * (docs/import.md, docs/scene-format.md "Keyframes"). */
#include "mjcf_model.h"

#include <stdlib.h>
#include <string.h>

/* MuJoCo's qpos0 of joint j (MJCF's joint frame: the body as the file places it). */
static void joint_qpos0(const mjcf *m, const mj_joint *j, double *qpos)
{
    if (j->type == J_HINGE || j->type == J_SLIDE) {
        qpos[0] = j->ref;
    } else if (j->type == J_BALL) {
        qpos[0] = 1, qpos[1] = qpos[2] = qpos[3] = 0;
    } else {
        const fr_pose *p = &m->bodies[j->body].world;
        memcpy(qpos, p->pos, 3 * sizeof *qpos);
        qpos[3] = p->quat[3], qpos[4] = p->quat[0], qpos[5] = p->quat[1], qpos[6] = p->quat[2];
    }
}

/* Joint j's MuJoCo qpos / qvel as torpor's joint_q / joint_qd (docs/import.md):
 * 1-dof positions less ref; quaternions w x y z to x y z w; a free joint's
 * origin velocity (world) and body-frame angular velocity turned into the
 * centre-of-mass velocity and the angular velocity in the world frame. */
static void joint_state(const mjcf *m, const mj_joint *j, const double *qpos, const double *qvel, double *q, double *qd)
{
    if (j->type == J_HINGE || j->type == J_SLIDE) {
        q[0] = qpos[0] - j->ref;
        qd[0] = qvel[0];
        return;
    }
    int at = j->type == J_FREE ? 3 : 0; /* the quaternion's place */
    memcpy(q, qpos, (size_t)at * sizeof *q);
    q[at] = qpos[at + 1], q[at + 1] = qpos[at + 2], q[at + 2] = qpos[at + 3], q[at + 3] = qpos[at];
    if (j->type == J_BALL) {
        memcpy(qd, qvel, 3 * sizeof *qd);
        return;
    }
    double r[4] = {q[3], q[4], q[5], q[6]}, w[3], c[3];
    fq_normalize(r);
    fq_rotate(r, qvel + 3, w);
    fq_rotate(r, m->bodies[j->body].com, c);
    qd[0] = qvel[0] + w[1] * c[2] - w[2] * c[1];
    qd[1] = qvel[1] + w[2] * c[0] - w[0] * c[2];
    qd[2] = qvel[2] + w[0] * c[1] - w[1] * c[0];
    memcpy(qd + 3, w, sizeof w);
}

/* A <key>: its name (MuJoCo's keys may have none: "key<index>") and its joint
 * state and controls in torpor's layout (the joints in MJCF's order, which the
 * scene's joints keep: it is also torpor's joint_q order). */
static int read_key(mjcf *m, xmlNodePtr node, int index, int nq, int nv)
{
    mjcf_check_attrs(m, node, "name time qpos qvel act ctrl mpos mquat");
    static const char *const ignored[] = {"time", "act", "mpos", "mquat"};
    static const char *const why[] = {"a reset starts at time 0 s", "torpor's actuators have no activation state",
                                      "torpor has no mocap bodies", "torpor has no mocap bodies"};
    for (int i = 0; i < 4; ++i) {
        char *v = xi_attr(node, ignored[i]);
        if (v) xi_warn(m->x, "key", "%s ignored (%s)", ignored[i], why[i]);
        xmlFree(v);
    }
    mj_key k;
    memset(&k, 0, sizeof k);
    char *name = xi_attr(node, "name");
    char auto_name[32];
    snprintf(auto_name, sizeof auto_name, "key%d", index);
    k.name = mjcf_dup_or(name, auto_name);
    xmlFree(name);
    double *qpos = calloc((size_t)nq + 1, sizeof *qpos), *qvel = calloc((size_t)nv + 1, sizeof *qvel);
    k.q = calloc((size_t)nq + 1, sizeof *k.q);
    k.qd = calloc((size_t)nv + 1, sizeof *k.qd);
    k.ctrl = calloc((size_t)m->act_count + 1, sizeof *k.ctrl);
    int ok = k.name && qpos && qvel && k.q && k.qd && k.ctrl, got_q = 0, got_c = 0;
    if (!ok) xi_oom(m->x);
    if (ok && nq) ok = mjcf_get_nums(m, node, -1, 0, "qpos", qpos, nq, &got_q);
    if (ok && nv) ok = mjcf_get_nums(m, node, -1, 0, "qvel", qvel, nv, NULL);
    if (ok && m->act_count) ok = mjcf_get_nums(m, node, -1, 0, "ctrl", k.ctrl, m->act_count, &got_c);
    for (int i = 0, iq = 0, iv = 0; ok && i < m->joint_count; iq += mjcf_nq_of(m->joints[i].type), iv += mjcf_nv_of(m->joints[i].type), ++i) {
        if (!got_q) joint_qpos0(m, &m->joints[i], qpos + iq);
        joint_state(m, &m->joints[i], qpos + iq, qvel + iv, k.q + iq, k.qd + iv);
    }
    k.has_ctrl = got_c;
    free(qpos);
    free(qvel);
    if (ok && !mjcf_grow_array((void **)&m->keys, m->key_count, sizeof *m->keys)) ok = xi_oom(m->x);
    if (ok) m->keys[m->key_count++] = k;
    else free(k.name), free(k.q), free(k.qd), free(k.ctrl);
    return ok;
}

int mjcf_read_keyframe(mjcf *m, xmlNodePtr node)
{
    int nq = 0, nv = 0;
    for (int i = 0; i < m->joint_count; ++i) nq += mjcf_nq_of(m->joints[i].type), nv += mjcf_nv_of(m->joints[i].type);
    for (xmlNodePtr c = node->children; c; c = c->next)
        if (xi_is(c, "key")) {
            if (!read_key(m, c, m->key_count, nq, nv)) return 0;
        } else if (c->type == XML_ELEMENT_NODE) {
            return xi_fail(m->x, c, NULL, "element not supported in <keyframe>");
        }
    return 1;
}
