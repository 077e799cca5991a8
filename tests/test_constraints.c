/* test_constraints.c - constraints between two bodies against values derived
 * independently: a rod pendulum's period (small angle and 90 degrees, the
 * elliptic integral), a spring's static sag m g / k and its damped
 * oscillation, a welded pair against one rigid body, hinge limits and a
 * servo's speed law, a four-bar linkage's closure, a rope's free fall and
 * rebound at half the speed; the scene format and its errors; determinism. */
#include "helpers.h"
#include "tp_math.h"

#include <math.h>

#define G 9.81
#define PI 3.14159265358979323846

static tp_model_def quiet_def(float gz)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = gz;
    md.sleep.enabled = 0;
    return md;
}

static int add_cons(tp_builder *b, const tp_constraint_def *d)
{
    int i = -1;
    cr_assert_eq(tp_builder_add_constraint(b, d, &i), TP_OK, "%s", tp_last_error());
    return i;
}

/* A dynamic ball of radius r and mass m at p. */
static int add_ball(tp_builder *b, float r, float m, float x, float y, float z)
{
    tp_body_def bd = tp_default_body_def();
    bd.shape = TP_SHAPE_BALL;
    bd.size[0] = bd.size[1] = bd.size[2] = 2.0f * r;
    bd.mass = m;
    bd.pos[0] = x;
    bd.pos[1] = y;
    bd.pos[2] = z;
    return builder_add(b, &bd);
}

static int add_box(tp_builder *b, float sx, float sy, float sz, float m, float x, float y, float z)
{
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = sx;
    bd.size[1] = sy;
    bd.size[2] = sz;
    bd.mass = m;
    bd.pos[0] = x;
    bd.pos[1] = y;
    bd.pos[2] = z;
    return builder_add(b, &bd);
}

static void cons_read(tp_batch *b, float *value, float *force)
{
    cr_assert_eq(tp_batch_constraints(b, value, force), TP_OK, "%s", tp_last_error());
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

/* ---------------------------------------------------------------- rod pendulum */

/* A 1 kg ball (r = 0.05 m) on a rod of length L from the world point (0, 0, 3),
 * released at angle a0 from the vertical in the x-z plane. The rod holds the
 * ball's centre, which turns freely: a point-mass pendulum. */
static tp_model *rod_pendulum(double L, double a0)
{
    tp_model_def md = quiet_def(-(float)G);
    tp_builder *b = builder_begin(&md);
    int ball = add_ball(b, 0.05f, 1.0f, (float)(L * sin(a0)), 0.0f, (float)(3.0 - L * cos(a0)));
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_ROD;
    d.body0 = -1;
    d.body1 = ball;
    d.pos0[2] = 3.0f;
    d.length = (float)L;
    add_cons(b, &d);
    return builder_finish(b);
}

/* Mean period of the ball's x from upward zero crossings over `cycles`. */
static double pendulum_period(tp_batch *b, double dt, int cycles, double *max_stretch, double L)
{
    double first = -1.0, last = -1.0, t = 0.0;
    int crossings = 0;
    float prev = batch_view(b).pos[0];
    *max_stretch = 0.0;
    for (int s = 0; s < 20000 && crossings <= cycles; ++s) {
        batch_steps(b, 1);
        t += dt;
        tp_state_view v = batch_view(b);
        float x = v.pos[0];
        double r = sqrt((double)v.pos[0] * v.pos[0] + (double)v.pos[1] * v.pos[1] +
                        ((double)v.pos[2] - 3.0) * ((double)v.pos[2] - 3.0));
        *max_stretch = fmax(*max_stretch, fabs(r - L));
        if (prev < 0.0f && x >= 0.0f) {
            double tc = t - dt + dt * (double)(-prev) / (double)(x - prev);
            if (crossings == 0) first = tc;
            last = tc;
            crossings++;
        }
        prev = x;
    }
    cr_assert_gt(crossings, cycles, "only %d crossings", crossings);
    return (last - first) / (double)cycles;
}

Test(constraints, rod_pendulum_small_angle_period)
{
    double L = 1.5;
    tp_model *m = rod_pendulum(L, -0.05);
    tp_batch *b = make_batch(m, 1, 1);
    double stretch, T = pendulum_period(b, tp_model_settings(m).dt, 5, &stretch, L);
    double expect = 2.0 * PI * sqrt(L / G) * (1.0 + 0.05 * 0.05 / 16.0); /* first amplitude correction */
    cr_log_info("rod pendulum 0.05 rad: period %.5f s, closed form %.5f s, stretch %.2e m", T, expect, stretch);
    cr_assert_lt(fabs(T - expect) / expect, 0.003, "period %.5f s, closed form %.5f s", T, expect);
    cr_assert_lt(stretch, 1e-3, "rod length off by %.2e m", stretch);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(constraints, rod_pendulum_90_degrees_period)
{
    double L = 1.0;
    tp_model *m = rod_pendulum(L, -PI / 2.0);
    tp_batch *b = make_batch(m, 1, 1);
    double stretch, T = pendulum_period(b, tp_model_settings(m).dt, 3, &stretch, L);
    double expect = 4.0 * sqrt(L / G) * elliptic_k(sin(PI / 4.0)); /* 2.3678 s for L = 1 */
    cr_log_info("rod pendulum 90 deg: period %.5f s, elliptic integral %.5f s, stretch %.2e m", T, expect, stretch);
    cr_assert_lt(fabs(T - expect) / expect, 0.005, "period %.5f s, elliptic integral %.5f s", T, expect);
    cr_assert_lt(stretch, 5e-3, "rod length off by %.2e m", stretch);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- spring */

/* A ball of mass m hanging on a spring (free length 1 m) from (0, 0, 3), its
 * centre `offset` below the spring's rest point. */
static tp_model *spring_model_of(tp_model_def md, float mass, float k, float c, float offset)
{
    tp_builder *b = builder_begin(&md);
    int ball = add_ball(b, 0.1f, mass, 0.0f, 0.0f, 2.0f - offset);
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_SPRING;
    d.body0 = -1;
    d.body1 = ball;
    d.pos0[2] = 3.0f;
    d.length = 1.0f;
    d.stiffness = k;
    d.damping = c;
    add_cons(b, &d);
    return builder_finish(b);
}

static tp_model *spring_model(float mass, float k, float c, float offset)
{
    return spring_model_of(quiet_def(-(float)G), mass, k, c, offset);
}

Test(constraints, spring_static_sag)
{
    float mass = 2.0f, k = 400.0f;
    tp_model *m = spring_model(mass, k, 40.0f, 0.0f);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 600);
    double sag = 2.0 - batch_view(b).pos[2], expect = mass * G / k; /* 4.905 cm */
    cr_log_info("spring sag %.7f m, m g / k = %.7f m", sag, expect);
    cr_assert_lt(fabs(sag - expect), 1e-5 + 1e-4 * expect, "sag %.6f m, m g / k = %.6f m", sag, expect);
    float force;
    cons_read(b, NULL, &force);
    cr_assert_lt(fabs(force - mass * G) / (mass * G), 1e-3, "spring force %.4f N, weight %.4f N", force, mass * G);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Seed 004 (Springs): the spring is implicit, so a stiff one is stable. A
 * 1 kg ball on k = 1e6 N/m (undamped): omega = 1000 rad/s, omega h = 4.2 at
 * h = 1/240 s, past the explicit and semi-implicit Euler stability limit
 * (omega h < 2: they would grow by |z| = 3.3 a substep). Released 1 cm below
 * its rest point (sag m g / k = 9.8 um), implicit Euler only loses energy
 * (the undamped swing shrinks by 1 / sqrt(1 + (omega h)^2) a substep), and
 * the ball ends at m g / k at rest. */
Test(constraints, stiff_spring_is_stable)
{
    float k = 1.0e6f;
    double sag = G / k;
    tp_model *m = spring_model(1.0f, k, 0.0f, 0.01f);
    tp_batch *b = make_batch(m, 1, 1);
    double worst = 0.0;
    for (int s = 0; s < 120; ++s) {
        batch_steps(b, 1);
        worst = fmax(worst, fabs((2.0 - batch_view(b).pos[2]) - sag));
    }
    double end = (2.0 - batch_view(b).pos[2]) - sag;
    cr_log_info("stiff spring: farthest %.3e m from rest (released 1e-2), %.3e m after 2 s, v %.2e m/s", worst, end,
                batch_view(b).v[2]);
    /* each substep multiplies the swing by 1 / sqrt(1 + (omega h)^2): after a step at most 0.01 x 18.4^-2 */
    double h = tp_model_settings(m).dt / tp_model_settings(m).substeps, oh = 1000.0 * h;
    cr_assert_leq(worst, 1.05 * 0.01 * pow(1.0 + oh * oh, -2.0), "the stiff spring swung %g m from rest", worst);
    cr_assert_lt(fabs(end), 1e-5, "the ball ends %g m from m g / k", end);
    cr_assert_lt(fabs(batch_view(b).v[2]), 1e-3, "still moving at %g m/s", batch_view(b).v[2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Sleep and springs (docs/constraints.md, "Islands and sleep"). A 2 kg ball
 * released at the spring's free length (k = 400 N/m) settles at its static
 * sag m g / k = 4.9 cm: stretched from its free length, holding a static
 * load, at rest; it sleeps (with c = 40, under critical damping 56.6). With
 * c = 4000 it creeps instead: x(t) = x0 e^(-k t / c) (the slow root of
 * m s^2 + c s + k = 0, k / c = 0.1 /s, to 5e-6), at 2.5 mm/s at first and
 * below the 0.05 m/s velocity threshold all along, but its damper carries
 * the spring's unbalanced pull k x: stopped, the ball would accelerate at
 * k x / m. It stays awake while that is over the acceleration threshold
 * (0.24 m/s^2), until t* = (c / k) ln(x0 k / (0.24 m)) = 37.1 s, and sleeps
 * within the quiet time after. */
static void spring_sleep(int policy)
{
    tp_model_def md = quiet_def(-(float)G);
    md.sleep.enabled = 1;
    md.sleep.policy = policy;
    float mass = 2.0f, k = 400.0f;
    double x0 = mass * G / k, dt = md.dt;
    tp_model *settles = spring_model_of(md, mass, k, 40.0f, 0.0f), *creeps = spring_model_of(md, mass, k, 4000.0f, 0.0f);
    tp_batch *a = make_batch(settles, 1, 1), *c = make_batch(creeps, 1, 1);
    batch_steps(a, (int)(3.0 / dt));
    double sag = 2.0 - batch_view(a).pos[2];
    cr_assert_eq(batch_view(a).sleep_state[0], TP_SLEEPING, "policy %d: the ball at its static sag is %d, not asleep",
                 policy, batch_view(a).sleep_state[0]);
    cr_assert_lt(fabs(sag - x0), 1e-3, "policy %d: asleep at a sag of %.5f m, m g / k = %.5f m", policy, sag, x0);
    double t_star = 4000.0 / k * log(x0 * k / (0.24 * mass)), quiet = policy == TP_SLEEP_ISLAND ? 0.5 : 0.3;
    int n10 = (int)lround(10.0 / dt), n_before = (int)((t_star - 0.5) / dt), n_after = (int)((t_star + quiet + 1.0) / dt);
    batch_steps(c, n10);
    double x = x0 - (2.0 - batch_view(c).pos[2]), law = x0 * exp(-k / 4000.0 * n10 * dt);
    cr_log_info("policy %d: creeping spring %.5f m from rest at 10 s, x0 e^(-k t / c) = %.5f m", policy, x, law);
    cr_assert_eq(batch_view(c).sleep_state[0], TP_AWAKE, "policy %d: the creeping ball slept at 10 s", policy);
    cr_assert_lt(fabs(x - law), 0.01 * law, "policy %d: %.5f m from rest at 10 s, the law says %.5f m", policy, x, law);
    batch_steps(c, n_before - n10);
    cr_assert_neq(batch_view(c).sleep_state[0], TP_SLEEPING, "policy %d: asleep before t* = %.2f s", policy, t_star);
    batch_steps(c, n_after - n_before);
    x = x0 - (2.0 - batch_view(c).pos[2]);
    cr_log_info("policy %d: the creeping ball asleep by %.2f s (t* %.2f s), %.2e m from rest (bound %.2e)", policy,
                n_after * dt, t_star, x, 0.24 * mass / k);
    cr_assert_eq(batch_view(c).sleep_state[0], TP_SLEEPING, "policy %d: awake after t* + quiet time", policy);
    cr_assert_lt(fabs(x), 0.24 * mass / k * 1.05, "policy %d: asleep %.2e m from rest", policy, x);
    tp_batch_destroy(a);
    tp_batch_destroy(c);
    tp_model_destroy(settles);
    tp_model_destroy(creeps);
}

Test(constraints, spring_sleeps_at_rest_not_while_it_creeps)
{
    spring_sleep(TP_SLEEP_ISLAND);
    spring_sleep(TP_SLEEP_ASSEMBLY);
}

/* The spring is implicit Euler on each substep h (docs/constraints.md):
 *   v' = (v - h k/m x) / (1 + h c/m + h^2 k/m),  x' = x + h v'.
 * Its per-substep map has eigenvalues z = r e^(+-i phi); the oscillation's
 * period is 2 pi h / phi and its amplitude decays at -ln(r) / h per second.
 * Continuous: omega_d = sqrt(k/m - (c/2m)^2), decay c / 2m; implicit Euler
 * adds about omega^2 h / 2 of decay and changes the period by O((omega h)^2). */
Test(constraints, spring_damped_period_and_decay)
{
    double mass = 1.0, k = 100.0, c = 1.0;
    tp_model *m = spring_model((float)mass, (float)k, (float)c, (float)(mass * G / k + 0.1)); /* 0.1 m under rest */
    tp_model_def md = tp_model_settings(m);
    double h = md.dt / md.substeps;
    double den = 1.0 + h * c / mass + h * h * k / mass;
    /* the map (x, v) -> (x', v'): v' = (v - h k/m x)/den, x' = x + h v' */
    double a11 = 1.0 - h * h * k / mass / den, a12 = h / den, a21 = -h * k / mass / den, a22 = 1.0 / den;
    double tr = a11 + a22, det = a11 * a22 - a12 * a21;
    double r = sqrt(det), phi = acos(tr / (2.0 * r));
    double T_disc = 2.0 * PI * h / phi, decay_disc = -log(r) / h;
    double omega0 = sqrt(k / mass), T_cont = 2.0 * PI / sqrt(k / mass - c * c / (4.0 * mass * mass));
    cr_assert_lt(fabs(T_disc - T_cont) / T_cont, 0.005); /* the method's own error (0.27 %), not the code's */
    cr_assert_lt(fabs(decay_disc - (c / (2.0 * mass) + omega0 * omega0 * h / 2.0)), 0.05);

    tp_batch *b = make_batch(m, 1, 1);
    double zeq = 2.0 - mass * G / k, t = 0.0, first = -1.0, last = -1.0;
    double peaks[64];
    int crossings = 0, npeaks = 0;
    double prev = batch_view(b).pos[2] - zeq, peak = 0.0;
    for (int s = 0; s < 60 * 8; ++s) {
        batch_steps(b, 1);
        t += md.dt;
        double y = batch_view(b).pos[2] - zeq;
        peak = fmax(peak, fabs(y));
        if (prev < 0.0 && y >= 0.0) {
            double tc = t - md.dt + md.dt * (-prev) / (y - prev);
            if (crossings == 0) first = tc;
            last = tc;
            crossings++;
            if (npeaks < 64) peaks[npeaks++] = peak;
            peak = 0.0;
        }
        prev = y;
    }
    cr_assert_gt(crossings, 10);
    double T = (last - first) / (crossings - 1);
    cr_assert_lt(fabs(T - T_disc) / T_disc, 0.01, "period %.5f s, implicit Euler %.5f s, continuous %.5f s", T, T_disc,
                 T_cont);
    /* peaks[i] is the largest |y| of half-cycle-pairs i; compare peaks 2 and 2 + n */
    int n = npeaks - 3;
    double decay = log(peaks[2] / peaks[2 + n]) / (n * T);
    cr_log_info("spring: period %.5f s (implicit Euler %.5f, continuous %.5f), decay %.4f /s (implicit Euler %.4f, "
                "continuous %.4f)", T, T_disc, T_cont, decay, decay_disc, c / (2.0 * mass));
    cr_assert_lt(fabs(decay - decay_disc) / decay_disc, 0.05, "decay %.4f /s, implicit Euler %.4f /s, continuous %.4f /s",
                 decay, decay_disc, c / (2.0 * mass));
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- weld */

/* Two 1 kg unit cubes 1.2 m apart on x, welded, no gravity; the first moves
 * at 1 m/s along y. The pair must move as one rigid body: momentum m v0 at
 * the centre of mass, spin L / I about z with the combined inertia. */
Test(constraints, weld_pair_moves_as_one_body)
{
    tp_model_def md = quiet_def(0.0f);
    tp_builder *bl = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    bd.mass = 1.0f;
    bd.pos[0] = -0.6f;
    bd.vel[1] = 1.0f;
    int a = builder_add(bl, &bd);
    bd.pos[0] = 0.6f;
    bd.vel[1] = 0.0f;
    int c = builder_add(bl, &bd);
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_WELD;
    d.body0 = a;
    d.body1 = c;
    add_cons(bl, &d);
    tp_model *m = builder_finish(bl);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 60);
    tp_state_view v = batch_view(b);
    double L = -0.6 * 1.0;                         /* r x p about the centre of mass, z */
    double I = 2.0 * (1.0 / 6.0) + 2.0 * 0.36;     /* two cubes' own inertia + m d^2 each */
    double wz = L / I;
    for (int i = 0; i < 2; ++i) cr_assert_lt(fabs(v.w[3 * i + 2] - wz), 0.01 * fabs(wz), "w_z %g, L / I %g", v.w[3 * i + 2], wz);
    double py = v.v[1] + v.v[4], px = v.v[0] + v.v[3];
    cr_assert_lt(fabs(py - 1.0), 1e-4, "momentum y %g", py);
    cr_assert_lt(fabs(px), 1e-4, "momentum x %g", px);
    double dx = v.pos[3] - v.pos[0], dy = v.pos[4] - v.pos[1], dist = sqrt(dx * dx + dy * dy);
    cr_assert_lt(fabs(dist - 1.2), 1e-3, "weld offset %g m", dist);
    /* relative turn between the two: none */
    tp_quat qa = tp_q_load(v.quat), qc = tp_q_load(v.quat + 4);
    tp_quat rel = tp_q_mul(tp_q_conj(qa), qc);
    cr_assert_lt(fabs(rel.z), 1e-3);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- hinges */

/* An arm (1 x 0.1 x 0.1 m, 1 kg) on a hinge about world z at its end, no
 * gravity, so only the hinge's drive and limits turn it. */
static tp_model *arm_model(const tp_constraint_def *over)
{
    tp_model_def md = quiet_def(0.0f);
    tp_builder *b = builder_begin(&md);
    int arm = add_box(b, 1.0f, 0.1f, 0.1f, 1.0f, 0.5f, 0.0f, 1.0f);
    tp_constraint_def d = *over;
    d.type = TP_CONSTRAINT_HINGE;
    d.body0 = -1;
    d.body1 = arm;
    d.pos0[0] = 0.0f, d.pos0[1] = 0.0f, d.pos0[2] = 1.0f;
    d.pos1[0] = -0.5f;
    /* X axis up: a quarter turn about y (-90 degrees takes X to +Z) */
    float s = (float)sqrt(0.5);
    float q[4] = {0.0f, -s, 0.0f, s};
    memcpy(d.quat0, q, sizeof q);
    memcpy(d.quat1, q, sizeof q);
    add_cons(b, &d);
    return builder_finish(b);
}

Test(constraints, hinge_servo_speed_and_settling)
{
    tp_constraint_def d = tp_default_constraint_def();
    d.actuator = TP_CONS_SERVO;
    d.target = 1.0f;
    d.speed = 2.0f;
    d.max_force = 100.0f;
    tp_model *m = arm_model(&d);
    tp_batch *b = make_batch(m, 1, 1);
    float angle;
    batch_steps(b, 15); /* 0.25 s: up to 2 rad/s at 100 N m, then at 2 rad/s */
    double h = tp_model_settings(m).dt / tp_model_settings(m).substeps; /* half a substep ahead, as the motor's */
    double I = (1.0 + 0.01) / 12.0 + 0.25, expect = 2.0 * (0.25 - 0.5 * 2.0 * I / 100.0 + 0.5 * h);
    cons_read(b, &angle, NULL);
    cr_assert_lt(fabs(angle - expect), 0.005, "angle %g rad after 0.25 s, expected %g", angle, expect);
    /* the arm's own turn agrees with the read-out */
    tp_state_view v = batch_view(b);
    double yaw = 2.0 * atan2(v.quat[2], v.quat[3]);
    cr_assert_lt(fabs(yaw - angle), 1e-3, "yaw %g, hinge angle %g", yaw, angle);
    batch_steps(b, 45); /* 1 s: there since 0.5 s */
    cons_read(b, &angle, NULL);
    cr_assert_lt(fabs(angle - 1.0), 1e-3, "angle %g rad, target 1", angle);
    cr_assert_lt(fabs(batch_view(b).w[2]), 1e-3, "still turning at %g rad/s", batch_view(b).w[2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(constraints, hinge_motor_and_limits)
{
    tp_constraint_def d = tp_default_constraint_def();
    d.actuator = TP_CONS_MOTOR;
    d.velocity = 3.0f;
    d.max_force = 50.0f;
    d.limits = 1;
    d.lower = -0.5f;
    d.upper = 0.8f;
    tp_model *m = arm_model(&d);
    tp_batch *b = make_batch(m, 1, 1);
    float angle, top = -10.0f;
    batch_steps(b, 6); /* 0.1 s: up to 3 rad/s at 50 N m, then at 3 rad/s */
    /* semi-implicit Euler moves each substep h at its end speed: half a substep ahead */
    double h = tp_model_settings(m).dt / tp_model_settings(m).substeps;
    double I = (1.0 + 0.01) / 12.0 + 0.25, t_up = 3.0 * I / 50.0, expect = 3.0 * (0.1 - 0.5 * t_up + 0.5 * h);
    cons_read(b, &angle, NULL);
    cr_assert_lt(fabs(angle - expect), 0.005, "motor angle %g after 0.1 s, expected %g", angle, expect);
    for (int s = 0; s < 120; ++s) {
        batch_steps(b, 1);
        cons_read(b, &angle, NULL);
        top = fmaxf(top, angle);
    }
    cr_assert_lt(top, 0.8f + 0.01f, "passed the upper limit: %g", top);
    cr_assert_gt(angle, 0.8f - 0.01f, "held below the limit at %g", angle);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- four-bar linkage */

/* Ground pivots A = (0, 0, 2), D = (2, 0, 2); crank AB 1 m, coupler BC 2.2 m,
 * rocker DC 1.5 m, hinges about y; gravity swings it for 10 s. Each hinge's
 * two attachment points must stay within 1 mm of each other. */
typedef struct link_info {
    int body;
    double half;
} link_info;

static int add_link(tp_builder *b, double ax, double az, double bx, double bz, link_info *out)
{
    double dx = bx - ax, dz = bz - az, len = sqrt(dx * dx + dz * dz);
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = 0.05f;
    bd.size[1] = 0.05f;
    bd.size[2] = (float)len;
    bd.mass = 1.0f;
    bd.pos[0] = (float)(0.5 * (ax + bx));
    bd.pos[2] = (float)(0.5 * (az + bz));
    double ang = atan2(dx, dz); /* turn about y taking +z onto the link */
    bd.quat[1] = (float)sin(0.5 * ang);
    bd.quat[3] = (float)cos(0.5 * ang);
    out->body = builder_add(b, &bd);
    out->half = 0.5 * len;
    return out->body;
}

static void hinge_y(tp_builder *b, int b0, float z0, int b1, float z1, float wx, float wz)
{
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_HINGE;
    d.body0 = b0;
    d.body1 = b1;
    if (b0 < 0) {
        d.pos0[0] = wx;
        d.pos0[2] = wz;
    } else d.pos0[2] = z0;
    d.pos1[2] = z1;
    float s = (float)sqrt(0.5); /* X onto y: a quarter turn about z (the links turn about y only) */
    float q[4] = {0.0f, 0.0f, s, s};
    memcpy(d.quat0, q, sizeof q);
    memcpy(d.quat1, q, sizeof q);
    add_cons(b, &d);
}

static tp_vec3 body_point(const tp_state_view *v, int body, double z)
{
    tp_quat q = tp_q_load(v->quat + 4 * body);
    return tp_add(tp_v3_load(v->pos + 3 * body), tp_q_rotate(q, tp_v3(0.0f, 0.0f, (float)z)));
}

Test(constraints, four_bar_linkage_closure)
{
    double Ax = 0, Az = 2, Dx = 2, Dz = 2, crank = 1.0, coupler = 2.2, rocker = 1.5;
    double Bx = Ax + crank * sin(0.4), Bz = Az + crank * cos(0.4);
    /* C: on the circle of radius coupler about B and rocker about D, the upper one */
    double ex = Dx - Bx, ez = Dz - Bz, dd = sqrt(ex * ex + ez * ez);
    double a = (coupler * coupler - rocker * rocker + dd * dd) / (2.0 * dd), hh = sqrt(coupler * coupler - a * a);
    double Cx = Bx + a * ex / dd - hh * ez / dd, Cz = Bz + a * ez / dd + hh * ex / dd;
    if (Cz < Bz - 1.0) Cx = Bx + a * ex / dd + hh * ez / dd, Cz = Bz + a * ez / dd - hh * ex / dd;
    tp_model_def md = quiet_def(-(float)G);
    tp_builder *b = builder_begin(&md);
    link_info lc, lk, lr;
    add_link(b, Ax, Az, Bx, Bz, &lc);
    add_link(b, Bx, Bz, Cx, Cz, &lk);
    add_link(b, Dx, Dz, Cx, Cz, &lr);
    hinge_y(b, -1, 0, lc.body, -(float)lc.half, (float)Ax, (float)Az);
    hinge_y(b, lc.body, (float)lc.half, lk.body, -(float)lk.half, 0, 0);
    hinge_y(b, lk.body, (float)lk.half, lr.body, (float)lr.half, 0, 0);
    hinge_y(b, -1, 0, lr.body, -(float)lr.half, (float)Dx, (float)Dz);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    double worst = 0.0, moved = 0.0;
    for (int s = 0; s < 600; ++s) {
        batch_steps(bt, 1);
        tp_state_view v = batch_view(bt);
        tp_vec3 A = tp_v3((float)Ax, 0, (float)Az), D = tp_v3((float)Dx, 0, (float)Dz);
        double e[4] = {tp_len(tp_sub(body_point(&v, lc.body, -lc.half), A)),
                       tp_len(tp_sub(body_point(&v, lc.body, lc.half), body_point(&v, lk.body, -lk.half))),
                       tp_len(tp_sub(body_point(&v, lk.body, lk.half), body_point(&v, lr.body, lr.half))),
                       tp_len(tp_sub(body_point(&v, lr.body, -lr.half), D))};
        for (int k = 0; k < 4; ++k) worst = fmax(worst, e[k]);
        if (getenv("TP_DEBUG_FOURBAR") && (e[0] > 1e-3 || e[1] > 1e-3 || e[2] > 1e-3 || e[3] > 1e-3))
            fprintf(stderr, "%d %.5f %.5f %.5f %.5f w %.3f %.3f %.3f\n", s, e[0], e[1], e[2], e[3], v.w[3 * lc.body + 1],
                    v.w[3 * lk.body + 1], v.w[3 * lr.body + 1]);
        tp_vec3 tip = body_point(&v, lc.body, lc.half);
        moved = fmax(moved, fabs(tip.x - Bx));
    }
    cr_log_info("four-bar linkage: worst closure error %.3g m over 10 s, crank tip moved up to %.3g m", worst, moved);
    cr_assert_gt(moved, 0.2, "the linkage hardly moved (%g m)", moved);
    cr_assert_lt(worst, 1e-3, "closure error %.3g m", worst);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- rope */

/* A 0.6 m cube (1 kg) just under the world point (0, 0, 10), on a 6 m rope of
 * restitution 0.5 from there to its top face: free fall until taut (5.7 m),
 * then back up at half the speed. */
Test(constraints, rope_free_fall_then_half_speed_rebound)
{
    tp_model_def md = quiet_def(-(float)G);
    tp_builder *bl = builder_begin(&md);
    int w = add_box(bl, 0.6f, 0.6f, 0.6f, 1.0f, 0.0f, 0.0f, 9.7f);
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_ROPE;
    d.body0 = -1;
    d.body1 = w;
    d.pos0[2] = 10.0f;
    d.pos1[2] = 0.3f;
    d.length = 6.0f;
    d.restitution = 0.5f;
    add_cons(bl, &d);
    tp_model *m = builder_finish(bl);
    tp_batch *b = make_batch(m, 1, 1);
    double dt = md.dt, t = 0.0, down = 0.0, up = 0.0;
    int taut_step = -1;
    for (int s = 0; s < 120; ++s) {
        batch_steps(b, 1);
        t += dt;
        tp_state_view v = batch_view(b);
        if (s == 30) /* 0.5 s: still falling freely (semi-implicit Euler: z0 - g t^2/2 - g t dt / 2 at most) */
            cr_assert_lt(fabs(v.pos[2] - (9.7 - 0.5 * G * t * t)), 0.5 * G * t * dt + 1e-4, "z %g at %g s", v.pos[2], t);
        if (taut_step < 0) {
            down = fmin(down, v.v[2]);
            if (v.v[2] > 0.0f) taut_step = s;
        }
        if (taut_step >= 0 && s <= taut_step + 3) up = fmax(up, v.v[2]);
    }
    cr_assert_geq(taut_step, 0, "never rebounded");
    double expect_down = sqrt(2.0 * G * 5.7);
    cr_assert_lt(fabs(-down - expect_down), 0.05 * expect_down, "fell at %g m/s, free fall %g", -down, expect_down);
    cr_log_info("rope: fell at %.4f m/s (free fall from 5.7 m: %.4f), rebound %.4f m/s (ratio %.4f)", -down, expect_down, up,
                up / -down);
    cr_assert_lt(fabs(up - 0.5 * -down), 0.03 * -down, "rebound %g m/s after falling at %g m/s", up, -down);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Seed 004 (Bouncing): a rope of restitution 0.5 does not bounce an end that
 * reaches its length at under 0.5 m/s. The cube falls 1 cm of slack
 * (sqrt(2 g 0.01) = 0.44 m/s at taut) and stays hanging: it never moves up
 * at all. From 5 cm of slack (0.99 m/s) it comes back up at half the speed. */
static double rope_rebound(float slack, double *fall)
{
    tp_model_def md = quiet_def(-(float)G);
    tp_builder *bl = builder_begin(&md);
    int w = add_box(bl, 0.6f, 0.6f, 0.6f, 1.0f, 0.0f, 0.0f, 10.0f - 6.0f - 0.3f + slack);
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_ROPE, d.body0 = -1, d.body1 = w, d.pos0[2] = 10.0f, d.pos1[2] = 0.3f;
    d.length = 6.0f, d.restitution = 0.5f;
    add_cons(bl, &d);
    tp_model *m = builder_finish(bl);
    tp_batch *b = make_batch(m, 1, 1);
    double up = 0.0, down = 0.0;
    for (int s = 0; s < 60; ++s) {
        batch_steps(b, 1);
        double v = batch_view(b).v[2];
        down = fmin(down, v);
        up = fmax(up, v);
    }
    *fall = -down;
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return up;
}

Test(constraints, rope_does_not_bounce_under_half_a_metre_a_second)
{
    double fall, up = rope_rebound(0.01f, &fall), v = sqrt(2.0 * G * 0.01);
    cr_log_info("rope, 1 cm of slack: taut at %.4f m/s (free fall %.4f), up at %.2e m/s", fall, v, up);
    cr_assert_lt(up, 1e-2, "bounced up at %g m/s from %g m/s", up, v);
    up = rope_rebound(0.05f, &fall), v = sqrt(2.0 * G * 0.05);
    cr_log_info("rope, 5 cm of slack: taut at %.4f m/s (free fall %.4f), up at %.4f m/s", fall, v, up);
    cr_assert_lt(fabs(up - 0.5 * v), 0.03 * v, "rebound %g m/s after a fall to %g m/s", up, v);
}

/* A load hanging at rest on a taut bouncy rope stays still (no jitter). */
Test(constraints, rope_resting_load_does_not_jitter)
{
    tp_model_def md = quiet_def(-(float)G);
    tp_builder *bl = builder_begin(&md);
    int w = add_box(bl, 0.6f, 0.6f, 0.6f, 1.0f, 0.0f, 0.0f, 3.7f);
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_ROPE;
    d.body0 = -1;
    d.body1 = w;
    d.pos0[2] = 10.0f;
    d.pos1[2] = 0.3f;
    d.length = 6.0f;
    d.restitution = 0.5f;
    add_cons(bl, &d);
    tp_model *m = builder_finish(bl);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 30);
    double worst = 0.0;
    for (int s = 0; s < 120; ++s) {
        batch_steps(b, 1);
        worst = fmax(worst, fabs(batch_view(b).v[2]));
    }
    cr_assert_lt(worst, 1e-3, "resting load moves at %g m/s", worst);
    float len, force;
    cons_read(b, &len, &force);
    cr_assert_lt(fabs(len - 6.0f), 1e-3, "rope length %g", len);
    cr_assert_lt(fabs(force - G) / G, 1e-3, "rope tension %g N, weight %g N", force, G);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- API and scene */

Test(constraints, builder_refuses_bad_values)
{
    tp_model_def md = quiet_def(-(float)G);
    tp_builder *b = builder_begin(&md);
    int ball = add_ball(b, 0.1f, 1.0f, 0, 0, 0);
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_ROD;
    d.body0 = -1;
    d.body1 = ball;
    d.length = -1.0f;
    cr_assert_eq(tp_builder_add_constraint(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "length"), "%s", tp_last_error());
    d.length = 1.0f;
    d.body1 = 7;
    cr_assert_eq(tp_builder_add_constraint(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "body1"), "%s", tp_last_error());
    d.body1 = -1;
    cr_assert_eq(tp_builder_add_constraint(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    d.body1 = ball;
    memset(d.quat0, 0, sizeof d.quat0);
    cr_assert_eq(tp_builder_add_constraint(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "quat0"), "%s", tp_last_error());
    d.quat0[3] = 1.0f;
    d.type = TP_CONSTRAINT_SPRING;
    d.stiffness = 0.0f;
    cr_assert_eq(tp_builder_add_constraint(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    d.stiffness = 10.0f;
    d.name = "s";
    cr_assert_eq(tp_builder_add_constraint(b, &d, NULL), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_builder_add_constraint(b, &d, NULL), TP_ERR_INVALID_ARGUMENT); /* the name again */
    tp_model *m = builder_finish(b);
    cr_assert_eq(tp_model_constraint_count(m), 1);
    cr_assert_eq(tp_model_find_constraint(m, "s"), 0);
    tp_constraint_def got;
    cr_assert_eq(tp_model_constraint(m, 0, &got), TP_OK);
    cr_assert_eq(got.type, TP_CONSTRAINT_SPRING);
    cr_assert_float_eq(got.stiffness, 10.0f, 0.0f);
    cr_assert_eq(tp_model_constraint(m, 1, &got), TP_ERR_INVALID_ARGUMENT);
    tp_model_destroy(m);
}

static void expect_scene_error(const char *json, const char *where, const char *reason)
{
    tp_model *m = NULL;
    cr_assert_neq(tp_model_load_string(json, "t.json", &m), TP_OK);
    cr_assert_null(m);
    cr_assert(strstr(tp_last_error(), where), "error \"%s\" lacks \"%s\"", tp_last_error(), where);
    cr_assert(strstr(tp_last_error(), reason), "error \"%s\" lacks \"%s\"", tp_last_error(), reason);
}

#define SCENE_HEAD "{\"version\": 2, \"bodies\": [{\"name\": \"bob\", \"shape\": \"ball\", \"size\": [0.2, 0.2, 0.2]}],\n"

Test(constraints, scene_errors_point_at_the_value)
{
    expect_scene_error(SCENE_HEAD "\"constraints\": [{\"type\": \"rod\", \"body0\": \"world\", \"body1\": \"bobb\", "
                                  "\"length\": 1}]}",
                       "t.json:2:60: constraints[0].body1: ", "unknown body \"bobb\"");
    expect_scene_error(SCENE_HEAD "\"constraints\": [{\"type\": \"hinge\", \"body1\": \"bob\", \"axis0\": [0, 0, 0]}]}",
                       "t.json:2:60: constraints[0].axis0: ", "non-zero direction");
    expect_scene_error(SCENE_HEAD "\"constraints\": [{\"type\": \"rope\", \"body1\": \"bob\", \"length\": -2}]}",
                       "t.json:2:60: constraints[0].length: ", "must be >= 0");
    expect_scene_error(SCENE_HEAD "\"constraints\": [{\"type\": \"rope\", \"length\": 2}]}", "constraints[0]",
                       "body1");
    expect_scene_error(SCENE_HEAD "\"constraints\": [{\"type\": \"rop\", \"body1\": \"bob\"}]}", "constraints[0].type",
                       "rop");
}

/* A key the constraint's type or actuator does not use is refused at that
 * key, naming the type (it was silently ignored); the same keys load where used. */
Test(constraints, scene_refuses_keys_the_type_does_not_use)
{
    const struct { const char *keys, *where, *reason; } cases[] = {
        {"\"type\": \"hinge\", \"velocity\": 2", "constraints[0].velocity: ",
         "a hinge with \"actuator\": \"none\" has no velocity"},
        {"\"type\": \"hinge\", \"actuator\": \"servo\", \"velocity\": 2", "constraints[0].velocity: ",
         "a hinge with \"actuator\": \"servo\" has no velocity"},
        {"\"type\": \"prismatic\", \"actuator\": \"motor\", \"target\": 1", "constraints[0].target: ",
         "a prismatic with \"actuator\": \"motor\" has no target"},
        {"\"type\": \"hinge\", \"max_force\": 5, \"actuator\": \"none\"", "constraints[0].max_force: ",
         "has no max_force"},
        {"\"type\": \"hinge\", \"length\": 1", "constraints[0].length: ", "a hinge has no length"},
        {"\"type\": \"hinge\", \"stiffness\": 10", "constraints[0].stiffness: ", "a hinge has no stiffness"},
        {"\"type\": \"weld\", \"velocity\": 1", "constraints[0].velocity: ", "a weld has no velocity"},
        {"\"type\": \"weld\", \"pos0\": [0, 0, 1]", "constraints[0].pos0: ", "a weld has no pos0"},
        {"\"type\": \"spring\", \"restitution\": 0.5", "constraints[0].restitution: ", "a spring has no restitution"},
        {"\"type\": \"rod\", \"damping\": 1", "constraints[0].damping: ", "a rod has no damping"},
        {"\"type\": \"rope\", \"axis0\": [1, 0, 0]", "constraints[0].axis0: ", "a rope has no axis0"},
        {"\"type\": \"ball\", \"limits\": [0, 1]", "constraints[0].limits: ", "a ball has no limits"},
        {"\"type\": \"rope\", \"cone\": 1", "constraints[0].cone: ", "a rope has no cone"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char json[512];
        snprintf(json, sizeof json, SCENE_HEAD "\"constraints\": [{\"body1\": \"bob\", %s}]}", cases[i].keys);
        expect_scene_error(json, cases[i].where, cases[i].reason);
    }
    const char *used[] = {"\"type\": \"hinge\", \"actuator\": \"motor\", \"velocity\": 2, \"max_force\": 5",
                          "\"type\": \"prismatic\", \"actuator\": \"servo\", \"target\": 1, \"speed\": 2, \"max_force\": 5",
                          "\"type\": \"spring\", \"length\": 1, \"stiffness\": 10, \"damping\": 1",
                          "\"type\": \"rope\", \"length\": 1, \"restitution\": 0.5, \"winch_target\": 2",
                          "\"type\": \"ball\", \"axis0\": [1, 0, 0], \"cone\": 1, \"twist\": [-1, 1]",
                          "\"type\": \"weld\", \"enabled\": false, \"name\": \"w\""};
    for (size_t i = 0; i < sizeof used / sizeof used[0]; ++i) {
        char json[512];
        snprintf(json, sizeof json, SCENE_HEAD "\"constraints\": [{\"body1\": \"bob\", %s}]}", used[i]);
        tp_model *m = NULL;
        cr_assert_eq(tp_model_load_string(json, "t.json", &m), TP_OK, "%s: %s", used[i], tp_last_error());
        tp_model_destroy(m);
    }
}

/* Attachment positions, lengths and winch targets within TP_MAX_SIZE, as a
 * joint's anchor (a hinge at 1e30 m moved its body there), in the scene and
 * the builder; a constraint event's length too. The bound itself loads. */
Test(constraints, positions_and_lengths_are_bounded)
{
    expect_scene_error(SCENE_HEAD "\"constraints\": [{\"type\": \"hinge\", \"body1\": \"bob\", \"pos0\": [1e30, 0, 0]}]}",
                       "t.json:2:", "constraints[0].pos0: must be within [-10000, 10000] m in each component "
                       "(docs/scene-format.md, \"Bounds\"), got [1e+30, 0, 0]");
    expect_scene_error(SCENE_HEAD "\"constraints\": [{\"type\": \"ball\", \"body1\": \"bob\", \"pos1\": [0, -2e4, 0]}]}",
                       "constraints[0].pos1: ", "got [0, -20000, 0]");
    expect_scene_error(SCENE_HEAD "\"constraints\": [{\"type\": \"rod\", \"body1\": \"bob\", \"length\": 1e30}]}",
                       "constraints[0].length: ", "must be within [0, 10000] m, got 1e+30");
    expect_scene_error(SCENE_HEAD "\"constraints\": [{\"type\": \"rope\", \"body1\": \"bob\", \"length\": 1, "
                                  "\"winch_target\": 2e4}]}",
                       "constraints[0].winch_target: ", "must be within [0, 10000] m, got 20000");
    expect_scene_error(SCENE_HEAD "\"constraints\": [{\"name\": \"r\", \"type\": \"rope\", \"body1\": \"bob\", \"length\": 1}],"
                                  "\"events\": [{\"time\": 0, \"action\": \"constraint\", \"constraint\": \"r\", "
                                  "\"param\": \"length\", \"to\": 1e30}]}",
                       "events[0]", "length of \"r\" (a rope) must be within [0, 10000] m (TP_MAX_SIZE), got 1e+30");
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(SCENE_HEAD "\"constraints\": [{\"type\": \"rope\", \"body1\": \"bob\", "
                                                 "\"pos0\": [1e4, 0, -1e4], \"length\": 1e4, \"winch_target\": 1e4}]}",
                                      "t.json", &m), TP_OK, "%s", tp_last_error());
    tp_model_destroy(m);
}

/* A negative winch_target in a scene is refused, as the constraint event and
 * tp_batch_set_constraint_params refuse it (it was silently taken as "the
 * length", the C default's meaning); an absent one still means the length. */
Test(constraints, scene_refuses_a_negative_winch_target)
{
    expect_scene_error(SCENE_HEAD "\"constraints\": [{\"type\": \"rope\", \"body1\": \"bob\", \"length\": 2, "
                                  "\"winch_target\": -3}]}",
                       "t.json:2:", "constraints[0].winch_target: must be >= 0 (leave it out for the rope's length), got -3");
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(SCENE_HEAD "\"constraints\": [{\"type\": \"rope\", \"body1\": \"bob\", \"length\": 2}]}",
                                      "t.json", &m), TP_OK, "%s", tp_last_error());
    tp_constraint_def d;
    cr_assert_eq(tp_model_constraint(m, 0, &d), TP_OK);
    cr_assert_float_eq(d.winch_target, 2.0f, 0.0f);
    tp_model_destroy(m);
    cr_assert_eq(tp_model_load_string(SCENE_HEAD "\"constraints\": [{\"type\": \"rope\", \"body1\": \"bob\", \"length\": 2, "
                                                 "\"winch_target\": 0}]}", "t.json", &m), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_model_constraint(m, 0, &d), TP_OK);
    cr_assert_float_eq(d.winch_target, 0.0f, 0.0f);
    tp_model_destroy(m);
}

/* A version 1 scene's constraint or mover event says the action needs
 * version 2, as the constraints and movers do (it said "unknown constraint"). */
Test(constraints, version_1_constraint_event_needs_version_2)
{
    expect_scene_error("{\"bodies\": [{}], \"events\": [{\"time\": 0, \"action\": \"constraint\", \"constraint\": \"r\", "
                       "\"param\": \"length\", \"to\": 1}]}",
                       "t.json:1:51: events[0].action: ", "action \"constraint\" needs \"version\": 2");
    expect_scene_error("{\"version\": 1, \"bodies\": [{}], \"events\": [{\"time\": 0, \"action\": \"mover\", \"mover\": \"m\", "
                       "\"target\": 1}]}",
                       "events[0].action: ", "action \"mover\" needs \"version\": 2");
}

Test(constraints, scene_loads_and_matches_the_api)
{
    const char *json = SCENE_HEAD "\"constraints\": [{\"name\": \"r\", \"type\": \"hinge\", \"body0\": \"world\", "
                                  "\"body1\": \"bob\", \"pos0\": [0, 0, 1], \"axis0\": [0, 1, 0], \"axis1\": [0, 1, 0], "
                                  "\"actuator\": \"servo\", \"target\": 0.5, \"speed\": 2, \"max_force\": 10, "
                                  "\"limits\": [-1, 1]}]}";
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(json, "t.json", &m), TP_OK, "%s", tp_last_error());
    tp_constraint_def d;
    cr_assert_eq(tp_model_constraint(m, tp_model_find_constraint(m, "r"), &d), TP_OK);
    cr_assert_eq(d.type, TP_CONSTRAINT_HINGE);
    cr_assert_eq(d.body0, -1);
    cr_assert_eq(d.actuator, TP_CONS_SERVO);
    cr_assert(d.limits && d.lower == -1.0f && d.upper == 1.0f);
    tp_vec3 x = tp_q_rotate(tp_q_load(d.quat0), tp_v3(1, 0, 0)); /* axis0 [0, 1, 0] */
    cr_assert_lt(fabs(x.y - 1.0f), 1e-6);
    tp_model_destroy(m);
}

/* A rope, rod or spring with no `length` keeps the distance its attachments
 * start at (bob turned half a turn about x: attachment1 0.1 m below its
 * centre, 1.6 m from the anchor), so a rope holds the ball hanging there
 * (length 0 had snapped it onto the anchor); an explicit length wins, 0
 * included (a rod pinning the attachments together, as documented). */
#define HANG_HEAD "{\"version\": 2, \"bodies\": [{\"name\": \"bob\", \"shape\": \"ball\", \"size\": [0.2, 0.2, 0.2], " \
                  "\"pos\": [0, 0, 0.5], \"quat\": [1, 0, 0, 0]}],\n\"constraints\": [{\"name\": \"c\", \"body1\": \"bob\", " \
                  "\"pos0\": [0, 0, 2], \"pos1\": [0, 0, 0.1], "

static float hang_length(const char *rest)
{
    char json[512];
    snprintf(json, sizeof json, HANG_HEAD "%s}]}", rest);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(json, "t.json", &m), TP_OK, "%s", tp_last_error());
    tp_constraint_def d;
    cr_assert_eq(tp_model_constraint(m, 0, &d), TP_OK);
    tp_model_destroy(m);
    return d.length;
}

Test(constraints, scene_length_defaults_to_the_start_distance)
{
    cr_assert_float_eq(hang_length("\"type\": \"rope\""), 1.6f, 1e-6f);
    cr_assert_float_eq(hang_length("\"type\": \"rod\""), 1.6f, 1e-6f);
    cr_assert_float_eq(hang_length("\"type\": \"spring\""), 1.6f, 1e-6f);
    cr_assert_float_eq(hang_length("\"type\": \"rope\", \"length\": 1.2"), 1.2f, 0.0f);
    cr_assert_float_eq(hang_length("\"type\": \"rod\", \"length\": 0"), 0.0f, 0.0f);
    cr_assert_float_eq(hang_length("\"type\": \"rope\", \"length\": 0"), 0.0f, 0.0f);
    /* the start distance past the length bound: said as such, not as a length the scene never gave */
    expect_scene_error("{\"version\": 2, \"bodies\": [{\"name\": \"a\", \"pos\": [-9000, 0, 0]}, {\"name\": \"b\","
                       " \"pos\": [9000, 0, 0]}],\n\"constraints\": [{\"type\": \"rope\", \"body0\": \"a\", \"body1\": \"b\"}]}",
                       "constraints[0]: ", "the attachments start 18000 m apart and no \"length\" is given");
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(HANG_HEAD "\"type\": \"rope\"}]}", "t.json", &m), TP_OK, "%s", tp_last_error());
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 120);
    float value[1];
    cons_read(b, value, NULL);
    tp_state_view v = batch_view(b);
    cr_assert_lt(fabsf(value[0] - 1.6f), 0.01f, "the rope is %g m long after 2 s", (double)value[0]);
    cr_assert_lt(fabsf(v.pos[2] - 0.5f), 0.01f, "bob at z %g after 2 s", (double)v.pos[2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- determinism */

/* A chain of six boxes on hinges and ball sockets, hung from the world and
 * swinging onto the ground (contacts and constraints in one solve), over
 * several worlds and threads: the same bits. */
static tp_model *chain_model(void)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = -(float)G;
    tp_builder *b = builder_begin(&md);
    builder_add_ground(b);
    int prev = -1;
    for (int i = 0; i < 6; ++i) {
        int k = add_box(b, 0.5f, 0.3f, 0.1f, 1.0f, 0.5f * (float)i + 0.25f, 0.0f, 2.0f);
        tp_constraint_def d = tp_default_constraint_def();
        d.type = i % 2 ? TP_CONSTRAINT_BALL : TP_CONSTRAINT_HINGE;
        d.body0 = prev;
        d.body1 = k;
        if (prev < 0) d.pos0[2] = 2.0f;
        else d.pos0[0] = 0.25f;
        d.pos1[0] = -0.25f;
        float s = (float)sqrt(0.5);
        d.quat0[2] = d.quat1[2] = s, d.quat0[3] = d.quat1[3] = s;
        add_cons(b, &d);
        prev = k;
    }
    return builder_finish(b);
}

Test(constraints, determinism_threads_worlds)
{
    tp_model *m = chain_model();
    tp_batch *one = make_batch(m, 1, 1), *many = make_batch(m, 5, 2), *again = make_batch(m, 1, 1);
    batch_steps(one, 200);
    batch_steps(many, 200);
    batch_steps(again, 200);
    uint64_t h = batch_world_hash(one, 0);
    cr_assert_eq(h, batch_world_hash(again, 0));
    for (int w = 0; w < 5; ++w) cr_assert_eq(h, batch_world_hash(many, w), "world %d", w);
    float len[6];
    cons_read(one, len, NULL);
    tp_batch_destroy(one);
    tp_batch_destroy(many);
    tp_batch_destroy(again);
    tp_model_destroy(m);
}

/* Every SIMD width the machine has gives the same bits (the wide sweeps are
 * off for a world with constraints: docs/constraints.md). */
Test(constraints, determinism_simd_widths)
{
    tp_model *m = chain_model();
    uint64_t first = 0;
    const tp_simd widths[] = {TP_SIMD_OFF, TP_SIMD_SSE2, TP_SIMD_AVX2, TP_SIMD_AUTO};
    for (int i = 0; i < 4; ++i) {
        tp_batch_def bd = tp_default_batch_def();
        bd.worlds = 2;
        bd.threads = 1;
        bd.simd = widths[i];
        tp_batch *b = NULL;
        if (tp_batch_create(m, &bd, &b) != TP_OK) continue; /* a width this CPU lacks */
        batch_steps(b, 150);
        uint64_t h = batch_world_hash(b, 1);
        if (i == 0) first = h;
        cr_assert_eq(h, first, "simd %d", (int)widths[i]);
        tp_batch_destroy(b);
    }
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- islands and sleep */

/* The rest pose of a rope bridge by rigid-body statics (no solver): n planks
 * of length w hinged end to end, hung from anchors `gap` beyond their ends at
 * their height on massless ropes of length `rope`. The horizontal pull H is
 * the same all along; each end carries half the weight, so the rope's slope is
 * (n / 2) W / H and plank i's is (n / 2 - i - 1 / 2) W / H (the moments
 * about its centre); H by bisection so that the chain spans the anchors.
 * z[i], angle[i]: plank i's centre below the anchors and its turn about y. */
static void bridge_rest(int n, double w, double gap, double rope, double *x, double *z, double *angle)
{
    double span = n * w + 2.0 * gap, lo = 1e-6, hi = 1e6; /* H in planks' weights */
    for (int it = 0; it < 200; ++it) {
        double h = sqrt(lo * hi), width = 2.0 * rope * cos(atan2(0.5 * n, h));
        for (int i = 0; i < n; ++i) width += w * cos(atan2(0.5 * n - i - 0.5, h));
        if (width < span) lo = h;
        else hi = h;
    }
    double h = sqrt(lo * hi), a = atan2(0.5 * n, h), px = -0.5 * span + rope * cos(a), pz = -rope * sin(a);
    for (int i = 0; i < n; ++i) {
        double t = atan2(0.5 * n - i - 0.5, h);
        x[i] = px + 0.5 * w * cos(t), z[i] = pz - 0.5 * w * sin(t), angle[i] = t;
        px += w * cos(t), pz -= w * sin(t);
    }
}

/* A long rope bridge: twelve 2 kg planks (0.5 m) on hinges between two posts,
 * hung on 0.2 m ropes at the four corners of the end planks, placed at the
 * statics' rest pose; island policy (the defaults). It stays there and sleeps
 * as one island: the middle planks end between the rigid pose and the pose of
 * every joint stretched by the projection's slop (TP_JOINT_SLOP, 0.5 mm: each
 * of the 11 hinges lengthens the chain and each rope the ropes), the one
 * error the joints keep (2 mm more for the error each substep adds before
 * its projection), and every plank sleeps within 10 s (the first step falls
 * g dt before the joints take the load, and starts a ringing that dies out).
 * A bridge whose soft rows shed the load the projection held them from
 * stretching to crept down at 0.43 m/s every step and never slept. */
Test(constraints, rope_bridge_at_rest_sleeps)
{
    enum { N = 12 };
    const double w = 0.5, gap = 0.15, rope = 0.2, top = 2.0, slop = 5e-4;
    double x[N], z[N], t[N], xs[N], zs[N], ts[N];
    bridge_rest(N, w, gap, rope, x, z, t);
    double ws = w + slop * (N - 1) / N; /* the same anchors, every joint stretched by the slop */
    bridge_rest(N, ws, gap - 0.5 * N * (ws - w), rope + slop, xs, zs, ts);
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = -(float)G;
    tp_builder *b = builder_begin(&md);
    builder_add_ground(b);
    tp_body_def post = tp_default_body_def();
    post.type = TP_BODY_STATIC;
    post.size[0] = 0.2f, post.size[1] = 1.2f, post.size[2] = 2.0f;
    post.pos[0] = -(float)(0.5 * N * w + gap + 0.1), post.pos[2] = 1.0f;
    int pl = builder_add(b, &post);
    post.pos[0] = -post.pos[0];
    int pr = builder_add(b, &post);
    int planks[N];
    for (int i = 0; i < N; ++i) {
        tp_body_def bd = tp_default_body_def();
        bd.size[0] = (float)w, bd.size[1] = 1.0f, bd.size[2] = 0.05f;
        bd.mass = 2.0f;
        bd.pos[0] = (float)x[i], bd.pos[2] = (float)(top + z[i]);
        bd.quat[1] = (float)sin(0.5 * t[i]), bd.quat[3] = (float)cos(0.5 * t[i]);
        planks[i] = builder_add(b, &bd);
    }
    float s = (float)sqrt(0.5);
    for (int i = 0; i + 1 < N; ++i) {
        tp_constraint_def d = tp_default_constraint_def();
        d.type = TP_CONSTRAINT_HINGE;
        d.body0 = planks[i];
        d.body1 = planks[i + 1];
        d.pos0[0] = (float)(0.5 * w);
        d.pos1[0] = -(float)(0.5 * w);
        d.quat0[2] = d.quat1[2] = s, d.quat0[3] = d.quat1[3] = s; /* X onto y */
        add_cons(b, &d);
    }
    for (int e = 0; e < 4; ++e) { /* a rope at each corner of the end planks */
        tp_constraint_def d = tp_default_constraint_def();
        d.type = TP_CONSTRAINT_ROPE;
        d.body0 = e & 1 ? pr : pl;
        d.body1 = planks[e & 1 ? N - 1 : 0];
        d.pos0[0] = e & 1 ? -0.1f : 0.1f, d.pos0[1] = e & 2 ? 0.45f : -0.45f, d.pos0[2] = 1.0f;
        d.pos1[0] = (float)(e & 1 ? 0.5 * w : -0.5 * w), d.pos1[1] = d.pos0[1];
        d.length = (float)rope;
        add_cons(b, &d);
    }
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    int asleep_at = -1;
    for (int step = 1; step <= 60 * 10 && asleep_at < 0; ++step) {
        batch_steps(bt, 1);
        tp_state_view v = batch_view(bt);
        int all = 1;
        for (int i = 0; i < N; ++i) all &= v.sleep_state[planks[i]] == TP_SLEEPING;
        if (all) asleep_at = step;
    }
    tp_state_view v = batch_view(bt);
    double mid = 0.5 * (v.pos[3 * planks[N / 2 - 1] + 2] + v.pos[3 * planks[N / 2] + 2]);
    double rigid = top + z[N / 2], stretched = top + zs[N / 2];
    cr_log_info("rope bridge of %d planks: asleep at %.2f s, middle at z %.4f m (statics: rigid %.4f, every joint "
                "at the slop %.4f)", N, asleep_at / 60.0, mid, rigid, stretched);
    cr_assert_gt(asleep_at, 0, "the bridge is still awake after 10 s");
    cr_assert_eq(v.island[planks[0]], v.island[planks[N - 1]], "the bridge is not one island");
    cr_assert(mid < rigid + 1e-3 && mid > stretched - 2e-3, "middle at z %g, statics %g (rigid) to %g (stretched)", mid,
              rigid, stretched);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* A wheel on a motor hinge about a static axle, with a box resting against
 * nothing: the motor keeps its island awake (the island policy's driven
 * rule); the same wheel with its motor at 0 rad/s falls asleep. */
static tp_model *wheel_model(float speed)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = -(float)G;
    tp_builder *b = builder_begin(&md);
    builder_add_ground(b);
    int wheel = add_box(b, 0.2f, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f, 2.0f);
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_HINGE;
    d.body0 = -1;
    d.body1 = wheel;
    d.pos0[2] = 2.0f; /* X: the axle along world x */
    d.actuator = TP_CONS_MOTOR;
    d.velocity = speed;
    d.max_force = 20.0f;
    add_cons(b, &d);
    return builder_finish(b);
}

Test(constraints, motor_hinge_keeps_its_island_awake)
{
    tp_model *on = wheel_model(2.0f), *off = wheel_model(0.0f);
    tp_batch *a = make_batch(on, 1, 1), *z = make_batch(off, 1, 1);
    batch_steps(a, 60 * 5);
    batch_steps(z, 60 * 5);
    cr_assert_neq(batch_view(a).sleep_state[1], TP_SLEEPING, "the driven wheel fell asleep");
    cr_assert_lt(fabs(batch_view(a).w[3 * 1 + 0] - 2.0f), 1e-3, "wheel at %g rad/s", batch_view(a).w[3]);
    cr_assert_eq(batch_view(z).sleep_state[1], TP_SLEEPING, "the stopped wheel never slept");
    tp_batch_destroy(a);
    tp_batch_destroy(z);
    tp_model_destroy(on);
    tp_model_destroy(off);
}
