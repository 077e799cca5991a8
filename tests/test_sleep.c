/* test_sleep.c - islands and island sleep (issue 5): the acceptance cases of
 * ../shared/cases/CASES.md that involve sleep or waking (scenes with events in
 * tests/scenes/sleep/) and one test per rule of the island policy
 * (003_e1becc139ac8feb4.txt, 002_a9dafb58cea291df.txt, DESIGN.md section 7).
 * C01 (the worked trace) is in tests/test_trace.c.
 *
 * Conventions of the cases: dt = 1/60 s, 4 substeps (h = dt / 4), g = 9.81,
 * default sleep settings (0.05 m/s, 0.15 rad/s, 0.5 s, accel guard 0.24 m/s^2),
 * a static ground whose top face is at z = 0, 1 m cubes of 1 kg.
 *
 * Times of flight. The integrator is semi-implicit Euler with substep h: from
 * height z0 and vertical speed v0 a free body is, at t = n h,
 * z0 + v0 t - g t (t + h) / 2. So the discrete body reaches a height h/2 (from
 * rest) or h (a throw up and back) earlier than the analytic one. We estimate
 * the moment of a landing from the last step the body spent in free flight by
 * following the parabola through that sample (z, vz) to the target height; that
 * parabola lies g t h / 2 below the analytic one, which is the same h/2 (or h)
 * earlier. So a landing time is asserted within 1.5 h of the analytic value: the
 * one substep of the cases plus half a substep of margin for that lag. */
#include "helpers.h"

#include "batch.h"
#include "islands.h"
#include "sleep.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define G 9.81
#define DT (1.0f / 60.0f)
#define SUBSTEPS 4
#define H ((double)DT / SUBSTEPS)
#define TIME_TOL (1.5 * H)
#ifndef QUIET_TIME /* tests/test_sleep_assembly.c sets its policy's */
#define QUIET_TIME 0.5
#endif
#define LIN_THRESHOLD 0.05f
#define ANG_THRESHOLD 0.15f
#define PI 3.14159265358979323846
#define SCENES TP_SOURCE_DIR "/tests/scenes/sleep/"

/* ---------------------------------------------------------------- helpers */

#ifndef TP_TEST_POLICY_SCENE
static tp_model *load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", SCENES, name);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(path, &m), TP_OK, "%s", tp_last_error());
    return m;
}
#else
/* tests/test_sleep_assembly_cases.c: the same scenes under another policy. */
static tp_model *load(const char *name) { return TP_TEST_POLICY_SCENE(SCENES, name); }
#endif

static tp_model_def model_def(float gz)
{
    tp_model_def md = tp_default_model_def();
    md.name = "sleep";
    md.gravity[2] = gz;
#ifdef TP_TEST_POLICY
    md.sleep.policy = TP_TEST_POLICY;
#endif
    return md;
}



/* A 1 m cube of 1 kg at (x, y, z). */
static tp_body_def cube(float x, float y, float z, float friction)
{
    tp_body_def bd = tp_default_body_def();
    bd.pos[0] = x;
    bd.pos[1] = y;
    bd.pos[2] = z;
    bd.mass = 1.0f;
    bd.friction = friction;
    return bd;
}

/* The ground of the cases: a static box whose top face is at z = 0. */
static int add_ground(tp_builder *b, float friction)
{
    tp_body_def bd = cube(0, 0, -0.5f, friction);
    bd.type = TP_BODY_STATIC;
    bd.size[0] = bd.size[1] = 40.0f;
    return builder_add(b, &bd);
}


static tp_batch *batch_of(const tp_model *m, int worlds, int threads) { return make_batch(m, worlds, threads); }

static size_t at(const tp_state_view *s, int w, int b) { return (size_t)w * (size_t)s->bodies + (size_t)b; }

static int sleeping(const tp_state_view *s, int w, int b) { return s->sleep_state[at(s, w, b)] == TP_SLEEPING; }

/* Step world w until every dynamic body in it sleeps; returns the number of
 * steps taken (>= 1), or -1 if that did not happen within max_steps. */
static int steps_until_asleep(tp_batch *b, int w, int max_steps)
{
    for (int k = 1; k <= max_steps; ++k) {
        batch_steps(b, 1);
        tp_state_view s = batch_view(b);
        if (s.awake_count[w] == 0 && s.sleeping_count[w] > 0) return k;
    }
    return -1;
}

/* The bytes of everything a sleeping body must keep: pose, velocity, timer, state. */
typedef struct frozen {
    float pos[3], quat[4], v[3], w[3], timer;
    uint8_t state;
} frozen;

static frozen freeze(const tp_state_view *s, int w, int b)
{
    frozen f;
    memset(&f, 0, sizeof f);
    size_t k = at(s, w, b);
    memcpy(f.pos, s->pos + 3 * k, sizeof f.pos);
    memcpy(f.quat, s->quat + 4 * k, sizeof f.quat);
    memcpy(f.v, s->v + 3 * k, sizeof f.v);
    memcpy(f.w, s->w + 3 * k, sizeof f.w);
    f.timer = s->quiet_timer[k];
    f.state = s->sleep_state[k];
    return f;
}

static int same_bits(frozen a, frozen b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Time tau after which a body at height z with vertical speed vz reaches
 * `target` on its way down, following z + vz tau - g tau^2 / 2 (the descending
 * root; negative if it was already below). */
static double time_to_height(double z, double vz, double target)
{
    return (vz + sqrt(vz * vz + 2.0 * G * (z - target))) / G;
}

/* Follows body `body` of world 0 from the state (t0, z0, vz0), where it is in
 * free flight under g = -9.81, step by step until a step changes its vertical
 * speed by something other than -g dt (the ground or another body pushed it).
 * Returns the landing time: the last free-flight sample carried along its
 * parabola to the height `target`. Asserts that the body is awake on every
 * step of the flight. */
static double landing_time(tp_batch *b, int body, double t0, double z0, double vz0, double target, int max_steps)
{
    double t = t0, z = z0, vz = vz0;
    for (int k = 0; k < max_steps; ++k) {
        batch_steps(b, 1);
        tp_state_view s = batch_view(b);
        size_t i = at(&s, 0, body);
        cr_assert(!sleeping(&s, 0, body) && s.body_awake[i], "asleep in flight at t = %g s, z = %g m", tp_batch_time(b),
                  (double)s.pos[3 * i + 2]);
        double vz_next = s.v[3 * i + 2];
        /* free flight: exactly -g dt per step; 1e-3 m/s is well above float
         * rounding (1e-6) and far below any contact impulse of a landing */
        if (fabs(vz_next - (vz - G * DT)) > 1e-3) return t + time_to_height(z, vz, target);
        t = tp_batch_time(b);
        z = s.pos[3 * i + 2];
        vz = vz_next;
    }
    cr_assert_fail("body %d never landed in %d steps", body, max_steps);
    return 0.0;
}

/* ---------------------------------------------------------------- C02 */

/* C02: a resting cube thrown up at 5 m/s is awake on every step of its flight,
 * peaks at v0^2 / (2 g) = 1.274 m after v0 / g = 0.5097 s, is back at its start
 * height after 2 v0 / g = 1.0194 s, and then sleeps again. */
Test(sleep_cases, c02_no_sleep_at_the_top_of_a_throw)
{
    tp_model *m = load("c02_throw.json");
    tp_batch *b = batch_of(m, 1, 1);
    const double v0 = 5.0, t_throw = 1.0;
    batch_steps(b, 60); /* the throw fires before step 60, at t = 1 s */
    tp_state_view s = batch_view(b);
    cr_assert(sleeping(&s, 0, 1), "the resting cube is asleep before the throw (quiet for 0.5 s of 1 s)");
    double z_rest = s.pos[5];

    /* the flight, sampled at the end of every step until past the apex */
    double z_max = -1.0, t_max = 0.0;
    for (int k = 0; k < 45; ++k) {
        batch_steps(b, 1);
        s = batch_view(b);
        cr_assert(!sleeping(&s, 0, 1) && s.body_awake[1], "asleep on the way up at t = %g", tp_batch_time(b));
        if (s.pos[5] > z_max) {
            z_max = s.pos[5];
            t_max = tp_batch_time(b) - t_throw;
        }
    }
    /* apex: the discrete one is v0 h / 2 lower than v0^2 / (2 g); samples at
     * step ends miss the top by at most g dt^2 / 8 */
    double apex = v0 * v0 / (2.0 * G);
    cr_assert(fabs((z_max - z_rest) - apex) <= v0 * H / 2.0 + G * DT * DT / 8.0 + 1e-4,
              "apex %g m above the start, analytic %g m", z_max - z_rest, apex);
    /* the highest sample is within dt / 2 of the discrete apex, which is h / 2 early */
    cr_assert(fabs(t_max - v0 / G) <= DT / 2.0 + H, "apex at %g s, analytic %g s", t_max, v0 / G);

    double t = tp_batch_time(b);
    size_t i = 1;
    double t_land = landing_time(b, 1, t, s.pos[3 * i + 2], s.v[3 * i + 2], z_rest, 60) - t_throw;
    cr_assert(fabs(t_land - 2.0 * v0 / G) <= TIME_TOL, "back at the start height after %g s, analytic %g s (tol %g)",
              t_land, 2.0 * v0 / G, TIME_TOL);

    /* sleeps again: not before it has been quiet for quiet_time after the
     * landing, and within 0.5 s more for the landing to settle */
    int k = steps_until_asleep(b, 0, 120);
    cr_assert_gt(k, 0, "did not sleep again within 2 s of the landing");
    double t_sleep = tp_batch_time(b) - t_throw;
    cr_assert(t_sleep >= t_land + QUIET_TIME - DT && t_sleep <= t_land + QUIET_TIME + 0.5,
              "asleep again %g s after the throw; landed at %g s", t_sleep, t_land);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* C02, harder: g = 0.4 m/s^2, v0 = 0.05 m/s. The whole flight (2 v0 / g =
 * 0.25 s) is under the linear threshold, so only the acceleration guard
 * (|dv| = g dt = 0.0067 m/s per step > 0.24 dt = 0.004 m/s) tells that the body
 * is not at rest: its quiet timer must stay at 0 in the air. It comes back down
 * after 0.25 s and then sleeps. */
Test(sleep_cases, c02_slow_throw_comes_back_down)
{
    tp_model *m = load("c02_slow_throw.json");
    tp_batch *b = batch_of(m, 1, 1);
    const double g = 0.4, v0 = 0.05;
    batch_steps(b, 60);
    tp_state_view s = batch_view(b);
    cr_assert(sleeping(&s, 0, 1), "the cube rests and sleeps under g = 0.4 before the throw");
    double z_rest = s.pos[5];
    double z_max = z_rest;
    int landed_step = -1;
    for (int k = 1; k <= 30 && landed_step < 0; ++k) { /* the flight takes 15 steps */
        batch_steps(b, 1);
        s = batch_view(b);
        cr_assert(!sleeping(&s, 0, 1), "asleep at step %d of the slow throw, z - z_rest = %g m", k, s.pos[5] - z_rest);
        if (s.pos[5] > z_max) z_max = s.pos[5];
        /* back at rest: at the start height within 10 um (the throw rises 3 mm) */
        if (k > 1 && fabs(s.pos[5] - z_rest) < 1e-5 && fabsf(s.v[5]) < 1e-3f) {
            landed_step = k;
            break;
        }
        cr_assert(fabsf(s.v[5]) < LIN_THRESHOLD, "|vz| %g: the flight is under the linear threshold", s.v[5]);
        cr_assert_eq(s.quiet_timer[1], 0.0f, "quiet timer %g in flight at step %d: the acceleration guard let it run",
                     s.quiet_timer[1], k);
    }
    /* it rose by v0^2 / (2 g) = 3.1 mm, less v0 h / 2 and the sampling g dt^2 / 8 */
    double apex = v0 * v0 / (2.0 * g);
    cr_assert(fabs((z_max - z_rest) - apex) <= v0 * H / 2.0 + g * DT * DT / 8.0 + 1e-5, "rose %g m, analytic %g m",
              z_max - z_rest, apex);
    cr_assert_gt(landed_step, 0, "never came back down to z = %g", z_rest);
    /* back at rest on the step of the landing: within one step of 2 v0 / g */
    cr_assert(fabs(landed_step * (double)DT - 2.0 * v0 / g) <= DT + H, "landed at %g s, analytic %g s",
              landed_step * (double)DT, 2.0 * v0 / g);
    cr_assert_gt(steps_until_asleep(b, 0, 60), 0, "sleeps again within 1 s after the landing");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The slow throw with a short quiet time (0.1 s < the 0.25 s flight), so that
 * the guard is all that stands between the body and sleeping at its apex.
 * require_support is off, so support cannot save it either. Without the guard
 * (accel_threshold 0) it does freeze in mid-air: the control run shows the test
 * can fail. */
static tp_model *slow_throw_model(float accel_threshold)
{
    tp_model_def md = model_def(-0.4f);
    md.sleep.quiet_time = 0.1f;
    md.sleep.require_support = 0;
    md.sleep.accel_threshold = accel_threshold;
    tp_builder *b = builder_begin(&md);
    add_ground(b, 0.6f);
    tp_body_def c = cube(0, 0, 0.5f, 0.6f);
    c.vel[2] = 0.05f;
    builder_add(b, &c);
    return builder_finish(b);
}

/* Highest height above 0.5 m at which the cube falls asleep in its first 0.5 s. */
static double slow_throw_sleep_height(float accel_threshold)
{
    tp_model *m = slow_throw_model(accel_threshold);
    tp_batch *b = batch_of(m, 1, 1);
    double height = -1.0;
    for (int k = 0; k < 30 && height < 0.0; ++k) {
        batch_steps(b, 1);
        tp_state_view s = batch_view(b);
        if (sleeping(&s, 0, 1)) height = s.pos[5] - 0.5;
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return height;
}

Test(sleep_rules, accel_guard_keeps_the_apex_awake_and_without_it_the_body_freezes_in_the_air)
{
    double with_guard = slow_throw_sleep_height(0.24f), without = slow_throw_sleep_height(0.0f);
    /* with the guard it can only fall asleep once back on the ground (within 0.1 mm) */
    cr_assert(with_guard > -1.0, "with the guard it sleeps once landed (quiet time 0.1 s)");
    cr_assert(with_guard < 1e-4, "with the guard it fell asleep %g m above the ground", with_guard);
    /* without it, it freezes in the air: above 1 mm (the apex is 3.1 mm) */
    cr_assert(without > 1e-3, "without the guard the body should freeze mid-air (sleep height %g m)", without);
}

/* ---------------------------------------------------------------- C03 */

/* C03: g = 0, a 1 kg ball pushed by 0.05 N for 2 s. The speed stays under the
 * linear threshold for the first second, yet the force is a wake event on every
 * step, so the ball is awake on every step and never accumulates more than one
 * step of quiet time. At 2 s: v = F t / m = 0.1 m/s, x = F t^2 / (2 m) = 0.1 m
 * (discrete: a h^2 n (n + 1) / 2 = 0.1002 m), within 2 %. */
Test(sleep_cases, c03_small_steady_force_keeps_a_body_awake)
{
    tp_model *m = load("c03_steady_force.json");
    tp_batch *b = batch_of(m, 1, 1);
    for (int k = 1; k <= 120; ++k) {
        batch_steps(b, 1);
        tp_state_view s = batch_view(b);
        cr_assert(s.body_awake[0] && !sleeping(&s, 0, 0), "asleep at step %d under a steady force", k);
        cr_assert_leq(s.quiet_timer[0], DT * 1.0001f, "quiet timer %g at step %d: the force did not wake it",
                      s.quiet_timer[0], k);
    }
    tp_state_view s = batch_view(b);
    cr_assert(fabsf(s.v[0] - 0.1f) <= 0.002f, "v = %g m/s, expected 0.1", s.v[0]);
    cr_assert(fabsf(s.pos[0] - 0.1f) <= 0.002f, "x = %g m, expected 0.1", s.pos[0]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- C04 */

/* Per world: the first step (1-based) after which all ten cubes sleep. */
static void tower_sleep_steps(const tp_model *m, int worlds, int threads, int *first_asleep, tp_batch **out)
{
    tp_batch *b = batch_of(m, worlds, threads);
    for (int w = 0; w < worlds; ++w) first_asleep[w] = -1;
    for (int k = 1; k <= 90; ++k) { /* 90 steps = 1.5 s */
        batch_steps(b, 1);
        tp_state_view s = batch_view(b);
        for (int w = 0; w < worlds; ++w)
            if (first_asleep[w] < 0 && s.sleeping_count[w] == 10 && s.awake_count[w] == 0) first_asleep[w] = k;
    }
    *out = b;
}

static double tilt_deg(const float *q)
{
    double c = 1.0 - 2.0 * ((double)q[0] * q[0] + (double)q[1] * q[1]);
    return acos(c > 1.0 ? 1.0 : c) * 180.0 / PI;
}

/* C04: the tower of ten cubes sleeps by 1.5 s in 1, 16 and 128 worlds, on the
 * same step in every world, and at 10 s the top cube has moved < 1 mm and
 * tilted < 0.1 degree. Worlds are replicas and never interact, so every world
 * must also end bitwise equal to world 0. */
Test(sleep_cases, c04_tower_sleeps_alike_in_1_16_and_128_worlds, .timeout = 120)
{
    tp_model *m = load("c04_tower.json");
    const int counts[3] = {1, 16, 128};
    static int steps[3][128];
    uint64_t h_single = 0;
    for (int c = 0; c < 3; ++c) {
        tp_batch *b = NULL;
        tower_sleep_steps(m, counts[c], c == 0 ? 1 : 2, steps[c], &b);
        for (int w = 0; w < counts[c]; ++w) {
            cr_assert_gt(steps[c][w], 0, "%d worlds: world %d is not all asleep by 1.5 s", counts[c], w);
            cr_assert_eq(steps[c][w], steps[0][0], "%d worlds: world %d fell asleep at step %d, the single world at %d",
                         counts[c], w, steps[c][w], steps[0][0]);
        }
        batch_steps(b, 600 - 90); /* to 10 s */
        tp_state_view s = batch_view(b);
        uint64_t h0 = batch_world_hash(b, 0);
        if (c == 0) h_single = h0;
        cr_assert_eq(h0, h_single, "%d worlds: world 0 differs from the single world's", counts[c]);
        for (int w = 0; w < counts[c]; ++w) {
            cr_assert_eq(s.sleeping_count[w], 10, "%d worlds: world %d woke up", counts[c], w);
            size_t top = at(&s, w, 10);
            double dx = s.pos[3 * top] - 0.0, dy = s.pos[3 * top + 1] - 0.0, dz = s.pos[3 * top + 2] - 9.5;
            cr_assert_lt(sqrt(dx * dx + dy * dy + dz * dz), 1e-3, "world %d: top cube moved %g m", w,
                         sqrt(dx * dx + dy * dy + dz * dz));
            double tilt = tilt_deg(s.quat + 4 * top);
            cr_assert_lt(tilt, 0.1, "world %d: top cube tilted %g deg", w, tilt);
            cr_assert_eq(batch_world_hash(b, w), h0, "%d worlds: world %d differs from world 0", counts[c], w);
        }
        tp_batch_destroy(b);
    }
    tp_model_destroy(m);
}

/* C04, force: the normal force on the top face of the bottom cube is the weight
 * of the nine above, 9 x 9.81 N, within 1 %. A sleeping tower reports zero
 * force with skip_constraints on, so this runs with it off (the model is the
 * scene's, rebuilt with that one setting changed), at 10 s, asleep. */
Test(sleep_cases, c04_sleeping_tower_reports_its_weight_with_skip_constraints_off)
{
    tp_model *scene = load("c04_tower.json");
    tp_model_def md = tp_model_settings(scene);
    md.sleep.skip_constraints = 0;
    tp_builder *bl = builder_begin(&md);
    for (int i = 0; i < tp_model_body_count(scene); ++i) {
        tp_body_def bd;
        cr_assert_eq(tp_model_body(scene, i, &bd), TP_OK);
        builder_add(bl, &bd);
    }
    tp_model *m = builder_finish(bl);
    tp_batch *b = batch_of(m, 1, 1);
    batch_steps(b, 600);
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.sleeping_count[0], 10, "the tower sleeps with skip_constraints off too");
    static tp_contact_info pts[256];
    int n = 0;
    cr_assert_eq(tp_batch_contacts(b, 0, pts, 256, &n), TP_OK, "%s", tp_last_error());
    double f = 0.0;
    for (int i = 0; i < n && i < 256; ++i)
        if (pts[i].body_a == 1 && pts[i].body_b == 2) f += pts[i].normal_force;
    cr_assert(fabs(f - 9.0 * G) <= 0.01 * 9.0 * G, "normal force on the bottom cube's top face %g N, expected %g N", f,
              9.0 * G);
    tp_batch_destroy(b);
    tp_model_destroy(m);
    tp_model_destroy(scene);
}

/* ---------------------------------------------------------------- C05 */

/* C05: three cubes asleep on the ground; the bottom one is removed at 3 s. On
 * the next step both others are awake and falling; the lower lands after
 * sqrt(2 x 1 m / g) = 0.4515 s and the top one stays on it. */
Test(sleep_cases, c05_removing_the_support_wakes_what_rested_on_it)
{
    tp_model *m = load("c05_remove_support.json");
    tp_batch *b = batch_of(m, 1, 1);
    batch_steps(b, 180); /* steps 0..179; the removal fires before step 180 (t = 3 s) */
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.sleeping_count[0], 3, "all three cubes sleep after 3 s (%d)", s.sleeping_count[0]);
    double z_mid = s.pos[3 * 2 + 2];
    double t_land = landing_time(b, 2, 3.0, z_mid, 0.0, 0.5, 60) - 3.0;
    s = batch_view(b);
    cr_assert_eq(s.removed[1], 1, "the bottom cube is removed");
    cr_assert_eq(s.body_awake[1], 0, "a removed body is not counted awake");
    double t_free = sqrt(2.0 * 1.0 / G);
    cr_assert(fabs(t_land - t_free) <= TIME_TOL, "the lower cube landed %g s after the removal, analytic %g s (tol %g)",
              t_land, t_free, TIME_TOL);
    batch_steps(b, 60);
    s = batch_view(b);
    const float *mid = s.pos + 3 * 2, *top = s.pos + 3 * 3;
    /* resting again, the top cube on the lower one: 1 m above it (1 cm covers
     * the contact slop and the landing's settling), not beside it */
    cr_assert(fabsf(mid[2] - 0.5f) < 0.01f, "lower cube at z = %g", mid[2]);
    cr_assert(fabsf(top[2] - mid[2] - 1.0f) < 0.01f && fabsf(top[0] - mid[0]) < 0.01f && fabsf(top[1] - mid[1]) < 0.01f,
              "top cube at (%g, %g, %g), lower at (%g, %g, %g)", top[0], top[1], top[2], mid[0], mid[1], mid[2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The first step of C05 on its own: right after the removal, before any
 * contact could have woken them, both cubes it supported are awake. */
Test(sleep_cases, c05_both_cubes_awake_on_the_step_after_the_removal)
{
    tp_model *m = load("c05_remove_support.json");
    tp_batch *b = batch_of(m, 1, 1);
    batch_steps(b, 180);
    batch_steps(b, 1);
    tp_state_view s = batch_view(b);
    for (int i = 2; i <= 3; ++i) {
        cr_assert(s.body_awake[i] && !sleeping(&s, 0, i), "cube %d asleep on the step after the removal", i);
        cr_assert(fabs(s.v[3 * i + 2] + G * DT) < 1e-4, "cube %d: vz = %g after one step of free fall, expected %g", i,
                  s.v[3 * i + 2], -G * DT);
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- C06 */

/* C06: g = 0, a cube asleep at z = 10 (no support is needed without gravity).
 * Gravity is set at 1 s: on the next step it is awake, and 1 s (n = 240
 * substeps) later z = 10 - g h^2 n (n + 1) / 2 = 5.075 m (analytic 5.095), in
 * [5.00, 5.10]. */
Test(sleep_cases, c06_a_change_of_gravity_wakes_a_sleeper)
{
    tp_model *m = load("c06_gravity_change.json");
    tp_batch *b = batch_of(m, 1, 1);
    batch_steps(b, 60);
    tp_state_view s = batch_view(b);
    cr_assert(sleeping(&s, 0, 0), "with g = 0 the floating cube sleeps without support");
    cr_assert_eq(s.pos[2], 10.0f, "nothing moved it");
    batch_steps(b, 1);
    s = batch_view(b);
    cr_assert(s.body_awake[0] && !sleeping(&s, 0, 0), "awake on the step after the change of gravity");
    batch_steps(b, 59);
    s = batch_view(b);
    double n = 240.0, z_discrete = 10.0 - G * H * H * n * (n + 1.0) / 2.0;
    cr_assert(s.pos[2] >= 5.0f && s.pos[2] <= 5.10f, "z = %g m 1 s after the change", s.pos[2]);
    /* float rounding of 240 substeps at |z| < 16: < 240 ulp(10) = 2e-4 m */
    cr_assert(fabs(s.pos[2] - z_discrete) < 1e-3, "z = %g m, discrete %g m", s.pos[2], z_discrete);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* C06, second half: gravity itself never wakes: a cube asleep on the ground
 * stays asleep, bitwise frozen, for 60 s (two worlds, both). */
Test(sleep_cases, c06_gravity_itself_never_wakes, .timeout = 60)
{
    tp_model *m = load("c06_resting.json");
    tp_batch *b = batch_of(m, 2, 1);
    int k = steps_until_asleep(b, 0, 60);
    cr_assert_gt(k, 0, "the resting cube sleeps within 1 s");
    tp_state_view s = batch_view(b);
    frozen f0 = freeze(&s, 0, 1), f1 = freeze(&s, 1, 1);
    for (int i = 0; i < 3600; ++i) {
        batch_steps(b, 1);
        s = batch_view(b);
        cr_assert(same_bits(freeze(&s, 0, 1), f0) && same_bits(freeze(&s, 1, 1), f1),
                  "the sleeping cube changed at t = %g s", tp_batch_time(b));
    }
    cr_assert_eq(s.sleeping_count[0] + s.sleeping_count[1], 2);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Setting gravity to its present value is no change and wakes nothing; a
 * change in one world wakes that world only. */
Test(sleep_rules, gravity_write_wakes_only_where_it_changes)
{
    tp_model *m = load("c06_resting.json");
    tp_batch *b = batch_of(m, 3, 1);
    cr_assert_gt(steps_until_asleep(b, 0, 60), 0);
    uint64_t before = batch_state_hash(b);
    const float same[3][3] = {{0.0f, 0.0f, -9.81f}, {0.0f, 0.0f, -9.81f}, {0.0f, 0.0f, -9.81f}};
    const float other[3] = {0.0f, 0.0f, -9.0f};
    cr_assert_eq(tp_batch_set_gravities(b, NULL, &same[0][0]), TP_OK, "%s", tp_last_error());
    cr_assert_eq(batch_state_hash(b), before, "the same gravity woke something");
    cr_assert_eq(tp_batch_set_gravity(b, 1, other), TP_OK, "%s", tp_last_error());
    tp_state_view s = batch_view(b);
    cr_assert(sleeping(&s, 0, 1) && sleeping(&s, 2, 1), "worlds 0 and 2 keep sleeping");
    cr_assert(!sleeping(&s, 1, 1) && s.body_awake[at(&s, 1, 1)] && s.awake_count[1] == 1, "world 1 woke");
    cr_assert_eq(s.quiet_timer[at(&s, 1, 1)], 0.0f, "a wake resets the timer");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- C07 */

/* C07: a cube asleep on the ground is teleported 5 m up (bottom at 5 m). It is
 * awake on the next step, touches the ground sqrt(2 x 5 / g) = 1.0096 s later,
 * and is asleep again within 3 s. */
Test(sleep_cases, c07_a_teleport_wakes_then_the_body_sleeps_again)
{
    tp_model *m = load("c07_teleport.json");
    tp_batch *b = batch_of(m, 1, 1);
    batch_steps(b, 60);
    tp_state_view s = batch_view(b);
    cr_assert(sleeping(&s, 0, 1), "asleep before the teleport");
    double t_land = landing_time(b, 1, 1.0, 5.5, 0.0, 0.5, 90) - 1.0;
    double t_free = sqrt(2.0 * 5.0 / G);
    cr_assert(fabs(t_land - t_free) <= TIME_TOL, "touched the ground %g s after the teleport, analytic %g s (tol %g)",
              t_land, t_free, TIME_TOL);
    int k = steps_until_asleep(b, 0, 180);
    cr_assert_gt(k, 0, "not asleep again within 3 s of the teleport");
    double t_sleep = tp_batch_time(b) - 1.0;
    cr_assert_leq(t_sleep, 3.0, "asleep again %g s after the teleport", t_sleep);
    cr_assert_geq(t_sleep, t_land + QUIET_TIME - DT, "asleep %g s after the teleport, before quiet_time after landing",
                  t_sleep);
    s = batch_view(b);
    cr_assert(fabsf(s.pos[5] - 0.5f) < 0.01f, "resting on the ground again (z = %g)", s.pos[5]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- C08 */

/* C08: a cube asleep on frictionless ground. An impulse of zero (scene event
 * at 0.9 s, and every zero write through the API) wakes nothing; 1 N s along +x
 * at 1 s wakes it, and after the next step it moves at 1.0 m/s within 1 %. */
Test(sleep_cases, c08_an_impulse_on_a_sleeper)
{
    tp_model *m = load("c08_impulse.json");
    tp_batch *b = batch_of(m, 1, 1);
    batch_steps(b, 54); /* the zero impulse fires before step 54 */
    tp_state_view s = batch_view(b);
    cr_assert(sleeping(&s, 0, 1), "asleep before the impulses");
    uint64_t before = batch_state_hash(b);
    batch_steps(b, 1);
    cr_assert_eq(batch_state_hash(b), before, "the zero impulse event woke or moved the sleeper");
    const float zero[3] = {0.0f, 0.0f, 0.0f};
    cr_assert_eq(tp_batch_apply_impulse(b, 0, 1, zero, NULL), TP_OK);
    cr_assert_eq(tp_batch_apply_angular_impulse(b, 0, 1, zero), TP_OK);
    cr_assert_eq(tp_batch_apply_force(b, 0, 1, zero, NULL), TP_OK);
    cr_assert_eq(tp_batch_apply_torque(b, 0, 1, zero), TP_OK);
    batch_steps(b, 5); /* to step 60 */
    cr_assert_eq(batch_state_hash(b), before, "a zero write through the API woke or moved the sleeper");
    batch_steps(b, 1); /* the impulse fires before step 60 */
    s = batch_view(b);
    cr_assert(s.body_awake[1] && !sleeping(&s, 0, 1), "awake after the impulse");
    cr_assert(fabsf(s.v[3] - 1.0f) <= 0.01f, "vx = %g m/s, expected 1.0", s.v[3]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- C09 */

/* C09: a cube slides past a sleeping cube at 2 m/s with a 5 cm gap. The
 * sleeper stays asleep and bitwise unchanged; the mover never touches it (its
 * y stays at 1.05). */
Test(sleep_cases, c09_passing_close_by_does_not_wake)
{
    tp_model *m = load("c09_pass_by.json");
    tp_batch *b = batch_of(m, 1, 1);
    batch_steps(b, 60); /* the sleeper falls asleep after 0.5 s; the mover is still 2 m away */
    tp_state_view s = batch_view(b);
    cr_assert(sleeping(&s, 0, 1), "the sleeper sleeps");
    cr_assert(!sleeping(&s, 0, 2), "the mover is awake");
    cr_assert_lt(s.pos[6], -1.5f, "the mover has not reached the sleeper yet");
    frozen f = freeze(&s, 0, 1);
    for (int k = 0; k < 180; ++k) { /* 3 s: the mover goes from x = -2 to +4 */
        batch_steps(b, 1);
        s = batch_view(b);
        cr_assert(same_bits(freeze(&s, 0, 1), f), "the sleeper changed at t = %g s (mover at x = %g)",
                  tp_batch_time(b), s.pos[6]);
        cr_assert(fabsf(s.pos[7] - 1.05f) < 1e-4f, "the mover's y is %g: it touched", s.pos[7]);
    }
    cr_assert_gt(s.pos[6], 3.0f, "the mover went past (x = %g)", s.pos[6]);
    cr_assert_neq(s.island[1], s.island[2], "they never formed one island");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* C09 within the contact margin: a cube slides past a sleeping cube at 2 m/s
 * with a gap of 1 cm, inside the 2 cm margin within which contact points are
 * generated but beyond the 5 mm at which bodies touch. It does not approach the
 * sleeper (its velocity is parallel to the faces), so it wakes nothing either. */
Test(sleep_rules, passing_within_the_contact_margin_does_not_wake)
{
    tp_model_def md = model_def(-9.81f);
    tp_builder *bl = builder_begin(&md);
    add_ground(bl, 0.0f);
    tp_body_def sleeper = cube(0, 0, 0.5f, 0.0f), mover = cube(-4.0f, 1.01f, 0.5f, 0.0f);
    mover.vel[0] = 2.0f;
    builder_add(bl, &sleeper);
    builder_add(bl, &mover);
    tp_model *m = builder_finish(bl);
    tp_batch *b = batch_of(m, 1, 1);
    batch_steps(b, 60);
    tp_state_view s = batch_view(b);
    cr_assert(sleeping(&s, 0, 1) && !sleeping(&s, 0, 2), "the sleeper sleeps, the mover is awake");
    frozen f = freeze(&s, 0, 1);
    int saw_points = 0;
    for (int k = 0; k < 180; ++k) {
        batch_steps(b, 1);
        s = batch_view(b);
        cr_assert(same_bits(freeze(&s, 0, 1), f), "the sleeper changed at t = %g s (mover at x = %g)", tp_batch_time(b),
                  s.pos[6]);
        tp_contact_info pts[32];
        int n = 0;
        cr_assert_eq(tp_batch_contacts(b, 0, pts, 32, &n), TP_OK);
        for (int i = 0; i < n && i < 32; ++i) saw_points |= pts[i].body_a == 1 && pts[i].body_b == 2;
    }
    cr_assert(saw_points, "no contact point between them was ever generated: the gap is not within the margin");
    cr_assert_gt(s.pos[6], 3.0f, "the mover went past (x = %g)", s.pos[6]);
    cr_assert(fabsf(s.pos[7] - 1.01f) < 1e-4f, "the mover's y is %g: something pushed it", s.pos[7]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A body that does hit a sleeper gives it its momentum: on frictionless ground
 * a 1 kg cube at 2 m/s meets a sleeping 1 kg cube; after the (inelastic)
 * collision the total momentum is still 2 kg m/s. Eight worlds start the mover
 * at eight phases of one step's travel (dt x 2 m/s = 3.3 cm), so that the gap
 * at the start of the step before the impact takes every value in [0, 3.3 cm):
 * a sleeper that stays frozen while an approaching body is already within the
 * contact margin would absorb the impact like a wall. */
Test(sleep_rules, a_body_hitting_a_sleeper_transfers_its_momentum)
{
    tp_model_def md = model_def(-9.81f);
    tp_builder *bl = builder_begin(&md);
    add_ground(bl, 0.0f);
    tp_body_def sleeper = cube(0, 0, 0.5f, 0.0f), mover = cube(-3.0f, 0, 0.5f, 0.0f);
    mover.vel[0] = 2.0f;
    builder_add(bl, &sleeper);
    builder_add(bl, &mover);
    tp_model *m = builder_finish(bl);
    tp_batch *b = batch_of(m, 8, 1);
    for (int w = 0; w < 8; ++w) {
        const float pos[3] = {-3.0f - 0.0041f * (float)w, 0.0f, 0.5f}, q[4] = {0, 0, 0, 1};
        cr_assert_eq(tp_batch_set_pose(b, w, 2, pos, q), TP_OK, "%s", tp_last_error());
    }
    batch_steps(b, 45);
    tp_state_view s = batch_view(b);
    for (int w = 0; w < 8; ++w) cr_assert(sleeping(&s, w, 1), "world %d: the target sleeps before the impact", w);
    batch_steps(b, 75); /* the impact is at about 1 s; look at 2 s */
    s = batch_view(b);
    for (int w = 0; w < 8; ++w) {
        double p = (double)s.v[3 * at(&s, w, 1)] + (double)s.v[3 * at(&s, w, 2)];
        cr_assert(fabs(p - 2.0) <= 0.02, "world %d (mover %g m further back): momentum %g kg m/s after the impact, "
                  "expected 2 (target vx %g, mover vx %g)",
                  w, 0.0041 * w, p, s.v[3 * at(&s, w, 1)], s.v[3 * at(&s, w, 2)]);
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- C12 */

/* C12 for scene events: JSON cannot hold NaN or infinity (the loader refuses
 * them as malformed JSON), and a number beyond the float range is refused with
 * its path; the builder's event validation refuses a non-finite value, naming
 * it. Nothing is built in either case. */
Test(sleep_cases, c12_non_finite_scene_events_are_refused)
{
    tp_model *m = NULL;
    const char *huge = "{\"bodies\": [{\"name\": \"c\"}],\n"
                       " \"events\": [{\"time\": 1, \"action\": \"impulse\", \"body\": \"c\",\n"
                       "              \"value\": [0, 1e39, 0]}]}";
    cr_assert_eq(tp_model_load_string(huge, "huge.json", &m), TP_ERR_PARSE);
    cr_assert_null(m);
    cr_assert(strstr(tp_last_error(), "events[0].value[1]") && strstr(tp_last_error(), "float range"), "%s",
              tp_last_error());
    const char *nan = "{\"bodies\": [{\"name\": \"c\"}],\n"
                      " \"events\": [{\"time\": 1, \"action\": \"gravity\", \"value\": [0, NaN, 0]}]}";
    cr_assert_eq(tp_model_load_string(nan, "nan.json", &m), TP_ERR_PARSE);
    cr_assert_null(m);

    tp_model_def md = model_def(-9.81f);
    tp_builder *bl = builder_begin(&md);
    tp_body_def c = cube(0, 0, 0.5f, 0.6f);
    builder_add(bl, &c);
    tp_event_def e = tp_default_event_def();
    e.time = 1.0;
    e.action = TP_EVENT_IMPULSE;
    e.body = 0;
    e.value[1] = NAN;
    cr_assert_eq(tp_builder_add_event(bl, &e), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "value[1]"), "%s", tp_last_error());
    e = tp_default_event_def();
    e.time = 1.0;
    e.action = TP_EVENT_TELEPORT;
    e.body = 0;
    e.pos[0] = INFINITY;
    cr_assert_eq(tp_builder_add_event(bl, &e), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "pos[0]"), "%s", tp_last_error());
    e = tp_default_event_def();
    e.time = 1.0;
    e.action = TP_EVENT_GRAVITY;
    e.body = -1;
    e.value[2] = -INFINITY;
    cr_assert_eq(tp_builder_add_event(bl, &e), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "value[2]"), "%s", tp_last_error());
    tp_model *built = builder_finish(bl);
    cr_assert_eq(tp_model_settings(built).gravity[2], -9.81f);
    tp_model_destroy(built);
}

/* C12 on a sleeper: a refused (non-finite) write is not a wake event either:
 * the island stays asleep and the state hash does not change. */
Test(sleep_cases, c12_a_refused_write_does_not_wake)
{
    tp_model *m = load("c06_resting.json");
    tp_batch *b = batch_of(m, 1, 1);
    cr_assert_gt(steps_until_asleep(b, 0, 60), 0);
    uint64_t before = batch_state_hash(b);
    const float bad[3] = {0.0f, NAN, 0.0f}, ok[3] = {0.0f, 0.0f, 1.0f}, q[4] = {0, 0, 0, 1};
    cr_assert_eq(tp_batch_apply_impulse(b, 0, 1, bad, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_apply_force(b, 0, 1, ok, bad), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_set_velocity(b, 0, 1, ok, bad), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_set_pose(b, 0, 1, bad, q), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_set_gravity(b, 0, bad), TP_ERR_INVALID_ARGUMENT);
    const float center[3] = {0.0f, 0.0f, INFINITY};
    cr_assert_eq(tp_batch_wake_sphere(b, NULL, center, 1.0f), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_wake_sphere(b, NULL, ok, NAN), TP_ERR_INVALID_ARGUMENT);
    tp_state_view s = batch_view(b);
    cr_assert(sleeping(&s, 0, 1), "a refused write woke the body");
    cr_assert_eq(batch_state_hash(b), before, "a refused write changed the state");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* C12, a world that becomes non-finite is flagged alone: the other worlds,
 * asleep, stay asleep and bitwise unchanged. World 1 is poisoned through the
 * internals (the API refuses non-finite writes). */
Test(sleep_cases, c12_a_faulting_world_leaves_sleeping_worlds_alone)
{
    tp_model *m = load("c06_resting.json");
    tp_batch *b = batch_of(m, 3, 1);
    cr_assert_gt(steps_until_asleep(b, 0, 60), 0);
    uint64_t h0 = batch_world_hash(b, 0), h2 = batch_world_hash(b, 2);
    cr_assert_eq(tp_batch_wake(b, 1, 1), TP_OK);
    b->v[3 * (1 * 2 + 1) + 2] = INFINITY;
    batch_steps(b, 5);
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.faults[1], 1, "world 1 is flagged");
    cr_assert_eq(s.faults[0] + s.faults[2], 0, "only world 1 is flagged");
    cr_assert(sleeping(&s, 0, 1) && sleeping(&s, 2, 1), "the other worlds sleep on");
    cr_assert_eq(batch_world_hash(b, 0), h0);
    cr_assert_eq(batch_world_hash(b, 2), h2);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- C13 */

/* C13: sixteen worlds, a cube sliding at 1 m/s on frictionless ground; world 5
 * is reset at step 50, by a scene event in one batch and through the API in
 * another. Right after the API reset world 5 reads its initial state (that of a
 * fresh batch) bitwise. Every other world goes on with x = t (1 m/s from x0 =
 * 0); the float rounding of x over the 400 substeps is below 400 x ulp(2) / 2 =
 * 5e-5 m, and one skipped or repeated step would be off by dt x 1 m/s = 1.7 cm,
 * so 1e-4 m tells them apart. World 5 goes on with x = t - t_reset. */
Test(sleep_cases, c13_resetting_one_world_leaves_the_others_alone)
{
    tp_model *m = load("c13_slide.json");
    tp_batch *by_event = batch_of(m, 16, 2), *by_api = batch_of(m, 16, 2), *fresh = batch_of(m, 16, 1);
    batch_steps(by_event, 50);
    batch_steps(by_api, 50);
    int five = 5;
    cr_assert_eq(tp_batch_reset_worlds(by_api, WORLD_LIST(&five, 1)), TP_OK, "%s", tp_last_error());
    cr_assert_eq(batch_world_hash(by_api, 5), batch_world_hash(fresh, 5),
                 "world 5 does not read its initial state after the reset");
    tp_state_view s = batch_view(by_api);
    cr_assert_eq(s.pos[3 * at(&s, 5, 1)], 0.0f);
    cr_assert_eq(s.v[3 * at(&s, 5, 1)], 1.0f);
    cr_assert_eq(s.sleep_state[at(&s, 5, 1)], TP_AWAKE);
    cr_assert_eq(s.quiet_timer[at(&s, 5, 1)], 0.0f);
    for (int k = 51; k <= 100; ++k) {
        batch_steps(by_event, 1);
        batch_steps(by_api, 1); /* the scene's event fires here too, on a world already at its initial state */
        s = batch_view(by_event);
        for (int w = 0; w < 16; ++w) {
            double t = (w == 5 ? k - 50 : k) * (double)DT;
            double x = s.pos[3 * at(&s, w, 1)];
            cr_assert(fabs(x - t) < 1e-4, "step %d, world %d: x = %.6f m, expected %.6f", k, w, x, t);
        }
        if (k == 51)
            for (int w = 0; w < 16; ++w)
                cr_assert_eq(batch_world_hash(by_event, w), batch_world_hash(by_api, w), "world %d: event and API resets differ",
                             w);
    }
    tp_batch_destroy(by_event);
    tp_batch_destroy(by_api);
    tp_batch_destroy(fresh);
    tp_model_destroy(m);
}

/* A reset of a world is a wake event: a sleeping world comes back awake, with
 * its timers at 0. */
Test(sleep_rules, reset_wakes_a_sleeping_world)
{
    tp_model *m = load("c06_resting.json");
    tp_batch *b = batch_of(m, 2, 1);
    cr_assert_gt(steps_until_asleep(b, 0, 60), 0);
    int one = 1;
    cr_assert_eq(tp_batch_reset_worlds(b, WORLD_LIST(&one, 1)), TP_OK);
    tp_state_view s = batch_view(b);
    cr_assert(sleeping(&s, 0, 1), "world 0 is not touched");
    cr_assert_eq(s.sleep_state[at(&s, 1, 1)], TP_AWAKE);
    cr_assert_eq(s.quiet_timer[at(&s, 1, 1)], 0.0f);
    cr_assert_eq(s.awake_count[1], 1);
    cr_assert_eq(s.sleeping_count[1], 0);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- rules: timers and thresholds */

/* A model of n free cubes with gravity gz and no ground, 3 m apart along x. */
static tp_model *free_cubes(int n, float gz)
{
    tp_model_def md = model_def(gz);
    tp_builder *bl = builder_begin(&md);
    for (int i = 0; i < n; ++i) {
        tp_body_def c = cube(3.0f * (float)i, 0, 10.0f, 0.6f);
        builder_add(bl, &c);
    }
    return builder_finish(bl);
}

/* The quiet timer adds dt on a quiet step and is reset to 0 (not decremented,
 * not kept) by one fast step. The fast step is made by writing the velocity
 * through the internals, because an API write would be a wake event that
 * resets the timer itself. */
Test(sleep_rules, timer_resets_never_decrements_on_a_fast_step)
{
    cr_assert_eq(tp_quiet_timer_next(0.3f, 1, DT), 0.3f + DT);
    cr_assert_eq(tp_quiet_timer_next(0.3f, 0, DT), 0.0f);

    tp_model *m = free_cubes(1, 0.0f);
    tp_batch *b = batch_of(m, 1, 1);
    batch_steps(b, 10);
    tp_state_view s = batch_view(b);
    cr_assert(fabsf(s.quiet_timer[0] - 10.0f * DT) < 1e-6f, "timer %g after 10 quiet steps", s.quiet_timer[0]);
    cr_assert_eq(s.sleep_state[0], TP_CHECKING, "an awake body whose timer runs is sleep-checking");
    cr_assert_eq(s.body_awake[0], 1, "sleep-checking counts as awake");
    cr_assert_eq(s.checking_count[0], 1);
    cr_assert_eq(tp_batch_begin_write(b, 0, 0), TP_OK); /* (so that on CUDA the pokes reach the device) */
    b->v[0] = 2.0f * LIN_THRESHOLD; /* one fast step */
    batch_steps(b, 1);
    s = batch_view(b);
    cr_assert_eq(s.quiet_timer[0], 0.0f, "timer %g after a fast step: it must be reset to 0", s.quiet_timer[0]);
    cr_assert_eq(s.sleep_state[0], TP_AWAKE);
    cr_assert_eq(tp_batch_begin_write(b, 0, 0), TP_OK);
    b->v[0] = 0.0f;
    batch_steps(b, 1);
    s = batch_view(b);
    cr_assert_eq(s.quiet_timer[0], DT, "timer %g one quiet step after the reset", s.quiet_timer[0]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Speed (or angular speed) exactly at the threshold counts as moving: the
 * timer stays at 0 and the body never sleeps; one float step below, it is
 * quiet and sleeps after quiet_time. g = 0, so the speed stays exact (|v| =
 * sqrtf(v^2) is exact in IEEE arithmetic) and no support is needed. */
static void threshold_run(const float v[3], const float w[3], int *slept, float *max_timer)
{
    tp_model *m = free_cubes(1, 0.0f);
    tp_batch *b = batch_of(m, 1, 1);
    cr_assert_eq(tp_batch_set_velocity(b, 0, 0, v, w), TP_OK, "%s", tp_last_error());
    *slept = 0;
    *max_timer = 0.0f;
    for (int k = 0; k < 45; ++k) { /* 0.75 s > quiet_time */
        batch_steps(b, 1);
        tp_state_view s = batch_view(b);
        if (s.quiet_timer[0] > *max_timer) *max_timer = s.quiet_timer[0];
        if (sleeping(&s, 0, 0)) *slept = 1;
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(sleep_rules, exact_threshold_counts_as_moving)
{
    const float zero[3] = {0, 0, 0};
    const float at_lin[3] = {LIN_THRESHOLD, 0, 0}, below_lin[3] = {nextafterf(LIN_THRESHOLD, 0.0f), 0, 0};
    const float at_ang[3] = {0, 0, ANG_THRESHOLD}, below_ang[3] = {0, 0, nextafterf(ANG_THRESHOLD, 0.0f)};
    int slept;
    float timer;
    threshold_run(at_lin, zero, &slept, &timer);
    cr_assert(!slept && timer == 0.0f, "|v| exactly at the threshold: slept %d, timer %g", slept, timer);
    threshold_run(below_lin, zero, &slept, &timer);
    cr_assert(slept, "|v| one ulp below the threshold is quiet and sleeps (timer %g)", timer);
    threshold_run(zero, at_ang, &slept, &timer);
    cr_assert(!slept && timer == 0.0f, "|w| exactly at the threshold: slept %d, timer %g", slept, timer);
    threshold_run(zero, below_ang, &slept, &timer);
    cr_assert(slept, "|w| one ulp below the threshold is quiet and sleeps (timer %g)", timer);
}

/* The surface-speed measure compares |w| x bounding radius (sqrt(3)/2 m for a
 * unit cube) with the angular threshold as a speed: 0.16 rad/s is above 0.15
 * rad/s, but its surface speed 0.139 m/s is below 0.15 m/s. */
Test(sleep_rules, surface_speed_measure_scales_by_the_bounding_radius)
{
    for (int measure = 0; measure < 2; ++measure) {
        tp_model_def md = model_def(0.0f);
        md.sleep.angular_measure = measure ? TP_ANGULAR_SURFACE_SPEED : TP_ANGULAR_RAD_PER_S;
        tp_builder *bl = builder_begin(&md);
        tp_body_def c = cube(0, 0, 0, 0.6f);
        c.ang_vel[2] = 0.16f;
        builder_add(bl, &c);
        tp_model *m = builder_finish(bl);
        tp_batch *b = batch_of(m, 1, 1);
        int k = steps_until_asleep(b, 0, 45);
        if (measure) cr_assert_gt(k, 0, "surface speed 0.16 x 0.866 = 0.139 m/s < 0.15: should sleep");
        else cr_assert_eq(k, -1, "0.16 rad/s > 0.15 rad/s: should stay awake");
        tp_batch_destroy(b);
        tp_model_destroy(m);
    }
}

/* ---------------------------------------------------------------- rules: islands */

/* Two frictionless cubes face to face (along x) with g = 0: one island. Cube 1
 * spins about the contact normal at `spin` rad/s, which moves no point of its
 * face along the normal, so it pushes nothing and cube 0 stays at rest. */
static tp_model *spinning_pair(float spin)
{
    tp_model_def md = model_def(0.0f);
    tp_builder *bl = builder_begin(&md);
    tp_body_def a = cube(0, 0, 0, 0.0f), c = cube(1.0f, 0, 0, 0.0f);
    c.ang_vel[0] = spin;
    builder_add(bl, &a);
    builder_add(bl, &c);
    return builder_finish(bl);
}

/* One restless body keeps its whole island awake: cube 0 is quiet for far
 * longer than quiet_time (its own timer shows it), but it shares an island with
 * the spinning cube 1, so it never sleeps. Without the spin both sleep. */
Test(sleep_rules, one_restless_body_keeps_its_island_awake)
{
    tp_model *m = spinning_pair(2.0f * ANG_THRESHOLD);
    tp_batch *b = batch_of(m, 1, 1);
    for (int k = 0; k < 90; ++k) {
        batch_steps(b, 1);
        tp_state_view s = batch_view(b);
        cr_assert(!sleeping(&s, 0, 0) && !sleeping(&s, 0, 1), "a body slept at step %d while cube 1 spins", k + 1);
        cr_assert_eq(s.island[0], 0, "one island, labelled 0");
        cr_assert_eq(s.island[1], 0, "one island, labelled 0");
    }
    tp_state_view s = batch_view(b);
    cr_assert_geq(s.quiet_timer[0], QUIET_TIME, "cube 0 was quiet itself (timer %g)", s.quiet_timer[0]);
    cr_assert_eq(s.quiet_timer[1], 0.0f, "cube 1 is restless");
    cr_assert_eq(s.pos[0], 0.0f, "cube 0 was not pushed");
    tp_batch_destroy(b);
    tp_model_destroy(m);

    m = spinning_pair(0.0f);
    b = batch_of(m, 1, 1);
    int k = steps_until_asleep(b, 0, 45);
    cr_assert(k > 0, "the pair at rest sleeps");
    tp_state_view s2 = batch_view(b);
    cr_assert(sleeping(&s2, 0, 0) && sleeping(&s2, 0, 1), "both sleep together");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Island labels are the smallest body index of the island, whatever the order
 * of the bodies: stack A is bodies 3 (bottom) and 1 (top), stack B bodies 2
 * (bottom) and 4 (top), body 5 stands alone, body 0 is the static ground (no
 * island, -1). Labels survive sleep; a removed body has none. */
Test(sleep_rules, island_labels_are_the_smallest_body_index)
{
    tp_model_def md = model_def(-9.81f);
    tp_builder *bl = builder_begin(&md);
    add_ground(bl, 0.6f);
    tp_body_def b1 = cube(0, 0, 1.5f, 0.6f), b2 = cube(3, 0, 0.5f, 0.6f), b3 = cube(0, 0, 0.5f, 0.6f),
                b4 = cube(3, 0, 1.5f, 0.6f), b5 = cube(6, 0, 0.5f, 0.6f);
    builder_add(bl, &b1);
    builder_add(bl, &b2);
    builder_add(bl, &b3);
    builder_add(bl, &b4);
    builder_add(bl, &b5);
    tp_model *m = builder_finish(bl);
    tp_batch *b = batch_of(m, 1, 1);
    const int32_t expect[6] = {-1, 1, 2, 1, 2, 5};
    batch_steps(b, 1);
    tp_state_view s = batch_view(b);
    for (int i = 0; i < 6; ++i)
        cr_assert_eq(s.island[i], expect[i], "body %d: island %d, expected %d", i, s.island[i], expect[i]);
    cr_assert_gt(steps_until_asleep(b, 0, 60), 0);
    s = batch_view(b);
    for (int i = 0; i < 6; ++i) cr_assert_eq(s.island[i], expect[i], "asleep, body %d: island %d", i, s.island[i]);
    cr_assert_eq(tp_batch_remove_body(b, 0, 5), TP_OK);
    batch_steps(b, 1);
    s = batch_view(b);
    cr_assert_eq(s.island[5], -1, "a removed body belongs to no island");
    tp_batch_destroy(b);
    tp_model_destroy(m);

    /* union-find alone: every order of the same unions gives root = smallest index */
    const int pairs[4][2] = {{5, 3}, {3, 7}, {7, 2}, {6, 4}};
    for (int perm = 0; perm < 24; ++perm) {
        int order[4] = {0, 1, 2, 3}, p = perm;
        for (int i = 3; i > 0; --i) { /* the perm-th permutation (factorial base) */
            int j = p % (i + 1);
            p /= i + 1;
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        int32_t parent[8];
        for (int i = 0; i < 8; ++i) parent[i] = i;
        for (int i = 0; i < 4; ++i) {
            const int *pr = pairs[order[i]];
            if (perm & 1) tp_uf_union_lanes(parent, pr[1], pr[0]);
            else tp_uf_union_lanes(parent, pr[0], pr[1]);
        }
        const int root[8] = {0, 1, 2, 2, 4, 2, 4, 2};
        for (int i = 0; i < 8; ++i) cr_assert_eq(tp_uf_find_lanes(parent, i), root[i], "perm %d: root of %d", perm, i);
    }
}

/* A sleeping body's state and timer are bitwise frozen and its velocity reads
 * zero; with skip_constraints on (the default) its contacts report zero force. */
Test(sleep_rules, sleeping_state_is_frozen_and_reads_zero_velocity)
{
    tp_model *m = load("c06_resting.json");
    tp_batch *b = batch_of(m, 1, 1);
    cr_assert_gt(steps_until_asleep(b, 0, 60), 0);
    tp_state_view s = batch_view(b);
    frozen f = freeze(&s, 0, 1);
    cr_assert_geq(f.timer, QUIET_TIME, "it slept once quiet for quiet_time (timer %g)", f.timer);
    for (int k = 0; k < 3; ++k) cr_assert(f.v[k] == 0.0f && f.w[k] == 0.0f, "velocity reads zero while asleep");
    batch_steps(b, 120);
    s = batch_view(b);
    cr_assert(same_bits(freeze(&s, 0, 1), f), "the sleeping body changed");
    cr_assert_eq(s.body_awake[1], 0);
    cr_assert_eq(s.contact_f[5], 0.0f, "skipped rows report zero force (contact_f z = %g)", s.contact_f[5]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* skip_constraints off: the rows of a sleeping box are solved, so its contacts
 * report the resting force m g = 9.81 N within 1 %, while it stays frozen. */
Test(sleep_rules, skip_constraints_off_reports_the_resting_force)
{
    for (int skip = 0; skip < 2; ++skip) {
        tp_model_def md = model_def(-9.81f);
        md.sleep.skip_constraints = skip;
        tp_builder *bl = builder_begin(&md);
        add_ground(bl, 0.6f);
        tp_body_def c = cube(0, 0, 0.5f, 0.6f);
        builder_add(bl, &c);
        tp_model *m = builder_finish(bl);
        tp_batch *b = batch_of(m, 1, 1);
        cr_assert_gt(steps_until_asleep(b, 0, 60), 0);
        tp_state_view s = batch_view(b);
        frozen f = freeze(&s, 0, 1);
        batch_steps(b, 30);
        s = batch_view(b);
        cr_assert(same_bits(freeze(&s, 0, 1), f), "skip_constraints %d: the sleeper moved", skip);
        tp_contact_info pts[16];
        int n = 0;
        cr_assert_eq(tp_batch_contacts(b, 0, pts, 16, &n), TP_OK, "%s", tp_last_error());
        double f_pts = 0.0;
        for (int i = 0; i < n && i < 16; ++i) f_pts += pts[i].normal_force;
        if (skip) {
            cr_assert_eq(f_pts, 0.0, "skip on: contacts report %g N", f_pts);
            cr_assert_eq(s.contact_f[5], 0.0f);
        } else {
            cr_assert(fabs(f_pts - G) <= 0.01 * G, "skip off: contacts report %g N, expected %g", f_pts, G);
            cr_assert(fabsf(s.contact_f[5] - (float)G) <= 0.01f * (float)G, "contact_f z = %g", s.contact_f[5]);
        }
        tp_batch_destroy(b);
        tp_model_destroy(m);
    }
}

/* A stack of two on the ground, asleep. */
static tp_batch *sleeping_stack(tp_model **m, int worlds)
{
    tp_model_def md = model_def(-9.81f);
    tp_builder *bl = builder_begin(&md);
    add_ground(bl, 0.6f);
    tp_body_def a = cube(0, 0, 0.5f, 0.6f), c = cube(0, 0, 1.5f, 0.6f);
    builder_add(bl, &a);
    builder_add(bl, &c);
    *m = builder_finish(bl);
    tp_batch *b = batch_of(*m, worlds, 1);
    cr_assert_gt(steps_until_asleep(b, 0, 90), 0, "the stack sleeps");
    return b;
}

/* Waking one body wakes its whole island and resets the timers of all of it. */
Test(sleep_rules, waking_resets_the_timers_of_the_whole_island)
{
    tp_model *m = NULL;
    tp_batch *b = sleeping_stack(&m, 1);
    tp_state_view s = batch_view(b);
    cr_assert(s.quiet_timer[1] >= QUIET_TIME && s.quiet_timer[2] >= QUIET_TIME, "timers ran before the sleep");
    cr_assert_eq(tp_batch_wake(b, 0, 2), TP_OK);
    s = batch_view(b);
    for (int i = 1; i <= 2; ++i) {
        cr_assert_eq(s.sleep_state[i], TP_AWAKE, "body %d is not awake after waking body 2", i);
        cr_assert_eq(s.quiet_timer[i], 0.0f, "body %d kept its timer %g", i, s.quiet_timer[i]);
    }
    cr_assert_eq(s.awake_count[0], 2);
    /* so it must be quiet for quiet_time again before it sleeps */
    int k = steps_until_asleep(b, 0, 60);
    cr_assert(k > 0 && k * (double)DT >= QUIET_TIME - 1e-6, "asleep again after %d steps", k);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A touching contact with an awake body wakes the whole sleeping island: a
 * cube dropped from 6 m onto a sleeping stack of two wakes both stack cubes,
 * timers reset, on the step it reaches the stack (it falls freely until then,
 * and the stack sleeps until then); the stack holds it (nothing sinks). */
Test(sleep_rules, a_contact_wakes_the_whole_island)
{
    tp_model_def md = model_def(-9.81f);
    tp_builder *bl = builder_begin(&md);
    add_ground(bl, 0.6f);
    tp_body_def a = cube(0, 0, 0.5f, 0.6f), c = cube(0, 0, 1.5f, 0.6f), d = cube(0, 0, 8.5f, 0.6f);
    builder_add(bl, &a);
    builder_add(bl, &c);
    builder_add(bl, &d);
    tp_model *m = builder_finish(bl);
    tp_batch *b = batch_of(m, 1, 1);
    int woke_step = -1, asleep_before = 0;
    float vz = 0.0f;
    for (int k = 1; k <= 90 && woke_step < 0; ++k) {
        batch_steps(b, 1);
        tp_state_view s = batch_view(b);
        int stack_asleep = sleeping(&s, 0, 1) && sleeping(&s, 0, 2);
        int free_fall = fabsf(s.v[3 * 3 + 2] - (vz - (float)(G * DT))) < 1e-3f;
        vz = s.v[3 * 3 + 2];
        if (stack_asleep) {
            asleep_before = 1;
            cr_assert(free_fall, "step %d: the dropped cube was stopped while the stack slept", k);
        } else if (asleep_before) {
            woke_step = k;
            cr_assert(!sleeping(&s, 0, 1) && !sleeping(&s, 0, 2), "the whole stack wakes");
            cr_assert(s.quiet_timer[1] <= DT && s.quiet_timer[2] <= DT, "timers %g, %g: not reset", s.quiet_timer[1],
                      s.quiet_timer[2]);
            cr_assert_lt(s.pos[3 * 3 + 2] - 2.5f, 0.05f, "woke while the cube was still %g m away",
                         s.pos[3 * 3 + 2] - 2.5f);
        }
    }
    cr_assert(asleep_before, "the stack fell asleep before the impact");
    cr_assert_gt(woke_step, 0, "the impact did not wake the stack");
    /* fall of 6 m: sqrt(12 / g) = 1.106 s, within the step of the impact */
    /* fall of 6 m: impact at sqrt(12 / g) = 1.106 s. Collision looks at the gap
     * at the start of a step, and the cube covers 18 cm per step against a 2 cm
     * contact margin, so the touch is first seen on the step after the one in
     * which it happens; the wake shows at the end of that step: at most 2 dt
     * after the impact, and never before it (less the h / 2 of the integrator) */
    double t_impact = sqrt(12.0 / G), t_woke = woke_step * (double)DT;
    cr_assert(t_woke >= t_impact - H && t_woke <= t_impact + 2.0 * DT, "woke at %g s, impact at %g s", t_woke,
              t_impact);
    batch_steps(b, 60);
    tp_state_view s = batch_view(b);
    cr_assert(fabsf(s.pos[3 * 1 + 2] - 0.5f) < 0.01f && fabsf(s.pos[3 * 2 + 2] - 1.5f) < 0.01f &&
                  fabsf(s.pos[3 * 3 + 2] - 2.5f) < 0.01f,
              "nothing sank: z = %g, %g, %g", s.pos[5], s.pos[8], s.pos[11]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* An explicit sleep puts the island to sleep at once, even in free fall, and it
 * stays frozen until woken; then it falls again from rest (vz = -g dt after one
 * step). Two touching cubes falling together are one island. A third cube far
 * away keeps falling, awake, so the world is stepped (not skipped) all along:
 * the sleepers must be frozen by the step itself. */
Test(sleep_rules, explicit_sleep_freezes_the_island_in_mid_air)
{
    tp_model_def md = model_def(-9.81f);
    tp_builder *bl = builder_begin(&md);
    tp_body_def a = cube(0, 0, 10.0f, 0.6f), c = cube(0, 0, 11.0f, 0.6f), d = cube(10.0f, 0, 100.0f, 0.6f);
    builder_add(bl, &a);
    builder_add(bl, &c);
    builder_add(bl, &d);
    tp_model *m = builder_finish(bl);
    tp_batch *b = batch_of(m, 1, 1);
    batch_steps(b, 6);
    cr_assert_eq(tp_batch_sleep(b, 0, 1), TP_OK, "%s", tp_last_error());
    tp_state_view s = batch_view(b);
    for (int i = 0; i < 2; ++i) {
        cr_assert(sleeping(&s, 0, i) && s.body_awake[i] == 0, "body %d is not asleep after sleep(body 1)", i);
        for (int k = 0; k < 3; ++k) cr_assert(s.v[3 * i + k] == 0.0f && s.w[3 * i + k] == 0.0f, "velocity reads zero");
    }
    cr_assert_eq(s.sleeping_count[0], 2);
    frozen f0 = freeze(&s, 0, 0), f1 = freeze(&s, 0, 1);
    batch_steps(b, 60);
    s = batch_view(b);
    cr_assert(same_bits(freeze(&s, 0, 0), f0) && same_bits(freeze(&s, 0, 1), f1), "it moved while asleep in the air");
    cr_assert(!sleeping(&s, 0, 2) && s.v[3 * 2 + 2] < -5.0f, "the third cube fell on, awake (vz %g)", s.v[3 * 2 + 2]);
    cr_assert_eq(tp_batch_wake(b, 0, 0), TP_OK);
    batch_steps(b, 1);
    s = batch_view(b);
    for (int i = 0; i < 2; ++i)
        cr_assert(fabs(s.v[3 * i + 2] + G * DT) < 1e-5, "body %d: vz = %g one step after the wake", i, s.v[3 * i + 2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* wake_sphere wakes every island with a body whose bounding sphere (radius
 * sqrt(3)/2 = 0.866 m for a unit cube) meets the sphere, and nothing else:
 * a sphere of radius 0.2 m at (0, 0, -0.5) reaches the bottom cube of the stack
 * at x = 0 (1 m away < 1.066) but not its top cube (2 m), which wakes with its
 * island; the lone cube at x = 3 and every other world stay asleep. */
Test(sleep_rules, wake_sphere_wakes_what_it_meets_and_nothing_else)
{
    tp_model_def md = model_def(-9.81f);
    tp_builder *bl = builder_begin(&md);
    add_ground(bl, 0.6f);
    tp_body_def a = cube(0, 0, 0.5f, 0.6f), c = cube(0, 0, 1.5f, 0.6f), d = cube(3, 0, 0.5f, 0.6f);
    builder_add(bl, &a);
    builder_add(bl, &c);
    builder_add(bl, &d);
    tp_model *m = builder_finish(bl);
    tp_batch *b = batch_of(m, 2, 1);
    cr_assert_gt(steps_until_asleep(b, 0, 90), 0);
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.sleeping_count[1], 3);
    frozen lone = freeze(&s, 0, 3);
    uint64_t h1 = batch_world_hash(b, 1);
    const float center[3] = {0.0f, 0.0f, -0.5f};
    const int32_t w0 = 0;
    cr_assert_eq(tp_batch_wake_sphere(b, WORLD_LIST(&w0, 1), center, 0.2f), TP_OK, "%s", tp_last_error());
    s = batch_view(b);
    cr_assert(!sleeping(&s, 0, 1) && !sleeping(&s, 0, 2), "the stack it met wakes, both cubes");
    cr_assert(same_bits(freeze(&s, 0, 3), lone), "the lone cube was touched");
    cr_assert_eq(batch_world_hash(b, 1), h1, "world 1 was touched");
    /* and a sphere that meets nothing wakes nothing */
    cr_assert_gt(steps_until_asleep(b, 0, 90), 0);
    uint64_t all = batch_state_hash(b);
    const float away[3] = {10.0f, 10.0f, 0.5f};
    cr_assert_eq(tp_batch_wake_sphere(b, NULL, away, 1.0f), TP_OK);
    cr_assert_eq(batch_state_hash(b), all, "a sphere that meets nothing woke something");
    /* NULL: every world */
    cr_assert_eq(tp_batch_wake_sphere(b, NULL, center, 0.2f), TP_OK);
    s = batch_view(b);
    cr_assert_eq(s.awake_count[0], 2);
    cr_assert_eq(s.awake_count[1], 2);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- rules: support */

/* With gravity non-zero only a supported island may sleep. A faint gravity
 * (1e-4 m/s^2: in 1 s a free body reaches 1e-4 m/s, under the linear threshold,
 * and changes its speed by 1.7e-6 m/s per step, under the guard's 0.004) makes
 * free bodies quiet without support: two touching cubes in the air (one island)
 * and a cube on the ground. With require_support on, the pair never sleeps while
 * the grounded cube does; with it off the pair sleeps too; with g = 0 exactly
 * no support is needed. */
static void support_run(float gz, int require_support, int *pair_slept, int *grounded_slept)
{
    tp_model_def md = model_def(gz);
    md.sleep.require_support = require_support;
    tp_builder *bl = builder_begin(&md);
    add_ground(bl, 0.6f);
    tp_body_def a = cube(0, 0, 5.0f, 0.6f), c = cube(0, 0, 6.0f, 0.6f), d = cube(3, 0, 0.5f, 0.6f);
    builder_add(bl, &a);
    builder_add(bl, &c);
    builder_add(bl, &d);
    tp_model *m = builder_finish(bl);
    tp_batch *b = batch_of(m, 1, 1);
    *pair_slept = *grounded_slept = 0;
    for (int k = 0; k < 60; ++k) {
        batch_steps(b, 1);
        tp_state_view s = batch_view(b);
        cr_assert_eq(s.island[1], s.island[2], "the two cubes in the air are one island");
        *pair_slept |= sleeping(&s, 0, 1) || sleeping(&s, 0, 2);
        *grounded_slept |= sleeping(&s, 0, 3);
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(sleep_rules, require_support_keeps_an_unsupported_island_awake_in_gravity)
{
    int pair, grounded;
    support_run(-1e-4f, 1, &pair, &grounded);
    cr_assert(!pair, "an unsupported island slept while gravity is on");
    cr_assert(grounded, "the supported cube sleeps");
    support_run(-1e-4f, 0, &pair, &grounded);
    cr_assert(pair, "with require_support off the quiet pair in the air sleeps");
    support_run(0.0f, 1, &pair, &grounded);
    cr_assert(pair, "with g = 0 no support is needed");
}

/* The acceleration guard does not stop a resting stack from sleeping: a stack
 * of three under the default guard (0.24 m/s^2) sleeps within quiet_time plus
 * 0.5 s of settling. */
Test(sleep_rules, accel_guard_lets_resting_stacks_sleep)
{
    tp_model *m = load("c05_remove_support.json");
    cr_assert_eq(tp_model_settings(m).sleep.accel_threshold, 0.24f, "the guard is on in this scene");
    tp_batch *b = batch_of(m, 1, 1);
    int k = steps_until_asleep(b, 0, 60);
    cr_assert(k > 0, "the stack of three did not sleep within 1 s under the guard");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- rules: overflow, hash */

/* Contact overflow in a world wakes that world: g = 0, two cubes face to face
 * need 4 contact points and the capacity is 2, so every step of world 0
 * overflows and wakes it; it never sleeps and its timers never pass dt. In
 * world 1 cube 1 is moved away first, nothing touches, nothing overflows, and
 * both cubes sleep (g = 0, no support needed). */
Test(sleep_rules, contact_overflow_wakes_the_world)
{
    tp_model_def md = model_def(0.0f);
    tp_builder *bl = builder_begin(&md);
    tp_body_def a = cube(0, 0, 0, 0.6f), c = cube(1.0f, 0, 0, 0.6f);
    builder_add(bl, &a);
    builder_add(bl, &c);
    tp_model *m = builder_finish(bl);
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = 2;
    bd.threads = 1;
    bd.contact_capacity = 2;
    tp_batch *b = NULL;
    cr_assert_eq(tp_batch_create(m, &bd, &b), TP_OK, "%s", tp_last_error());
    const float away[3] = {5.0f, 0.0f, 0.0f}, q[4] = {0, 0, 0, 1};
    cr_assert_eq(tp_batch_set_pose(b, 1, 1, away, q), TP_OK);
    for (int k = 0; k < 60; ++k) {
        batch_steps(b, 1);
        tp_state_view s = batch_view(b);
        cr_assert_eq(s.sleeping_count[0], 0, "world 0 slept at step %d although its contacts overflow", k + 1);
        cr_assert(s.quiet_timer[0] <= DT && s.quiet_timer[1] <= DT, "world 0 timers %g %g: overflow did not wake it",
                  s.quiet_timer[0], s.quiet_timer[1]);
    }
    tp_state_view s = batch_view(b);
    cr_assert_gt(s.contact_overflow[0], 0, "world 0 overflowed");
    cr_assert_eq(s.contact_overflow[1], 0, "world 1 did not");
    cr_assert_eq(s.sleeping_count[1], 2, "world 1 sleeps");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Sleep states and quiet timers are part of the state hash (changed here
 * through the internals, one at a time, and put back). */
Test(sleep_rules, sleep_state_and_timer_are_in_the_hash)
{
    tp_model *m = load("c06_resting.json");
    tp_batch *b = batch_of(m, 2, 1);
    batch_steps(b, 10);
    uint64_t h = batch_state_hash(b), w1 = batch_world_hash(b, 1);
    size_t k = 1 * 2 + 1;
    float timer = b->quiet_timer[k];
    b->quiet_timer[k] = nextafterf(timer, 1.0f);
    cr_assert_neq(batch_state_hash(b), h, "a one-ulp change of a quiet timer left the state hash alone");
    cr_assert_neq(batch_world_hash(b, 1), w1);
    b->quiet_timer[k] = timer;
    cr_assert_eq(batch_state_hash(b), h);
    uint8_t st = b->sleep_state[k];
    b->sleep_state[k] = st == TP_SLEEPING ? TP_AWAKE : TP_SLEEPING;
    cr_assert_neq(batch_state_hash(b), h, "a sleep state change left the state hash alone");
    b->sleep_state[k] = st;
    cr_assert_eq(batch_state_hash(b), h);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- review cases */

/* A dynamic unit cube of 1 kg, or a body of another type, at (x, y, z). */
static tp_body_def typed_box(tp_body_type type, float x, float y, float z, float sx)
{
    tp_body_def bd = tp_default_body_def();
    bd.type = type;
    bd.mass = 1.0f;
    bd.pos[0] = x;
    bd.pos[1] = y;
    bd.pos[2] = z;
    bd.size[0] = bd.size[1] = sx;
    return bd;
}

/* Contact overflow wakes the world; the woken bodies must also get their
 * contacts in that very step (collision runs again), or a resting box falls
 * into its support for one step (it dropped 1.7 mm before). */
Test(sleep_rules, overflow_wake_keeps_support)
{
    tp_model_def md = model_def(-9.81f);
    tp_builder *bl = builder_begin(&md);
    tp_body_def g = typed_box(TP_BODY_STATIC, 0, 0, -0.5f, 40.0f);
    builder_add(bl, &g);
    tp_body_def a = typed_box(TP_BODY_DYNAMIC, 0, 0, 0.5f, 1.0f), bb = typed_box(TP_BODY_DYNAMIC, 10, 0, 20.5f, 1.0f),
                c = typed_box(TP_BODY_DYNAMIC, 13, 0, 20.5f, 1.0f);
    builder_add(bl, &a);
    builder_add(bl, &bb);
    builder_add(bl, &c);
    tp_model *m = builder_finish(bl);
    tp_batch_def d = tp_default_batch_def();
    d.contact_capacity = 5; /* one resting box needs 4 points, three need 12 */
    tp_batch *b = NULL;
    cr_assert_eq(tp_batch_create(m, &d, &b), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_sleep(b, 0, 2), TP_OK);
    cr_assert_eq(tp_batch_sleep(b, 0, 3), TP_OK);
    cr_assert_gt(steps_until_asleep(b, 0, 600), 0, "box A never slept");
    tp_state_view s = batch_view(b);
    float z = s.pos[3 * 1 + 2];
    const float q[4] = {0, 0, 0, 1};
    float p[3] = {10, 0, 0.5f};
    cr_assert_eq(tp_batch_set_pose(b, 0, 2, p, q), TP_OK);
    p[0] = 13.0f;
    cr_assert_eq(tp_batch_set_pose(b, 0, 3, p, q), TP_OK);
    for (int i = 0; i < 4; ++i) {
        batch_steps(b, 1);
        s = batch_view(b);
        cr_assert_gt(s.contact_overflow[0], 0, "the scene must overflow");
        cr_assert(fabsf(s.pos[3 * 1 + 2] - z) < 2e-4f, "step %d: box A moved %g m through its support", i,
                  s.pos[3 * 1 + 2] - z);
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A moving kinematic body wakes the sleeping box it meets and pushes it. */
Test(sleep_rules, kinematic_body_wakes_a_sleeper)
{
    tp_model_def md = model_def(-9.81f);
    tp_builder *bl = builder_begin(&md);
    tp_body_def g = typed_box(TP_BODY_STATIC, 0, 0, -0.5f, 20.0f), box = typed_box(TP_BODY_DYNAMIC, 0, 0, 0.5f, 1.0f),
                k = typed_box(TP_BODY_KINEMATIC, -3, 0, 0.5f, 1.0f);
    builder_add(bl, &g);
    builder_add(bl, &box);
    builder_add(bl, &k);
    tp_model *m = builder_finish(bl);
    tp_batch *b = batch_of(m, 1, 1);
    cr_assert_gt(steps_until_asleep(b, 0, 300), 0, "the box never slept");
    const float v[3] = {2, 0, 0}, w[3] = {0, 0, 0};
    cr_assert_eq(tp_batch_set_velocity(b, 0, 2, v, w), TP_OK, "%s", tp_last_error());
    batch_steps(b, 150); /* 2.5 s: the kinematic box travels 5 m */
    tp_state_view s = batch_view(b);
    cr_assert_gt(s.pos[3 * 1], 2.0f, "the sleeping box was passed through (x = %g)", s.pos[3 * 1]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Removing a static support wakes what rested on it (DESIGN.md 7: everything
 * its island touched wakes); then the box falls. */
Test(sleep_rules, removing_static_support_wakes)
{
    tp_model_def md = model_def(-9.81f);
    tp_builder *bl = builder_begin(&md);
    tp_body_def g = typed_box(TP_BODY_STATIC, 0, 0, -0.5f, 20.0f), box = typed_box(TP_BODY_DYNAMIC, 0, 0, 0.5f, 1.0f);
    builder_add(bl, &g);
    builder_add(bl, &box);
    tp_model *m = builder_finish(bl);
    tp_batch *b = batch_of(m, 1, 1);
    cr_assert_gt(steps_until_asleep(b, 0, 300), 0, "the box never slept");
    cr_assert_eq(tp_batch_remove_body(b, 0, 0), TP_OK, "%s", tp_last_error());
    tp_state_view s = batch_view(b);
    cr_assert(!sleeping(&s, 0, 1), "the box still sleeps after its ground was removed");
    batch_steps(b, 60);
    s = batch_view(b);
    /* free fall for 1 s: 4.9 m (discrete value within a centimetre) */
    cr_assert(s.pos[3 * 1 + 2] < 0.5f - 4.8f, "the box did not fall (z = %g)", s.pos[3 * 1 + 2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* An applied force lasts one step even when the world has nothing awake: a
 * force on a body put to sleep must not wait for the next wake. */
Test(sleep_rules, force_does_not_outlive_its_step)
{
    tp_model_def md = model_def(-9.81f);
    tp_builder *bl = builder_begin(&md);
    tp_body_def g = typed_box(TP_BODY_STATIC, 0, 0, -0.5f, 20.0f), box = typed_box(TP_BODY_DYNAMIC, 0, 0, 0.5f, 1.0f);
    builder_add(bl, &g);
    builder_add(bl, &box);
    tp_model *m = builder_finish(bl);
    tp_batch *b = batch_of(m, 1, 1);
    const float up[3] = {0, 0, 3000.0f};
    cr_assert_eq(tp_batch_apply_force(b, 0, 1, up, NULL), TP_OK);
    cr_assert_eq(tp_batch_sleep(b, 0, 1), TP_OK); /* asleep: the world is idle for this step */
    batch_steps(b, 120);
    cr_assert_eq(tp_batch_wake(b, 0, 1), TP_OK);
    batch_steps(b, 1);
    tp_state_view s = batch_view(b);
    cr_assert(fabsf(s.v[3 * 1 + 2]) < 0.05f, "a force of 2 s ago acted after the wake: vz = %g", s.v[3 * 1 + 2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}
