/* test_articulation_contact.c - contacts on articulation links, solved with the
 * tree's response (kernels/articulation_contact.h), against values derived by
 * hand: the support force under a hinged rod (torque balance about the
 * hinge), a ball striking a hinged rod (angular momentum about the hinge and
 * the inelastic impact's closed form), a link that cannot pass through the
 * ground, colored vs serial propagation, determinism. */
#include "coloring.h"
#include "helpers.h"

#include <math.h>
#include <stdio.h>

#define G 9.81
#define ROD_L 1.0 /* m, along x */
#define ROD_W 0.1 /* m, y and z */
#define ROD_M 1.0 /* kg */
#define HINGE_Z 1.0
#define BALL_D 0.1 /* m */
#define PI 3.14159265358979323846

/* Moment of inertia of the rod about the hinge's y axis at its end (kg m^2). */
static double rod_hinge_inertia(void) { return ROD_M * (ROD_L * ROD_L + ROD_W * ROD_W) / 12.0 + ROD_M * 0.25 * ROD_L * ROD_L; }

static tp_model_def contact_def(float gz, int serial)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = gz;
    md.sleep.enabled = 0;
    md.solver.mode = serial ? TP_SOLVER_SERIAL : TP_SOLVER_COLORED;
    return md;
}

/* A 1 kg rod of ROD_L x ROD_W x ROD_W lying along +x from a hinge about y at
 * (0, 0, HINGE_Z), horizontal at q = 0 (q > 0 turns its free end down).
 * Returns the rod's body index. */
static int add_hinged_rod(tp_builder *b, float friction, float q0)
{
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = (float)ROD_L;
    bd.size[1] = bd.size[2] = (float)ROD_W;
    bd.mass = (float)ROD_M;
    bd.friction = friction;
    bd.pos[0] = 0.5f * (float)ROD_L;
    bd.pos[2] = (float)HINGE_Z;
    int rod = builder_add(b, &bd);
    tp_joint_def j = tp_default_joint_def();
    j.type = TP_JOINT_REVOLUTE;
    j.parent = -1;
    j.child = rod;
    j.axis[0] = 0.0f;
    j.axis[1] = 1.0f;
    j.axis[2] = 0.0f;
    j.anchor[0] = -0.5f * (float)ROD_L;
    j.q0 = q0;
    cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    return rod;
}

static int add_ball(tp_builder *b, tp_body_type type, float x, float z, float vz, float friction)
{
    tp_body_def bd = tp_default_body_def();
    bd.type = type;
    bd.shape = TP_SHAPE_BALL;
    bd.size[0] = bd.size[1] = bd.size[2] = (float)BALL_D;
    bd.pos[0] = x;
    bd.pos[2] = z;
    bd.vel[2] = vz;
    bd.friction = friction;
    return builder_add(b, &bd);
}

static int add_ground(tp_builder *b)
{
    tp_body_def bd = tp_default_body_def();
    bd.type = TP_BODY_STATIC;
    bd.size[0] = bd.size[1] = 10.0f;
    bd.size[2] = 1.0f;
    bd.pos[2] = -0.5f;
    return builder_add(b, &bd);
}

static float joint_value(tp_batch *b, int qd)
{
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK, "%s", tp_last_error());
    return qd ? v.qd[0] : v.q[0];
}

/* ---------------------------------------------------------------- resting support */

/* The rod rests horizontally on a static ball whose top touches its underside
 * at x = d. Torque balance about the hinge (the hinge's reaction has no
 * moment there): F d = m g L/2, so F = m g L / (2 d) (6.13125 N at d = 0.8),
 * and the rod's contact force is all vertical (the normal is vertical, no
 * tangential load at rest). */
static void rod_on_support(int serial)
{
    const double d = 0.8;
    tp_model_def md = contact_def(-(float)G, serial);
    tp_builder *b = builder_begin(&md);
    int rod = add_hinged_rod(b, 0.6f, 0.0f);
    add_ball(b, TP_BODY_STATIC, (float)d, (float)(HINGE_Z - 0.5 * ROD_W - 0.5 * BALL_D), 0.0f, 0.6f);
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    const double expected = ROD_M * G * 0.5 * ROD_L / d;
    for (int step = 0; step < 120; ++step) {
        batch_steps(batch, 1);
        if (step < 30) continue; /* let the first contact settle (0.5 s) */
        tp_state_view s = batch_view(batch);
        const float *f = s.contact_f + 3 * rod;
        cr_assert(fabs(f[2] - expected) < 0.01 * expected, "step %d: support force %.5f N, expected %.5f N", step,
                  f[2], expected);
        cr_assert(fabs(f[0]) < 0.01 * expected && fabs(f[1]) < 0.01 * expected, "step %d: sideways force %g %g N",
                  step, f[0], f[1]);
    }
    /* it rests: the hinge angle stays within the slop of the contact (0.5 mm at d) */
    cr_assert(fabs(joint_value(batch, 0)) < 1e-3, "rod turned to q = %g rad", joint_value(batch, 0));
    cr_assert(fabs(joint_value(batch, 1)) < 1e-3, "rod still moving at %g rad/s", joint_value(batch, 1));
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

Test(articulation_contact, rod_on_support_carries_static_force) { rod_on_support(0); }
Test(articulation_contact, rod_on_support_serial) { rod_on_support(1); }

/* ---------------------------------------------------------------- impact */

/* Zero gravity: a frictionless ball (m_b, diameter BALL_D) falls at u onto the
 * horizontal rod at x = d, restitution 0. The hinge's reaction has no moment
 * about the hinge, so the y angular momentum about it is conserved:
 *   m_b u d = I w + m_b v d,
 * and after an inelastic impact the ball moves with the rod's point under it,
 * v = w d, so w = m_b u d / (I + m_b d^2) (1.2518 rad/s for u = 2 m/s,
 * d = 0.8, m_b = 0.5236 kg; the rod as a free body would instead take the impulse with its own
 * mass, and pinned, none of it). */
static void ball_hits_rod(int serial, double *w_out, double *v_out)
{
    const double d = 0.8, u = 2.0;
    tp_model_def md = contact_def(0.0f, serial);
    tp_builder *b = builder_begin(&md);
    int rod = add_hinged_rod(b, 0.0f, 0.0f);
    int ball = add_ball(b, TP_BODY_DYNAMIC, (float)d, (float)(HINGE_Z + 0.5 * ROD_W + 0.5 * BALL_D + 0.05),
                        -(float)u, 0.0f);
    (void)rod;
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    const double mb = 1000.0 * PI / 6.0 * BALL_D * BALL_D * BALL_D /* density x ball volume */;
    const double I = rod_hinge_inertia();
    const double L0 = mb * u * d;
    int hit = -1;
    for (int step = 0; step < 12; ++step) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        double w = joint_value(batch, 1);
        const float *bp = s.pos + 3 * ball, *bv = s.v + 3 * ball;
        /* y angular momentum about the hinge (0, 0, HINGE_Z): (r x v)_y = r_z v_x - r_x v_z */
        double L = I * w + mb * ((bp[2] - HINGE_Z) * bv[0] - bp[0] * bv[2]);
        cr_assert(fabs(L - L0) < 2e-3 * L0, "step %d: angular momentum %.6f, expected %.6f", step, L, L0);
        if (hit < 0 && w > 0.0) hit = step;
        if (hit >= 0 && step == hit + 1) {
            *w_out = w;
            *v_out = -bv[2];
        }
    }
    cr_assert(hit >= 0 && hit < 10, "the ball never struck the rod");
    double w_expected = mb * u * d / (I + mb * d * d);
    cr_assert(fabs(*w_out - w_expected) < 0.01 * w_expected, "rod angular velocity %.5f, expected %.5f", *w_out,
              w_expected);
    /* the ball moves on with the rod's point under it (the contact point is
     * at the ball's x, d; the rod has turned by well under a degree) */
    cr_assert(fabs(*v_out - w_expected * d) < 0.01 * w_expected * d, "ball speed %.5f, expected %.5f", *v_out,
              w_expected * d);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

Test(articulation_contact, ball_pushes_hinged_rod_with_tree_response)
{
    double w, v;
    ball_hits_rod(0, &w, &v);
}

Test(articulation_contact, colored_and_serial_agree_on_the_impact)
{
    double w0, v0, w1, v1;
    ball_hits_rod(0, &w0, &v0);
    ball_hits_rod(1, &w1, &v1);
    /* one constraint in the world: both modes solve the same rows in the same order */
    cr_assert(w0 == w1 && v0 == v1, "colored %.9g %.9g, serial %.9g %.9g", w0, v0, w1, v1);
}

/* The brief's case with a cube: a free 0.1 m cube (1 kg, friction 0.6) falls
 * flat at 2 m/s onto the hinged rod at x = 0.8, zero gravity. Its four
 * corner points share the impact in a way that depends on the solver, but no
 * contact or friction impulse between cube and rod, and no hinge reaction,
 * has a moment about the hinge's y axis that is not cancelled: the y angular
 * momentum about the hinge, I w + m (r x v)_y + I_c w_c,y, stays at its start
 * value m u d = 1.6 kg m^2/s through the impact and after it, and the rod
 * turns its free end down. */
Test(articulation_contact, cube_dropped_on_hinged_rod_keeps_angular_momentum)
{
    const double d = 0.8, u = 2.0, mc = 1.0, side = 0.1;
    tp_model_def md = contact_def(0.0f, 0);
    tp_builder *b = builder_begin(&md);
    add_hinged_rod(b, 0.6f, 0.0f);
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = bd.size[1] = bd.size[2] = (float)side;
    bd.pos[0] = (float)d;
    bd.pos[2] = (float)(HINGE_Z + 0.5 * ROD_W + 0.5 * side + 0.05);
    bd.vel[2] = -(float)u;
    int cube = builder_add(b, &bd);
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    const double I = rod_hinge_inertia(), Ic = mc * side * side / 6.0, L0 = mc * u * d;
    double w = 0.0;
    for (int step = 0; step < 20; ++step) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        w = joint_value(batch, 1);
        const float *p = s.pos + 3 * cube, *v = s.v + 3 * cube, *wc = s.w + 3 * cube;
        double L = I * w + mc * ((p[2] - HINGE_Z) * v[0] - p[0] * v[2]) + Ic * wc[1];
        cr_assert(fabs(L - L0) < 2e-3 * L0, "step %d: angular momentum %.6f, expected %.6f", step, L, L0);
    }
    cr_assert(w > 0.5, "the cube did not push the rod down (w = %g rad/s)", w);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* Restitution on a link row: a ball of restitution 1 (the pair takes the
 * larger of the two) dropped from 1 m onto the hinged rod right above the
 * static support that holds the rod up. The rod cannot give way there, so the
 * ball must come back to its drop height as from the ground (docs/solver.md:
 * C15 holds that to 1 %). */
Test(articulation_contact, ball_bounces_off_a_supported_link)
{
    const double d = 0.8, drop = 1.0;
    tp_model_def md = contact_def(-(float)G, 0);
    tp_builder *b = builder_begin(&md);
    add_hinged_rod(b, 0.6f, 0.0f);
    add_ball(b, TP_BODY_STATIC, (float)d, (float)(HINGE_Z - 0.5 * ROD_W - 0.5 * BALL_D), 0.0f, 0.6f);
    tp_body_def bd = tp_default_body_def();
    bd.shape = TP_SHAPE_BALL;
    bd.size[0] = bd.size[1] = bd.size[2] = (float)BALL_D;
    bd.restitution = 1.0f;
    bd.pos[0] = (float)d;
    const double rest_z = HINGE_Z + 0.5 * ROD_W + 0.5 * BALL_D;
    bd.pos[2] = (float)(rest_z + drop);
    int ball = builder_add(b, &bd);
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    double apex = -1.0, prev_v = 0.0;
    int bounced = 0;
    for (int step = 0; step < 120; ++step) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        double z = s.pos[3 * ball + 2], v = s.v[3 * ball + 2];
        if (v > 0.0) bounced = 1;
        if (bounced && prev_v > 0.0 && v <= 0.0 && apex < 0.0) apex = z - rest_z;
        prev_v = v;
    }
    cr_assert(apex > 0.0, "the ball never bounced");
    cr_assert(fabs(apex - drop) < 0.01 * drop, "bounced to %.5f m, expected %.5f m", apex, drop);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* Friction on a link row: a 0.1 m cube (friction 0.5 on both, so mu = 0.5)
 * slides at 1 m/s along the horizontal hinged rod, which rests on its static
 * support (the cube's load presses it on harder, so it stays put). It
 * decelerates at mu g = 4.905 m/s^2, as on the ground. */
Test(articulation_contact, cube_slides_on_a_link_with_coulomb_friction)
{
    const double mu = 0.5;
    tp_model_def md = contact_def(-(float)G, 0);
    tp_builder *b = builder_begin(&md);
    add_hinged_rod(b, (float)mu, 0.0f);
    add_ball(b, TP_BODY_STATIC, 0.8f, (float)(HINGE_Z - 0.5 * ROD_W - 0.5 * BALL_D), 0.0f, 0.6f);
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = bd.size[1] = bd.size[2] = 0.1f;
    bd.friction = (float)mu;
    bd.pos[0] = 0.3f;
    bd.pos[2] = (float)(HINGE_Z + 0.5 * ROD_W + 0.05);
    bd.vel[0] = 1.0f;
    int cube = builder_add(b, &bd);
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    batch_steps(batch, 3); /* the first contact settles */
    tp_state_view s = batch_view(batch);
    double v0 = s.v[3 * cube];
    batch_steps(batch, 6);
    s = batch_view(batch);
    double v1 = s.v[3 * cube], a = (v0 - v1) / (6.0 / 60.0);
    cr_assert(v1 > 0.1, "the cube stopped too early (%g m/s)", v1);
    cr_assert(fabs(a - mu * G) < 0.01 * mu * G, "deceleration %.5f m/s^2, expected %.5f", a, mu * G);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* Joint limits and contacts in one solve: the hinged rod has the limits
 * [-1, 0] rad (it cannot turn its free end below horizontal) and a 1 kg cube
 * rests on it at x = 0.9 m. The limit row carries the rod and the cube's
 * moment about the hinge, the contact row the cube: the rod stays at the limit
 * (issue 14: violation < 0.01 rad at rest) and the cube weighs 9.81 N on it. */
Test(articulation_contact, limit_and_contact_share_the_load)
{
    tp_model_def md = contact_def(-(float)G, 0);
    tp_builder *b = builder_begin(&md);
    tp_body_def rod = tp_default_body_def();
    rod.size[0] = (float)ROD_L;
    rod.size[1] = rod.size[2] = (float)ROD_W;
    rod.mass = (float)ROD_M;
    rod.pos[0] = 0.5f * (float)ROD_L;
    rod.pos[2] = (float)HINGE_Z;
    int r = builder_add(b, &rod);
    tp_joint_def j = tp_default_joint_def();
    j.type = TP_JOINT_REVOLUTE;
    j.parent = -1;
    j.child = r;
    j.axis[0] = 0.0f;
    j.axis[1] = 1.0f;
    j.axis[2] = 0.0f;
    j.anchor[0] = -0.5f * (float)ROD_L;
    j.has_limits = 1;
    j.lower = -1.0f;
    j.upper = 0.0f;
    cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = bd.size[1] = bd.size[2] = 0.1f;
    bd.pos[0] = 0.9f;
    bd.pos[2] = (float)(HINGE_Z + 0.5 * ROD_W + 0.05);
    int cube = builder_add(b, &bd);
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    for (int step = 0; step < 120; ++step) {
        batch_steps(batch, 1);
        double q = joint_value(batch, 0);
        cr_assert(q < 0.01, "step %d: the rod passed its limit, q = %g rad", step, q);
        if (step < 30) continue;
        tp_state_view s = batch_view(batch);
        cr_assert(fabs(s.contact_f[3 * cube + 2] - G) < 0.01 * G, "step %d: the cube weighs %g N on the rod", step,
                  s.contact_f[3 * cube + 2]);
    }
    cr_assert(fabs(joint_value(batch, 0)) < 0.01 && fabs(joint_value(batch, 1)) < 0.01, "not at rest: q %g, qd %g",
              joint_value(batch, 0), joint_value(batch, 1));
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- ground */

/* The lowest z of the rod's eight corners. */
static double rod_lowest_z(const tp_state_view *s, int rod)
{
    const float *p = s->pos + 3 * rod, *q = s->quat + 4 * rod;
    double low = 1e9;
    for (int c = 0; c < 8; ++c) {
        double l[3] = {(c & 1 ? 0.5 : -0.5) * ROD_L, (c & 2 ? 0.5 : -0.5) * ROD_W, (c & 4 ? 0.5 : -0.5) * ROD_W};
        /* z of R(q) l: row 2 of the rotation matrix */
        double x = q[0], y = q[1], z = q[2], w = q[3];
        double rz = 2.0 * (x * z - w * y) * l[0] + 2.0 * (y * z + w * x) * l[1] + (1.0 - 2.0 * (x * x + y * y)) * l[2];
        if (p[2] + rz < low) low = p[2] + rz;
    }
    return low;
}

/* The rod, released horizontally 0.3 m above the ground (its hinge at 0.35 m),
 * would swing down to z = -0.65 m; the ground stops it. No corner may sink
 * more than a few slops (0.5 mm each) into the ground over 3 s, and at the end
 * it rests there: its free end on the ground, turned by asin(0.3 / L) plus
 * the half-width of the rod. */
Test(articulation_contact, link_cannot_pass_through_the_ground)
{
    tp_model_def md = contact_def(-(float)G, 0);
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    add_ground(b);
    bd.size[0] = (float)ROD_L;
    bd.size[1] = bd.size[2] = (float)ROD_W;
    bd.mass = (float)ROD_M;
    bd.pos[0] = 0.5f * (float)ROD_L;
    bd.pos[2] = 0.35f;
    int rod = builder_add(b, &bd);
    tp_joint_def j = tp_default_joint_def();
    j.type = TP_JOINT_REVOLUTE;
    j.parent = -1;
    j.child = rod;
    j.axis[0] = 0.0f;
    j.axis[1] = 1.0f;
    j.axis[2] = 0.0f;
    j.anchor[0] = -0.5f * (float)ROD_L;
    cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    double lowest = 1e9;
    for (int step = 0; step < 180; ++step) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        double z = rod_lowest_z(&s, rod);
        if (z < lowest) lowest = z;
    }
    cr_assert(lowest > -0.002, "the rod sank to z = %.5f m", lowest);
    cr_assert(fabs(joint_value(batch, 1)) < 0.01, "the rod still moves at %g rad/s", joint_value(batch, 1));
    /* resting on its lower edge at the free end: the bottom corner at x = L cos q - (w/2) sin q ...
     * reaches z = 0 when 0.35 - L sin q - (w/2) cos q = 0 */
    double q = joint_value(batch, 0), rest = 0.0;
    for (int it = 0; it < 50; ++it) /* Newton on f(q) = 0.35 - L sin q - (w/2) cos q */
        rest -= (0.35 - ROD_L * sin(rest) - 0.5 * ROD_W * cos(rest)) / (-ROD_L * cos(rest) + 0.5 * ROD_W * sin(rest));
    cr_assert(fabs(q - rest) < 2e-3, "rests at q = %.5f rad, expected %.5f", q, rest);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- determinism */

/* Two hinged rods of two trees, the second across and above the first's
 * middle, falling on the ground and on each other, a ball landing on the
 * first: every kind of link row (link-static, link-link of two trees,
 * link-ball). */
static tp_model *pile_model(void)
{
    tp_model_def md = contact_def(-(float)G, 0);
    tp_builder *b = builder_begin(&md);
    add_ground(b);
    for (int k = 0; k < 2; ++k) {
        tp_body_def bd = tp_default_body_def();
        bd.size[0] = (float)ROD_L;
        bd.size[1] = bd.size[2] = (float)ROD_W;
        bd.pos[0] = 0.5f;
        bd.pos[2] = k ? 0.8f : 0.4f;
        float yaw = k ? 0.70710678f : 0.0f; /* the second rod along y, across the first */
        bd.quat[2] = yaw;
        bd.quat[3] = k ? 0.70710678f : 1.0f;
        int rod = builder_add(b, &bd);
        tp_joint_def j = tp_default_joint_def();
        j.type = TP_JOINT_REVOLUTE;
        j.parent = -1;
        j.child = rod;
        j.axis[0] = 0.0f;
        j.axis[1] = 1.0f;
        j.axis[2] = 0.0f;
        j.anchor[0] = -0.5f * (float)ROD_L;
        cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    }
    add_ball(b, TP_BODY_DYNAMIC, 0.85f, 0.6f, 0.0f, 0.6f);
    return builder_finish(b);
}

static void pile_hashes(int worlds, int threads, uint64_t *w0, uint64_t *all)
{
    tp_model *m = pile_model();
    tp_batch *b = make_batch(m, worlds, threads);
    int kinds[3] = {0, 0, 0}; /* pushing points: link-ground, link-link, link-ball */
    for (int step = 0; step < 150; ++step) {
        batch_steps(b, 1);
        tp_contact_info info[64];
        int n = 0;
        cr_assert_eq(tp_batch_contacts(b, 0, info, 64, &n), TP_OK, "%s", tp_last_error());
        for (int i = 0; i < n && i < 64; ++i) {
            if (!(info[i].normal_force > 0.0f)) continue;
            int a = info[i].body_a, c = info[i].body_b; /* ground 0, rods 1 and 2, ball 3 */
            kinds[a == 0 ? 0 : c == 3 ? 2 : 1] += a == 0 || (a >= 1 && c <= 2) || (c == 3 && a >= 1);
        }
    }
    cr_assert(kinds[0] > 0 && kinds[1] > 0 && kinds[2] > 0, "pushing points: link-ground %d, link-link %d, link-ball %d",
              kinds[0], kinds[1], kinds[2]);
    *w0 = batch_world_hash(b, 0);
    *all = batch_state_hash(b);
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK);
    for (int w = 1; w < worlds; ++w)
        cr_assert_eq(memcmp(v.q, v.q + (size_t)w * (size_t)v.nq, (size_t)v.nq * sizeof(float)), 0,
                     "world %d differs from world 0", w);
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.faults[0], 0, "the pile faulted");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(articulation_contact, deterministic_runs_threads_worlds)
{
    uint64_t a0, aa, b0, ba, c0, ca, d0, da;
    pile_hashes(3, 1, &a0, &aa);
    pile_hashes(3, 1, &b0, &ba);
    pile_hashes(3, 2, &c0, &ca);
    pile_hashes(1, 1, &d0, &da);
    cr_assert_eq(aa, ba, "two runs differ");
    cr_assert_eq(aa, ca, "thread count changes the result");
    cr_assert_eq(a0, d0, "world 0 depends on the world count");
}

/* ---------------------------------------------------------------- links of one tree */

/* Two equal rods (0.5 x 0.1 x 0.1 m, 1 kg) hang from hinges about y at
 * x = -/+0.15 m, z = 0.95 m, under a bar welded to the world (a fixed root
 * joint): siblings of one tree, not adjacent, so they collide (one merged
 * Jacobian, j_B - j_A). Zero gravity, no friction: rod A turns towards B at
 * w0 = 2 rad/s. Its corner strikes B's vertical face, so the normal impulse P
 * is along x at some height z_c, and both hinges are at z = 0.95: the moment
 * arm h = 0.95 - z_c is the same for both. Hence I dw_A = -P h, I dw_B = P h:
 * w_A + w_B is conserved through the impact, and inelastic (e = 0) the struck
 * points move alike along x, w_A h = w_B h, so both turn at w0 / 2 after it. */
Test(articulation_contact, sibling_links_collide_with_the_tree_response)
{
    tp_model_def md = contact_def(0.0f, 0);
    tp_builder *b = builder_begin(&md);
    tp_body_def bar = tp_default_body_def();
    bar.size[0] = 0.6f;
    bar.size[1] = bar.size[2] = 0.1f;
    bar.pos[2] = 1.0f;
    int root = builder_add(b, &bar);
    tp_joint_def weld = tp_default_joint_def();
    weld.type = TP_JOINT_FIXED;
    weld.parent = -1;
    weld.child = root;
    cr_assert_eq(tp_builder_add_joint(b, &weld, NULL), TP_OK, "%s", tp_last_error());
    int rods[2];
    for (int k = 0; k < 2; ++k) {
        tp_body_def bd = tp_default_body_def();
        bd.size[0] = bd.size[1] = 0.1f;
        bd.size[2] = 0.5f;
        bd.mass = 1.0f;
        bd.friction = 0.0f;
        bd.pos[0] = k ? 0.15f : -0.15f;
        bd.pos[2] = 0.7f;
        rods[k] = builder_add(b, &bd);
        tp_joint_def j = tp_default_joint_def();
        j.type = TP_JOINT_REVOLUTE;
        j.parent = root;
        j.child = rods[k];
        j.axis[0] = 0.0f;
        j.axis[1] = 1.0f;
        j.axis[2] = 0.0f;
        j.anchor[2] = 0.25f;
        j.qd0 = k ? 0.0f : -2.0f; /* a negative turn about y swings a hanging rod towards +x */
        cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    }
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    int hit = -1;
    float wa = 0.0f, wb = 0.0f;
    for (int step = 0; step < 30; ++step) {
        batch_steps(batch, 1);
        tp_joint_view v;
        cr_assert_eq(tp_batch_joints(batch, &v), TP_OK);
        if (hit < 0 && v.qd[1] != 0.0f) {
            hit = step;
            wa = v.qd[0];
            wb = v.qd[1];
        }
        /* exact while B's struck face is vertical: up to and through the impact
         * step (afterwards B's face tilts and the two moment arms part) */
        if (hit < 0 || step == hit)
            cr_assert(fabs((double)v.qd[0] + (double)v.qd[1] + 2.0) < 1e-3, "step %d: w_A + w_B = %.6f, expected -2",
                      step, (double)v.qd[0] + (double)v.qd[1]);
        tp_contact_info info[16];
        int n = 0;
        cr_assert_eq(tp_batch_contacts(batch, 0, info, 16, &n), TP_OK);
        for (int i = 0; i < n && i < 16; ++i)
            cr_assert(info[i].separation > -0.002f, "step %d: rods %d-%d overlap by %g m", step, info[i].body_a,
                      info[i].body_b, -info[i].separation);
    }
    cr_assert(hit >= 0 && hit < 28, "the rods never met");
    /* read at the end of the impact step: the pair has turned on together
     * for the rest of that step, B's face tilting by up to 1/60 rad, which
     * parts the two moment arms a little (measured 0.6 %): 1 % */
    cr_assert(fabsf(wa + 1.0f) < 0.01f && fabsf(wb + 1.0f) < 0.01f, "after the impact w_A = %g, w_B = %g, expected -1",
              wa, wb);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- floating base */

/* A floating-base tree (a 1 kg box on a free joint, and with it, by a hinge,
 * a second 1 kg box) lying on the ground: the ground carries the whole
 * weight, 2 x 9.81 N, and the tree does not sink. The free base's momentum
 * correction (docs/articulations.md, step 7) must count the contact impulses,
 * or it would take them back and the tree would fall through. */
Test(articulation_contact, floating_tree_rests_on_the_ground)
{
    tp_model_def md = contact_def(-(float)G, 0);
    tp_builder *b = builder_begin(&md);
    add_ground(b);
    int boxes[2];
    for (int k = 0; k < 2; ++k) {
        tp_body_def bd = tp_default_body_def();
        bd.size[0] = 0.4f;
        bd.size[1] = bd.size[2] = 0.2f;
        bd.mass = 1.0f;
        bd.pos[0] = 0.4f * (float)k;
        bd.pos[2] = 0.1f;
        boxes[k] = builder_add(b, &bd);
        tp_joint_def j = tp_default_joint_def();
        j.type = k ? TP_JOINT_REVOLUTE : TP_JOINT_FREE;
        j.parent = k ? boxes[0] : -1;
        j.child = boxes[k];
        j.axis[0] = 0.0f;
        j.axis[1] = 1.0f;
        j.axis[2] = 0.0f;
        j.anchor[0] = k ? -0.2f : 0.0f;
        cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    }
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    const double weight = 2.0 * G;
    for (int step = 0; step < 180; ++step) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        double fz = (double)s.contact_f[3 * boxes[0] + 2] + (double)s.contact_f[3 * boxes[1] + 2];
        if (step >= 30)
            cr_assert(fabs(fz - weight) < 0.01 * weight, "step %d: ground carries %.5f N, expected %.5f N", step, fz,
                      weight);
        for (int k = 0; k < 2; ++k)
            cr_assert(s.pos[3 * boxes[k] + 2] > 0.1f - 0.002f, "step %d: box %d sank to z = %g", step, k,
                      s.pos[3 * boxes[k] + 2]);
    }
    tp_state_view s = batch_view(batch);
    cr_assert(fabsf(s.v[3 * boxes[0] + 2]) < 1e-3f && fabsf(s.v[3 * boxes[1] + 2]) < 1e-3f, "still moving: %g %g",
              s.v[3 * boxes[0] + 2], s.v[3 * boxes[1] + 2]);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- coloring */

/* An articulation takes colors as one body (kernels/coloring.h): two rows on
 * different links of one tree must not share a color, though they share no
 * body, because an impulse on one link moves the other; rows on two trees
 * may. Bodies: 0 static ground, 1-2 links of tree A (2 the child of 1),
 * 3 and 4 cubes, 5 the root link of tree B. Rows (key order): 1-3 (a cube on
 * A's first link), 2-4 (a cube on A's second link), 4-5 (that cube against
 * tree B), 0-5 (B on the ground). */
Test(articulation_contact, a_tree_is_one_body_for_coloring)
{
    tp_body_model model[6];
    memset(model, 0, sizeof model);
    uint8_t flags[6] = {0}, sleep_state[6] = {0};
    model[0].type = TP_BODY_STATIC;
    for (int b = 1; b < 6; ++b) model[b].type = (b == 3 || b == 4) ? TP_BODY_DYNAMIC : TP_BODY_KINEMATIC;
    model[1].link = 1, model[1].link_root = 2;                       /* joint 0, root body 1 */
    model[2].link = 2, model[2].link_root = 2, model[2].link_parent = 2; /* joint 1, parent body 1 */
    model[5].link = 3, model[5].link_root = 6;                       /* joint 2, its own root */
    tp_world wd;
    memset(&wd, 0, sizeof wd);
    wd.bodies = 6;
    wd.model = model;
    wd.flags = flags;
    wd.sleep_state = sleep_state;
    const int pairs[4][2] = {{1, 3}, {2, 4}, {4, 5}, {0, 5}};
    tp_contact contacts[4];
    memset(contacts, 0, sizeof contacts);
    for (int i = 0; i < 4; ++i) contacts[i].body_a = pairs[i][0], contacts[i].body_b = pairs[i][1];
    tp_constraint cons[4];
    uint32_t mask[6];
    int32_t order[4], color_start[TP_MAX_COLORS + 2];
    int n = tp_build_constraints(&wd, contacts, 4, cons);
    cr_assert_eq(n, 4, "every row touching an awake link is solved (got %d constraints)", n);
    tp_color_constraints(&wd, cons, n, 0, mask, order, color_start);
    cr_assert_neq(cons[0].color, cons[1].color, "two links of one tree share color %d", cons[0].color);
    cr_assert_neq(cons[1].color, cons[2].color, "rows sharing cube 4 share a color");
    cr_assert_neq(cons[2].color, cons[3].color, "rows on tree B share a color");
    /* the same bodies as free rigid bodies: 1-3 and 2-4 share nothing, one color */
    for (int b = 1; b < 6; ++b) model[b].type = TP_BODY_DYNAMIC, model[b].link = 0;
    n = tp_build_constraints(&wd, contacts, 4, cons);
    tp_color_constraints(&wd, cons, n, 0, mask, order, color_start);
    cr_assert_eq(cons[0].color, cons[1].color, "rigid rows without a common body took colors %d and %d",
                 cons[0].color, cons[1].color);
}

/* ---------------------------------------------------------------- the link-point capacity */

/* The rod at rest on two static balls (x = 0.4 and 0.8 m): two contact
 * points with a link side per step (a ball meets the rod's face in one point).
 * With link_point_capacity 1 the second gets no rows and each step counts one
 * lost point in contact_overflow; with 2, or the default (8 x 1 link + 16),
 * none. Memory: each link point keeps a Jacobian and a response of 2 sides
 * x 3 rows x the largest tree's dofs (1 here): 12 floats, plus its record, so
 * 100 more points cost between 100 x 48 bytes and 100 x (48 + 64) + 64 (the
 * record is under 64 bytes; parts are aligned to 16), with one world on one
 * thread (the scratch is a block per thread, csrc/articulation_world.c). The
 * capacity never exceeds the contact capacity (200 here, so 102 points fit). */
static tp_batch *rod_on_two_balls(tp_model **m, int link_points)
{
    tp_model_def md = contact_def(-9.81f, 0);
    tp_builder *b = builder_begin(&md);
    add_hinged_rod(b, 0.5f, 0.0f);
    float z = (float)(HINGE_Z - 0.5 * ROD_W - 0.5 * BALL_D);
    add_ball(b, TP_BODY_STATIC, 0.4f, z, 0.0f, 0.5f);
    add_ball(b, TP_BODY_STATIC, 0.8f, z, 0.0f, 0.5f);
    *m = builder_finish(b);
    tp_batch_def bd = tp_default_batch_def();
    bd.link_point_capacity = link_points;
    bd.contact_capacity = 200;
    bd.threads = 1;
    tp_batch *batch = NULL;
    cr_assert_eq(tp_batch_create(*m, &bd, &batch), TP_OK, "%s", tp_last_error());
    return batch;
}

Test(articulation_contact, link_points_over_capacity_are_counted)
{
    int caps[4] = {1, 2, 0, 102};
    size_t mem[4];
    for (int k = 0; k < 4; ++k) {
        tp_model *m = NULL;
        tp_batch *b = rod_on_two_balls(&m, caps[k]);
        mem[k] = tp_batch_memory_bytes(b);
        batch_steps(b, 10);
        tp_state_view s = batch_view(b);
        int want = caps[k] == 1 ? 10 : 0;
        cr_assert_eq(s.contact_overflow[0], want, "capacity %d: %d lost points after 10 steps, expected %d", caps[k],
                     s.contact_overflow[0], want);
        tp_batch_destroy(b);
        tp_model_destroy(m);
    }
    size_t d = mem[3] - mem[1];
    cr_assert(d >= 100 * 48 && d <= 100 * (48 + 64) + 64, "100 link points cost %zu bytes", d);
    cr_assert(mem[2] > mem[1] && mem[2] < mem[3], "the default (24 points) between: %zu, %zu, %zu", mem[1], mem[2],
              mem[3]);
}

/* ---------------------------------------------------------------- directions a tree cannot move */

/* A rod turning about a vertical hinge strikes a static wall whose face normal
 * has a z component of about 1e-20 (the wall is turned by 1e-20 rad about x,
 * as a resting body's rounding leaves it). One friction tangent is then almost
 * vertical, a direction the hinge cannot move the rod in: the tree's response
 * j H^-1 j^T along it is a denormal float (about 1e-40 1/kg), and an effective
 * mass taken as its reciprocal is infinite. The row must treat that direction as
 * fixed, as a row between two fixed bodies is: the rod stops at the wall, finite. */
Test(articulation_contact, a_direction_the_tree_cannot_move_takes_no_impulse)
{
    tp_model_def md = contact_def(0.0f, 0);
    tp_builder *b = builder_begin(&md);
    tp_body_def wall = tp_default_body_def();
    wall.type = TP_BODY_STATIC;
    wall.size[0] = 1.0f;
    wall.size[1] = 0.1f;
    wall.size[2] = 1.0f;
    wall.pos[0] = 0.5f;
    wall.pos[1] = 0.3f;
    wall.pos[2] = 0.5f;
    wall.quat[0] = 1e-20f; /* x y z w: a turn of 2e-20 rad about x */
    wall.quat[3] = 1.0f;
    wall.friction = 0.8f;
    builder_add(b, &wall);
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = (float)ROD_L;
    bd.size[1] = bd.size[2] = (float)ROD_W;
    bd.mass = (float)ROD_M;
    bd.friction = 0.8f;
    bd.pos[0] = 0.5f * (float)ROD_L;
    bd.pos[2] = 0.5f;
    int rod = builder_add(b, &bd);
    tp_joint_def j = tp_default_joint_def();
    j.type = TP_JOINT_REVOLUTE;
    j.parent = -1;
    j.child = rod;
    j.axis[2] = 1.0f;
    j.axis[0] = j.axis[1] = 0.0f;
    j.anchor[0] = -0.5f * (float)ROD_L;
    j.qd0 = 2.0f; /* rad/s, toward the wall (+y side) */
    cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    /* The rod's far corner (1, 0.05) meets the wall's face y = 0.25 at
     * sin q + 0.05 cos q = 0.25: q = 0.2013 rad. */
    const double q_touch = 0.2013;
    for (int step = 0; step < 60; ++step) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        cr_assert_eq(s.faults[0], 0, "step %d: the world faulted (non-finite state)", step);
        double q = joint_value(batch, 0), qd = joint_value(batch, 1);
        cr_assert(isfinite(q) && isfinite(qd), "step %d: q = %g, qd = %g", step, q, qd);
        cr_assert(q < q_touch + 0.01, "step %d: the rod passed the wall (q = %.4f rad, touches at %.4f)", step, q,
                  q_touch);
    }
    cr_assert(fabs(joint_value(batch, 1)) < 0.05, "the rod still turns at %g rad/s after the impact",
              joint_value(batch, 1));
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}
