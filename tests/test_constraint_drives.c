/* test_constraint_drives.c - ball socket cone and twist limits, rope winches
 * (seed 004, "Winches": speed, the slow-down law, the force stall), enabled,
 * and the per-world parameter writes and read-outs, against values derived
 * independently (a pendulum's energy bound, the winch's speed law, free fall);
 * determinism across threads, world counts and SIMD widths with writes. */
#include "helpers.h"
#include "tp_math.h"

#include <math.h>

#define G 9.81

static int add_cons(tp_builder *b, const tp_constraint_def *d)
{
    int i = -1;
    cr_assert_eq(tp_builder_add_constraint(b, d, &i), TP_OK, "%s", tp_last_error());
    return i;
}

static int add_body(tp_builder *b, tp_shape_type shape, float sx, float sy, float sz, float m, float x, float y,
                    float z)
{
    tp_body_def bd = tp_default_body_def();
    bd.shape = shape;
    bd.size[0] = sx, bd.size[1] = sy, bd.size[2] = sz;
    bd.mass = m;
    bd.pos[0] = x, bd.pos[1] = y, bd.pos[2] = z;
    return builder_add(b, &bd);
}

static tp_model_def world_def(int sleep)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = -(float)G;
    md.sleep.enabled = sleep;
    return md;
}

static void get_param(tp_batch *b, tp_constraint_param which, float *out)
{
    cr_assert_eq(tp_batch_constraint_params(b, which, out), TP_OK, "%s", tp_last_error());
}

static void set_param(tp_batch *b, tp_constraint_param which, const tp_world_select *s, const float *v)
{
    cr_assert_eq(tp_batch_set_constraint_params(b, which, s, v), TP_OK, "%s", tp_last_error());
}

/* ---------------------------------------------------------------- ball socket limits */

/* A limb: a 1 kg box 0.1 x 0.1 x 1 m hanging from a ball socket at its top
 * end, (0, 0, 3); attachment X axes along +z on both (the swing is the limb's
 * angle from the vertical, the twist its turn about its length). */
#define LIMB_I (1.0 * (0.01 + 1.0) / 12.0 + 0.25) /* kg m^2 about the socket, across the limb */
static tp_model *socket_model(int cone, float cone_angle, int twist, float lo, float hi)
{
    tp_model_def md = world_def(0);
    tp_builder *b = builder_begin(&md);
    int limb = add_body(b, TP_SHAPE_BOX, 0.1f, 0.1f, 1.0f, 1.0f, 0.0f, 0.0f, 2.5f);
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_BALL;
    d.body0 = -1;
    d.body1 = limb;
    d.pos0[2] = 3.0f;
    d.pos1[2] = 0.5f;
    float s = (float)sqrt(0.5); /* X onto +z: a quarter turn about -y */
    d.quat0[1] = d.quat1[1] = -s, d.quat0[3] = d.quat1[3] = s;
    d.cone = cone, d.cone_angle = cone_angle;
    d.twist = twist, d.twist_lower = lo, d.twist_upper = hi;
    add_cons(b, &d);
    return builder_finish(b);
}

/* Set turning at 4 rad/s about a horizontal diagonal, the free limb would
 * swing to acos(1 - I w^2 / (m g L)) = 63 degrees (energy: I w^2 / 2 =
 * m g (L / 2) (1 - cos)); a 0.4 rad cone holds it at 0.4 rad. */
Test(constraint_drives, cone_limit_angle_held)
{
    double w0 = 4.0, free_swing = acos(1.0 - LIMB_I * w0 * w0 / (G * 1.0));
    float cones[2] = {0.4f, 0.0f};
    for (int c = 0; c < 2; ++c) {
        tp_model *m = socket_model(c == 0, cones[c], 0, 0, 0);
        tp_batch *b = make_batch(m, 1, 1);
        float w[3] = {(float)(w0 * 0.8), (float)(-w0 * 0.6), 0.0f}; /* the centre moves along (0.6, 0.8) */
        float v[3] = {(float)(w0 * 0.5 * 0.6), (float)(w0 * 0.5 * 0.8), 0.0f};
        cr_assert_eq(tp_batch_set_velocity(b, 0, 0, v, w), TP_OK, "%s", tp_last_error());
        double worst = 0.0;
        for (int s = 0; s < 180; ++s) {
            batch_steps(b, 1);
            tp_state_view sv = batch_view(b);
            double dx = sv.pos[0], dy = sv.pos[1], dz = 3.0 - sv.pos[2]; /* socket to centre */
            worst = fmax(worst, atan2(sqrt(dx * dx + dy * dy), dz));
        }
        if (c == 0) {
            cr_log_info("cone 0.4 rad: widest swing %.4f rad (free: %.4f rad)", worst, free_swing);
            cr_assert_lt(worst, 0.4 + 0.01, "swing %.4f rad past the 0.4 rad cone", worst);
            cr_assert_gt(worst, 0.4 - 0.01, "swing %.4f rad never reached the cone", worst);
        } else {
            cr_assert_lt(fabs(worst - free_swing), 0.02, "free swing %.4f rad, energy says %.4f", worst, free_swing);
        }
        tp_batch_destroy(b);
        tp_model_destroy(m);
    }
}

/* Spun about the vertical at 5 rad/s, the hanging ball turns until its twist
 * limit (+0.3 rad) stops it; the twist read from its pose never passes it. */
Test(constraint_drives, twist_limit_stops_the_turn)
{
    tp_model *m = socket_model(0, 0, 1, -0.2f, 0.3f);
    tp_batch *b = make_batch(m, 1, 1);
    cr_assert_eq(tp_batch_set_velocity(b, 0, 0, (float[3]){0, 0, 0}, (float[3]){0, 0, 5.0f}), TP_OK);
    double hi = -1.0, lo = 1.0;
    for (int s = 0; s < 120; ++s) {
        batch_steps(b, 1);
        tp_state_view sv = batch_view(b);
        double yaw = 2.0 * atan2(sv.quat[2], sv.quat[3]);
        hi = fmax(hi, yaw), lo = fmin(lo, yaw);
    }
    cr_log_info("twist [-0.2, 0.3] rad: turned within [%.4f, %.4f] rad", lo, hi);
    cr_assert_lt(hi, 0.3 + 0.01, "twist %.4f rad past the 0.3 rad limit", hi);
    cr_assert_gt(hi, 0.3 - 0.01, "twist %.4f rad never reached the limit", hi);
    cr_assert_gt(lo, -0.2 - 0.01, "twist %.4f rad past the -0.2 rad limit", lo);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(constraint_drives, limits_refused_on_other_types)
{
    tp_model_def md = world_def(0);
    tp_builder *b = builder_begin(&md);
    int ball = add_body(b, TP_SHAPE_BALL, 0.1f, 0.1f, 0.1f, 1.0f, 0.0f, 0.0f, 2.0f);
    tp_constraint_def d = tp_default_constraint_def();
    d.body1 = ball;
    d.cone = 1;
    cr_assert_eq(tp_builder_add_constraint(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "cone"), "%s", tp_last_error());
    d = tp_default_constraint_def();
    d.body1 = ball;
    d.type = TP_CONSTRAINT_BALL, d.twist = 1, d.twist_lower = 1.0f, d.twist_upper = -1.0f;
    cr_assert_eq(tp_builder_add_constraint(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "twist"), "%s", tp_last_error());
    d = tp_default_constraint_def();
    d.body1 = ball;
    d.type = TP_CONSTRAINT_ROD, d.winch = 1;
    cr_assert_eq(tp_builder_add_constraint(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "winch"), "%s", tp_last_error());
    d = tp_default_constraint_def();
    d.body1 = ball;
    d.type = TP_CONSTRAINT_ROPE, d.winch = 1, d.winch_speed = -1.0f;
    cr_assert_eq(tp_builder_add_constraint(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "winch_speed"), "%s", tp_last_error());
    tp_builder_destroy(b);
}

/* ---------------------------------------------------------------- winches */

/* A crane: a 1 kg hook (0.5 m cube) on a 2 m rope from the world point
 * (0, 0, 10) to its top face, winch on at the seed's defaults but speed 1.5
 * (its target starts at the length: it holds still). */
static tp_model *crane_model_sleep(float winch_force, int sleep)
{
    tp_model_def md = world_def(sleep);
    tp_builder *b = builder_begin(&md);
    int hook = add_body(b, TP_SHAPE_BOX, 0.5f, 0.5f, 0.5f, 1.0f, 0.0f, 0.0f, 10.0f - 2.0f - 0.25f);
    tp_constraint_def d = tp_default_constraint_def();
    d.name = "cable";
    d.type = TP_CONSTRAINT_ROPE;
    d.body0 = -1;
    d.body1 = hook;
    d.pos0[2] = 10.0f;
    d.pos1[2] = 0.25f;
    d.length = 2.0f;
    d.winch = 1;
    d.winch_speed = 1.5f;
    d.winch_force = winch_force;
    add_cons(b, &d);
    return builder_finish(b);
}

static tp_model *crane_model(float winch_force) { return crane_model_sleep(winch_force, 0); }

/* Paying out to 6 m: the length moves at winch_speed (1.5 m/s) until it is
 * winch_speed x 10 / winch_responsiveness = 1/3 m from the target, then as
 * dL/dt = -(L - target) x 45 / 10 (seed 004); the hook follows on the taut
 * rope. Only world 1 is written: world 0 holds still. */
Test(constraint_drives, winch_pays_out_at_its_speed_then_slows)
{
    tp_model *m = crane_model(10000.0f);
    tp_batch *b = make_batch(m, 2, 1);
    const tp_model_def md = tp_model_settings(m);
    double dt = md.dt, h = dt / md.substeps;
    batch_steps(b, 30);
    float len[2], tgt[2];
    get_param(b, TP_CONS_WINCH_TARGET, tgt);
    cr_assert(tgt[0] == 2.0f && tgt[1] == 2.0f, "winch target starts at the length: %g %g", tgt[0], tgt[1]);
    int32_t one = 1;
    tp_world_select sel = {.indices = &one, .count = 1};
    float six = 6.0f;
    set_param(b, TP_CONS_WINCH_TARGET, &sel, &six);
    int full = 60; /* 1 s: 1.5 m paid out */
    batch_steps(b, full);
    get_param(b, TP_CONS_LENGTH, len);
    cr_assert_eq(len[0], 2.0f, "world 0 moved: %g", len[0]);
    cr_assert_lt(fabs(len[1] - 3.5), 1e-4, "after 1 s at 1.5 m/s: %.6f m, expected 3.5 m", len[1]);
    tp_state_view v = batch_view(b);
    float vz = v.v[3 * (1 * v.bodies) + 2];
    cr_log_info("winch paying out: length %.5f m after 1 s (3.5 expected), hook at %.4f m/s", len[1], vz);
    cr_assert_lt(fabs(vz + 1.5), 0.05, "the hook sinks at %g m/s, not 1.5", vz);
    float dist[2];
    cr_assert_eq(tp_batch_constraints(b, dist, NULL), TP_OK);
    cr_assert_lt(fabs(dist[1] - len[1]), 5e-3, "rope slack or stretched: %g m apart, length %g", dist[1], len[1]);
    /* full speed until 1/3 m to go: at 6 - 1/3 after (4 - 1/3) / 1.5 s */
    double t_slow = (4.0 - 1.0 / 3.0) / 1.5, t = full * dt;
    int steps = (int)ceil((t_slow - t) / dt);
    batch_steps(b, steps);
    t += steps * dt;
    get_param(b, TP_CONS_LENGTH, len);
    double left0 = 6.0 - len[1];
    cr_assert_lt(left0, 1.0 / 3.0 + 1e-4, "still %.5f m to go after %.3f s", left0, t);
    batch_steps(b, 60);
    get_param(b, TP_CONS_LENGTH, len);
    double left = 6.0 - len[1], law = left0 * exp(-4.5 * 1.0), map = left0 * pow(1.0 - 4.5 * h, 60 * md.substeps);
    cr_log_info("winch slowing: %.3e m to go 1 s later; dL/dt law %.3e, per-substep map %.3e", left, law, map);
    cr_assert_lt(fabs(left - map) / map, 1e-3, "left %.4e m, per-substep map %.4e", left, map);
    cr_assert_lt(fabs(left - law) / law, 0.06, "left %.4e m, dL/dt law %.4e", left, law);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Reeling in: a 1 kg hook (9.81 N) comes up at 1.5 m/s on a winch of 100 N
 * (once moving: the start's jerk pulls harder than 100 N for a few substeps,
 * which stall the winch as the seed says); on a winch of 5 N it stalls for
 * good, and paying out still carries on. */
Test(constraint_drives, winch_reels_in_and_stalls_under_winch_force)
{
    tp_model *strong = crane_model(100.0f), *weak = crane_model(5.0f);
    tp_batch *a = make_batch(strong, 1, 1), *z = make_batch(weak, 1, 1);
    float half = 0.5f, len; /* full speed down to 0.5 + 1/3 m, after 0.78 s */
    set_param(a, TP_CONS_WINCH_TARGET, NULL, &half);
    set_param(z, TP_CONS_WINCH_TARGET, NULL, &half);
    batch_steps(a, 6);
    batch_steps(z, 30);
    float len0;
    get_param(a, TP_CONS_LENGTH, &len0);
    batch_steps(a, 30);
    get_param(a, TP_CONS_LENGTH, &len);
    cr_log_info("winch reeling in: %.5f m in 0.5 s (0.75 expected), then at %.4f m", len0 - len, len);
    cr_assert_lt(fabs(len0 - len - 0.75f), 1e-4, "strong winch reeled in %g m in 0.5 s", len0 - len);
    cr_assert_lt(fabs(batch_view(a).v[2] - 1.5f), 0.1f, "the hook rises at %g m/s", batch_view(a).v[2]);
    get_param(z, TP_CONS_LENGTH, &len);
    cr_assert_gt(len, 2.0f - 0.01f, "the 5 N winch reeled in a 9.81 N load to %g m", len);
    float three = 3.0f;
    set_param(z, TP_CONS_WINCH_TARGET, NULL, &three);
    batch_steps(z, 30);
    get_param(z, TP_CONS_LENGTH, &len);
    cr_assert_gt(len, 2.7f, "paying out under load stopped at %g m", len);
    tp_batch_destroy(a);
    tp_batch_destroy(z);
    tp_model_destroy(strong);
    tp_model_destroy(weak);
}

/* Seed 004: reeling in stops while the load pulls harder than winch_force.
 * A stalled winch (9.81 N on 5 N) is not in motion, so the hook, at rest on
 * the rope held by the world, falls asleep (island policy: 0.5 s quiet), its
 * length still 2 m; a winch that reels (100 N) keeps it awake until the
 * target. Writing winch_force wakes it (seed 000: a constraint's property
 * change) and it reels in 1.5 m to its 0.5 m target, then sleeps there
 * (reeling in slows exponentially near the target: within 1 mm it has arrived). */
Test(constraint_drives, a_stalled_winch_sleeps_and_a_write_wakes_it)
{
    tp_model *weak = crane_model_sleep(5.0f, 1), *strong = crane_model_sleep(100.0f, 1);
    tp_batch *z = make_batch(weak, 1, 1), *a = make_batch(strong, 1, 1);
    float half = 0.5f, len;
    set_param(z, TP_CONS_WINCH_TARGET, NULL, &half);
    set_param(a, TP_CONS_WINCH_TARGET, NULL, &half);
    batch_steps(a, 60); /* 1 s: 1.5 m to reel in at 1.5 m/s, not there yet */
    cr_assert_eq(batch_view(a).sleep_state[0], TP_AWAKE, "a winch in motion let its hook sleep");
    batch_steps(z, 120);
    get_param(z, TP_CONS_LENGTH, &len);
    cr_assert_gt(len, 2.0f - 0.01f, "the 5 N winch reeled in a 9.81 N load to %g m", len);
    cr_assert_eq(batch_view(z).sleep_state[0], TP_SLEEPING, "the stalled winch's hook is %d, not asleep",
                 batch_view(z).sleep_state[0]);
    float force = 100.0f;
    set_param(z, TP_CONS_WINCH_FORCE, NULL, &force);
    cr_assert_eq(batch_view(z).sleep_state[0], TP_AWAKE, "a new winch_force did not wake the hook");
    batch_steps(z, 30);
    get_param(z, TP_CONS_LENGTH, &len);
    cr_assert_lt(len, 2.0f - 0.5f, "0.5 s after the write the winch is at %g m", len);
    batch_steps(z, 180);
    get_param(z, TP_CONS_LENGTH, &len);
    cr_assert_lt(fabs(len - 0.5f), 1e-3, "the winch stopped at %g m", len); /* TP_WINCH_AT_TARGET: arrived */
    cr_assert_eq(batch_view(z).sleep_state[0], TP_SLEEPING, "the hook at the winch's target is %d, not asleep",
                 batch_view(z).sleep_state[0]);
    tp_batch_destroy(a);
    tp_batch_destroy(z);
    tp_model_destroy(weak);
    tp_model_destroy(strong);
}

/* ---------------------------------------------------------------- prismatic drives and limits */

/* A 1 kg slide (0.4 m cube) on a prismatic along world x from the world
 * point (0, 0, 2), gravity down (the slider carries it); `d` gives the drive
 * and limits. */
static tp_model *slide_model(tp_constraint_def d, int sleep)
{
    tp_model_def md = world_def(sleep);
    tp_builder *b = builder_begin(&md);
    d.type = TP_CONSTRAINT_PRISMATIC;
    d.body0 = -1;
    d.body1 = add_body(b, TP_SHAPE_BOX, 0.4f, 0.4f, 0.4f, 1.0f, 0.0f, 0.0f, 2.0f);
    d.pos0[2] = 2.0f;
    add_cons(b, &d);
    return builder_finish(b);
}

static float slide_position(tp_batch *b)
{
    float x;
    cr_assert_eq(tp_batch_constraints(b, &x, NULL), TP_OK, "%s", tp_last_error());
    return x;
}

/* Servo to 1 m at 0.5 m/s with 100 N: it reaches 0.5 m/s in m v / F = 5 ms,
 * so at 1 s it is 0.5 (1 - 0.0025 + h / 2) m along (the motor's half substep
 * ahead, as the hinge's servo); it settles on 1 m by 3 s. */
Test(constraint_drives, prismatic_servo_speed_and_settling)
{
    tp_constraint_def d = tp_default_constraint_def();
    d.actuator = TP_CONS_SERVO, d.target = 1.0f, d.speed = 0.5f, d.max_force = 100.0f;
    tp_model *m = slide_model(d, 0);
    tp_batch *b = make_batch(m, 1, 1);
    double dt = tp_model_settings(m).dt, h = dt / tp_model_settings(m).substeps;
    batch_steps(b, 60);
    double expect = 0.5 * (1.0 - 0.5 * 0.5 * 1.0 / 100.0 + 0.5 * h);
    cr_assert_lt(fabs(slide_position(b) - expect), 5e-3, "at 1 s the slide is at %g m, expected %g", slide_position(b),
                 expect);
    cr_assert_lt(fabs(batch_view(b).v[0] - 0.5f), 1e-3, "moving at %g m/s, servo speed 0.5", batch_view(b).v[0]);
    batch_steps(b, 120);
    cr_assert_lt(fabs(slide_position(b) - 1.0f), 1e-3, "settled at %g m, target 1", slide_position(b));
    cr_assert_lt(fabsf(batch_view(b).v[0]), 1e-3, "still moving at %g m/s", batch_view(b).v[0]);
    cr_assert_lt(fabsf(batch_view(b).pos[2] - 2.0f), 1e-3, "the slider let it sag to z %g", batch_view(b).pos[2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A motor at 1 m/s between limits [-0.5, 0.6] m: it stops at 0.6 m. */
Test(constraint_drives, prismatic_motor_stops_at_its_limit)
{
    tp_constraint_def d = tp_default_constraint_def();
    d.actuator = TP_CONS_MOTOR, d.velocity = 1.0f, d.max_force = 100.0f;
    d.limits = 1, d.lower = -0.5f, d.upper = 0.6f;
    tp_model *m = slide_model(d, 0);
    tp_batch *b = make_batch(m, 1, 1);
    float top = -10.0f;
    for (int s = 0; s < 120; ++s) {
        batch_steps(b, 1);
        top = fmaxf(top, slide_position(b));
    }
    cr_assert_lt(top, 0.6f + 0.01f, "passed the upper limit: %g", top);
    cr_assert_gt(slide_position(b), 0.6f - 0.01f, "held short of the limit at %g", slide_position(b));
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Island policy: a servo still short of its target keeps its island awake,
 * even when slower than the 0.05 m/s sleep threshold (0.02 m/s to 0.05 m:
 * 2.5 s); at its target (within TP_SERVO_AT_TARGET) it sleeps. */
Test(constraint_drives, a_servo_on_its_way_keeps_its_island_awake)
{
    tp_constraint_def d = tp_default_constraint_def();
    d.actuator = TP_CONS_SERVO, d.target = 0.05f, d.speed = 0.02f, d.max_force = 100.0f;
    tp_model *m = slide_model(d, 1);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 120);
    cr_assert_eq(batch_view(b).sleep_state[0], TP_AWAKE, "the slow servo's slide slept at %g m", slide_position(b));
    cr_assert_lt(fabs(slide_position(b) - 0.04), 2e-3, "at 2 s the slide is at %g m, 0.02 m/s x 2 s = 0.04",
                 slide_position(b));
    batch_steps(b, 120);
    cr_assert_eq(batch_view(b).sleep_state[0], TP_SLEEPING, "on its target (%g m) the slide is %d, not asleep",
                 slide_position(b), batch_view(b).sleep_state[0]);
    cr_assert_lt(fabs(slide_position(b) - 0.05), 1e-3, "asleep at %g m, target 0.05", slide_position(b));
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- enabled and parameter writes */

/* Disabling the cable of world 1 lets its hook fall freely (z drops g t^2 / 2);
 * enabling it again catches it; world 0 hangs on. A reset restores the model's. */
Test(constraint_drives, enabled_per_world)
{
    tp_model *m = crane_model(10000.0f);
    tp_batch *b = make_batch(m, 2, 1);
    double dt = tp_model_settings(m).dt;
    batch_steps(b, 30);
    float z0 = batch_view(b).pos[3 * 1 + 2];
    float en[2] = {1.0f, 0.0f};
    set_param(b, TP_CONS_ENABLED, NULL, en);
    batch_steps(b, 30);
    tp_state_view v = batch_view(b);
    double t = 30 * dt, fall = z0 - v.pos[3 * 1 + 2], expect = 0.5 * G * t * t;
    cr_log_info("disabled cable: fell %.4f m in %.2f s (g t^2 / 2 = %.4f)", fall, t, expect);
    cr_assert_lt(fabs(fall - expect) / expect, 0.03, "fell %.4f m, free fall %.4f m", fall, expect);
    cr_assert_lt(fabs(v.pos[2] - z0), 5e-3, "world 0's hook moved to %g", v.pos[2]);
    en[1] = 1.0f;
    set_param(b, TP_CONS_ENABLED, NULL, en);
    batch_steps(b, 120);
    cr_assert_gt(batch_view(b).pos[3 * 1 + 2], 10.0f - 2.0f - 0.25f - 0.1f, "re-enabled cable did not catch the hook");
    int32_t w1 = 1;
    tp_world_select s1 = {.indices = &w1, .count = 1};
    en[1] = 0.0f;
    set_param(b, TP_CONS_ENABLED, &s1, en + 1);
    cr_assert_eq(tp_batch_reset_worlds(b, &s1), TP_OK);
    get_param(b, TP_CONS_ENABLED, en);
    cr_assert(en[0] == 1.0f && en[1] == 1.0f, "reset did not restore enabled: %g %g", en[0], en[1]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Bad values name row, column and constraint, and nothing changes; a
 * parameter the constraint lacks takes only its present value. */
Test(constraint_drives, parameter_writes_are_checked)
{
    tp_model *m = crane_model(10000.0f);
    tp_batch *b = make_batch(m, 2, 1);
    float v[2] = {3.0f, -1.0f}, got[2];
    cr_assert_eq(tp_batch_set_constraint_params(b, TP_CONS_WINCH_SPEED, NULL, v), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "winch_speed row 1 [0] (cable)"), "%s", tp_last_error());
    get_param(b, TP_CONS_WINCH_SPEED, got);
    cr_assert(got[0] == 1.5f && got[1] == 1.5f, "changed despite the error: %g %g", got[0], got[1]);
    float tgt[2] = {0.0f, 0.5f};
    cr_assert_eq(tp_batch_set_constraint_params(b, TP_CONS_TARGET, NULL, tgt), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "rope has no target"), "%s", tp_last_error());
    tgt[1] = 0.0f;
    set_param(b, TP_CONS_TARGET, NULL, tgt); /* its present value: accepted */
    float bad = NAN;
    cr_assert_eq(tp_batch_set_constraint_params(b, TP_CONS_LENGTH, NULL, (float[2]){1.0f, bad}), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_set_constraint_params(b, TP_CONS_PARAM_COUNT, NULL, v), TP_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(tp_constraint_param_name(TP_CONS_WINCH_RESPONSIVENESS), "winch_responsiveness");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A length or winch target past TP_MAX_SIZE (1e30 led to NaN) is refused
 * naming the value, and nothing changes; TP_MAX_SIZE itself is written. */
Test(constraint_drives, lengths_are_bounded_by_the_max_size)
{
    tp_model *m = crane_model(10000.0f);
    tp_batch *b = make_batch(m, 2, 1);
    const tp_constraint_param which[2] = {TP_CONS_LENGTH, TP_CONS_WINCH_TARGET};
    for (int i = 0; i < 2; ++i) {
        float before[2], got[2];
        get_param(b, which[i], before);
        cr_assert_eq(tp_batch_set_constraint_params(b, which[i], NULL, (float[2]){3.0f, 1e30f}), TP_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(tp_last_error(), "row 1 [0] (cable) must be within [0, 10000] m (TP_MAX_SIZE), got 1e+30"),
                  "%s", tp_last_error());
        get_param(b, which[i], got);
        cr_assert(got[0] == before[0] && got[1] == before[1], "changed despite the error: %g %g", got[0], got[1]);
        set_param(b, which[i], NULL, (float[2]){3.0f, TP_MAX_SIZE});
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A change wakes the constraint's bodies (seed 000, "Additional wake
 * situations"); writing the value it has wakes nothing. */
Test(constraint_drives, a_change_wakes_the_bodies)
{
    tp_model_def md = world_def(1);
    tp_builder *bl = builder_begin(&md);
    builder_add_ground(bl);
    int hook = add_body(bl, TP_SHAPE_BOX, 0.5f, 0.5f, 0.5f, 1.0f, 0.0f, 0.0f, 10.0f - 2.0f - 0.25f);
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_ROPE, d.body1 = hook, d.pos0[2] = 10.0f, d.pos1[2] = 0.25f, d.length = 2.0f;
    add_cons(bl, &d);
    tp_model *m = builder_finish(bl);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 120);
    cr_assert_eq(batch_view(b).sleep_state[hook], TP_SLEEPING, "the hook never slept");
    float len = 2.0f;
    set_param(b, TP_CONS_LENGTH, NULL, &len);
    cr_assert_eq(batch_view(b).sleep_state[hook], TP_SLEEPING, "an unchanged length woke the hook");
    len = 3.0f;
    set_param(b, TP_CONS_LENGTH, NULL, &len);
    cr_assert_eq(batch_view(b).sleep_state[hook], TP_AWAKE, "a new length did not wake the hook");
    batch_steps(b, 120);
    float dist;
    cr_assert_eq(tp_batch_constraints(b, &dist, NULL), TP_OK);
    cr_assert_lt(fabs(dist - 3.0f), 5e-3, "the hook hangs %g m down, rope 3 m", dist);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Seed 000: "a new Constraint is created" with an attachment in an assembly
 * wakes it. torpor's constraints are made with the model; a disabled one
 * enabled is the new constraint: a box asleep on the ground under a disabled
 * winch rope (2.5 m, just slack, from 3 m up; winch target 1 m) wakes when it
 * is enabled and is reeled up to hang 1 m under the point (its centre 0.25 m
 * lower); a second world left disabled stays asleep. */
Test(constraint_drives, enabling_a_constraint_wakes_its_bodies)
{
    tp_model_def md = world_def(1);
    tp_builder *bl = builder_begin(&md);
    builder_add_ground(bl);
    int box = add_body(bl, TP_SHAPE_BOX, 0.5f, 0.5f, 0.5f, 1.0f, 0.0f, 0.0f, 0.25f);
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_ROPE, d.body1 = box, d.pos0[2] = 3.0f, d.pos1[2] = 0.25f, d.length = 2.5f;
    d.winch = 1, d.winch_target = 1.0f, d.winch_speed = 2.0f, d.winch_force = 100.0f;
    d.enabled = 0;
    add_cons(bl, &d);
    tp_model *m = builder_finish(bl);
    tp_batch *b = make_batch(m, 2, 1);
    batch_steps(b, 60);
    tp_state_view v = batch_view(b);
    cr_assert(v.sleep_state[box] == TP_SLEEPING && v.sleep_state[2 + box] == TP_SLEEPING, "the boxes are %d %d",
              v.sleep_state[box], v.sleep_state[2 + box]);
    float en[2] = {1.0f, 0.0f};
    set_param(b, TP_CONS_ENABLED, NULL, en);
    v = batch_view(b);
    cr_assert_eq(v.sleep_state[box], TP_AWAKE, "enabling the rope did not wake its box");
    cr_assert_eq(v.sleep_state[2 + box], TP_SLEEPING, "the untouched world's box woke");
    batch_steps(b, 180);
    cr_assert_lt(fabsf(batch_view(b).pos[3 * box + 2] - (3.0f - 1.0f - 0.25f)), 0.01f, "the box hangs at z %g",
                 batch_view(b).pos[3 * box + 2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- determinism */

/* Cranes with limits and winches over worlds, threads and SIMD widths, each
 * world written its own winch target: a world's bits depend on its writes
 * only. */
static tp_model *mix_model(void)
{
    tp_model_def md = world_def(1);
    tp_builder *b = builder_begin(&md);
    builder_add_ground(b);
    int hook = add_body(b, TP_SHAPE_BOX, 0.5f, 0.5f, 0.5f, 1.0f, 0.0f, 0.0f, 3.0f - 1.0f - 0.25f);
    int bob = add_body(b, TP_SHAPE_BOX, 0.2f, 0.2f, 0.6f, 1.0f, 0.1f, 0.0f, 3.0f - 1.0f - 0.5f - 0.4f);
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_ROPE, d.body1 = hook, d.pos0[2] = 3.0f, d.pos1[2] = 0.25f, d.length = 1.0f, d.winch = 1;
    add_cons(b, &d);
    d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_BALL, d.body0 = hook, d.body1 = bob, d.pos0[2] = -0.25f, d.pos1[2] = 0.3f;
    float s = (float)sqrt(0.5);
    d.quat0[1] = d.quat1[1] = -s, d.quat0[3] = d.quat1[3] = s;
    d.cone = 1, d.cone_angle = 0.3f, d.twist = 1, d.twist_lower = -0.1f, d.twist_upper = 0.1f;
    add_cons(b, &d);
    return builder_finish(b);
}

static void mix_run(tp_batch *b, int first)
{
    int W = tp_batch_worlds(b);
    float tgt[16][2], cur[16][2];
    get_param(b, TP_CONS_WINCH_TARGET, &cur[0][0]);
    for (int w = 0; w < W; ++w) tgt[w][0] = 0.5f + 0.3f * (float)((first + w) % 4), tgt[w][1] = cur[w][1];
    set_param(b, TP_CONS_WINCH_TARGET, NULL, &tgt[0][0]);
    float push[16][3][3] = {{{0}}};
    for (int w = 0; w < W; ++w) push[w][2][0] = 0.5f * (float)((first + w) % 3);
    cr_assert_eq(tp_batch_apply_impulses(b, NULL, &push[0][0][0], NULL), TP_OK, "%s", tp_last_error());
    batch_steps(b, 150);
}

Test(constraint_drives, determinism_threads_worlds_simd)
{
    tp_model *m = mix_model();
    tp_batch *many = make_batch(m, 4, 2);
    mix_run(many, 0);
    for (int w = 0; w < 4; ++w) {
        tp_batch_def bd = tp_default_batch_def();
        bd.worlds = 1, bd.threads = 1, bd.simd = w % 2 ? TP_SIMD_OFF : TP_SIMD_AUTO;
        tp_batch *one = NULL;
        cr_assert_eq(tp_batch_create(m, &bd, &one), TP_OK, "%s", tp_last_error());
        mix_run(one, w);
        cr_assert_eq(batch_world_hash(one, 0), batch_world_hash(many, w), "world %d", w);
        tp_batch_destroy(one);
    }
    tp_batch_destroy(many);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- the assembly policy */

/* A carriage (body 1) on a slider along x from the world, its motor at
 * `speed`; a crate (body 2) on the ground tied to it by a long slack rope. */
static tp_model *carriage_model(float speed)
{
    tp_model_def md = world_def(1);
    md.sleep.policy = TP_SLEEP_ASSEMBLY;
    tp_builder *b = builder_begin(&md);
    builder_add_ground(b);
    int cart = add_body(b, TP_SHAPE_BOX, 0.4f, 0.4f, 0.4f, 1.0f, 0.0f, 0.0f, 2.0f);
    int crate = add_body(b, TP_SHAPE_BOX, 0.5f, 0.5f, 0.5f, 1.0f, 0.0f, 1.0f, 0.25f);
    tp_constraint_def d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_PRISMATIC, d.body1 = cart, d.pos0[2] = 2.0f;
    d.actuator = TP_CONS_MOTOR, d.velocity = speed, d.max_force = 100.0f;
    add_cons(b, &d);
    d = tp_default_constraint_def();
    d.type = TP_CONSTRAINT_ROPE, d.body0 = cart, d.body1 = crate, d.length = 6.0f;
    add_cons(b, &d);
    return builder_finish(b);
}

/* Seed 000, "Actuated joints": a body on a motor slider at 0.1 m/s (under the
 * 0.33 m/s sleep threshold, over 0.1 x it) stays awake and moves 0.1 m/s x t. */
Test(constraint_drives, assembly_actuated_slider_moves_slowly)
{
    tp_model *m = carriage_model(0.1f);
    tp_batch *b = make_batch(m, 1, 1);
    double dt = tp_model_settings(m).dt;
    batch_steps(b, 30);
    float x0 = batch_view(b).pos[3 * 1 + 0];
    batch_steps(b, 180);
    tp_state_view v = batch_view(b);
    double moved = v.pos[3 * 1 + 0] - x0, expect = 0.1 * 180 * dt;
    cr_log_info("assembly policy, motor slider at 0.1 m/s: moved %.4f m in 3 s (%.4f)", moved, expect);
    cr_assert_eq(v.sleep_state[1], TP_AWAKE, "the slow carriage fell asleep");
    cr_assert_lt(fabs(moved - expect), 2e-3, "moved %.4f m, expected %.4f m", moved, expect);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Seed 000, "Sleep-checking": the crate at rest, tied to the awake carriage,
 * is sleep-checking, not asleep; untied (the rope disabled) it sleeps; the
 * carriage sped past the neighbour threshold (0.48 m/s) wakes it. */
Test(constraint_drives, assembly_constrained_neighbour_is_checking)
{
    tp_model *m = carriage_model(0.1f);
    tp_batch *b = make_batch(m, 2, 1);
    float en[2][2] = {{1, 1}, {1, 0}};
    set_param(b, TP_CONS_ENABLED, NULL, &en[0][0]);
    batch_steps(b, 120);
    tp_state_view v = batch_view(b);
    cr_assert_eq(v.sleep_state[2], TP_CHECKING, "the tied crate is %d, not checking", v.sleep_state[2]);
    cr_assert_eq(v.sleep_state[3 + 2], TP_SLEEPING, "the untied crate is %d, not asleep", v.sleep_state[3 + 2]);
    float vel[2][2] = {{1.0f, 0.0f}, {0.1f, 0.0f}};
    set_param(b, TP_CONS_VELOCITY, NULL, &vel[0][0]);
    batch_steps(b, 3);
    v = batch_view(b);
    cr_assert_eq(v.sleep_state[2], TP_AWAKE, "the crate of a fast neighbour is %d, not awake", v.sleep_state[2]);
    cr_assert_eq(v.sleep_state[3 + 2], TP_SLEEPING, "the untied crate woke");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}
