/* test_sleep_assembly.c - the assembly sleep policy (issue 16,
 * 000_5cca17d3fe7ce587.txt, kernels/sleep_assembly.h).
 *
 * Two parts:
 *   - the acceptance cases of tests/test_sleep.c (suite sleep_cases: C02-C09,
 *     C12, C13), compiled again here with every scene and model switched to
 *     the assembly policy, same assertions. The island policy's own rules
 *     (suite sleep_rules) are disabled here: they test the other policy;
 *   - one test per rule of the assembly policy on small scenes (suite
 *     assembly), and C14, where the policy gives another answer
 *     (docs/sleep-policies.md).
 *
 * Conventions: those of test_sleep.c (dt = 1/60 s, 4 substeps, g = 9.81, a
 * ground whose top is at z = 0, 1 m cubes of 1 kg) and the policy's default
 * thresholds (tp_default_assembly_def). */
#include <criterion/criterion.h>
#include <criterion/internal/test.h>

#include "helpers.h"
#include "torpor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Scene `name` of `dir` with "sleep": {"policy": "assembly"} put in front of
 * its bodies (none of the case scenes has a sleep section of its own). */
static tp_model *assembly_scene(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", dir, name);
    return load_assembly_scene(path);
}

#define TP_TEST_POLICY TP_SLEEP_ASSEMBLY
#define TP_TEST_POLICY_SCENE assembly_scene
#define QUIET_TIME 0.3 /* tp_default_assembly_def's */

/* Which suites of test_sleep.c run here. */
#define TP_RUN_sleep_cases 1
#define TP_RUN_sleep_rules 0
#define TP_RUN_assembly 1
#define TP_FIRST_(a, ...) a
#define TP_CAT_(a, b) a##b
#define TP_CAT(a, b) TP_CAT_(a, b)
#undef Test
#define Test(...)                                                                                                      \
    CR_EXPAND(CR_TEST_BASE(__VA_ARGS__, .disabled = !TP_CAT(TP_RUN_, TP_FIRST_(__VA_ARGS__, ~)), .sentinel_ = 0))

#include "test_sleep.c"

/* ---------------------------------------------------------------- helpers */

static tp_model_def assembly_def(float gz)
{
    tp_model_def md = model_def(gz);
    md.sleep.policy = TP_SLEEP_ASSEMBLY;
    return md;
}

static uint8_t state_of(tp_batch *b, int body)
{
    tp_state_view s = batch_view(b);
    return s.sleep_state[body];
}

/* The pose of body b of world 0 (its state may change, its pose not). */
typedef struct pose {
    float pos[3], quat[4];
} pose;

static pose pose_of(const tp_state_view *s, int b)
{
    pose p;
    memcpy(p.pos, s->pos + 3 * b, sizeof p.pos);
    memcpy(p.quat, s->quat + 4 * b, sizeof p.quat);
    return p;
}

static int same_pose(pose a, pose b) { return memcmp(&a, &b, sizeof a) == 0; }

/* A stack of `n` cubes on a ground of friction `mu`; bodies 1..n bottom up. */
static tp_model *stack_model(int n, float mu, const tp_assembly_def *a)
{
    tp_model_def md = assembly_def(-9.81f);
    if (a) md.sleep.assembly = *a;
    tp_builder *b = builder_begin(&md);
    add_ground(b, mu);
    for (int i = 0; i < n; ++i) {
        tp_body_def bd = cube(0, 0, 0.5f + (float)i, mu);
        builder_add(b, &bd);
    }
    return builder_finish(b);
}

/* On frictionless ground: a sleeper at x = 0 (body 1) and a cube 3 cm from
 * it at x = -1.03 (body 2): close, since a slow slider soon sleeps itself. */
static tp_model *two_cubes(const tp_assembly_def *a)
{
    tp_model_def md = assembly_def(-9.81f);
    if (a) md.sleep.assembly = *a;
    tp_builder *b = builder_begin(&md);
    add_ground(b, 0.0f);
    tp_body_def s = cube(0, 0, 0.5f, 0.0f), m = cube(-1.03f, 0, 0.5f, 0.0f);
    builder_add(b, &s);
    builder_add(b, &m);
    return builder_finish(b);
}

/* Step until every dynamic body sleeps (asserting it happens within 3 s). */
static void settle(tp_batch *b)
{
    cr_assert(steps_until_asleep(b, 0, 180) > 0, "the scene did not fall asleep within 3 s");
}

/* ---------------------------------------------------------------- rules */

/* Resting towers fall asleep, every cube, in well under C04's 1.5 s: the
 * quiet time (0.3 s) plus the few steps the contacts take to settle. */
Test(assembly, resting_tower_falls_asleep)
{
    tp_model *m = stack_model(10, 0.6f, NULL);
    tp_batch *b = batch_of(m, 2, 1);
    int n = steps_until_asleep(b, 0, 90);
    cr_assert(n > 0, "the tower is not asleep after 1.5 s");
    cr_assert(n * DT >= 0.3f, "asleep after %d steps, before the quiet time", n);
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.sleeping_count[0] + s.sleeping_count[1], 20);
    cr_assert_eq(s.awake_count[0] + s.checking_count[0], 0);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A slow push on the top of a sleeping stack: the top wakes, the cube under it
 * turns sleep-checking (held: pose bitwise still), the bottom one, touching no
 * awake body, stays asleep. 0.3 m/s is under the neighbour threshold (0.48)
 * and the friction the top drags with, mu g = 5.9 m/s^2, under the wake
 * acceleration (16.9): the held cube never wakes, and all sleep again. */
Test(assembly, pushed_stack_turns_the_neighbour_checking_and_it_stays_held)
{
    tp_model *m = stack_model(3, 0.6f, NULL);
    tp_batch *b = batch_of(m, 1, 1);
    settle(b);
    tp_state_view s0 = batch_view(b);
    pose mid = pose_of(&s0, 2), low = pose_of(&s0, 1);
    const float j[3] = {0.3f, 0, 0};
    cr_assert_eq(tp_batch_apply_impulse(b, 0, 3, j, NULL), TP_OK, "%s", tp_last_error());
    cr_assert_eq(state_of(b, 3), TP_AWAKE, "the impulse wakes the top");
    cr_assert_eq(state_of(b, 2), TP_SLEEPING, "and nothing else");
    batch_steps(b, 1);
    cr_assert_eq(state_of(b, 2), TP_CHECKING, "the cube under the moving top is sleep-checking");
    cr_assert_eq(state_of(b, 1), TP_SLEEPING, "the bottom cube touches no awake body");
    int checked = 0;
    for (int i = 0; i < 120; ++i) {
        tp_state_view s = batch_view(b);
        cr_assert_neq(s.sleep_state[2], TP_AWAKE, "step %d: the held cube woke", i);
        checked += s.sleep_state[2] == TP_CHECKING;
        cr_assert(same_pose(pose_of(&s, 2), mid), "step %d: the held cube moved", i);
        cr_assert(same_pose(pose_of(&s, 1), low), "step %d: the bottom cube moved", i);
        cr_assert_eq(s.body_awake[2], 0, "a checking body is not counted awake");
        batch_steps(b, 1);
    }
    cr_assert(checked > 0);
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.sleeping_count[0], 3, "all asleep again 2 s after the push");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The same stack pushed at 0.8 m/s (over the neighbour threshold, under the
 * 1 m/s collision rule): the held cube wakes on the step after it turned
 * checking, by the neighbour rule. */
Test(assembly, a_fast_neighbour_wakes_the_checking_body)
{
    tp_model *m = stack_model(3, 0.6f, NULL);
    tp_batch *b = batch_of(m, 1, 1);
    settle(b);
    const float j[3] = {0.8f, 0, 0};
    cr_assert_eq(tp_batch_apply_impulse(b, 0, 3, j, NULL), TP_OK, "%s", tp_last_error());
    batch_steps(b, 1);
    cr_assert_eq(state_of(b, 2), TP_AWAKE, "neighbour at %g m/s > 0.48: awake", 0.8 - 0.6 * 9.81 * DT);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The same with the neighbour thresholds out of reach: the neighbour rule
 * cannot wake the held cube, so only its own acceleration could. */
Test(assembly, neighbour_thresholds_are_the_ones_set)
{
    tp_assembly_def a = tp_default_assembly_def();
    a.neighbour_linear_velocity = a.neighbour_rotational_velocity = 100.0f;
    tp_model *m = stack_model(3, 0.6f, &a);
    tp_batch *b = batch_of(m, 1, 1);
    settle(b);
    const float j[3] = {0.8f, 0, 0};
    cr_assert_eq(tp_batch_apply_impulse(b, 0, 3, j, NULL), TP_OK, "%s", tp_last_error());
    for (int i = 0; i < 30; ++i) {
        batch_steps(b, 1);
        cr_assert_neq(state_of(b, 2), TP_AWAKE, "step %d: woke with the neighbour rule off", i);
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The wake acceleration: a cube slides into a sleeper on frictionless ground
 * (collision and neighbour rules out of reach). The held sleeper's trial
 * velocity after the impact is about half the slider's (equal masses), so its
 * acceleration is about v / (2 dt): 0.2 m/s gives 6 m/s^2 < 16.9 (stays
 * held), 0.9 m/s gives 27 m/s^2 > 16.9 (wakes). */
static int hit_wakes(float speed)
{
    tp_assembly_def a = tp_default_assembly_def();
    a.neighbour_linear_velocity = a.neighbour_rotational_velocity = 100.0f;
    a.collision_wake_speed = 100.0f;
    tp_model *m = two_cubes(&a);
    tp_batch *b = batch_of(m, 1, 1);
    cr_assert_eq(tp_batch_sleep(b, 0, 1), TP_OK, "%s", tp_last_error());
    const float v[3] = {speed, 0, 0}, w[3] = {0, 0, 0};
    cr_assert_eq(tp_batch_set_velocity(b, 0, 2, v, w), TP_OK, "%s", tp_last_error());
    int woke = 0, held = 0;
    for (int i = 0; i < (int)(0.1f / speed / DT) + 2 && !woke; ++i) {
        batch_steps(b, 1);
        woke |= state_of(b, 1) == TP_AWAKE;
        held |= state_of(b, 1) == TP_CHECKING;
    }
    cr_assert(woke || held, "the slider at %g m/s never reached the sleeper", speed);
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return woke;
}

Test(assembly, wake_acceleration_threshold)
{
    cr_assert_not(hit_wakes(0.2f), "a 0.2 m/s hit woke the held cube");
    cr_assert(hit_wakes(0.9f), "a 0.9 m/s hit did not wake the held cube");
}

/* The collision rule alone (neighbour and wake-acceleration rules out of
 * reach): a body faster than 1 m/s wakes the sleeper it meets, on that step;
 * one at 0.5 m/s only makes it checking. */
static uint8_t state_on_contact(float speed)
{
    tp_assembly_def a = tp_default_assembly_def();
    a.neighbour_linear_velocity = a.neighbour_rotational_velocity = 100.0f;
    a.wake_linear_acceleration = a.wake_rotational_acceleration = 1e6f;
    tp_model *m = two_cubes(&a);
    tp_batch *b = batch_of(m, 1, 1);
    cr_assert_eq(tp_batch_sleep(b, 0, 1), TP_OK, "%s", tp_last_error());
    const float v[3] = {speed, 0, 0}, w[3] = {0, 0, 0};
    cr_assert_eq(tp_batch_set_velocity(b, 0, 2, v, w), TP_OK, "%s", tp_last_error());
    uint8_t st = TP_SLEEPING;
    for (int i = 0; i < (int)(0.1f / speed / DT) + 2 && st == TP_SLEEPING; ++i) {
        batch_steps(b, 1);
        st = state_of(b, 1);
    }
    for (int i = 0; i < 10 && st == TP_CHECKING; ++i) {
        batch_steps(b, 1);
        uint8_t now = state_of(b, 1);
        if (now == TP_AWAKE) st = now;
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return st;
}

Test(assembly, collision_faster_than_1_m_per_s_wakes)
{
    cr_assert_eq(state_on_contact(1.5f), TP_AWAKE, "a 1.5 m/s collision did not wake the sleeper");
    cr_assert_eq(state_on_contact(0.5f), TP_CHECKING, "a 0.5 m/s collision: checking, not awake");
}

/* A body thrown upward in weak gravity: g = 0.3 m/s^2 > the acceleration
 * threshold 0.24, v0 = 0.1 m/s (under the velocity threshold all along): awake
 * on every step of its flight (apex at 0.33 s). With g = 0.2 m/s^2 (under the
 * threshold) it sleeps in the air: the threshold is the guard. */
static int sleeps_in_flight(float g)
{
    tp_model_def md = assembly_def(-g);
    tp_builder *bl = builder_begin(&md);
    add_ground(bl, 0.6f);
    tp_body_def bd = cube(0, 0, 0.5f + 0.01f, 0.6f);
    bd.vel[2] = 0.1f;
    builder_add(bl, &bd);
    tp_model *m = builder_finish(bl);
    tp_batch *b = batch_of(m, 1, 1);
    int slept = 0;
    double t_flight = 2.0 * 0.1 / g; /* lower bound: it started 1 cm up */
    for (int i = 0; i * DT < t_flight && !slept; ++i) {
        batch_steps(b, 1);
        slept = state_of(b, 1) != TP_AWAKE;
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return slept;
}

Test(assembly, a_body_thrown_up_never_sleeps_in_flight)
{
    cr_assert_not(sleeps_in_flight(0.3f), "slept in flight with g = 0.3 m/s^2");
    cr_assert(sleeps_in_flight(0.2f), "g = 0.2 m/s^2 is under the threshold: the policy lets it sleep");
}

/* A change of gravity wakes every sleeper of the world. */
Test(assembly, gravity_change_wakes_sleepers)
{
    tp_model *m = stack_model(3, 0.6f, NULL);
    tp_batch *b = batch_of(m, 1, 1);
    settle(b);
    const float g[3] = {0, 0, -12.0f};
    cr_assert_eq(tp_batch_set_gravity(b, 0, g), TP_OK, "%s", tp_last_error());
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.awake_count[0], 3, "all three awake after the change (%d)", s.awake_count[0]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* An explicit wake wakes that body alone; its sleeping neighbour turns
 * checking on the next step (it touches an awake body), the one beyond it
 * stays asleep. */
Test(assembly, an_explicit_wake_wakes_the_body_alone)
{
    tp_model *m = stack_model(3, 0.6f, NULL);
    tp_batch *b = batch_of(m, 1, 1);
    settle(b);
    cr_assert_eq(tp_batch_wake(b, 0, 1), TP_OK, "%s", tp_last_error());
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.sleep_state[1], TP_AWAKE);
    cr_assert_eq(s.sleep_state[2], TP_SLEEPING);
    batch_steps(b, 1);
    cr_assert_eq(state_of(b, 2), TP_CHECKING);
    cr_assert_eq(state_of(b, 3), TP_SLEEPING);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A change of a physics property (material: friction; mass) wakes the body
 * whose property changed, and it alone; an unchanged value wakes nothing. */
Test(assembly, a_property_change_wakes_the_body_alone)
{
    tp_model *m = stack_model(3, 0.6f, NULL);
    tp_batch *b = batch_of(m, 1, 1);
    settle(b);
    float mu[4] = {0.6f, 0.6f, 0.6f, 0.6f};
    cr_assert_eq(tp_batch_set_frictions(b, NULL, mu), TP_OK, "%s", tp_last_error());
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.sleeping_count[0], 3, "the same friction wakes nothing");
    mu[2] = 0.3f;
    cr_assert_eq(tp_batch_set_frictions(b, NULL, mu), TP_OK, "%s", tp_last_error());
    s = batch_view(b);
    cr_assert(s.sleep_state[2] == TP_AWAKE && s.sleep_state[1] == TP_SLEEPING && s.sleep_state[3] == TP_SLEEPING,
              "friction of body 2 changed: states %d %d %d", s.sleep_state[1], s.sleep_state[2], s.sleep_state[3]);
    settle(b);
    float scale[4] = {1, 1, 1, 2}; /* the model's masses, the top cube's doubled */
    cr_assert_eq(tp_batch_set_mass_scales(b, NULL, scale), TP_OK, "%s", tp_last_error());
    s = batch_view(b);
    cr_assert(s.sleep_state[3] == TP_AWAKE && s.sleep_state[2] == TP_SLEEPING,
              "mass of body 3 changed: states %d %d", s.sleep_state[2], s.sleep_state[3]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* An explosion-style wake wakes the bodies its sphere reaches, each alone. */
Test(assembly, wake_sphere_wakes_what_it_reaches)
{
    tp_model *m = stack_model(3, 0.6f, NULL);
    tp_batch *b = batch_of(m, 1, 1);
    settle(b);
    const float c[3] = {0, 0, 3.5f}; /* 1 m above the top cube's centre */
    cr_assert_eq(tp_batch_wake_sphere(b, NULL, c, 0.5f), TP_OK, "%s", tp_last_error());
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.sleep_state[3], TP_AWAKE, "the top cube's bounding sphere is reached");
    cr_assert_eq(s.sleep_state[2], TP_SLEEPING, "the middle one's is 2 m away: not reached");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Actuated bodies use the velocity thresholds x actuated_factor (0.1): in
 * g = 0 a cube drifting at 0.2 m/s (no acceleration, under 0.33 m/s) sleeps
 * after the quiet time; an actuated one (threshold 0.033 m/s) stays awake. */
static int drifting_sleeps(int actuated)
{
    tp_model_def md = assembly_def(0.0f);
    tp_builder *bl = builder_begin(&md);
    tp_body_def bd = cube(0, 0, 5.0f, 0.6f);
    bd.vel[0] = 0.2f;
    bd.actuated = actuated;
    builder_add(bl, &bd);
    tp_model *m = builder_finish(bl);
    tp_batch *b = batch_of(m, 1, 1);
    batch_steps(b, 60);
    int slept = state_of(b, 0) == TP_SLEEPING;
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return slept;
}

Test(assembly, actuated_bodies_use_the_stricter_threshold)
{
    cr_assert(drifting_sleeps(0), "a plain body at 0.2 m/s sleeps (0.2 < 0.33)");
    cr_assert_not(drifting_sleeps(1), "an actuated body at 0.2 m/s stays awake (0.2 > 0.033)");
}

/* The counts partition the dynamic bodies under this policy, and body_awake
 * is 1 exactly for TP_AWAKE bodies. */
Test(assembly, counts_partition_the_bodies)
{
    tp_model *m = stack_model(3, 0.6f, NULL);
    tp_batch *b = batch_of(m, 1, 1);
    settle(b);
    const float j[3] = {0.3f, 0, 0};
    cr_assert_eq(tp_batch_apply_impulse(b, 0, 3, j, NULL), TP_OK, "%s", tp_last_error());
    batch_steps(b, 1);
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.awake_count[0], 1);
    cr_assert_eq(s.checking_count[0], 1);
    cr_assert_eq(s.sleeping_count[0], 1);
    for (int i = 1; i <= 3; ++i) cr_assert_eq(s.body_awake[i], s.sleep_state[i] == TP_AWAKE, "body %d", i);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Same bits at any thread count and world count (the determinism rules). */
Test(assembly, bitwise_alike_at_1_and_4_threads)
{
    tp_model *m = load("c04_tower.json");
    uint64_t h[2];
    for (int k = 0; k < 2; ++k) {
        tp_batch *b = batch_of(m, 8, k ? 4 : 1);
        const float j[3] = {0.4f, 0, 0};
        batch_steps(b, 40);
        cr_assert_eq(tp_batch_apply_impulse(b, 3, 10, j, NULL), TP_OK, "%s", tp_last_error());
        batch_steps(b, 60);
        cr_assert_eq(tp_batch_state_hash(b, &h[k]), TP_OK, "%s", tp_last_error());
        tp_batch_destroy(b);
    }
    cr_assert_eq(h[0], h[1]);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- C14 */

/* C14's ramp (1 degree, friction 0.6) and ball (0.5 m, 1 kg) rolling up at
 * 0.05 m/s without slipping; body 1 is the ball. */
static tp_model *c14_model(const tp_assembly_def *a)
{
    tp_model_def md = assembly_def(-9.81f);
    if (a) md.sleep.assembly = *a;
    tp_builder *bl = builder_begin(&md);
    const double th = 1.0 * PI / 180.0;
    tp_body_def ramp = cube(0, 0, -0.5f, 0.6f);
    ramp.type = TP_BODY_STATIC;
    ramp.size[0] = ramp.size[1] = 20.0f;
    ramp.quat[1] = (float)sin(th / 2);
    ramp.quat[3] = (float)cos(th / 2);
    /* rotated about y: the top face's normal n = (sin th, 0, cos th), so up
     * the slope is u = (-cos th, 0, sin th); the face passes 0.5 m from the
     * ramp's centre */
    double n[3] = {sin(th), 0, cos(th)}, u[3] = {-cos(th), 0, sin(th)};
    tp_body_def ball = tp_default_body_def();
    ball.shape = TP_SHAPE_BALL;
    ball.size[0] = ball.size[1] = ball.size[2] = 0.5f;
    ball.mass = 1.0f;
    ball.friction = 0.6f;
    for (int k = 0; k < 3; ++k) {
        ball.pos[k] = (float)(ramp.pos[k] + n[k] * (0.5 + 0.25));
        ball.vel[k] = (float)(0.05 * u[k]);
    }
    /* rolling: w = n x v / r */
    ball.ang_vel[0] = (float)((n[1] * u[2] - n[2] * u[1]) * 0.05 / 0.25);
    ball.ang_vel[1] = (float)((n[2] * u[0] - n[0] * u[2]) * 0.05 / 0.25);
    ball.ang_vel[2] = (float)((n[0] * u[1] - n[1] * u[0]) * 0.05 / 0.25);
    builder_add(bl, &ramp);
    builder_add(bl, &ball);
    return builder_finish(bl);
}

/* Step C14 until the ball is back at its start (0.818 s analytic); returns
 * the first step it was not awake, or -1. */
static int c14_first_sleep(const tp_assembly_def *a)
{
    tp_model *m = c14_model(a);
    tp_batch *b = batch_of(m, 1, 1);
    int first = -1;
    for (int i = 0; i < (int)(0.8 / DT) && first < 0; ++i) {
        batch_steps(b, 1);
        if (state_of(b, 1) != TP_AWAKE) first = i;
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return first;
}

/* C14 under this policy's defaults: the ball's acceleration, (5/7) g sin 1° =
 * 0.122 m/s^2, is under the acceleration threshold (0.24) and its speed under
 * 0.33 m/s, so by the policy's rules it is at rest: it sleeps once the quiet
 * time has passed (docs/sleep-policies.md: a different answer). With the
 * thresholds scaled to the document's own gravity (x 0.05: 196.2 studs/s^2
 * is 9.81 m/s^2), 0.012 m/s^2 < 0.122: it rolls, awake on every step. */
Test(assembly, c14_slow_roll_sleeps_under_the_defaults_and_rolls_when_scaled)
{
    int first = c14_first_sleep(NULL);
    cr_assert(first >= 0, "the ball never slept under the default thresholds");
    cr_assert(first * DT >= 0.3f - DT, "slept at step %d, before the quiet time", first);
    tp_assembly_def a = tp_default_assembly_def();
    float k = 0.05f;
    a.linear_velocity *= k, a.rotational_velocity *= k, a.linear_acceleration *= k, a.rotational_acceleration *= k;
    a.neighbour_linear_velocity *= k, a.neighbour_rotational_velocity *= k;
    a.wake_linear_acceleration *= k, a.wake_rotational_acceleration *= k, a.collision_wake_speed *= k;
    cr_assert_eq(c14_first_sleep(&a), -1, "the ball slept at step %d with scaled thresholds", c14_first_sleep(&a));
}
