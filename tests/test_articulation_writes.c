/* test_articulation_writes.c - writes that reach an articulation link: an
 * impulse acts on the tree with its true response (checked against the
 * closed-form angular velocity of a hinged rod and the momentum change of a
 * free-floating chain), and writes of a link's pose or velocity are refused,
 * with nothing half-changed in a batched write. */
#include "helpers.h"

#include <math.h>
#include <stdio.h>

#define ROD_LEN 1.0
#define ROD_W 0.1
#define DT (1.0 / 60.0)

/* A 1 kg box rod of ROD_W x ROD_W x ROD_LEN hanging along -z below `top`. */
static tp_body_def rod_def(float x, float top, const char *name)
{
    tp_body_def bd = tp_default_body_def();
    bd.name = name;
    bd.size[0] = (float)ROD_W;
    bd.size[1] = (float)ROD_W;
    bd.size[2] = (float)ROD_LEN;
    bd.mass = 1.0f;
    bd.pos[0] = x;
    bd.pos[2] = top - 0.5f * (float)ROD_LEN;
    return bd;
}

/* A hinge about x at the top end of `child`. */
static tp_joint_def hinge(int parent, int child, const char *name)
{
    tp_joint_def j = tp_default_joint_def();
    j.name = name;
    j.type = TP_JOINT_REVOLUTE;
    j.parent = parent;
    j.child = child;
    j.axis[0] = 1.0f;
    j.axis[2] = 0.0f;
    j.anchor[2] = 0.5f * (float)ROD_LEN;
    return j;
}

static void add_joint(tp_builder *b, const tp_joint_def *j)
{
    cr_assert_eq(tp_builder_add_joint(b, j, NULL), TP_OK, "%s", tp_last_error());
}

/* Moment of inertia of the rod about its hinge (x axis at the top end), kg m^2. */
static double rod_pivot_inertia(void) { return (ROD_W * ROD_W + ROD_LEN * ROD_LEN) / 12.0 + 0.25 * ROD_LEN * ROD_LEN; }

static float joint_qd0(tp_batch *b, int world)
{
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK, "%s", tp_last_error());
    return v.qd[(size_t)world * (size_t)v.nv];
}

/* A rod hinged at height 2 (zero gravity), optionally sleep enabled. */
static tp_model *pendulum_model(int sleep)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = 0.0f;
    md.sleep.enabled = sleep;
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = rod_def(0.0f, 2.0f, "rod");
    int rod = builder_add(b, &bd);
    tp_joint_def j = hinge(-1, rod, "pivot");
    add_joint(b, &j);
    return builder_finish(b);
}

/* ---------------------------------------------------------------- impulses */

/* An impulse p along +y at the tip (d = 1 m below the hinge) of the rod at
 * rest: angular impulse about the hinge r x p = +p d about x, so
 * qd = p d / I_hinge; at the centre of mass (d = 0.5 m) p d / I; an angular
 * impulse L about x gives L / I. The COM then moves at qd x 0.5 m along +y. */
Test(articulation_writes, impulse_on_a_pendulum_gives_p_d_over_i)
{
    tp_model *m = pendulum_model(0);
    tp_batch *bt = make_batch(m, 1, 1);
    const double I = rod_pivot_inertia(), p = 0.5;
    const float imp[3] = {0.0f, (float)p, 0.0f}, tip[3] = {0.0f, 0.0f, 1.0f};
    cr_assert_eq(tp_batch_apply_impulse(bt, 0, 0, imp, tip), TP_OK, "%s", tp_last_error());
    double want = p * 1.0 / I; /* 1.4963 rad/s */
    float qd = joint_qd0(bt, 0);
    cr_assert(fabs(qd - want) < 1e-5 * want, "tip impulse: qd %.7f, expected p d / I = %.7f", qd, want);
    tp_state_view s = batch_view(bt);
    cr_assert(fabs(s.v[1] - 0.5 * want) < 1e-5 * want, "published COM velocity %.7f, expected %.7f", s.v[1],
              0.5 * want);
    cr_assert(fabs(s.w[0] - want) < 1e-5 * want, "published w %.7f, expected %.7f", s.w[0], want);
    /* zero gravity, no damping: the rod keeps turning at that rate through a step */
    batch_steps(bt, 1);
    qd = joint_qd0(bt, 0);
    cr_assert(fabs(qd - want) < 1e-4 * want, "after a step: qd %.7f, expected %.7f", qd, want);
    /* a second impulse at the centre of mass, now turned by q about x: its arm
     * about the hinge is 0.5 cos q, so qd changes by p 0.5 cos q / I */
    tp_joint_view jv;
    cr_assert_eq(tp_batch_joints(bt, &jv), TP_OK);
    double q = jv.q[0], dq = p * 0.5 * cos(q) / I;
    cr_assert_gt(q, 0.02, "the rod did not turn (q = %g)", q);
    cr_assert_eq(tp_batch_apply_impulse(bt, 0, 0, imp, NULL), TP_OK, "%s", tp_last_error());
    float qd2 = joint_qd0(bt, 0);
    cr_assert(fabs((qd2 - qd) - dq) < 1e-5 * want, "COM impulse: qd changed by %.7f, expected %.7f", qd2 - qd, dq);
    /* an angular impulse about x adds L / I; one about z (along the rod, the hinge cannot turn that way) nothing */
    const float L[3] = {0.2f, 0.0f, 0.0f}, Lz[3] = {0.0f, 0.0f, 0.3f};
    cr_assert_eq(tp_batch_apply_angular_impulse(bt, 0, 0, L), TP_OK, "%s", tp_last_error());
    float qd3 = joint_qd0(bt, 0);
    cr_assert(fabs((qd3 - qd2) - 0.2 / I) < 1e-5 * want, "angular impulse: qd changed by %.7f, expected %.7f",
              qd3 - qd2, 0.2 / I);
    cr_assert_eq(tp_batch_apply_angular_impulse(bt, 0, 0, Lz), TP_OK, "%s", tp_last_error());
    cr_assert(fabsf(joint_qd0(bt, 0) - qd3) < 1e-6f, "an angular impulse about the rod turned the hinge");
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* The same impulse through the batched write (a mask selecting world 1 of 2,
 * all bodies' rows) acts on world 1 only; on a sleeping tree it wakes it. */
Test(articulation_writes, batched_impulse_wakes_and_moves_a_sleeping_tree)
{
    tp_model *m = pendulum_model(1);
    tp_batch *bt = make_batch(m, 2, 1);
    for (int w = 0; w < 2; ++w) cr_assert_eq(tp_batch_sleep(bt, w, 0), TP_OK, "%s", tp_last_error());
    tp_state_view s = batch_view(bt);
    cr_assert_eq(s.sleep_state[1], TP_SLEEPING);
    const double I = rod_pivot_inertia(), p = -0.25;
    float imp[2][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, (float)p, 0.0f}}, pt[2][3] = {{0}, {0.0f, 0.0f, 1.0f}};
    uint8_t mask[2] = {0, 1};
    tp_world_select sel = {NULL, 0, mask};
    imp[0][1] = 5.0f; /* unselected row: not read */
    cr_assert_eq(tp_batch_apply_impulses(bt, &sel, &imp[0][0], &pt[0][0]), TP_OK, "%s", tp_last_error());
    s = batch_view(bt);
    cr_assert_eq(s.sleep_state[1], TP_AWAKE, "the impulse did not wake the tree");
    cr_assert_eq(s.sleep_state[0], TP_SLEEPING, "world 0 was not selected");
    cr_assert_eq(joint_qd0(bt, 0), 0.0f);
    double want = p / I;
    cr_assert(fabs(joint_qd0(bt, 1) - want) < 1e-5 * fabs(want), "qd %.7f, expected %.7f", joint_qd0(bt, 1), want);
    batch_steps(bt, 1);
    cr_assert(fabs(joint_qd0(bt, 1) - want) < 1e-4 * fabs(want), "after a step: qd %.7f, expected %.7f",
              joint_qd0(bt, 1), want);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* Linear momentum and angular momentum about the world origin of every body
 * (boxes: centre of mass at the origin of the body, principal axes along its frame). */
static void momentum(const tp_model *m, const tp_state_view *s, double p[3], double l[3])
{
    for (int a = 0; a < 3; ++a) p[a] = l[a] = 0.0;
    for (int i = 0; i < s->bodies; ++i) {
        float mass, in[3];
        cr_assert_eq(tp_model_body_mass(m, i, &mass, in), TP_OK);
        const float *v = s->v + 3 * i, *w = s->w + 3 * i, *q = s->quat + 4 * i, *c = s->pos + 3 * i;
        double x = q[0], y = q[1], z = q[2], cw = q[3];
        double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - cw * z), 2 * (x * z + cw * y)},
                          {2 * (x * y + cw * z), 1 - 2 * (x * x + z * z), 2 * (y * z - cw * x)},
                          {2 * (x * z - cw * y), 2 * (y * z + cw * x), 1 - 2 * (x * x + y * y)}};
        double wl[3], hw[3];
        for (int a = 0; a < 3; ++a) wl[a] = (r[0][a] * w[0] + r[1][a] * w[1] + r[2][a] * w[2]) * in[a];
        for (int a = 0; a < 3; ++a) hw[a] = r[a][0] * wl[0] + r[a][1] * wl[1] + r[a][2] * wl[2];
        double mv[3] = {mass * (double)v[0], mass * (double)v[1], mass * (double)v[2]};
        for (int a = 0; a < 3; ++a) p[a] += mv[a];
        l[0] += hw[0] + c[1] * mv[2] - c[2] * mv[1];
        l[1] += hw[1] + c[2] * mv[0] - c[0] * mv[2];
        l[2] += hw[2] + c[0] * mv[1] - c[1] * mv[0];
    }
}

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* A free-floating chain (free box, ball-jointed rod, hinged rod) at rest in
 * zero gravity, struck on the last rod at a point off its axis: the chain's
 * linear momentum changes by the impulse P and its angular momentum about the
 * world origin by x x P (Newton's laws for the whole system: the joints'
 * forces are internal), at once and after the steps that follow. */
Test(articulation_writes, impulse_on_a_free_chain_changes_momentum_by_the_impulse)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = 0.0f;
    md.sleep.enabled = 0;
    tp_builder *b = builder_begin(&md);
    tp_body_def base = tp_default_body_def();
    base.size[0] = 0.4f; base.size[1] = 0.3f; base.size[2] = 0.2f;
    base.mass = 2.0f;
    int b0 = builder_add(b, &base);
    tp_body_def r1 = rod_def(0.0f, -0.1f, "r1"), r2 = rod_def(0.0f, -1.1f, "r2");
    r2.mass = 0.5f;
    int b1 = builder_add(b, &r1), b2 = builder_add(b, &r2);
    tp_joint_def jf = tp_default_joint_def();
    jf.type = TP_JOINT_FREE;
    jf.child = b0;
    add_joint(b, &jf);
    tp_joint_def jb = tp_default_joint_def();
    jb.type = TP_JOINT_BALL;
    jb.parent = b0;
    jb.child = b1;
    jb.anchor[2] = 0.5f;
    add_joint(b, &jb);
    tp_joint_def jh = hinge(b1, b2, "knee");
    jh.q0 = 0.4f;
    add_joint(b, &jh);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    tp_state_view s = batch_view(bt);
    double p0[3], l0[3], p[3], l[3];
    momentum(m, &s, p0, l0);
    cr_assert_lt(norm3(p0) + norm3(l0), 1e-9, "the chain is not at rest");
    /* 0.05 m off the rod's axis at its centre */
    const float *c2 = s.pos + 3 * b2;
    float x[3] = {c2[0] + 0.05f, c2[1], c2[2]};
    const float P[3] = {0.3f, 0.7f, -0.2f};
    cr_assert_eq(tp_batch_apply_impulse(bt, 0, b2, P, x), TP_OK, "%s", tp_last_error());
    double dl[3] = {(double)x[1] * P[2] - (double)x[2] * P[1], (double)x[2] * P[0] - (double)x[0] * P[2],
                    (double)x[0] * P[1] - (double)x[1] * P[0]};
    for (int step = 0; step <= 30; step += 10) {
        if (step) batch_steps(bt, 10);
        s = batch_view(bt);
        momentum(m, &s, p, l);
        for (int a = 0; a < 3; ++a) {
            cr_assert(fabs(p[a] - P[a]) < 1e-4, "step %d: linear momentum[%d] %.7f, expected %.7f", step, a, p[a],
                      (double)P[a]);
            cr_assert(fabs(l[a] - dl[a]) < 2e-4, "step %d: angular momentum[%d] %.7f, expected x x P = %.7f", step,
                      a, l[a], dl[a]);
        }
    }
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- pose and velocity writes */

/* A hinged rod (body 0, joint "pivot") and a free cube (body 1) under gravity. */
static tp_model *rod_and_cube_model(void)
{
    tp_model_def md = tp_default_model_def();
    md.sleep.enabled = 0;
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = rod_def(0.0f, 2.0f, "rod");
    int rod = builder_add(b, &bd);
    tp_body_def cube = tp_default_body_def();
    cube.name = "cube";
    cube.pos[0] = 3.0f;
    cube.pos[2] = 5.0f;
    builder_add(b, &cube);
    tp_joint_def j = hinge(-1, rod, "pivot");
    j.q0 = 0.3f;
    add_joint(b, &j);
    return builder_finish(b);
}

static void expect_link_refusal(tp_status st, const char *call)
{
    cr_assert_eq(st, TP_ERR_INVALID_ARGUMENT, "%s accepted a write of a link", call);
    const char *e = tp_last_error();
    cr_assert(strstr(e, call) && strstr(e, "rod") && strstr(e, "articulation link") && strstr(e, "pivot") &&
              strstr(e, "joint_q") && strstr(e, "nothing was changed"), "message: %s", e);
}

Test(articulation_writes, single_pose_and_velocity_writes_of_a_link_are_refused)
{
    tp_model *m = rod_and_cube_model();
    tp_batch *bt = make_batch(m, 1, 1);
    batch_steps(bt, 3);
    uint64_t before = batch_state_hash(bt);
    const float pos[3] = {0.0f, 0.0f, 1.0f}, quat[4] = {0.0f, 0.0f, 0.0f, 1.0f}, v[3] = {1.0f, 0.0f, 0.0f};
    expect_link_refusal(tp_batch_set_pose(bt, 0, 0, pos, quat), "tp_batch_set_pose");
    expect_link_refusal(tp_batch_set_velocity(bt, 0, 0, v, v), "tp_batch_set_velocity");
    cr_assert_eq(batch_state_hash(bt), before, "a refused write changed the state");
    /* the cube still takes them */
    cr_assert_eq(tp_batch_set_velocity(bt, 0, 1, v, v), TP_OK, "%s", tp_last_error());
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

Test(articulation_writes, batched_writes_refuse_a_changed_link_row_and_change_nothing)
{
    tp_model *m = rod_and_cube_model();
    const int W = 2, B = 2;
    tp_batch *bt = make_batch(m, W, 1);
    batch_steps(bt, 3);
    tp_state_view s = batch_view(bt);
    float pos[2 * 2 * 3], quat[2 * 2 * 4], v[2 * 2 * 3], w[2 * 2 * 3];
    memcpy(pos, s.pos, sizeof pos);
    memcpy(quat, s.quat, sizeof quat);
    memcpy(v, s.v, sizeof v);
    memcpy(w, s.w, sizeof w);
    uint64_t before = batch_state_hash(bt);
    /* the state read back, written as it is: accepted, nothing changes */
    cr_assert_eq(tp_batch_set_poses(bt, NULL, pos, quat), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_velocities(bt, NULL, v, w), TP_OK, "%s", tp_last_error());
    cr_assert_eq(batch_state_hash(bt), before);
    /* world 0's cube moved (a good row) and world 1's rod moved (refused): nothing changes */
    pos[3 * (0 * B + 1) + 2] += 1.0f;
    float rod_y = pos[3 * (1 * B + 0) + 1];
    pos[3 * (1 * B + 0) + 1] += 0.1f;
    expect_link_refusal(tp_batch_set_poses(bt, NULL, pos, quat), "tp_batch_set_poses");
    cr_assert(strstr(tp_last_error(), "pos[1][0] (world 1)"), "%s", tp_last_error());
    v[3 * (0 * B + 1)] = 2.0f;
    w[3 * (1 * B + 0) + 2] = 1.0f;
    expect_link_refusal(tp_batch_set_velocities(bt, NULL, v, w), "tp_batch_set_velocities");
    cr_assert(strstr(tp_last_error(), "w[1][0] (world 1)"), "%s", tp_last_error());
    cr_assert_eq(batch_state_hash(bt), before, "a refused batched write changed the state");
    /* with the link rows as they are, the cube's rows are written */
    pos[3 * (1 * B + 0) + 1] = rod_y;
    cr_assert_eq(tp_batch_set_poses(bt, NULL, pos, quat), TP_OK, "%s", tp_last_error());
    s = batch_view(bt);
    cr_assert_eq(s.pos[3 * (0 * B + 1) + 2], pos[3 * (0 * B + 1) + 2]);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* A scripted event that would set a link's velocity or pose is refused when
 * the model is built; an impulse event on a link is accepted and acts on the
 * tree (p d / I at the tip, as above, when it fires). */
Test(articulation_writes, events_setting_a_link_are_refused_impulses_act)
{
    tp_event_action bad[3] = {TP_EVENT_SET_VELOCITY, TP_EVENT_SET_ANGULAR_VELOCITY, TP_EVENT_TELEPORT};
    for (int k = 0; k < 3; ++k) {
        tp_model_def md = tp_default_model_def();
        tp_builder *b = builder_begin(&md);
        tp_body_def bd = rod_def(0.0f, 2.0f, "rod");
        int rod = builder_add(b, &bd);
        tp_joint_def j = hinge(-1, rod, "pivot");
        add_joint(b, &j);
        tp_event_def e = tp_default_event_def();
        e.time = 0.1;
        e.action = bad[k];
        e.body = rod;
        e.value[1] = 1.0f;
        e.pos[2] = 1.0f;
        cr_assert_eq(tp_builder_add_event(b, &e), TP_OK, "%s", tp_last_error());
        tp_model *m = NULL;
        cr_assert_eq(tp_builder_finish(b, &m), TP_ERR_INVALID_ARGUMENT, "event %s on a link accepted",
                     tp_event_action_name(bad[k]));
        cr_assert(strstr(tp_last_error(), "event 0") && strstr(tp_last_error(), "articulation link"), "%s",
                  tp_last_error());
        tp_builder_destroy(b);
    }
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = 0.0f;
    md.sleep.enabled = 0;
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = rod_def(0.0f, 2.0f, "rod");
    int rod = builder_add(b, &bd);
    tp_joint_def j = hinge(-1, rod, "pivot");
    add_joint(b, &j);
    tp_event_def e = tp_default_event_def();
    e.time = 0.0;
    e.action = TP_EVENT_IMPULSE; /* at the centre of mass, 0.5 m below the hinge */
    e.body = rod;
    e.value[1] = 0.4f;
    cr_assert_eq(tp_builder_add_event(b, &e), TP_OK, "%s", tp_last_error());
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    batch_steps(bt, 1);
    double want = 0.4 * 0.5 / rod_pivot_inertia();
    cr_assert(fabs(joint_qd0(bt, 0) - want) < 1e-4 * want, "qd %.7f after the impulse event, expected %.7f",
              joint_qd0(bt, 0), want);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}
