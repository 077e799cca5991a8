/* test_dynamics.c - what the API's forces, torques and impulses do to a body,
 * friction against Coulomb's law, and the warm-starting switch, each against
 * values derived by hand from rigid-body mechanics.
 *
 * The test body is a 2 x 1 x 0.5 m box of 1 kg turned 90 degrees about z, in
 * zero gravity: its principal moments are m (b^2 + c^2) / 12 about its local
 * axes, Ixx = 1.25/12, Iyy = 4.25/12, Izz = 5/12 kg m^2, and the turn puts local
 * y along world -x and local x along world y, so about the world axes its
 * inertia is diag(4.25/12, 1.25/12, 5/12). */
#include "helpers.h"

#include <math.h>

static const float world_inertia[3] = {4.25f / 12.0f, 1.25f / 12.0f, 5.0f / 12.0f};

static tp_model *turned_box_model(void)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = 0.0f;
    md.sleep.enabled = 0;
    tp_builder *bl = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = 2.0f;
    bd.size[1] = 1.0f;
    bd.size[2] = 0.5f;
    bd.mass = 1.0f;
    bd.quat[2] = bd.quat[3] = (float)sqrt(0.5);
    builder_add(bl, &bd);
    return builder_finish(bl);
}

/* |got - want| within rel of |want| plus a small absolute floor. */
static void expect_vec(const float *got, const double *want, double rel, const char *what)
{
    double norm = sqrt(want[0] * want[0] + want[1] * want[1] + want[2] * want[2]);
    for (int i = 0; i < 3; ++i)
        cr_expect(fabs(got[i] - want[i]) <= rel * norm + 1e-9, "%s[%d] = %.9g, expected %.9g", what, i, got[i],
                  want[i]);
}

/* An angular impulse L (N m s, world frame) changes w by I^-1 L at once; the
 * rounding of the turned inertia is a few ulp, hence 1e-6 relative. */
Test(dynamics, angular_impulse_gives_inverse_inertia_times_impulse)
{
    tp_model *m = turned_box_model();
    float mass, inertia[3];
    cr_assert_eq(tp_model_body_mass(m, 0, &mass, inertia), TP_OK);
    cr_assert_float_eq(inertia[0], 1.25f / 12.0f, 1e-7f, "the model's Ixx is the hand value");
    tp_batch *b = make_batch(m, 1, 1);
    const float L[3] = {0.1f, 0.2f, 0.3f};
    cr_assert_eq(tp_batch_apply_angular_impulse(b, 0, 0, L), TP_OK);
    tp_state_view s = batch_view(b);
    double want[3];
    for (int i = 0; i < 3; ++i) want[i] = L[i] / world_inertia[i];
    expect_vec(s.w, want, 1e-6, "w");
    expect_vec(s.v, (const double[]){0, 0, 0}, 0, "v");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A torque T (N m) about a principal axis for one step of dt gives w = T dt / I
 * about that axis (no gyroscopic term for a spin about a principal axis), and
 * acts for that step only. One world per axis. */
Test(dynamics, torque_for_one_step_gives_torque_dt_over_inertia)
{
    tp_model *m = turned_box_model();
    tp_batch *b = make_batch(m, 3, 1);
    float dt = tp_model_settings(m).dt;
    for (int axis = 0; axis < 3; ++axis) {
        float t[3] = {0, 0, 0};
        t[axis] = 0.5f;
        cr_assert_eq(tp_batch_apply_torque(b, axis, 0, t), TP_OK);
        cr_assert_eq(tp_batch_apply_torque(b, axis, 0, t), TP_OK); /* torques add up: 1 N m */
    }
    batch_steps(b, 1);
    tp_state_view s = batch_view(b);
    float after_one[9];
    memcpy(after_one, s.w, sizeof after_one);
    for (int axis = 0; axis < 3; ++axis) {
        double want[3] = {0, 0, 0};
        want[axis] = 1.0 * dt / world_inertia[axis];
        expect_vec(s.w + 3 * axis, want, 1e-5, "w");
        expect_vec(s.v + 3 * axis, (const double[]){0, 0, 0}, 0, "v");
    }
    batch_steps(b, 1); /* no torque now: w stays */
    s = batch_view(b);
    for (int i = 0; i < 9; ++i) cr_expect_float_eq(s.w[i], after_one[i], 1e-6f, "w[%d] changed without a torque", i);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A force F (N) at world point p for one step: v = F dt / m, and the torque
 * (p - c) x F about the centre c gives w = I^-1 ((p - c) x F) dt. F = (0, 1, 0)
 * at p = (1, 0, 0) is a torque (0, 0, 1) N m about world z; the same force at
 * the centre (point NULL) turns nothing. */
Test(dynamics, force_at_a_point_pushes_and_turns)
{
    tp_model *m = turned_box_model();
    tp_batch *b = make_batch(m, 2, 1);
    float dt = tp_model_settings(m).dt;
    const float f[3] = {0.0f, 1.0f, 0.0f}, p[3] = {1.0f, 0.0f, 0.0f};
    cr_assert_eq(tp_batch_apply_force(b, 0, 0, f, p), TP_OK);
    cr_assert_eq(tp_batch_apply_force(b, 1, 0, f, NULL), TP_OK);
    batch_steps(b, 1);
    tp_state_view s = batch_view(b);
    const double v_want[3] = {0.0, dt, 0.0}, w_want[3] = {0.0, 0.0, dt / world_inertia[2]};
    expect_vec(s.v, v_want, 1e-5, "v (at a point)");
    expect_vec(s.w, w_want, 1e-5, "w (at a point)");
    expect_vec(s.v + 3, v_want, 1e-5, "v (at the centre)");
    expect_vec(s.w + 3, (const double[]){0, 0, 0}, 0, "w (at the centre)");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- friction */

/* A 1 kg unit cube resting on a static ground, both of friction 0.5 (pairs
 * combine as sqrt(f_a f_b): mu = 0.5), pushed along x by `push` N every step.
 * Returns the cube's x velocity after 1 s and the size of the friction and the
 * normal force of the last step, summed over the contact points; checks each point's friction
 * is inside its Coulomb cone |f_t| <= mu f_n. */
static float push_cube(float push, float *friction, float *normal)
{
    tp_model_def md = tp_default_model_def();
    md.sleep.enabled = 0;
    tp_builder *bl = builder_begin(&md);
    tp_body_def g = tp_default_body_def();
    g.type = TP_BODY_STATIC;
    g.size[0] = g.size[1] = 40.0f;
    g.pos[2] = -0.5f;
    g.friction = 0.5f;
    builder_add(bl, &g);
    tp_body_def bd = tp_default_body_def();
    bd.mass = 1.0f;
    bd.pos[2] = 0.5f;
    bd.friction = 0.5f;
    builder_add(bl, &bd);
    tp_model *m = builder_finish(bl);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 30); /* settle */
    const float f[3] = {push, 0.0f, 0.0f};
    for (int i = 0; i < 60; ++i) {
        cr_assert_eq(tp_batch_apply_force(b, 0, 1, f, NULL), TP_OK);
        batch_steps(b, 1);
        tp_contact_info c[16];
        int n = 0;
        cr_assert_eq(tp_batch_contacts(b, 0, c, 16, &n), TP_OK);
        cr_assert(n >= 3 && n <= 16, "%d contact points", n);
        *friction = *normal = 0.0f;
        float t[2] = {0.0f, 0.0f};
        for (int k = 0; k < n; ++k) {
            float ft = sqrtf(c[k].friction_force[0] * c[k].friction_force[0] +
                             c[k].friction_force[1] * c[k].friction_force[1]);
            cr_assert(ft <= 0.5f * c[k].normal_force * (1.0f + 1e-5f) + 1e-6f,
                      "step %d point %d: friction %g N outside the cone of mu N = %g N", i, k, ft,
                      0.5f * c[k].normal_force);
            *normal += c[k].normal_force;
            t[0] += c[k].friction_force[0];
            t[1] += c[k].friction_force[1];
        }
        /* every point has the ground's normal, so the same tangent pair: the
         * components add up to the total friction in that pair's frame */
        *friction = sqrtf(t[0] * t[0] + t[1] * t[1]);
    }
    tp_state_view s = batch_view(b);
    float vx = s.v[3];
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return vx;
}

/* Below the friction limit (2 N < mu m g = 4.905 N) the cube stays and friction
 * balances the push; above it (9.81 N) the cube slides with the Coulomb
 * acceleration (F - mu m g) / m = 4.905 m/s^2, and friction is mu N. The 2 %
 * allow for the solver's iterations (8 per substep) not converging fully. */
Test(friction, coulomb_cone_holds_and_slides_at_mu_n)
{
    float fr, fn;
    float v = push_cube(2.0f, &fr, &fn);
    cr_expect(fabsf(v) < 1e-3f, "a 2 N push below mu m g moved the cube at %g m/s", v);
    cr_expect(fabsf(fn - 9.81f) <= 0.02f * 9.81f, "normal force %g, weight 9.81 N", fn);
    cr_expect(fabsf(fr - 2.0f) <= 0.02f * 2.0f, "static friction %g N, push 2 N", fr);
    v = push_cube(9.81f, &fr, &fn);
    cr_expect(fabsf(fn - 9.81f) <= 0.02f * 9.81f, "normal force %g, weight 9.81 N", fn);
    cr_expect(fabsf(fr - 0.5f * fn) <= 0.02f * 0.5f * fn, "sliding friction %g N, mu N = %g N", fr, 0.5f * fn);
    cr_expect(fabsf(v - 4.905f) <= 0.02f * 4.905f, "after 1 s sliding v = %g, expected 4.905 m/s", v);
}

/* ---------------------------------------------------------------- warm starting */

/* A stack of ten 1 kg cubes, sleep off, warm starting as given. */
static tp_model *stack_model(int warm)
{
    tp_model_def md = tp_default_model_def();
    md.sleep.enabled = 0;
    md.solver.warm_starting = warm;
    tp_builder *bl = builder_begin(&md);
    tp_body_def g = tp_default_body_def();
    g.type = TP_BODY_STATIC;
    g.size[0] = g.size[1] = 10.0f;
    g.pos[2] = -0.5f;
    builder_add(bl, &g);
    for (int i = 0; i < 10; ++i) {
        tp_body_def bd = tp_default_body_def();
        bd.mass = 1.0f;
        bd.pos[2] = 0.5f + (float)i;
        builder_add(bl, &bd);
    }
    return builder_finish(bl);
}

/* Largest difference in position or velocity between two one-world batches. */
static double state_gap(tp_batch *a, tp_batch *b)
{
    tp_state_view sa = batch_view(a), sb = batch_view(b);
    double gap = 0.0;
    for (int i = 0; i < 3 * sa.bodies; ++i) {
        gap = fmax(gap, fabs(sa.pos[i] - sb.pos[i]));
        gap = fmax(gap, fabs(sa.v[i] - sb.v[i]));
    }
    return gap;
}

/* With warm starting off a step depends on the state alone: a batch that ran 60
 * steps and a fresh batch given the same poses and velocities take the same
 * next step. With it on, the first starts from last step's impulses and the
 * second from none, and the steps differ (by about 1e-2 m/s here). The stack
 * stands either way, and carries its weight (10 m g on the ground). */
static double warm_start_gap(int warm)
{
    tp_model *m = stack_model(warm);
    tp_batch *ran = make_batch(m, 1, 1), *fresh = make_batch(m, 1, 1);
    batch_steps(ran, 60);
    tp_state_view s = batch_view(ran);
    for (int i = 1; i < s.bodies; ++i) {
        float p[3], q[4], v[3], w[3];
        memcpy(p, s.pos + 3 * i, sizeof p);
        memcpy(q, s.quat + 4 * i, sizeof q);
        memcpy(v, s.v + 3 * i, sizeof v);
        memcpy(w, s.w + 3 * i, sizeof w);
        cr_assert_eq(tp_batch_set_pose(fresh, 0, i, p, q), TP_OK);
        cr_assert_eq(tp_batch_set_velocity(fresh, 0, i, v, w), TP_OK);
    }
    cr_assert(state_gap(ran, fresh) <= 1e-6, "the copy is the state");
    batch_steps(ran, 1);
    batch_steps(fresh, 1);
    double gap = state_gap(ran, fresh);
    s = batch_view(ran);
    cr_expect(s.pos[3 * 10 + 2] > 9.4f, "warm %d: the top cube sank to %g", warm, s.pos[3 * 10 + 2]);
    tp_contact_info c[64];
    int n = 0;
    cr_assert_eq(tp_batch_contacts(ran, 0, c, 64, &n), TP_OK);
    float ground = 0.0f;
    for (int k = 0; k < n && k < 64; ++k) ground += c[k].body_a == 0 ? c[k].normal_force : 0.0f;
    cr_expect(fabsf(ground - 98.1f) <= 0.05f * 98.1f, "warm %d: ground carries %g N of 98.1 N", warm, ground);
    tp_batch_destroy(ran);
    tp_batch_destroy(fresh);
    tp_model_destroy(m);
    return gap;
}

Test(solver, warm_starting_off_forgets_the_last_step)
{
    double off = warm_start_gap(0), on = warm_start_gap(1);
    cr_expect(off <= 1e-6, "warm starting off: the step depends on old impulses (gap %g)", off);
    cr_expect(on >= 1e-4, "warm starting on: old impulses make no difference (gap %g)", on);
}
