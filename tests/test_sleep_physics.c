/* test_sleep_physics.c - acceptance cases where sleep meets motion:
 *   C14  a ball rolling up a gentle ramp does not sleep at its turning point
 *        (the drift rule, kernels/sleep.h);
 *   C16  a fast body does not pass through a sleeping body (the speculative
 *        margin of a pair with a sleeper, kernels/collision.h);
 * and the speed bound past which a world is faulted (kernels/finish.h).
 * Right values from ../shared/cases/CASES.md, derived there by hand. */
#include "helpers.h"

#include <math.h>

#define PI 3.14159265358979323846

/* ---------------------------------------------------------------- C14 */

#define C14_SLOPE_DEG 1.0
#define C14_RADIUS 0.25f
#define C14_SPEED 0.05f

typedef struct ramp_run {
    int slept_before_return; /* asleep at some step before it was back at its start */
    double top;              /* farthest it got up the slope, m */
    double return_time;      /* when it was back at its start, s (-1: never) */
} ramp_run;

/* A static box tilted by `deg` about y (its top face slopes down towards +x)
 * and a 1 kg ball of diameter 0.5 m on it, rolling up the slope at C14_SPEED
 * without slipping; friction 0.6 on both. Runs 1.2 s. */
static ramp_run roll_up_a_ramp(double deg)
{
    double th = deg * PI / 180.0;
    float n[3] = {(float)sin(th), 0.0f, (float)cos(th)}; /* the ramp's surface normal */
    float up[3] = {-(float)cos(th), 0.0f, (float)sin(th)}; /* up the slope, along the surface */
    tp_model_def md = tp_default_model_def();
    md.name = "c14";
    tp_builder *b = builder_begin(&md);
    tp_body_def ramp = tp_default_body_def();
    ramp.type = TP_BODY_STATIC;
    ramp.size[0] = 20.0f, ramp.size[1] = 4.0f, ramp.size[2] = 1.0f;
    ramp.quat[1] = (float)sin(th / 2.0), ramp.quat[3] = (float)cos(th / 2.0);
    ramp.friction = 0.6f;
    builder_add(b, &ramp); /* centre at the origin: its top face passes through 0.5 n */
    tp_body_def ball = tp_default_body_def();
    ball.shape = TP_SHAPE_BALL;
    ball.size[0] = ball.size[1] = ball.size[2] = 2.0f * C14_RADIUS;
    ball.mass = 1.0f;
    ball.friction = 0.6f;
    for (int k = 0; k < 3; ++k) ball.pos[k] = (0.5f + C14_RADIUS) * n[k];
    int bi = builder_add(b, &ball);
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    /* rolling without slipping: w = n x v / r */
    float v[3] = {C14_SPEED * up[0], C14_SPEED * up[1], C14_SPEED * up[2]};
    float w[3] = {(n[1] * v[2] - n[2] * v[1]) / C14_RADIUS, (n[2] * v[0] - n[0] * v[2]) / C14_RADIUS,
                  (n[0] * v[1] - n[1] * v[0]) / C14_RADIUS};
    cr_assert_eq(tp_batch_set_velocity(batch, 0, bi, v, w), TP_OK, "%s", tp_last_error());
    float p0[3];
    memcpy(p0, batch_view(batch).pos + 3 * bi, sizeof p0);
    ramp_run r = {0, 0.0, -1.0};
    for (int step = 1; step <= 72; ++step) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        double along = 0.0;
        for (int k = 0; k < 3; ++k) along += (double)(s.pos[3 * bi + k] - p0[k]) * (double)up[k];
        if (along > r.top) r.top = along;
        if (r.return_time < 0.0 && step > 6 && along <= 0.0) r.return_time = step / 60.0;
        if (r.return_time < 0.0 && s.sleep_state[bi] == TP_SLEEPING) r.slept_before_return = 1;
    }
    tp_batch_destroy(batch);
    tp_model_destroy(m);
    return r;
}

Test(sleep_physics, c14_a_slow_roll_up_a_gentle_ramp_does_not_sleep_at_its_turning_point)
{
    ramp_run r = roll_up_a_ramp(C14_SLOPE_DEG);
    /* (5/7) g sin(1 deg) = 0.1223 m/s^2: highest 10.2 mm up at t = 0.409 s, back at t = 0.818 s */
    double a = 5.0 / 7.0 * 9.81 * sin(C14_SLOPE_DEG * PI / 180.0);
    double top = C14_SPEED * C14_SPEED / (2.0 * a), back = 2.0 * C14_SPEED / a;
    cr_expect(!r.slept_before_return, "the ball fell asleep before it was back at its start");
    cr_expect(fabs(r.top - top) < 0.15 * top, "highest point %.2f mm up the slope, rolling gives %.2f mm",
              1e3 * r.top, 1e3 * top);
    cr_expect(r.return_time > 0.0 && fabs(r.return_time - back) < 0.1 * back,
              "back at its start at t = %.3f s, rolling gives %.3f s", r.return_time, back);
}

/* ---------------------------------------------------------------- C16 */

/* Frictionless ground; a 0.2 m cube of 1 kg resting at x = 0 and a ball of
 * diameter 0.1 m and 0.1 kg resting 5 m away. With sleep on, the cube is
 * asleep at t = 2 s; then the ball is sent at `speed` towards it.
 * *passed: two steps after it reached the cube's face, the ball's centre is
 * past that face (it tunnelled). Then the cube's and the ball's x velocities
 * 0.3 s later (hit below its centre at 80 m/s the cube tumbles into the air and
 * the ball slides on under it: that is not passing through). */
static void shoot_at_a_cube(float speed, int sleep, float *v_cube, float *v_ball, int *passed, int *cube_slept)
{
    tp_model_def md = tp_default_model_def();
    md.name = "c16";
    md.sleep.enabled = sleep;
    tp_builder *b = builder_begin(&md);
    tp_body_def ground = tp_default_body_def();
    ground.type = TP_BODY_STATIC;
    ground.size[0] = ground.size[1] = 40.0f;
    ground.pos[2] = -0.5f;
    ground.friction = 0.0f;
    builder_add(b, &ground);
    tp_body_def cube = tp_default_body_def();
    cube.size[0] = cube.size[1] = cube.size[2] = 0.2f;
    cube.mass = 1.0f;
    cube.friction = 0.0f;
    cube.pos[2] = 0.1f;
    int ci = builder_add(b, &cube);
    tp_body_def ball = tp_default_body_def();
    ball.shape = TP_SHAPE_BALL;
    ball.size[0] = ball.size[1] = ball.size[2] = 0.1f;
    ball.mass = 0.1f;
    ball.friction = 0.0f;
    ball.pos[0] = -5.0f;
    ball.pos[2] = 0.05f;
    int bi = builder_add(b, &ball);
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    batch_steps(batch, 120);
    *cube_slept = batch_view(batch).sleep_state[ci] == TP_SLEEPING;
    const float v[3] = {speed, 0.0f, 0.0f}, w[3] = {0.0f, 0.0f, 0.0f};
    cr_assert_eq(tp_batch_set_velocity(batch, 0, bi, v, w), TP_OK, "%s", tp_last_error());
    int hit = (int)(60.0f * 4.85f / speed) + 2; /* two steps after the ball reaches the cube's face */
    batch_steps(batch, hit);
    tp_state_view s = batch_view(batch);
    *passed = s.pos[3 * bi] > s.pos[3 * ci] - 0.1f;
    batch_steps(batch, 18);
    s = batch_view(batch);
    *v_cube = s.v[3 * ci];
    *v_ball = s.v[3 * bi];
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

static void expect_stopped_by_the_cube(float speed, int sleep)
{
    float v_cube, v_ball;
    int passed, slept;
    shoot_at_a_cube(speed, sleep, &v_cube, &v_ball, &passed, &slept);
    cr_assert_eq(slept, sleep, "the cube was %s at t = 2 s", slept ? "asleep" : "awake");
    double p0 = 0.1 * speed, p = 0.1 * (double)v_ball + (double)v_cube, v_right = p0 / 1.1;
    cr_expect(!passed, "%g m/s, cube %s: the ball passed through the cube", (double)speed, sleep ? "asleep" : "awake");
    cr_expect(v_cube >= 0.9 * v_right, "%g m/s: the cube leaves at %.3f m/s, a plastic impact gives %.3f m/s",
              (double)speed, (double)v_cube, v_right);
    cr_expect(fabs(p - p0) <= 0.02 * p0, "%g m/s: momentum %.4f N s after the impact, %.4f N s before",
              (double)speed, p, p0);
}

Test(sleep_physics, c16_a_fast_ball_does_not_pass_through_a_sleeping_cube, .timeout = 60)
{
    const float speeds[4] = {12.0f, 20.0f, 40.0f, 80.0f};
    for (int i = 0; i < 4; ++i) expect_stopped_by_the_cube(speeds[i], 1);
}

Test(sleep_physics, c16_nor_through_an_awake_cube, .timeout = 60)
{
    const float speeds[4] = {12.0f, 20.0f, 40.0f, 80.0f};
    for (int i = 0; i < 4; ++i) expect_stopped_by_the_cube(speeds[i], 0);
}

/* ---------------------------------------------------------------- speed bound */

/* A 1 kg cube on a static box, sent at `speed` m/s along x, towards a static
 * wall 3 m away when `wall`; returns the world's fault flag after `steps` steps. */
static int faulted_after(float speed, int steps, int wall_ahead)
{
    tp_model_def md = tp_default_model_def();
    md.name = "speed";
    tp_builder *b = builder_begin(&md);
    tp_body_def ground = tp_default_body_def();
    ground.type = TP_BODY_STATIC;
    ground.size[0] = ground.size[1] = 40.0f;
    ground.pos[2] = -0.5f;
    builder_add(b, &ground);
    tp_body_def wall = ground;
    wall.size[0] = 1.0f, wall.size[2] = 4.0f;
    wall.pos[0] = 3.0f, wall.pos[2] = 2.0f;
    if (wall_ahead) builder_add(b, &wall);
    tp_body_def cube = tp_default_body_def();
    cube.mass = 1.0f;
    cube.pos[2] = 0.5f;
    int ci = builder_add(b, &cube);
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 2, 1);
    const float v[3] = {speed, 0.0f, 0.0f}, w[3] = {0.0f, 0.0f, 0.0f};
    cr_assert_eq(tp_batch_set_velocity(batch, 0, ci, v, w), TP_OK, "%s", tp_last_error());
    batch_steps(batch, steps);
    tp_state_view s = batch_view(batch);
    cr_expect_eq(s.faults[1], 0, "world 1 was not pushed and must not fault");
    int faulted = s.faults[0];
    tp_batch_destroy(batch);
    tp_model_destroy(m);
    return faulted;
}

Test(sleep_physics, a_speed_past_the_bound_faults_the_world)
{
    cr_expect(faulted_after(1e20f, 1, 1), "a body at 1e20 m/s into a wall must fault its world");
    cr_expect(faulted_after(1e20f, 1, 0), "a body at 1e20 m/s must fault its world");
    cr_expect(faulted_after(1.5f * TP_MAX_SPEED, 1, 0), "a body past TP_MAX_SPEED must fault its world");
    cr_expect(!faulted_after(0.5f * TP_MAX_SPEED, 1, 0), "a body below TP_MAX_SPEED is no blow-up");
    cr_expect(!faulted_after(100.0f, 30, 1), "a body hitting a wall at 100 m/s is no blow-up");
}
