/* test_articulation.c - articulations against values derived independently:
 * pendulum periods (small angle, elliptic integral), energy of a double
 * pendulum, momentum of a free-floating chain, the PD drive's closed-form
 * response, stiff drives, limits under load, determinism, scene loading. */
#include "helpers.h"
#include "tp_math.h"

#include <math.h>
#include <stdio.h>

#define ROD_LEN 1.0
#define ROD_W 0.1
#define G 9.81
#define PI 3.14159265358979323846

/* ---------------------------------------------------------------- builders */

/* A 1 kg box rod of ROD_W x ROD_W x ROD_LEN hanging along -z below `top`. */
static tp_body_def rod_def(float x, float y, float top)
{
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = (float)ROD_W;
    bd.size[1] = (float)ROD_W;
    bd.size[2] = (float)ROD_LEN;
    bd.mass = 1.0f;
    bd.pos[0] = x;
    bd.pos[1] = y;
    bd.pos[2] = top - 0.5f * (float)ROD_LEN;
    return bd;
}

/* A hinge about x at the top end of `child`. */
static tp_joint_def hinge(int parent, int child, float q0)
{
    tp_joint_def j = tp_default_joint_def();
    j.type = TP_JOINT_REVOLUTE;
    j.parent = parent;
    j.child = child;
    j.axis[0] = 1.0f;
    j.axis[2] = 0.0f;
    j.anchor[2] = 0.5f * (float)ROD_LEN;
    j.q0 = q0;
    return j;
}

static void add_joint(tp_builder *b, const tp_joint_def *j)
{
    cr_assert_eq(tp_builder_add_joint(b, j, NULL), TP_OK, "%s", tp_last_error());
}

static tp_model_def quiet_def(float gz, int substeps)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = gz;
    md.sleep.enabled = 0;
    md.substeps = substeps;
    return md;
}

/* Pendulum: one rod on a hinge at height 2, released at q0; `j` overrides the joint. */
static tp_model *pendulum_model(float q0, const tp_joint_def *j, int substeps)
{
    tp_model_def md = quiet_def(-(float)G, substeps);
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = rod_def(0.0f, 0.0f, 2.0f);
    int rod = builder_add(b, &bd);
    tp_joint_def jd = j ? *j : hinge(-1, rod, q0);
    jd.child = rod;
    add_joint(b, &jd);
    return builder_finish(b);
}

/* Moment of inertia of the rod about its hinge (x axis at the top end), kg m^2. */
static double rod_pivot_inertia(void) { return (ROD_W * ROD_W + ROD_LEN * ROD_LEN) / 12.0 + 0.25 * ROD_LEN * ROD_LEN; }

static float joint_q(tp_batch *b, int world, int index)
{
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK, "%s", tp_last_error());
    return v.q[(size_t)world * (size_t)v.nq + (size_t)index];
}

static float joint_qd(tp_batch *b, int world, int index)
{
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK, "%s", tp_last_error());
    return v.qd[(size_t)world * (size_t)v.nv + (size_t)index];
}

/* Mean period of q(t) from upward zero crossings (linear interpolation), over `cycles`. */
static double measure_period(tp_batch *b, double dt, int cycles)
{
    double first = -1.0, last = -1.0, t = 0.0;
    int crossings = 0;
    float prev = joint_q(b, 0, 0);
    for (int s = 0; s < 100000 && crossings <= cycles; ++s) {
        batch_steps(b, 1);
        t += dt;
        float q = joint_q(b, 0, 0);
        if (prev < 0.0f && q >= 0.0f) {
            double tc = t - dt + dt * (double)(-prev) / (double)(q - prev);
            if (crossings == 0) first = tc;
            last = tc;
            crossings++;
        }
        prev = q;
    }
    cr_assert_gt(crossings, cycles, "only %d crossings", crossings);
    return (last - first) / (double)cycles;
}

/* Complete elliptic integral of the first kind K(k) by the arithmetic-geometric mean. */
static double elliptic_k(double k)
{
    double a = 1.0, g = sqrt(1.0 - k * k);
    for (int i = 0; i < 30; ++i) {
        double an = 0.5 * (a + g);
        g = sqrt(a * g);
        a = an;
    }
    return PI / (2.0 * a);
}

/* ---------------------------------------------------------------- pendulum */

Test(articulation, pendulum_small_angle_period)
{
    tp_model *m = pendulum_model(-0.05f, NULL, 4);
    tp_batch *b = make_batch(m, 1, 1);
    double expect = 2.0 * PI * sqrt(rod_pivot_inertia() / (1.0 * G * 0.5 * ROD_LEN));
    double period = measure_period(b, 1.0 / 60.0, 5);
    cr_log_info("small-angle period %.5f s, expected %.5f s (%+.3f %%)", period, expect, 100.0 * (period / expect - 1.0));
    cr_assert_lt(fabs(period / expect - 1.0), 0.005, "period %.5f s, expected %.5f s", period, expect);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(articulation, pendulum_ninety_degree_period)
{
    tp_model *m = pendulum_model(-(float)(PI / 2.0), NULL, 4);
    tp_batch *b = make_batch(m, 1, 1);
    double k = sin(PI / 4.0);
    double expect = 4.0 * sqrt(rod_pivot_inertia() / (1.0 * G * 0.5 * ROD_LEN)) * elliptic_k(k);
    double period = measure_period(b, 1.0 / 60.0, 4);
    cr_log_info("90-degree period %.5f s, expected %.5f s (%+.3f %%)", period, expect, 100.0 * (period / expect - 1.0));
    cr_assert_lt(fabs(period / expect - 1.0), 0.01, "period %.5f s, expected %.5f s", period, expect);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The link's body follows the joint: its centre is at distance d from the hinge, at angle q. */
Test(articulation, link_pose_follows_joint)
{
    tp_model *m = pendulum_model(0.3f, NULL, 4);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 7);
    float q = joint_q(b, 0, 0), qd = joint_qd(b, 0, 0);
    tp_state_view s = batch_view(b);
    /* rotation about +x by q moves (0, 0, -d) to (0, d sin q, -d cos q) */
    double d = 0.5 * ROD_LEN;
    cr_assert_float_eq(s.pos[1], d * sin(q), 1e-5);
    cr_assert_float_eq(s.pos[2], 2.0 - d * cos(q), 1e-5);
    cr_assert_float_eq(s.w[0], qd, 1e-5);
    cr_assert_float_eq(s.v[1], d * cos(q) * qd, 1e-4);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- energy and momentum */

/* Kinetic + potential energy of every dynamic-or-link body from the published state. */
static double body_energy(const tp_model *m, const tp_state_view *s, int world, const float g[3])
{
    double e = 0.0;
    for (int i = 0; i < s->bodies; ++i) {
        size_t k = (size_t)world * (size_t)s->bodies + (size_t)i;
        float mass, in[3];
        cr_assert_eq(tp_model_body_mass(m, i, &mass, in), TP_OK);
        const float *v = s->v + 3 * k, *w = s->w + 3 * k, *q = s->quat + 4 * k, *p = s->pos + 3 * k;
        /* angular velocity in the body frame: R^T w */
        double x = q[0], y = q[1], z = q[2], c = q[3];
        double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - c * z), 2 * (x * z + c * y)},
                          {2 * (x * y + c * z), 1 - 2 * (x * x + z * z), 2 * (y * z - c * x)},
                          {2 * (x * z - c * y), 2 * (y * z + c * x), 1 - 2 * (x * x + y * y)}};
        double wl[3];
        for (int a = 0; a < 3; ++a) wl[a] = r[0][a] * w[0] + r[1][a] * w[1] + r[2][a] * w[2];
        e += 0.5 * mass * ((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
        e += 0.5 * (in[0] * wl[0] * wl[0] + in[1] * wl[1] * wl[1] + in[2] * wl[2] * wl[2]);
        e -= mass * ((double)g[0] * p[0] + (double)g[1] * p[1] + (double)g[2] * p[2]);
    }
    return e;
}

static tp_model *double_pendulum_model(float q0, float q1, int substeps)
{
    tp_model_def md = quiet_def(-(float)G, substeps);
    tp_builder *b = builder_begin(&md);
    tp_body_def r0 = rod_def(0.0f, 0.0f, 2.0f), r1 = rod_def(0.0f, 0.0f, 2.0f - (float)ROD_LEN);
    int a = builder_add(b, &r0), c = builder_add(b, &r1);
    tp_joint_def j0 = hinge(-1, a, q0), j1 = hinge(a, c, q1);
    add_joint(b, &j0);
    add_joint(b, &j1);
    return builder_finish(b);
}

/* Worst |E - E0| over 10 s at dt 1/60 of the double pendulum released at
 * (1.2, -0.5) rad, as a share of the energy released. */
static double double_pendulum_drift(int substeps)
{
    tp_model *m = double_pendulum_model(1.2f, -0.5f, substeps);
    tp_batch *b = make_batch(m, 1, 1);
    const float g[3] = {0.0f, 0.0f, -(float)G};
    tp_state_view s = batch_view(b);
    double e0 = body_energy(m, &s, 0, g);
    /* the hanging rest state: rods' centres at 1.5 and 0.5 m */
    double e_rest = 1.0 * G * 1.5 + 1.0 * G * 0.5;
    double scale = e0 - e_rest, worst = 0.0;
    for (int i = 0; i < 600; ++i) {
        batch_steps(b, 1);
        s = batch_view(b);
        double e = body_energy(m, &s, 0, g);
        if (fabs(e - e0) > worst) worst = fabs(e - e0);
    }
    cr_log_info("double pendulum, %d substeps: energy drift %.4f %% of %.3f J", substeps, 100.0 * worst / scale, scale);
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return worst / scale;
}

Test(articulation, double_pendulum_energy)
{
    double drift = double_pendulum_drift(8);
    cr_assert_lt(drift, 0.005, "energy drift %.4f %%", 100.0 * drift);
}

/* The integrator's energy error is first order in h (semi-implicit Euler
 * with the mid-step bias), so halving the substeps doubles it: an
 * approximation that does not shrink with h (a mass matrix kept for the
 * whole step, say) breaks that ratio. At the default 4 substeps the drift
 * stays under 0.6 %. */
Test(articulation, double_pendulum_first_order_in_substeps)
{
    double d4 = double_pendulum_drift(4), d8 = double_pendulum_drift(8);
    cr_assert_lt(d4, 0.006, "energy drift %.4f %% at 4 substeps", 100.0 * d4);
    cr_assert(d4 / d8 > 1.5 && d4 / d8 < 2.5, "drift at 4 / 8 substeps %.3f, first order gives 2", d4 / d8);
}

/* Linear and angular momentum (about the world origin) of all bodies. */
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
        double wl[3], hl[3], hw[3];
        for (int a = 0; a < 3; ++a) wl[a] = r[0][a] * w[0] + r[1][a] * w[1] + r[2][a] * w[2];
        for (int a = 0; a < 3; ++a) hl[a] = in[a] * wl[a];
        for (int a = 0; a < 3; ++a) hw[a] = r[a][0] * hl[0] + r[a][1] * hl[1] + r[a][2] * hl[2];
        double mv[3] = {mass * (double)v[0], mass * (double)v[1], mass * (double)v[2]};
        for (int a = 0; a < 3; ++a) p[a] += mv[a];
        l[0] += hw[0] + c[1] * mv[2] - c[2] * mv[1];
        l[1] += hw[1] + c[2] * mv[0] - c[0] * mv[2];
        l[2] += hw[2] + c[0] * mv[1] - c[1] * mv[0];
    }
}

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

Test(articulation, free_chain_momentum_in_zero_gravity)
{
    tp_model_def md = quiet_def(0.0f, 4);
    tp_builder *b = builder_begin(&md);
    tp_body_def base = tp_default_body_def();
    base.size[0] = 0.4f; base.size[1] = 0.3f; base.size[2] = 0.2f;
    base.mass = 2.0f;
    base.vel[0] = 0.3f; base.vel[2] = -0.1f;
    base.ang_vel[0] = 0.5f; base.ang_vel[1] = -0.2f; base.ang_vel[2] = 0.8f;
    int b0 = builder_add(b, &base);
    tp_body_def r1 = rod_def(0.0f, 0.0f, -0.1f), r2 = rod_def(0.0f, 0.0f, -1.1f);
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
    tp_joint_def jh = hinge(b1, b2, 0.4f);
    jh.qd0 = 2.0f;
    add_joint(b, &jh);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    /* spin the ball joint too */
    float qd[12] = {0};
    tp_joint_view jv;
    cr_assert_eq(tp_batch_joints(bt, &jv), TP_OK);
    memcpy(qd, jv.qd, (size_t)jv.nv * sizeof(float));
    qd[6] = 1.0f; qd[7] = -0.7f; qd[8] = 0.4f;
    int w0 = 0;
    cr_assert_eq(tp_batch_set_joints(bt, TP_JOINT_ARRAY_QD, WORLD_LIST(&w0, 1), qd), TP_OK, "%s", tp_last_error());
    tp_state_view s = batch_view(bt);
    double p0[3], l0[3], p[3], l[3];
    momentum(m, &s, p0, l0);
    double worst_p = 0.0, worst_l = 0.0;
    for (int i = 0; i < 180; ++i) {
        batch_steps(bt, 1);
        s = batch_view(bt);
        momentum(m, &s, p, l);
        double dp[3] = {p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]}, dl[3] = {l[0] - l0[0], l[1] - l0[1], l[2] - l0[2]};
        if (norm3(dp) / norm3(p0) > worst_p) worst_p = norm3(dp) / norm3(p0);
        if (norm3(dl) / norm3(l0) > worst_l) worst_l = norm3(dl) / norm3(l0);
    }
    cr_log_info("free chain momentum drift: linear %.3g, angular %.3g relative", worst_p, worst_l);
    cr_assert_lt(worst_p, 1e-5, "linear momentum drift %.3g relative", worst_p);
    cr_assert_lt(worst_l, 1e-5, "angular momentum drift %.3g relative", worst_l);
    /* and the joints did move relative to each other */
    cr_assert_gt(fabsf(joint_q(bt, 0, 11) - 0.4f), 0.1f);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- drives and limits */

/* A rod on a hinge at height 2 with gravity gz and joint `j` (child filled in). */
static tp_model *rod_model_substeps(float gz, tp_joint_def j, int substeps)
{
    tp_model_def md = quiet_def(gz, substeps);
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = rod_def(0.0f, 0.0f, 2.0f);
    j.child = builder_add(b, &bd);
    add_joint(b, &j);
    return builder_finish(b);
}

static tp_model *rod_model(float gz, tp_joint_def j) { return rod_model_substeps(gz, j, 4); }

/* Time at which the closed-form error of I e'' + kd e' + kp e = 0, e(0) = e0,
 * e'(0) = 0 (overdamped) first falls to e0 / e. */
static double pd_closed_form_t63(double inertia, double kp, double kd)
{
    double disc = sqrt(kd * kd - 4.0 * inertia * kp);
    double s1 = (-kd + disc) / (2.0 * inertia), s2 = (-kd - disc) / (2.0 * inertia);
    double lo = 0.0, hi = 100.0;
    for (int i = 0; i < 200; ++i) {
        double t = 0.5 * (lo + hi);
        double e = (s2 * exp(s1 * t) - s1 * exp(s2 * t)) / (s2 - s1);
        if (e > exp(-1.0)) lo = t; else hi = t;
    }
    return 0.5 * (lo + hi);
}

/* The overdamped PD drive (kp 100, kd 30) of a rod in zero g stepping to 0.5
 * rad at `substeps` per dt 1/60: t63 / its closed form - 1; the rod settles
 * on the target. */
static double pd_drive_t63_error(int substeps)
{
    const double kp = 100.0, kd = 30.0, target = 0.5;
    tp_joint_def j = hinge(-1, 0, 0.0f);
    j.drive = TP_DRIVE_POSITION;
    j.kp = (float)kp;
    j.kd = (float)kd;
    j.target_q = (float)target;
    tp_model *m = rod_model_substeps(0.0f, j, substeps);
    tp_batch *b = make_batch(m, 1, 1);
    double expect = pd_closed_form_t63(rod_pivot_inertia(), kp, kd), t = 0.0, dt = 1.0 / 60.0, hit = -1.0;
    double level = target * exp(-1.0);
    float prev_err = (float)target;
    for (int s = 0; s < 600 && hit < 0.0; ++s) {
        batch_steps(b, 1);
        t += dt;
        float err = (float)target - joint_q(b, 0, 0);
        if (err <= level) hit = t - dt + dt * ((double)prev_err - level) / ((double)prev_err - (double)err);
        prev_err = err;
    }
    cr_assert_gt(hit, 0.0, "never reached 63 %% of the step");
    cr_log_info("PD drive, %d substeps: t63 %.4f s, closed form %.4f s (%+.2f %%)", substeps, hit, expect,
                100.0 * (hit / expect - 1.0));
    batch_steps(b, 600);
    cr_assert_float_eq(joint_q(b, 0, 0), target, 1e-3);
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return hit / expect - 1.0;
}

Test(articulation, pd_drive_time_constant)
{
    double err = pd_drive_t63_error(4);
    cr_assert_lt(fabs(err), 0.05, "t63 %+.2f %% off the closed form", 100.0 * err);
}

/* One substep per dt (MuJoCo's one step per dt, the speed comparison of
 * bench/README.md "Robots"): the pendulum's small-angle and 90-degree
 * periods as at 4 substeps, the PD drive's t63 within 5 %, and the double
 * pendulum's energy drift first order (2.2 % here, 0.55 % at 4 substeps;
 * MuJoCo's implicitfast at the same dt 1/60 drifts 49 %,
 * docs/articulations.md "Substeps"). */
Test(articulation, one_substep_accuracy)
{
    tp_model *m = pendulum_model(-0.05f, NULL, 1);
    tp_batch *b = make_batch(m, 1, 1);
    double expect = 2.0 * PI * sqrt(rod_pivot_inertia() / (1.0 * G * 0.5 * ROD_LEN));
    double period = measure_period(b, 1.0 / 60.0, 5);
    cr_assert_lt(fabs(period / expect - 1.0), 0.005, "small-angle period %.5f s, expected %.5f s", period, expect);
    tp_batch_destroy(b);
    tp_model_destroy(m);
    m = pendulum_model(-(float)(PI / 2.0), NULL, 1);
    b = make_batch(m, 1, 1);
    expect = 4.0 * sqrt(rod_pivot_inertia() / (1.0 * G * 0.5 * ROD_LEN)) * elliptic_k(sin(PI / 4.0));
    period = measure_period(b, 1.0 / 60.0, 4);
    cr_assert_lt(fabs(period / expect - 1.0), 0.01, "90-degree period %.5f s, expected %.5f s", period, expect);
    tp_batch_destroy(b);
    tp_model_destroy(m);
    double err = pd_drive_t63_error(1);
    cr_assert_lt(fabs(err), 0.05, "t63 %+.2f %% off the closed form", 100.0 * err);
    double d1 = double_pendulum_drift(1), d2 = double_pendulum_drift(2);
    cr_assert_lt(d1, 0.025, "energy drift %.4f %% at 1 substep", 100.0 * d1);
    cr_assert(d1 / d2 > 1.5 && d1 / d2 < 2.5, "drift at 1 / 2 substeps %.3f, first order gives 2", d1 / d2);
}

/* 1e4 N m/rad on a 1 kg link at dt 1/60 with the default 4 substeps: settles, never blows up. */
Test(articulation, stiff_drive_is_stable)
{
    for (int damped = 0; damped < 2; ++damped) {
        tp_joint_def j = hinge(-1, 0, 0.0f);
        j.drive = TP_DRIVE_POSITION;
        j.kp = 1.0e4f;
        j.kd = damped ? 10.0f : 0.0f;
        j.target_q = 0.5f;
        tp_model *m = rod_model(-(float)G, j);
        tp_batch *b = make_batch(m, 1, 1);
        float worst = 0.0f;
        for (int s = 0; s < 300; ++s) {
            batch_steps(b, 1);
            float q = joint_q(b, 0, 0);
            cr_assert(isfinite(q));
            if (fabsf(q) > worst) worst = fabsf(q);
        }
        /* no more overshoot than a lossless spring (2x the step), and settled at the target
         * up to the gravity sag m g d sin(q) / kp = 2.4e-4 rad */
        cr_assert_lt(worst, 1.0f, "damped %d: |q| reached %g", damped, (double)worst);
        cr_assert_lt(fabsf(joint_q(b, 0, 0) - 0.5f), 1e-3f, "damped %d: q %g", damped, (double)joint_q(b, 0, 0));
        cr_assert_lt(fabsf(joint_qd(b, 0, 0)), 1e-2f);
        tp_batch_destroy(b);
        tp_model_destroy(m);
    }
}

/* A saturated PD drive pushes with exactly max_effort: qd = (max_effort / I) t. */
Test(articulation, pd_drive_max_effort)
{
    tp_joint_def j = hinge(-1, 0, 0.0f);
    j.drive = TP_DRIVE_POSITION;
    j.kp = 1.0e4f;
    j.kd = 100.0f;
    j.max_effort = 1.0f;
    j.target_q = 3.0f;
    tp_model *m = rod_model(0.0f, j);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 30);
    double expect = 1.0 / rod_pivot_inertia() * 0.5;
    cr_assert_lt(fabs(joint_qd(b, 0, 0) / expect - 1.0), 0.01, "qd %g, expected %g", (double)joint_qd(b, 0, 0), expect);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(articulation, velocity_motor)
{
    tp_joint_def j = hinge(-1, 0, 0.0f);
    j.drive = TP_DRIVE_VELOCITY;
    j.max_effort = 100.0f;
    j.target_qd = 2.0f;
    tp_model *m = rod_model(-(float)G, j);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 60);
    /* strong enough to hold 2 rad/s against gravity (at most 4.9 N m) */
    cr_assert_float_eq(joint_qd(b, 0, 0), 2.0f, 1e-3);
    tp_batch_destroy(b);
    tp_model_destroy(m);
    /* a weak motor in zero gravity accelerates at max_effort / I */
    j.max_effort = 0.1f;
    m = rod_model(0.0f, j);
    b = make_batch(m, 1, 1);
    batch_steps(b, 60);
    double expect = 0.1 / rod_pivot_inertia() * 1.0;
    cr_assert_lt(fabs(joint_qd(b, 0, 0) / expect - 1.0), 0.01, "qd %g, expected %g", (double)joint_qd(b, 0, 0), expect);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(articulation, limits_hold_under_load)
{
    /* gravity pulls the raised rod towards q = 0; the upper limit -0.5 holds it */
    tp_joint_def j = hinge(-1, 0, -0.9f);
    j.has_limits = 1;
    j.lower = -1.0f;
    j.upper = -0.5f;
    tp_model *m = rod_model(-(float)G, j);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 180);
    cr_assert_lt(joint_q(b, 0, 0) - j.upper, 0.01f, "q %g past the upper limit %g", (double)joint_q(b, 0, 0),
                 (double)j.upper);
    cr_assert_gt(joint_q(b, 0, 0) - j.upper, -0.01f, "q %g does not rest on the limit", (double)joint_q(b, 0, 0));
    /* and a joint force of 20 N m (4x the largest gravity torque) pushing the other way */
    float f = -20.0f;
    for (int s = 0; s < 180; ++s) {
        int w = 0;
        cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_F, WORLD_LIST(&w, 1), &f), TP_OK, "%s", tp_last_error());
        batch_steps(b, 1);
    }
    cr_assert_gt(joint_q(b, 0, 0) - j.lower, -0.01f, "q %g past the lower limit", (double)joint_q(b, 0, 0));
    cr_assert_lt(fabsf(joint_qd(b, 0, 0)), 0.01f);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A limit on the second link of a chain acts through the whole tree: the
 * first link swings on while the second is held at the limit. */
Test(articulation, limit_in_a_chain)
{
    tp_model_def md = quiet_def(-(float)G, 4);
    tp_builder *b = builder_begin(&md);
    tp_body_def r0 = rod_def(0.0f, 0.0f, 2.0f), r1 = rod_def(0.0f, 0.0f, 1.0f);
    int a = builder_add(b, &r0), c = builder_add(b, &r1);
    tp_joint_def j0 = hinge(-1, a, 1.0f), j1 = hinge(a, c, 0.0f);
    j1.has_limits = 1;
    j1.lower = -0.05f;
    j1.upper = 0.05f;
    add_joint(b, &j0);
    add_joint(b, &j1);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    float worst = 0.0f;
    for (int s = 0; s < 240; ++s) {
        batch_steps(bt, 1);
        float q1 = joint_q(bt, 0, 1);
        float over = q1 > 0.05f ? q1 - 0.05f : q1 < -0.05f ? -0.05f - q1 : 0.0f;
        if (over > worst) worst = over;
    }
    cr_assert_lt(worst, 0.01f, "limit passed by %g rad", (double)worst);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- determinism */

static void run_hashes(int worlds, int threads, uint64_t *w0, uint64_t *all)
{
    tp_model *m = double_pendulum_model(1.2f, -0.5f, 4);
    tp_batch *b = make_batch(m, worlds, threads);
    batch_steps(b, 200);
    *w0 = batch_world_hash(b, 0);
    *all = batch_state_hash(b);
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK);
    for (int w = 1; w < worlds; ++w)
        cr_assert_eq(memcmp(v.q, v.q + (size_t)w * (size_t)v.nq, (size_t)v.nq * sizeof(float)), 0,
                     "world %d differs from world 0", w);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(articulation, deterministic_runs_worlds_threads)
{
    uint64_t a0, aa, b0, ba, c0, ca, d0, da;
    run_hashes(4, 1, &a0, &aa);
    run_hashes(4, 1, &b0, &ba);
    run_hashes(4, 2, &c0, &ca);
    run_hashes(1, 1, &d0, &da);
    cr_assert_eq(aa, ba, "two runs differ");
    cr_assert_eq(aa, ca, "thread count changes the result");
    cr_assert_eq(a0, d0, "world 0 depends on the world count");
}

/* ---------------------------------------------------------------- bad input */

static void expect_finish_error(tp_joint_def *joints, int n, int bodies, const char *needle)
{
    tp_model_def md = quiet_def(-(float)G, 4);
    tp_builder *b = builder_begin(&md);
    for (int i = 0; i < bodies; ++i) {
        tp_body_def bd = rod_def((float)i, 0.0f, 2.0f);
        builder_add(b, &bd);
    }
    tp_status st = TP_OK;
    for (int i = 0; i < n && st == TP_OK; ++i) st = tp_builder_add_joint(b, &joints[i], NULL);
    tp_model *m = NULL;
    if (st == TP_OK) st = tp_builder_finish(b, &m);
    cr_assert_eq(st, TP_ERR_INVALID_ARGUMENT, "expected an error containing \"%s\"", needle);
    cr_assert_null(m);
    cr_assert(strstr(tp_last_error(), needle), "message \"%s\" lacks \"%s\"", tp_last_error(), needle);
    tp_builder_destroy(b);
}

Test(articulation, bad_joints_are_refused)
{
    tp_joint_def j = hinge(-1, 0, 0.0f);
    j.axis[0] = j.axis[1] = j.axis[2] = 0.0f;
    expect_finish_error(&j, 1, 1, "axis: must not be of zero length");
    j = hinge(-1, 0, 0.0f);
    j.has_limits = 1;
    j.lower = 1.0f;
    j.upper = -1.0f;
    expect_finish_error(&j, 1, 1, "limits: lower must be <= upper");
    tp_joint_def loop[2] = {hinge(1, 0, 0.0f), hinge(0, 1, 0.0f)};
    expect_finish_error(loop, 2, 2, "loop");
    tp_joint_def orphan = hinge(1, 0, 0.0f); /* body 1 is no link */
    expect_finish_error(&orphan, 1, 2, "is not a link");
    /* the parent of an ancestor is no link: the walk to the root must not run off the tree */
    tp_joint_def dangling[2] = {hinge(1, 0, 0.0f), hinge(2, 1, 0.0f)};
    expect_finish_error(dangling, 2, 3, "joints[1] (joint1): parent: body 2 is not a link");
    /* a root, a chain that reaches it, then a tail into a loop (bodies 3 <-> 4): the loop is found from the tail */
    tp_joint_def tail[5] = {hinge(-1, 0, 0.0f), hinge(0, 1, 0.0f), hinge(3, 2, 0.0f), hinge(4, 3, 0.0f), hinge(3, 4, 0.0f)};
    expect_finish_error(tail, 5, 5, "joints[2] (joint2): parent: the joints form a loop through body 2");
    tp_joint_def twice[2] = {hinge(-1, 0, 0.0f), hinge(-1, 0, 0.0f)};
    expect_finish_error(twice, 2, 1, "already the child");
    tp_joint_def fr[2] = {hinge(-1, 0, 0.0f), hinge(0, 1, 0.0f)};
    fr[1].type = TP_JOINT_FREE;
    fr[1].anchor[2] = 0.0f; /* a free joint has no anchor (refused first) */
    expect_finish_error(fr, 2, 2, "free joint must be the root");
    j = hinge(-1, 0, 0.0f);
    j.drive = TP_DRIVE_VELOCITY;
    expect_finish_error(&j, 1, 1, "max_effort");
    j = hinge(-1, 5, 0.0f);
    expect_finish_error(&j, 1, 1, "child: must be a body index");
}

Test(articulation, bad_writes_change_nothing)
{
    tp_model *m = pendulum_model(0.3f, NULL, 4);
    tp_batch *b = make_batch(m, 2, 1);
    int worlds[2] = {0, 0};
    float vals[2] = {0.1f, 0.2f};
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_Q, WORLD_LIST(worlds, 2), vals), TP_ERR_INVALID_ARGUMENT);
    float bad[2] = {0.1f, NAN};
    worlds[1] = 1;
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_Q, WORLD_LIST(worlds, 2), bad), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "joint_q row 1"), "%s", tp_last_error());
    cr_assert_float_eq(joint_q(b, 0, 0), 0.3f, 0.0f);
    /* a mask write moves world 1 only, and its link with it */
    uint8_t mask[2] = {0, 1};
    float rows[2] = {99.0f, 0.0f};
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_Q, WORLD_MASK(mask), rows), TP_OK, "%s", tp_last_error());
    cr_assert_float_eq(joint_q(b, 0, 0), 0.3f, 0.0f);
    cr_assert_float_eq(joint_q(b, 1, 0), 0.0f, 0.0f);
    tp_state_view s = batch_view(b);
    cr_assert_float_eq(s.pos[3 * 1 + 1], 0.0f, 1e-6);
    cr_assert_float_eq(s.pos[3 * 1 + 2], 1.5f, 1e-6);
    /* reset brings the initial q back */
    int one = 1;
    cr_assert_eq(tp_batch_reset_worlds(b, WORLD_LIST(&one, 1)), TP_OK);
    cr_assert_float_eq(joint_q(b, 1, 0), 0.3f, 0.0f);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- scenes */

#ifndef TP_SOURCE_DIR
#define TP_SOURCE_DIR "."
#endif

static tp_model *load_scene(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/%s", TP_SOURCE_DIR, name);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(path, &m), TP_OK, "%s", tp_last_error());
    return m;
}

/* pendulum.json is the 90-degree release of the tests above, from the file. */
Test(articulation_scenes, pendulum_period)
{
    tp_model *m = load_scene("pendulum.json");
    cr_assert_eq(tp_model_joint_count(m), 1);
    cr_assert_str_eq(tp_model_dof_name(m, 0), "hinge");
    tp_batch *b = make_batch(m, 1, 1);
    double expect = 4.0 * sqrt(rod_pivot_inertia() / (1.0 * G * 0.5 * ROD_LEN)) * elliptic_k(sin(PI / 4.0));
    double period = measure_period(b, 1.0 / 60.0, 3);
    cr_assert_lt(fabs(period / expect - 1.0), 0.01, "period %.5f s, expected %.5f s", period, expect);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Nothing pushes the cart-pole sideways but the slider's damping (0.1 N s/m):
 * the horizontal centre of mass stays put while the pole falls. */
Test(articulation_scenes, cartpole_centre_of_mass)
{
    tp_model *m = load_scene("cartpole.json");
    tp_batch *b = make_batch(m, 1, 1);
    int cart = tp_model_find_body(m, "cart"), pole = tp_model_find_body(m, "pole");
    tp_state_view s = batch_view(b);
    double x0 = (1.0 * s.pos[3 * cart] + 0.1 * s.pos[3 * pole]) / 1.1;
    batch_steps(b, 90);
    s = batch_view(b);
    double x1 = (1.0 * s.pos[3 * cart] + 0.1 * s.pos[3 * pole]) / 1.1;
    float angle = joint_q(b, 0, 1);
    cr_assert_gt(fabsf(angle), 0.5f, "the pole did not fall (q %g)", (double)angle);
    cr_assert_lt(fabs(x1 - x0), 2e-3, "centre of mass moved %.4g m", x1 - x0);
    /* the cart moved against the pole's lean */
    cr_assert_lt(s.pos[3 * cart] * s.pos[3 * pole], 0.0f);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(articulation_scenes, scenes_are_deterministic)
{
    const char *names[] = {"pendulum.json", "double_pendulum.json", "cartpole.json"};
    for (int i = 0; i < 3; ++i) {
        tp_model *m = load_scene(names[i]);
        uint64_t h[4];
        int worlds[4] = {3, 3, 3, 1}, threads[4] = {1, 1, 2, 1};
        for (int r = 0; r < 4; ++r) {
            tp_batch *b = make_batch(m, worlds[r], threads[r]);
            batch_steps(b, 120);
            h[r] = r < 3 ? batch_state_hash(b) : batch_world_hash(b, 0);
            if (r == 0) {
                uint64_t w0 = batch_world_hash(b, 0), w2 = batch_world_hash(b, 2);
                cr_assert_eq(w0, w2, "%s: replicated worlds differ", names[i]);
                h[3] = w0;
            }
            if (r == 3) cr_assert_eq(h[3], batch_world_hash(b, 0));
            tp_batch_destroy(b);
        }
        cr_assert_eq(h[0], h[1], "%s: runs differ", names[i]);
        cr_assert_eq(h[0], h[2], "%s: thread count changes the result", names[i]);
        tp_model_destroy(m);
    }
}

static void expect_scene_error(const char *json, const char *where, const char *reason)
{
    tp_model *model = NULL;
    tp_status status = tp_model_load_string(json, "t.json", &model);
    const char *msg = tp_last_error();
    cr_assert_eq(status, TP_ERR_PARSE, "status %d (%s)", (int)status, msg);
    cr_assert_null(model);
    cr_assert(strncmp(msg, where, strlen(where)) == 0, "message\n  %s\ndoes not start with\n  %s", msg, where);
    cr_assert(strstr(msg, reason) != NULL, "message\n  %s\ndoes not say\n  %s", msg, reason);
}

#define TWO_BODIES "{\"version\": 2, \"bodies\": [{\"name\": \"a\"}, {\"name\": \"b\", \"pos\": [0, 0, -1]}],\n"

Test(articulation_scenes, bad_joints_name_the_place)
{
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"axis\": [0, 0, 0]}]}", "t.json:2:36: joints[0].axis: ",
                       "must not be of zero length");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"limits\": [1, -1]}]}",
                       "t.json:2:38: joints[0].limits: ", "lower must be <= upper");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"parent\": \"c\"}]}", "t.json:2:38: joints[0].parent: ",
                       "unknown body \"c\"");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"parent\": \"b\"}]}", "t.json:2:38: joints[0].parent: ",
                       "is not a link");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"parent\": \"b\"},\n"
                                  "  {\"child\": \"b\", \"parent\": \"a\"}]}",
                       "t.json:2:38: joints[0].parent: ", "loop");
    expect_scene_error("{\"version\": 2, \"bodies\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}],\n"
                       " \"joints\": [{\"child\": \"a\", \"parent\": \"b\"}, {\"child\": \"b\", \"parent\": \"c\"}]}",
                       "t.json:2:69: joints[1].parent: ", "body 2 is not a link");
    /* a repeated name is reported once, at the name (an unnamed joint is "joint<i>") */
    expect_scene_error("{\"version\": 2, \"bodies\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}],\n"
                       " \"joints\": [{\"child\": \"a\", \"name\": \"j\"}, {\"child\": \"b\", \"name\": \"joint0\"}, {\"child\": \"c\", \"name\": \"j\"}]}",
                       "t.json:2:99: joints[2].name: \"j\" is already the name of joints[0]", "");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\"}, {\"child\": \"b\", \"name\": \"joint0\"}]}",
                       "t.json:2:52: joints[1].name: \"joint0\" is already the name of joints[0]", "");
    /* a setting the joint type or drive does not use is named where it stands (not silently ignored) */
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"type\": \"free\", \"anchor\": [0, 0, 1]}]}", "t.json:2:54: joints[0].anchor: ", "a free joint has no anchor");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"type\": \"ball\", \"qd0\": 1}]}", "t.json:2:51: joints[0].qd0: ", "a ball joint has no scalar q0 / qd0");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"type\": \"free\", \"friction\": 1}]}", "t.json:2:56: joints[0].friction: ", "a free joint has no damping, friction or armature");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"type\": \"ball\", \"kp\": 5}]}", "t.json:2:50: joints[0].kp: ", "a ball joint has no drive");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"type\": \"fixed\", \"target_q\": 5}]}", "t.json:2:57: joints[0].target_q: ", "a fixed joint has no drive");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"type\": \"ball\", \"rest\": 1}]}", "t.json:2:52: joints[0].rest: ", "a ball joint has no spring");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"kp\": 50}]}", "t.json:2:34: joints[0].kp: ", "has no effect without a drive");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"drive\": \"velocity\", \"max_effort\": 5, \"kd\": 1}]}", "t.json:2:72: joints[0].kd: ", "a velocity motor takes no kp or kd");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"parent\": \"a\"}]}", "t.json:2:13: joints[0].child: ",
                       "required key is missing");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\", \"type\": \"hinge\"}]}", "t.json:2:36: joints[0].type: ",
                       "revolute");
    expect_scene_error("{\"bodies\": [{\"name\": \"a\"}], \"joints\": [{\"child\": \"a\"}]}", "t.json:1:29: joints: ",
                       "joints need \"version\": 2");
}

/* "version": 2.0 is version 2 for joints as it is for compound bodies (the
 * joints read the integer value of the JSON real, 0, and refused it). */
Test(articulation_scenes, version_two_as_a_real)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string("{\"version\": 2.0, \"bodies\": [{\"name\": \"a\"}], \"joints\": [{\"child\": \"a\"}]}",
                                      "t.json", &m), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_model_joint_count(m), 1);
    tp_model_destroy(m);
}

/* A version 1 file loads as before; the same bodies in version 2 with no joints give the same model. */
Test(articulation_scenes, version_one_unchanged)
{
    tp_model *m1 = NULL, *m2 = NULL;
    cr_assert_eq(tp_model_load_string("{\"version\": 1, \"bodies\": [{\"pos\": [0, 0, 3]}]}", "v1", &m1), TP_OK);
    cr_assert_eq(tp_model_load_string("{\"version\": 2, \"bodies\": [{\"pos\": [0, 0, 3]}]}", "v2", &m2), TP_OK);
    tp_batch *b1 = make_batch(m1, 1, 1), *b2 = make_batch(m2, 1, 1);
    batch_steps(b1, 30);
    batch_steps(b2, 30);
    cr_assert_eq(batch_state_hash(b1), batch_state_hash(b2));
    cr_assert_eq(tp_model_joint_count(m1), 0);
    tp_batch_destroy(b1);
    tp_batch_destroy(b2);
    tp_model_destroy(m1);
    tp_model_destroy(m2);
}

/* ---------------------------------------------------------------- other joint types */

/* A ball-jointed rod swinging in 3D: energy is conserved, and so is the
 * angular momentum about the vertical through the pivot (gravity and the pivot
 * force have no moment about it). */
Test(articulation, ball_pendulum_conserves_energy_and_vertical_momentum)
{
    tp_model_def md = quiet_def(-(float)G, 8);
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = rod_def(0.0f, 0.0f, 2.0f);
    int rod = builder_add(b, &bd);
    tp_joint_def j = tp_default_joint_def();
    j.type = TP_JOINT_BALL;
    j.child = rod;
    j.anchor[2] = 0.5f;
    add_joint(b, &j);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    /* tilt 0.8 rad about x and spin about the rod's own long axis and about y */
    float q[4] = {(float)sin(0.4), 0.0f, 0.0f, (float)cos(0.4)}, qd[3] = {0.0f, 2.0f, 1.5f};
    int w = 0;
    cr_assert_eq(tp_batch_set_joints(bt, TP_JOINT_ARRAY_Q, WORLD_LIST(&w, 1), q), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_joints(bt, TP_JOINT_ARRAY_QD, WORLD_LIST(&w, 1), qd), TP_OK, "%s", tp_last_error());
    const float g[3] = {0.0f, 0.0f, -(float)G};
    tp_state_view s = batch_view(bt);
    double e0 = body_energy(m, &s, 0, g), p[3], l[3];
    /* L about the pivot (0, 0, 2): L_origin - pivot x P */
    momentum(m, &s, p, l);
    double lz0 = l[2], scale = e0 - 1.0 * G * 1.5, worst_e = 0.0, worst_l = 0.0;
    for (int i = 0; i < 300; ++i) {
        batch_steps(bt, 1);
        s = batch_view(bt);
        momentum(m, &s, p, l);
        double e = body_energy(m, &s, 0, g);
        if (fabs(e - e0) > worst_e) worst_e = fabs(e - e0);
        if (fabs(l[2] - lz0) > worst_l) worst_l = fabs(l[2] - lz0);
    }
    cr_assert_lt(worst_e / scale, 0.005, "energy drift %.3f %%", 100.0 * worst_e / scale);
    cr_assert_lt(worst_l / fabs(lz0), 1e-3, "L_z drift %.3g relative (L_z %.4f)", worst_l / fabs(lz0), lz0);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* A vertical slider falls freely: x = g h^2 n (n + 1) / 2 after n substeps of
 * semi-implicit Euler (the same law as a free body, kernels/integrate.h). */
Test(articulation, prismatic_free_fall)
{
    tp_joint_def j = tp_default_joint_def();
    j.type = TP_JOINT_PRISMATIC;
    j.axis[2] = 1.0f;
    tp_model *m = rod_model(-(float)G, j);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 30);
    double h = 1.0 / 60.0 / 4.0, n = 120.0, expect = -G * h * h * n * (n + 1.0) / 2.0;
    cr_assert_lt(fabs(joint_q(b, 0, 0) / expect - 1.0), 1e-4, "q %g, expected %g", (double)joint_q(b, 0, 0), expect);
    tp_state_view s = batch_view(b);
    cr_assert_float_eq(s.pos[2], 1.5 + expect, 1e-4);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A force on a link's body acts like the joint torque it makes about the hinge. */
Test(articulation, body_force_on_a_link)
{
    tp_model *m = pendulum_model(0.0f, NULL, 4);
    tp_batch *a = make_batch(m, 1, 1), *b = make_batch(m, 1, 1);
    for (int i = 0; i < 30; ++i) {
        /* 2 N along +y at the centre, 0.5 m below the hinge: torque about +x = 0.5 * 2 ... */
        const float f[3] = {0.0f, 2.0f, 0.0f};
        cr_assert_eq(tp_batch_apply_force(a, 0, 0, f, NULL), TP_OK, "%s", tp_last_error());
        /* ... with the arm r = (0, 0, -0.5) rotated by q: tau_x = r_y f_z - r_z f_y = 0.5 cos(q) * 2 */
        float q = joint_q(b, 0, 0), tau = 0.5f * (float)cos(q) * 2.0f;
        int w = 0;
        cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_F, WORLD_LIST(&w, 1), &tau), TP_OK);
        batch_steps(a, 1);
        batch_steps(b, 1);
    }
    cr_assert_gt(joint_q(a, 0, 0), 0.1f);
    /* equal up to the change of the arm within a step (the torque of joint_f is held for the step) */
    cr_assert_float_eq(joint_q(a, 0, 0), joint_q(b, 0, 0), 1e-3);
    tp_batch_destroy(a);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Quaternions written into joint_q are normalized whatever their size, as
 * tp_batch_set_pose does: [3e38, 0, 0, 3e38] is a quarter turn about x (its
 * sum of squares overflows a float), [1e-20, 0, 0, 0] a half turn; only all
 * zeros is refused. */
Test(articulation, joint_q_quaternions_of_any_size)
{
    tp_model_def md = quiet_def(0.0f, 1);
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = rod_def(0.0f, 0.0f, 2.0f);
    int rod = builder_add(b, &bd);
    tp_joint_def j = tp_default_joint_def();
    j.type = TP_JOINT_FREE;
    j.child = rod;
    add_joint(b, &j);
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    int w = 0;
    const float h = 0.70710678f;
    float big[7] = {1.0f, 2.0f, 3.0f, 3e38f, 0.0f, 0.0f, 3e38f};
    cr_assert_eq(tp_batch_set_joints(batch, TP_JOINT_ARRAY_Q, WORLD_LIST(&w, 1), big), TP_OK, "%s", tp_last_error());
    float want[4] = {h, 0.0f, 0.0f, h};
    tp_state_view s = batch_view(batch);
    for (int k = 0; k < 4; ++k) {
        cr_assert_float_eq(joint_q(batch, 0, 3 + k), want[k], 1e-6, "joint_q[%d]", 3 + k);
        cr_assert_float_eq(s.quat[k], want[k], 1e-6, "link quat[%d]", k);
    }
    float tiny[7] = {1.0f, 2.0f, 3.0f, 1e-20f, 0.0f, 0.0f, 0.0f};
    cr_assert_eq(tp_batch_set_joints(batch, TP_JOINT_ARRAY_Q, WORLD_LIST(&w, 1), tiny), TP_OK, "%s", tp_last_error());
    cr_assert_float_eq(joint_q(batch, 0, 3), 1.0f, 1e-6);
    float zero[7] = {1.0f, 2.0f, 3.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    cr_assert_eq(tp_batch_set_joints(batch, TP_JOINT_ARRAY_Q, WORLD_LIST(&w, 1), zero), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "zero"), "%s", tp_last_error());
    cr_assert_float_eq(joint_q(batch, 0, 3), 1.0f, 1e-6, "a refused write changed joint_q");
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* A revolute axis is a direction: [1e30, 0, 0] and [1e-20, 0, 0] and [1e-45, 0, 0] are the x
 * axis as [1, 0, 0] is (the float sum of squares of the first overflows, of
 * the second underflows), and place the link at q0 where [1, 0, 0] does. */
Test(articulation, axis_of_any_length)
{
    float scales[4] = {1.0f, 1e30f, 1e-20f, 1e-45f};
    float want[3] = {0.0f, 0.0f, 0.0f};
    for (int i = 0; i < 4; ++i) {
        tp_joint_def j = hinge(-1, 0, 0.4f);
        j.axis[0] = scales[i];
        tp_model *m = pendulum_model(0.4f, &j, 4);
        tp_batch *b = make_batch(m, 1, 1);
        tp_state_view s = batch_view(b);
        if (i == 0) {
            memcpy(want, s.pos, sizeof want);
            /* the rod's centre swung 0.4 rad about x from below the pivot at height 2 */
            cr_assert_float_eq(want[1], 0.5f * sinf(0.4f), 1e-5);
        }
        for (int k = 0; k < 3; ++k)
            cr_assert_float_eq(s.pos[k], want[k], 1e-6, "axis [%g, 0, 0]: pos[%d] %g, want %g", (double)scales[i], k,
                               (double)s.pos[k], (double)want[k]);
        tp_batch_destroy(b);
        tp_model_destroy(m);
    }
}

/* ---------------------------------------------------------------- writes aimed at links */

static void expect_link_refusal(tp_status st, const char *call)
{
    cr_assert_eq(st, TP_ERR_INVALID_ARGUMENT, "%s on a link was accepted", call);
    cr_assert(strstr(tp_last_error(), call) && strstr(tp_last_error(), "link of joints[0] (joint0)"),
              "message \"%s\" does not name the call and the joint", tp_last_error());
}

/* A link's pose and velocity follow joint_q and joint_qd: a write of its body
 * pose or velocity would be shown until the next step overwrote it, and its
 * removal would leave the tree simulating a body out of collision, so each is
 * refused and nothing changes. Forces and impulses act on the tree
 * (docs/articulations.md; impulses: tests/test_articulation_writes.c). */
Test(articulation, writes_to_links_are_refused)
{
    tp_model *m = pendulum_model(0.3f, NULL, 4);
    tp_batch *b = make_batch(m, 1, 1);
    tp_state_view s = batch_view(b);
    float pos0[3], quat0[4];
    memcpy(pos0, s.pos, sizeof pos0);
    memcpy(quat0, s.quat, sizeof quat0);
    float p[3] = {5.0f, 5.0f, 5.0f}, q[4] = {0.0f, 0.0f, 0.0f, 1.0f}, v[3] = {1.0f, 0.0f, 0.0f}, z[3] = {0.0f, 0.0f, 0.0f};
    expect_link_refusal(tp_batch_set_pose(b, 0, 0, p, q), "tp_batch_set_pose");
    expect_link_refusal(tp_batch_set_velocity(b, 0, 0, v, z), "tp_batch_set_velocity");
    expect_link_refusal(tp_batch_remove_body(b, 0, 0), "tp_batch_remove_body");
    s = batch_view(b);
    for (int k = 0; k < 3; ++k) cr_assert_eq(s.pos[k], pos0[k], "a refused write moved the link");
    for (int k = 0; k < 4; ++k) cr_assert_eq(s.quat[k], quat0[k], "a refused write turned the link");
    cr_assert_eq(s.removed[0], 0);
    cr_assert_eq(tp_batch_apply_force(b, 0, 0, v, NULL), TP_OK, "%s", tp_last_error());
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* tp_batch_reset_to_state reads no link rows, so a whole state read back can
 * be written as it is and every link stays where the reset joint_q puts it;
 * a batched pose write that would move a link is refused whole. */
Test(articulation, batched_writes_and_links)
{
    tp_model *m = pendulum_model(0.3f, NULL, 4);
    tp_batch *b = make_batch(m, 1, 1);
    tp_state_view s = batch_view(b);
    float pos0[3], quat0[4];
    memcpy(pos0, s.pos, sizeof pos0);
    memcpy(quat0, s.quat, sizeof quat0);
    batch_steps(b, 20); /* swing away from q0 */
    s = batch_view(b);
    float pos[3], quat[4], v[3], w[3];
    memcpy(pos, s.pos, sizeof pos);
    memcpy(quat, s.quat, sizeof quat);
    memcpy(v, s.v, sizeof v);
    memcpy(w, s.w, sizeof w);
    cr_assert_gt(fabsf(pos[1] - pos0[1]), 1e-3f, "the pendulum did not swing");
    cr_assert_eq(tp_batch_reset_to_state(b, NULL, pos, quat, v, w), TP_OK, "%s", tp_last_error());
    s = batch_view(b);
    cr_assert_float_eq(joint_q(b, 0, 0), 0.3f, 0.0f);
    for (int k = 0; k < 3; ++k) cr_assert_eq(s.pos[k], pos0[k], "pos[%d] %g: the link left q0's place", k, (double)s.pos[k]);
    for (int k = 0; k < 4; ++k) cr_assert_eq(s.quat[k], quat0[k], "quat[%d]", k);
    /* a changed link row refuses the whole batched write (the link would not
     * follow it); nothing moves. Impulses act on the tree:
     * tests/test_articulation_writes.c. */
    float p[3] = {5.0f, 5.0f, 5.0f}, q[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    cr_assert_eq(tp_batch_set_poses(b, NULL, p, q), TP_ERR_INVALID_ARGUMENT, "a moved link row was accepted");
    cr_assert(strstr(tp_last_error(), "articulation link"), "%s", tp_last_error());
    s = batch_view(b);
    for (int k = 0; k < 3; ++k) cr_assert_eq(s.pos[k], pos0[k], "set_poses moved the link");
    cr_assert_eq(s.v[1], 0.0f);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Scripted events that would move a link's body, or remove it, are refused
 * when the model is built: at the event's body in a scene, by tp_builder_finish
 * through the API (where the joint may be added after the event). */
Test(articulation_scenes, events_on_links_are_refused)
{
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\"}],\n"
                                  " \"events\": [{\"time\": 0, \"action\": \"teleport\", \"body\": \"a\", \"pos\": [1, 1, 1]}]}",
                       "t.json:3:55: events[0].body: ", "is the link of joints[0] (joint0)");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"child\": \"a\"}],\n"
                                  " \"events\": [{\"time\": 0, \"action\": \"remove\", \"body\": \"a\"}]}",
                       "t.json:3:53: events[0].body: ", "is the link of joints[0] (joint0)");
    /* forces act on links; events on other bodies are untouched */
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(TWO_BODIES " \"joints\": [{\"child\": \"a\"}],\n"
                                      " \"events\": [{\"time\": 0, \"action\": \"force\", \"body\": \"a\", \"value\": [1, 0, 0]},"
                                      " {\"time\": 0, \"action\": \"teleport\", \"body\": \"b\", \"pos\": [1, 1, 1]}]}",
                                      "t.json", &m), TP_OK, "%s", tp_last_error());
    tp_model_destroy(m);
    tp_model_def md = quiet_def(-(float)G, 4);
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = rod_def(0.0f, 0.0f, 2.0f);
    int rod = builder_add(b, &bd);
    tp_event_def ev = tp_default_event_def();
    ev.action = TP_EVENT_SET_VELOCITY;
    ev.body = rod;
    cr_assert_eq(tp_builder_add_event(b, &ev), TP_OK, "%s", tp_last_error());
    tp_joint_def j = hinge(-1, rod, 0.0f);
    add_joint(b, &j);
    m = NULL;
    cr_assert_eq(tp_builder_finish(b, &m), TP_ERR_INVALID_ARGUMENT);
    cr_assert_null(m);
    cr_assert(strstr(tp_last_error(), "event 0 (set_velocity): body: body 0 (body0) is the link of joints[0] (joint0)"),
              "%s", tp_last_error());
    tp_builder_destroy(b);
}

/* ---------------------------------------------------------------- bounds */

/* Joint positions and anchors whose first step can only fault the world (or
 * whose angle overflows the int of tp_sin_cos's range reduction, undefined
 * behaviour) are refused, as docs/scene-format.md "Bounds" refuses sizes and
 * masses: q0 1e38 gave NaN link poses in every world, as did a target_q or
 * rest of 1e38 with a drive or spring, or an anchor 1e38 m off its link. */
Test(articulation, joint_positions_within_bounds)
{
    struct { const char *field; float value; } cases[] = {
        {"q0", 1e38f}, {"q0", -2e6f}, {"target_q", 1e38f}, {"rest", 1e38f}, {"anchor[1]", 1e38f}, {"anchor[2]", -2e4f}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        tp_joint_def j = hinge(-1, 0, 0.0f);
        const char *f = cases[i].field;
        if (strcmp(f, "q0") == 0) j.q0 = cases[i].value;
        if (strcmp(f, "target_q") == 0) {
            j.drive = TP_DRIVE_POSITION;
            j.kp = 10.0f;
            j.target_q = cases[i].value;
        }
        if (strcmp(f, "rest") == 0) {
            j.stiffness = 1.0f;
            j.rest = cases[i].value;
        }
        if (strcmp(f, "anchor[1]") == 0) j.anchor[1] = cases[i].value;
        if (strcmp(f, "anchor[2]") == 0) j.anchor[2] = cases[i].value;
        char needle[64];
        snprintf(needle, sizeof needle, "%s: must be within", f);
        expect_finish_error(&j, 1, 1, needle);
    }
    /* in bounds: a wound-up hinge far from 0 still runs */
    tp_joint_def j = hinge(-1, 0, 1e5f);
    tp_model *m = pendulum_model(1e5f, &j, 4);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 10);
    cr_assert_eq(batch_view(b).faults[0], 0);
    /* the same bound for joint_q and target_q writes of 1-dof joints; nothing changes */
    int w = 0;
    float big = 1e10f;
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_Q, WORLD_LIST(&w, 1), &big), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "joint_q row 0 [0] (joint0): must be within"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_TARGET_Q, WORLD_LIST(&w, 1), &big), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "target_q row 0 [0] (joint0): must be within"), "%s", tp_last_error());
    cr_assert_gt(fabsf(joint_q(b, 0, 0)), 9e4f);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A hinge that starts past its upper limit (q0 1.5, limits [-1, 1]), with no
 * gravity and nothing else acting, returns to the limit it violates and
 * stays there: the push-back must not stay in qd as real velocity, which sent
 * the joint across its whole range at 6 rad/s (96 rad/s from q0 3) until
 * the other limit stopped it. */
Test(articulation, violated_limit_returns_without_flying_across)
{
    tp_joint_def j = hinge(-1, 0, 1.5f);
    j.has_limits = 1;
    j.lower = -1.0f;
    j.upper = 1.0f;
    tp_model_def md = quiet_def(0.0f, 4);
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = rod_def(0.0f, 0.0f, 2.0f);
    j.child = builder_add(b, &bd);
    add_joint(b, &j);
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    float lowest = 1.5f;
    for (int s = 0; s < 60; ++s) {
        batch_steps(batch, 1);
        lowest = fminf(lowest, joint_q(batch, 0, 0));
    }
    cr_assert_gt(lowest, 1.0f - 1e-3f, "the joint left its upper limit for %g rad", (double)lowest);
    cr_assert_float_eq(joint_q(batch, 0, 0), 1.0f, 1e-3, "q %g", (double)joint_q(batch, 0, 0));
    cr_assert_lt(fabsf(joint_qd(batch, 0, 0)), 1e-3f, "qd %g", (double)joint_qd(batch, 0, 0));
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- long chains */

#define CHAIN_PITCH 0.1  /* m between hinges */
#define CHAIN_CUBE 0.05  /* m, 1 kg cubes */

/* n 1 kg cubes CHAIN_PITCH apart on hinges about y, each hinge at its link's
 * face towards the anchor (the world, at the origin): hanging along -z, or
 * horizontal along +x. The first hinge starts at q0. */
static tp_builder *chain_builder(int n, int hanging, float q0)
{
    tp_model_def md = quiet_def(-(float)G, 4);
    tp_builder *b = builder_begin(&md);
    for (int i = 0; i < n; ++i) {
        tp_body_def bd = tp_default_body_def();
        for (int k = 0; k < 3; ++k) bd.size[k] = (float)CHAIN_CUBE;
        bd.mass = 1.0f;
        float at = (float)(CHAIN_PITCH * i + 0.5 * CHAIN_CUBE);
        if (hanging) bd.pos[2] = -at;
        else bd.pos[0] = at;
        int link = builder_add(b, &bd);
        tp_joint_def j = tp_default_joint_def();
        j.type = TP_JOINT_REVOLUTE;
        j.parent = i == 0 ? -1 : link - 1;
        j.child = link;
        j.axis[1] = 1.0f;
        j.axis[2] = 0.0f;
        if (hanging) j.anchor[2] = 0.5f * (float)CHAIN_CUBE;
        else j.anchor[0] = -0.5f * (float)CHAIN_CUBE;
        j.q0 = i == 0 ? q0 : 0.0f;
        add_joint(b, &j);
    }
    return b;
}

static tp_model *chain_model(int n, int hanging, float q0) { return builder_finish(chain_builder(n, hanging, q0)); }

/* A tree of more than TP_MAX_TREE_DOFS dofs is refused when the model is
 * built, naming its root joint, its dofs and the bound (a 1,000-link chain
 * lying on the ground took 611 s for one step: each contact point on a link
 * costs about dofs^2 per substep); a chain at the bound builds. */
Test(articulation, tree_past_the_dof_bound_is_refused)
{
    const int sizes[] = {TP_MAX_TREE_DOFS + 1, 1000};
    for (int k = 0; k < 2; ++k) {
        tp_builder *b = chain_builder(sizes[k], 0, 0.0f);
        tp_model *m = NULL;
        cr_assert_eq(tp_builder_finish(b, &m), TP_ERR_CAPACITY, "%d links: %s", sizes[k], tp_last_error());
        cr_assert_null(m);
        char want[96];
        snprintf(want, sizeof want, "joints[0] (joint0): its tree has %d dofs (%d joints); at most %d per tree",
                 sizes[k], sizes[k], TP_MAX_TREE_DOFS);
        cr_expect_not_null(strstr(tp_last_error(), want), "%s", tp_last_error());
        tp_builder_destroy(b);
    }
    tp_model *m = chain_model(TP_MAX_TREE_DOFS, 0, 0.0f);
    cr_expect_eq(tp_model_joint_count(m), TP_MAX_TREE_DOFS);
    tp_model_destroy(m);
}

/* A hanging chain of 200 links released at 0.3 rad swings as a whole: every
 * state finite, no world faulted, energy never above its start by more than
 * 1 % of the energy released (the double pendulum above keeps 0.5 %; float32
 * rounding of the energy itself at 20 m is 1e-5 of it), and the last link's
 * centre within the chain's length of the anchor (199 pitches plus half a
 * cube; joints in reduced coordinates cannot stretch) up to float32 rounding
 * of the poses: at most an ulp (6e-8 relative) of the length per link passed. Before H and its
 * factor were formed in double, 53 such links went non-finite within steps. */
Test(articulation, long_hanging_chain_stays_bounded)
{
    const int n = 200;
    const float q0 = 0.3f;
    tp_model *m = chain_model(n, 1, q0);
    tp_batch *b = make_batch(m, 1, 1);
    const float g[3] = {0.0f, 0.0f, -(float)G};
    tp_state_view s = batch_view(b);
    double e0 = body_energy(m, &s, 0, g);
    double length = CHAIN_PITCH * (n - 1) + 0.5 * CHAIN_CUBE;
    /* released energy: the chain's COM (at length / 2 below the anchor) rises by (1 - cos q0) */
    double released = n * 1.0 * G * 0.5 * (CHAIN_PITCH * (n - 1) + CHAIN_CUBE) * (1.0 - cos((double)q0));
    double worst = -1e30, reach = 0.0;
    for (int step = 0; step < 60; ++step) {
        batch_steps(b, 1);
        s = batch_view(b);
        cr_assert_eq(s.faults[0], 0, "world faulted at step %d", step + 1);
        for (int i = 0; i < 3 * n; ++i)
            cr_assert(isfinite(s.pos[i]) && isfinite(s.v[i]) && isfinite(s.w[i]), "non-finite at step %d", step + 1);
        double e = body_energy(m, &s, 0, g);
        if (e - e0 > worst) worst = e - e0;
        const float *tip = s.pos + 3 * (n - 1);
        double r = sqrt((double)tip[0] * tip[0] + (double)tip[1] * tip[1] + (double)tip[2] * tip[2]);
        if (r > reach) reach = r;
    }
    cr_log_info("200-link chain: energy growth %.4g J of %.4g J released, tip at most %.6f m of %.6f m", worst,
                released, reach, length);
    cr_expect_lt(worst, 0.01 * released, "energy grew by %g J (released %g J)", worst, released);
    cr_expect_leq(reach, length * (1.0 + n * 6e-8), "tip %g m from the anchor, chain %g m", reach, length);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The horizontal chain of the same links falls from rest: finite, not faulted. */
Test(articulation, long_horizontal_chain_stays_finite)
{
    const int n = 200;
    tp_model *m = chain_model(n, 0, 0.0f);
    tp_batch *b = make_batch(m, 1, 1);
    for (int step = 0; step < 10; ++step) {
        batch_steps(b, 1);
        tp_state_view s = batch_view(b);
        cr_assert_eq(s.faults[0], 0, "world faulted at step %d", step + 1);
        for (int i = 0; i < 3 * n; ++i)
            cr_assert(isfinite(s.pos[i]) && isfinite(s.v[i]), "non-finite at step %d", step + 1);
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A body may not be named "world" (a joint's parent "world" is the world),
 * in a scene (at the key) or through the builder; an unnamed joint whose
 * default name another joint took is reported once, at the joint. */
Test(articulation_scenes, reserved_and_default_names)
{
    expect_scene_error("{\"version\": 2, \"bodies\": [{\"name\": \"world\"}, {\"name\": \"b\"}]}",
                       "t.json:1:36: bodies[0].name: ", "\"world\" is reserved");
    expect_scene_error(TWO_BODIES " \"joints\": [{\"name\": \"joint1\", \"child\": \"a\"}, {\"parent\": \"a\", "
                                  "\"child\": \"b\"}]}",
                       "t.json:2:47: joints[1]: its default name ", "\"joint1\" is already the name of joints[0]");
    const char *msg = tp_last_error();
    cr_expect_null(strstr(msg, "joints[1]: joints[1]"), "%s", msg);
    tp_model_def md = tp_default_model_def();
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    bd.name = "world";
    cr_expect_eq(tp_builder_add_body(b, &bd, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(tp_last_error(), "body 0: name: \"world\" is reserved"), "%s", tp_last_error());
    tp_builder_destroy(b);
}

/* Joint velocities are bounded as positions are (TP_MAX_JOINT_QD): qd0 and
 * target_qd of 3e38 are refused naming the field, as are joint_qd and
 * target_qd writes (nothing changes); tp_sin_cos gives NaN, not a
 * float-to-int overflow, for angles past TP_SIN_COS_MAX, infinite or NaN,
 * and the world is faulted at its next step; within the bound it is a sine. */
Test(articulation, joint_velocities_within_bounds)
{
    const char *fields[] = {"qd0", "target_qd"};
    for (int i = 0; i < 2; ++i) {
        tp_joint_def j = hinge(-1, 0, 0.0f);
        if (i == 0) j.qd0 = 3e38f;
        else {
            j.drive = TP_DRIVE_VELOCITY;
            j.max_effort = 10.0f;
            j.target_qd = 3e38f;
        }
        char needle[64];
        snprintf(needle, sizeof needle, "%s: must be within", fields[i]);
        expect_finish_error(&j, 1, 1, needle);
    }
    tp_model *m = pendulum_model(0.5f, NULL, 4);
    tp_batch *b = make_batch(m, 1, 1);
    int w = 0;
    float big = 3e38f;
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_QD, WORLD_LIST(&w, 1), &big), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "joint_qd row 0 [0] (joint0): must be within"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_TARGET_QD, WORLD_LIST(&w, 1), &big), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "target_qd row 0 [0] (joint0): must be within"), "%s", tp_last_error());
    cr_assert_eq(joint_qd(b, 0, 0), 0.0f);
    batch_steps(b, 1);
    cr_assert_eq(batch_view(b).faults[0], 0);
    tp_batch_destroy(b);
    tp_model_destroy(m);
    const float bad[] = {3e38f, -2e9f, 1.0001e7f, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        float s = 0.0f, c = 0.0f;
        tp_sin_cos(bad[i], &s, &c);
        cr_expect(isnan(s) && isnan(c), "tp_sin_cos(%g) = %g, %g", (double)bad[i], (double)s, (double)c);
    }
    const float good[] = {1e6f, -1e7f, 0.5f};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; ++i) {
        float s, c;
        tp_sin_cos(good[i], &s, &c);
        cr_expect(fabsf(s * s + c * c - 1.0f) < 1e-6f, "tp_sin_cos(%g) = %g, %g", (double)good[i], (double)s, (double)c);
    }
    float s, c;
    tp_sin_cos(0.5f, &s, &c);
    cr_expect(fabs(s - sin(0.5)) < 1e-6 && fabs(c - cos(0.5)) < 1e-6);
}
