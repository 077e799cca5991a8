/* test_solver.c - quality targets of the contact solver (issue 4) on the CPU
 * backend, built through the public builder API.
 *
 * Sleep is off in every scene here unless a test says otherwise: a sleeping
 * body is frozen, so a tower that sleeps would pass "stands still" whatever the
 * solver did. These tests look at the solver alone; the sleep tests look at
 * sleep. Each tolerance is derived in the comment above its assertion. */
#define _POSIX_C_SOURCE 200809L
#include "helpers.h"

#include <jansson.h>
#include <math.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define G 9.81f
#define DT (1.0f / 60.0f)
#define STEPS_10S 600

/* ---------------------------------------------------------------- builders */

static tp_model_def solver_def(tp_solver_mode mode)
{
    tp_model_def md = tp_default_model_def();
    md.name = "solver";
    md.sleep.enabled = 0;
    md.solver.mode = mode;
    return md;
}



/* A body of 1 m extents (or `size`), mass 1 kg, friction 0.6, restitution 0. */
static tp_body_def body(tp_shape_type shape, float x, float y, float z)
{
    tp_body_def bd = tp_default_body_def();
    bd.shape = shape;
    bd.pos[0] = x;
    bd.pos[1] = y;
    bd.pos[2] = z;
    bd.mass = 1.0f;
    bd.friction = 0.6f;
    return bd;
}

/* The static ground of CASES.md: a box whose top face is at z = 0. */
static int add_ground(tp_builder *b)
{
    tp_body_def bd = body(TP_SHAPE_BOX, 0, 0, -0.5f);
    bd.type = TP_BODY_STATIC;
    bd.size[0] = bd.size[1] = 40.0f;
    return builder_add(b, &bd);
}


/* C04: ten 1 m cubes of 1 kg stacked exactly on the ground (body 0). */
static tp_model *tower_model(tp_solver_mode mode)
{
    tp_model_def md = solver_def(mode);
    tp_builder *b = builder_begin(&md);
    add_ground(b);
    for (int i = 0; i < 10; ++i) {
        tp_body_def bd = body(TP_SHAPE_BOX, 0, 0, 0.5f + (float)i);
        builder_add(b, &bd);
    }
    return builder_finish(b);
}

/* A wall-like pyramid of 10 rows of 1 m cubes (55), in the x-z plane. Cubes of
 * a row stand PYRAMID_GAP apart; each row sits centred over the gaps of the row
 * below. A gap, not flush faces: with flush side faces every neighbour pair is
 * a contact at zero separation whose sign is decided by the rounding of the
 * positions, so lateral rows would switch on and off with float noise; a real
 * wall is built with a joint, and 1 cm is beyond the 0.1 mm slop, so side rows
 * stay speculative (they only act if the cubes close the gap, which is what a
 * sliding cube should meet). */
#define PYRAMID_ROWS 10
#define PYRAMID_GAP 0.01f
static tp_model *pyramid_model(tp_solver_mode mode)
{
    tp_model_def md = solver_def(mode);
    tp_builder *b = builder_begin(&md);
    add_ground(b);
    const float pitch = 1.0f + PYRAMID_GAP;
    for (int row = 0; row < PYRAMID_ROWS; ++row) {
        int n = PYRAMID_ROWS - row;
        float x0 = -0.5f * pitch * (float)(n - 1);
        for (int i = 0; i < n; ++i) {
            tp_body_def bd = body(TP_SHAPE_BOX, x0 + pitch * (float)i, 0, 0.5f + (float)row);
            builder_add(b, &bd);
        }
    }
    return builder_finish(b);
}

static tp_batch *batch_of(const tp_model *m, int worlds, int threads)
{
    return make_batch(m, worlds, threads);
}





static double dist3(const float *a, const float *b)
{
    double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1], dz = (double)a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Angle (degrees) between a body's local z axis and world z: for q = (x, y, z, w)
 * the rotated z axis has z component 1 - 2 (x^2 + y^2). */
static double tilt_deg(const float *q)
{
    double c = 1.0 - 2.0 * ((double)q[0] * q[0] + (double)q[1] * q[1]);
    return acos(c > 1.0 ? 1.0 : c) * 180.0 / M_PI;
}

#define MAX_POINTS 4096
static tp_contact_info points[MAX_POINTS];

/* Sum of the normal forces (N) of the contact points between bodies a < b in
 * world w, and how many points there are. */
static double pair_normal_force(tp_batch *batch, int w, int a, int b, int *n_points)
{
    int n = 0;
    cr_assert_eq(tp_batch_contacts(batch, w, points, MAX_POINTS, &n), TP_OK, "%s", tp_last_error());
    cr_assert_leq(n, MAX_POINTS);
    double f = 0.0;
    int k = 0;
    for (int i = 0; i < n; ++i)
        if (points[i].body_a == a && points[i].body_b == b) {
            f += points[i].normal_force;
            k++;
        }
    if (n_points) *n_points = k;
    return f;
}

/* ---------------------------------------------------------------- one box */

/* A 1 kg box resting on the ground: the ground pushes it with m g = 9.81 N in
 * every step; it stays where it was put and never leaves the ground. */
static tp_model *resting_box_model(void)
{
    tp_model_def md = solver_def(TP_SOLVER_COLORED);
    tp_builder *b = builder_begin(&md);
    add_ground(b);
    tp_body_def bd = body(TP_SHAPE_BOX, 0, 0, 0.5f);
    builder_add(b, &bd);
    return builder_finish(b);
}

Test(solver, box_at_rest_stays_put_and_never_leaves_the_ground)
{
    tp_model *m = resting_box_model();
    tp_batch *batch = batch_of(m, 1, 1);
    const float start[3] = {0, 0, 0.5f};
    double worst_gap = -1.0, min_force = 1e30, max_force = 0.0;
    for (int i = 0; i < STEPS_10S; ++i) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        int n = 0;
        double f = pair_normal_force(batch, 0, 0, 1, &n);
        /* Left the ground: a step with no contact point or no push from the
         * ground, or the lowest face above z = 0. A box lifted by d has its
         * bottom at d; 1 um is 1 % of the slop, far below any visible hop. */
        cr_assert_geq(n, 1, "step %d: no contact with the ground", i);
        cr_assert_gt(f, 0.0, "step %d: the ground did not push", i);
        double gap = (double)s.pos[3 * 1 + 2] - 0.5;
        cr_assert_leq(gap, 1e-6, "step %d: box bottom %.3g m above the ground", i, gap);
        if (gap > worst_gap) worst_gap = gap;
        if (f < min_force) min_force = f;
        if (f > max_force) max_force = f;
    }
    tp_state_view s = batch_view(batch);
    double moved = dist3(s.pos + 3, start);
    cr_log_info("box at rest: moved %.3g m in 10 s, highest bottom %.3g m, ground force in [%.5f, %.5f] N", moved,
                worst_gap, min_force, max_force);
    cr_assert_lt(moved, 1e-4, "centre moved %.3g m in 10 s (target < 0.1 mm)", moved);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* contact_f and the per-contact forces of a 1 kg box at rest both read m g.
 * At rest the box's momentum does not change over a step, so the ground's
 * impulse is m g dt exactly; what is left is the solver's velocity residual
 * and float rounding. 0.1 % of 9.81 N is a velocity change of 1.6e-4 m/s per
 * step, which the 0.1 mm rest target would not survive for long. */
Test(solver, resting_box_reports_its_weight)
{
    tp_model *m = resting_box_model();
    tp_batch *batch = batch_of(m, 1, 1);
    batch_steps(batch, 120);
    tp_state_view s = batch_view(batch);
    const double weight = 1.0 * G;
    double fz = s.contact_f[3 * 1 + 2], ground_fz = s.contact_f[2];
    int n = 0;
    double sum = pair_normal_force(batch, 0, 0, 1, &n);
    cr_log_info("resting box: contact_f z %.6f N, sum of %d points %.6f N", fz, n, sum);
    cr_assert_eq(n, 4, "a face on a face gives a 4-point manifold, got %d", n);
    cr_assert_float_eq(fz, weight, 1e-3 * weight, "contact_f z = %.6f N, expected %.4f N", fz, weight);
    cr_assert_float_eq(sum, weight, 1e-3 * weight, "per-contact sum %.6f N, expected %.4f N", sum, weight);
    cr_assert_float_eq(ground_fz, -fz, 1e-6 * weight, "the ground gets the opposite force");
    cr_assert_lt(fabs(s.contact_f[3]) + fabs(s.contact_f[4]), 1e-3 * weight, "no sideways force at rest");
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- incline */

/* A cube (friction mu) on a static slab (friction mu, so the combined value,
 * the geometric mean, is mu) tilted by angle a about y: downhill is
 * d = (cos a, 0, -sin a). Returns the distance (m) the cube moved along d at
 * each of the `n` times t_k = k * every steps. */
static void incline_run(double tan_a, float mu, int every, int n, double *along)
{
    double a = atan(tan_a);
    tp_model_def md = solver_def(TP_SOLVER_COLORED);
    tp_builder *b = builder_begin(&md);
    float q[4] = {0.0f, (float)sin(0.5 * a), 0.0f, (float)cos(0.5 * a)};
    tp_body_def slope = body(TP_SHAPE_BOX, 0, 0, 0);
    slope.type = TP_BODY_STATIC;
    slope.size[0] = 30.0f;
    slope.size[1] = 4.0f;
    slope.friction = mu;
    memcpy(slope.quat, q, sizeof q);
    builder_add(b, &slope);
    /* the cube's centre 1 m along the slab's normal (sin a, 0, cos a) from the
     * slab's centre, 5 m uphill: its bottom face lies on the slab's top face */
    tp_body_def cube = body(TP_SHAPE_BOX, (float)(sin(a) - 5.0 * cos(a)), 0, (float)(cos(a) + 5.0 * sin(a)));
    cube.friction = mu;
    memcpy(cube.quat, q, sizeof q);
    builder_add(b, &cube);
    tp_model *m = builder_finish(b);
    tp_batch *batch = batch_of(m, 1, 1);
    tp_state_view s = batch_view(batch);
    float start[3];
    memcpy(start, s.pos + 3, sizeof start);
    for (int k = 0; k < n; ++k) {
        batch_steps(batch, every);
        s = batch_view(batch);
        along[k] = ((double)s.pos[3] - start[0]) * cos(a) - ((double)s.pos[5] - start[2]) * sin(a);
    }
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* Static friction holds when tan a < mu. "Stays put": less than 1 mm in 2 s.
 * The slowest slide this test family allows (tan a = mu + 0.05) accelerates at
 * about 0.05 g cos a ~ 0.4 m/s^2 and covers ~0.8 m in 2 s, so 1 mm (ten slops)
 * tells holding from sliding by a factor of several hundred. */
Test(solver, incline_holds_below_the_friction_angle)
{
    const struct { double tan_a; float mu; } cases[] = {{0.5, 0.6f}, {0.2, 0.3f}, {0.9, 0.96f}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double along[1];
        incline_run(cases[c].tan_a, cases[c].mu, 120, 1, along);
        cr_log_info("incline tan a = %.2f, mu = %.2f: moved %.3g m in 2 s", cases[c].tan_a, cases[c].mu, along[0]);
        cr_assert_lt(fabs(along[0]), 1e-3, "tan a = %.2f, mu = %.2f: slid %.3g m in 2 s", cases[c].tan_a,
                     cases[c].mu, along[0]);
    }
}

/* Sliding: a = g (sin a - mu cos a). The acceleration is measured by a second
 * difference of the positions at 0.5, 1.0 and 1.5 s, after the start transient
 * (the first steps settle the contact), exact for constant acceleration. */
Test(solver, incline_slides_with_the_coulomb_acceleration)
{
    const struct { double tan_a; float mu; } cases[] = {{0.5, 0.3f}, {0.5, 0.4f}, {0.3, 0.1f}, {0.5, 0.0f}, {0.9, 0.6f}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double along[3], a = atan(cases[c].tan_a);
        incline_run(cases[c].tan_a, cases[c].mu, 30, 3, along);
        double T = 30.0 * DT;
        double measured = (along[2] - 2.0 * along[1] + along[0]) / (T * T);
        double expected = G * (sin(a) - cases[c].mu * cos(a));
        cr_log_info("incline tan a = %.2f, mu = %.2f: a = %.4f m/s^2, expected %.4f (%.2f %%)", cases[c].tan_a,
                    cases[c].mu, measured, expected, 100.0 * (measured - expected) / expected);
        cr_assert_float_eq(measured, expected, 0.02 * expected, "tan a = %.2f, mu = %.2f: a = %.4f, expected %.4f",
                           cases[c].tan_a, cases[c].mu, measured, expected);
    }
}

/* ---------------------------------------------------------------- bounce */

/* A ball of restitution 0.5 (the ground's 0; the pair takes the larger)
 * dropped with its bottom 1 m above the ground rebounds at e v, so its apex
 * is e^2 x 1 m = 0.25 m. The apex is sampled once per step: at the rebound
 * speed of 2.2 m/s the sampled maximum is at most g (dt/2)^2 / 2 = 0.3 mm low,
 * well inside the 5 % (12.5 mm) target. */
Test(solver, bouncing_ball_rebounds_to_e_squared_height)
{
    tp_model_def md = solver_def(TP_SOLVER_COLORED);
    tp_builder *b = builder_begin(&md);
    add_ground(b);
    tp_body_def ball = body(TP_SHAPE_BALL, 0, 0, 1.5f);
    ball.restitution = 0.5f;
    builder_add(b, &ball);
    tp_model *m = builder_finish(b);
    tp_batch *batch = batch_of(m, 1, 1);
    int phase = 0; /* 0 falling, 1 rising after the first bounce, 2 past the apex */
    double apex = 0.0;
    for (int i = 0; i < 240 && phase < 2; ++i) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        double z = s.pos[5] - 0.5, vz = s.v[5];
        if (phase == 0 && vz > 0.0f) phase = 1;
        if (phase == 1) {
            if (z > apex) apex = z;
            if (vz < 0.0f) phase = 2;
        }
    }
    cr_assert_eq(phase, 2, "the ball did not bounce and come back down within 4 s");
    cr_log_info("bouncing ball: first apex %.5f m, expected 0.25 m (%.2f %%)", apex, 100.0 * (apex - 0.25) / 0.25);
    cr_assert_float_eq(apex, 0.25, 0.05 * 0.25, "first rebound apex %.5f m, expected 0.25 m within 5 %%", apex);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- momentum */

/* Two boxes collide off-centre in zero gravity. Every impulse is applied with
 * equal and opposite signs, so total linear momentum changes only by float
 * rounding: ~1e-7 relative per application, a few thousand applications in a
 * random walk, ~1e-6; 1e-5 is the target. */
Test(solver, collision_conserves_linear_momentum)
{
    tp_model_def md = solver_def(TP_SOLVER_COLORED);
    md.gravity[2] = 0.0f;
    tp_builder *b = builder_begin(&md);
    tp_body_def a = body(TP_SHAPE_BOX, -1.0f, 0.0f, 0.0f);
    a.vel[0] = 2.0f;
    a.ang_vel[2] = 0.5f;
    tp_body_def c = body(TP_SHAPE_BOX, 1.0f, 0.3f, 0.2f);
    c.mass = 3.0f;
    c.vel[0] = -1.0f;
    c.vel[1] = 0.1f;
    float q[4] = {0.1f, 0.2f, 0.3f, 0.927362f};
    memcpy(c.quat, q, sizeof q);
    builder_add(b, &a);
    builder_add(b, &c);
    tp_model *m = builder_finish(b);
    tp_batch *batch = batch_of(m, 1, 1);
    const double mass[2] = {1.0, 3.0};
    double p0[3] = {0, 0, 0}, scale = 0.0;
    tp_state_view s = batch_view(batch);
    for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 3; ++k) {
            p0[k] += mass[i] * s.v[3 * i + k];
            scale += fabs(mass[i] * s.v[3 * i + k]);
        }
    batch_steps(batch, 60);
    s = batch_view(batch);
    double err = 0.0;
    for (int k = 0; k < 3; ++k) {
        double p1 = mass[0] * s.v[k] + mass[1] * s.v[3 + k];
        err += (p1 - p0[k]) * (p1 - p0[k]);
    }
    err = sqrt(err) / scale;
    double dv = fabs((double)s.v[0] - 2.0);
    cr_log_info("two boxes: box A's vx changed by %.4f m/s, momentum error %.3g (relative)", dv, err);
    cr_assert_gt(dv, 0.5, "the boxes did not collide (box A's vx changed by %.3g m/s)", dv);
    cr_assert_lt(err, 1e-5, "linear momentum changed by %.3g relative", err);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- stacks */

/* Largest distance (m) any dynamic body of world w moved from `start`. */
static double max_moved(const tp_state_view *s, int w, const float *start, int *which)
{
    double worst = 0.0;
    for (int b = 1; b < s->bodies; ++b) {
        double d = dist3(s->pos + 3 * ((size_t)w * s->bodies + b), start + 3 * b);
        if (d > worst) {
            worst = d;
            if (which) *which = b;
        }
    }
    return worst;
}

/* Run 10 s in `worlds` worlds and copy world 0's final positions to out. */
static tp_batch *run_10s(const tp_model *m, int worlds, int threads, float *start, float *out)
{
    tp_batch *batch = batch_of(m, worlds, threads);
    tp_state_view s = batch_view(batch);
    memcpy(start, s.pos, 3 * sizeof(float) * (size_t)s.bodies);
    batch_steps(batch, STEPS_10S);
    s = batch_view(batch);
    memcpy(out, s.pos, 3 * sizeof(float) * (size_t)s.bodies);
    return batch;
}

#define TOWER_TOP 10
/* C04: the tower stands 10 s; the top cube moves < 1 mm and tilts < 0.1
 * degree; under the top face of the bottom cube (b0-b1) the nine cubes above
 * weigh 9 x 9.81 N, within 1 %. */
Test(solver, tower_of_ten_stands_still)
{
    tp_model *m = tower_model(TP_SOLVER_COLORED);
    float start[3 * 11], end[3 * 11];
    tp_batch *batch = run_10s(m, 1, 1, start, end);
    tp_state_view s = batch_view(batch);
    double moved = dist3(end + 3 * TOWER_TOP, start + 3 * TOWER_TOP), tilt = tilt_deg(s.quat + 4 * TOWER_TOP);
    int n = 0;
    double f = pair_normal_force(batch, 0, 1, 2, &n), expected = 9.0 * G;
    cr_log_info("tower: top moved %.3g mm, tilted %.3g deg; b0-b1 normal force %.4f N over %d points (%.3f %%)",
                1e3 * moved, tilt, f, n, 100.0 * (f - expected) / expected);
    cr_assert_lt(moved, 1e-3, "top cube moved %.3g mm in 10 s", 1e3 * moved);
    cr_assert_lt(tilt, 0.1, "top cube tilted %.3g degree", tilt);
    cr_assert_eq(n, 4, "b0-b1 should touch face to face (4 points), got %d", n);
    cr_assert_float_eq(f, expected, 0.01 * expected, "b0-b1 normal force %.4f N, expected %.4f N", f, expected);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* C04 in many worlds: every world is the same bits as the single-world run
 * (so every world stood as the single world did). 16 worlds run the whole
 * 10 s; 128 worlds run the first 0.5 s, in which the contacts settle (the same
 * code path: replicate invariance is what is checked, not the physics again),
 * to keep the suite short on a 2-core CI machine. */
Test(solver, tower_is_alike_in_every_world)
{
    tp_model *m = tower_model(TP_SOLVER_COLORED);
    const struct { int worlds, steps; } runs[] = {{16, STEPS_10S}, {128, 30}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
        tp_batch *one = batch_of(m, 1, 1), *many = batch_of(m, runs[r].worlds, 1);
        batch_steps(one, runs[r].steps);
        batch_steps(many, runs[r].steps);
        uint64_t h = batch_world_hash(one, 0);
        for (int w = 0; w < runs[r].worlds; ++w)
            cr_assert_eq(batch_world_hash(many, w), h, "%d worlds, %d steps: world %d differs from the single world",
                         runs[r].worlds, runs[r].steps, w);
        tp_batch_destroy(one);
        tp_batch_destroy(many);
    }
    tp_model_destroy(m);
}

/* Colored and serial mode solve the same rows in different orders; both
 * converge to the resting state, so after 10 s every cube is within 1 mm of
 * its place in the other mode. Each run must also stand: no cube moved more
 * than `stand` metres (the pyramid's 5 mm target). */
static void compare_modes(tp_model *(*make)(tp_solver_mode), int bodies, const char *name, double stand)
{
    tp_model *mc = make(TP_SOLVER_COLORED), *ms = make(TP_SOLVER_SERIAL);
    float start[3 * 56], colored[3 * 56], serial[3 * 56];
    cr_assert_eq(tp_model_body_count(mc), bodies);
    tp_batch *bc = run_10s(mc, 1, 1, start, colored), *bs = run_10s(ms, 1, 1, start, serial);
    tp_state_view sc = batch_view(bc), ss = batch_view(bs);
    int wc = 0, ws = 0, which = 0;
    double moved_c = max_moved(&sc, 0, start, &wc), moved_s = max_moved(&ss, 0, start, &ws), worst = 0.0;
    for (int b = 1; b < bodies; ++b) {
        double d = dist3(colored + 3 * b, serial + 3 * b);
        if (d > worst) {
            worst = d;
            which = b;
        }
    }
    cr_log_info("%s: largest move %.3g mm colored (body %d), %.3g mm serial (body %d); colored vs serial %.3g mm (body %d)",
                name, 1e3 * moved_c, wc, 1e3 * moved_s, ws, 1e3 * worst, which);
    cr_assert_lt(moved_c, stand, "%s, colored: body %d moved %.3g mm in 10 s", name, wc, 1e3 * moved_c);
    cr_assert_lt(moved_s, stand, "%s, serial: body %d moved %.3g mm in 10 s", name, ws, 1e3 * moved_s);
    cr_assert_lt(worst, 1e-3, "%s: body %d differs by %.3g mm between colored and serial", name, which, 1e3 * worst);
    tp_batch_destroy(bc);
    tp_batch_destroy(bs);
    tp_model_destroy(mc);
    tp_model_destroy(ms);
}

/* The tower's own target (top < 1 mm) is checked above; here every cube of
 * either mode stays within 1 mm too. */
Test(solver, colored_matches_serial_on_the_tower) { compare_modes(tower_model, 11, "tower", 1e-3); }

/* The pyramid of 10 rows (55 cubes) stands 10 s in both modes, no cube moving
 * more than 5 mm, and the two modes agree within 1 mm. */
Test(solver, pyramid_of_ten_rows_stands_and_colored_matches_serial)
{
    compare_modes(pyramid_model, 56, "pyramid", 5e-3);
}

/* ---------------------------------------------------------------- determinism */

/* C10 and C11 on tests/scenes/heap20.json: twenty tilted cubes dropped into a
 * heap, every world with its own position and yaw noise (so worlds differ and
 * a mix-up between worlds shows). CASES.md asks for 1000 steps; the suite runs
 * HEAP_STEPS = 120 (2 s: the cubes land and tumble in the first second and a
 * half, which is where rounding differences would be amplified) so that it
 * stays short on a 2-core CI machine under the sanitizers. Set
 * TP_HEAP_STEPS=1000 in the environment for the full case. */
#define HEAP_SCENE TP_SOURCE_DIR "/tests/scenes/heap20.json"
#define HEAP_WORLDS 64

static int heap_steps(void)
{
    const char *e = getenv("TP_HEAP_STEPS");
    int n = e ? atoi(e) : 120;
    return n > 0 ? n : 120;
}

static tp_model *heap_model(void)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(HEAP_SCENE, &m), TP_OK, "%s", tp_last_error());
    return m;
}

/* Run the heap in `worlds` worlds on `threads` threads; per-world hashes to
 * out[0 .. worlds) and the batch hash to *total. If push_world >= 0, body 5 of
 * that world gets an impulse after 30 steps. */
static void heap_run(const tp_model *m, int worlds, int threads, int push_world, uint64_t *out, uint64_t *total)
{
    tp_batch *batch = batch_of(m, worlds, threads);
    int steps = heap_steps();
    batch_steps(batch, 30);
    if (push_world >= 0) {
        const float impulse[3] = {2.0f, 0.0f, 1.0f};
        cr_assert_eq(tp_batch_apply_impulse(batch, push_world, 5, impulse, NULL), TP_OK, "%s", tp_last_error());
    }
    batch_steps(batch, steps - 30);
    for (int w = 0; w < worlds; ++w) out[w] = batch_world_hash(batch, w);
    if (total) *total = batch_state_hash(batch);
    tp_state_view s = batch_view(batch);
    for (int w = 0; w < worlds; ++w) cr_assert_eq(s.faults[w], 0, "world %d faulted", w);
    tp_batch_destroy(batch);
}

/* The same run in two separate processes: `torpor run` (a child process, on 3
 * threads) must write the batch hash and every world hash this process gets. */
static void cli_heap_hashes(int steps, uint64_t *out, uint64_t *total)
{
    char dir[] = "/tmp/tp_solver_XXXXXX", cmd[1024], path[256];
    cr_assert_not_null(mkdtemp(dir));
    /* Leak checking is off for the child: this test compares hashes, and the
     * CLI's plotting libraries (fontconfig) keep allocations to exit, which
     * LeakSanitizer reports with exit status 1 in the Sanitize build. */
    snprintf(cmd, sizeof cmd,
             "ASAN_OPTIONS=detect_leaks=0 %s run %s --worlds %d --steps %d --threads 3 --quiet --out %s >/dev/null",
             TP_CLI, HEAP_SCENE, HEAP_WORLDS, steps, dir);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "torpor run failed: %s", cmd);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    cr_assert_not_null(j, "%s: %s", path, err.text);
    json_t *hashes = json_object_get(j, "world_hashes");
    cr_assert_eq(json_array_size(hashes), (size_t)HEAP_WORLDS);
    for (int w = 0; w < HEAP_WORLDS; ++w)
        out[w] = strtoull(json_string_value(json_array_get(hashes, (size_t)w)), NULL, 16);
    *total = strtoull(json_string_value(json_object_get(j, "state_hash")), NULL, 16);
    json_decref(j);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* C10: the same run twice (here on 2 and on 1 threads) and in another process
 * (on 3 threads) gives the same batch hash and the same hash in every world;
 * the worlds differ from each other (randomized), so a swap would show. */
Test(solver, c10_same_run_same_bits_in_any_process_and_thread_count)
{
    tp_model *m = heap_model();
    static uint64_t a[HEAP_WORLDS], b[HEAP_WORLDS], c[HEAP_WORLDS];
    uint64_t ta = 0, tb = 0, tc = 0;
    heap_run(m, HEAP_WORLDS, 2, -1, a, &ta);
    heap_run(m, HEAP_WORLDS, 1, -1, b, &tb);
    cli_heap_hashes(heap_steps(), c, &tc);
    cr_log_info("C10 heap, %d steps: batch hash %016llx", heap_steps(), (unsigned long long)ta);
    cr_assert_neq(a[0], a[1], "worlds 0 and 1 should differ (randomized)");
    for (int w = 0; w < HEAP_WORLDS; ++w) {
        cr_assert_eq(a[w], b[w], "world %d: 2 threads and 1 thread differ", w);
        cr_assert_eq(a[w], c[w], "world %d: this process and torpor run differ", w);
    }
    cr_assert_eq(ta, tb);
    cr_assert_eq(ta, tc);
    tp_model_destroy(m);
}

/* C11: world 0 ends with the same bits at 1, 2 and 64 worlds, and when only
 * world 1 is pushed. */
Test(solver, c11_world_zero_ignores_the_other_worlds)
{
    tp_model *m = heap_model();
    static uint64_t many[HEAP_WORLDS];
    uint64_t one[1], two[2], pushed[2];
    heap_run(m, HEAP_WORLDS, 2, -1, many, NULL);
    heap_run(m, 1, 1, -1, one, NULL);
    heap_run(m, 2, 2, -1, two, NULL);
    heap_run(m, 2, 2, 1, pushed, NULL);
    cr_assert_eq(one[0], many[0], "world 0 differs between 1 and 64 worlds");
    cr_assert_eq(two[0], many[0], "world 0 differs between 2 and 64 worlds");
    cr_assert_eq(two[1], many[1], "world 1 differs between 2 and 64 worlds");
    cr_assert_neq(pushed[1], two[1], "the push did not change world 1");
    cr_assert_eq(pushed[0], two[0], "pushing world 1 changed world 0");
    tp_model_destroy(m);
}

/* Threads 1, 2, 3 and 9 give the same bits on the heap in 7 worlds (uneven
 * splits: the pool's static ranges give the threads different world counts;
 * 9 threads for 7 worlds make a pool of 7, one world each). */
Test(solver, thread_count_does_not_change_the_bits)
{
    tp_model *m = heap_model();
    const int threads[4] = {1, 2, 3, 9};
    uint64_t h[4][7], t[4];
    for (int k = 0; k < 4; ++k) heap_run(m, 7, threads[k], -1, h[k], &t[k]);
    for (int k = 1; k < 4; ++k) {
        cr_assert_eq(t[k], t[0], "%d threads and 1 thread differ", threads[k]);
        for (int w = 0; w < 7; ++w) cr_assert_eq(h[k][w], h[0][w], "world %d: %d threads differ", w, threads[k]);
    }
    tp_model_destroy(m);
}

/* Speculative margins grow with speed (kernels/broadphase.h tp_body_sweep): a
 * ball of radius 0.1 m thrown down at up to 80 m/s (1.3 m per step, 6.7 times
 * the thickness of the 0.2 m slab) stops on the slab, its centre never more
 * than the 0.5 mm slop plus one substep's gravity travel below r. */
Test(solver, fast_ball_does_not_tunnel)
{
    const float speeds[4] = {5.0f, 20.0f, 40.0f, 80.0f};
    for (int k = 0; k < 4; ++k) {
        tp_model_def md = solver_def(TP_SOLVER_COLORED);
        md.sleep.enabled = 1;
        tp_builder *bl = builder_begin(&md);
        tp_body_def slab = tp_default_body_def();
        slab.type = TP_BODY_STATIC;
        slab.size[0] = slab.size[1] = 4.0f;
        slab.size[2] = 0.2f;
        slab.pos[2] = -0.1f;
        builder_add(bl, &slab);
        tp_body_def ball = tp_default_body_def();
        ball.shape = TP_SHAPE_BALL;
        ball.size[0] = ball.size[1] = ball.size[2] = 0.2f;
        ball.mass = 1.0f;
        ball.pos[2] = 3.0f;
        ball.vel[2] = -speeds[k];
        builder_add(bl, &ball);
        tp_model *m = builder_finish(bl);
        tp_batch *b = batch_of(m, 1, 1);
        float lowest = 10.0f;
        for (int s = 0; s < 120; ++s) {
            batch_steps(b, 1);
            tp_state_view v = batch_view(b);
            lowest = fminf(lowest, v.pos[3 * 1 + 2]);
        }
        tp_state_view v = batch_view(b);
        float h = md.dt / (float)md.substeps;
        cr_assert(lowest >= 0.1f - 0.0005f - 9.81f * h * h - 1e-4f, "at %g m/s the ball sank to z = %g", speeds[k], lowest);
        cr_assert(fabsf(v.pos[3 * 1 + 2] - 0.1f) < 1e-3f, "at %g m/s the ball ends at z = %g, not on the slab", speeds[k],
                  v.pos[3 * 1 + 2]);
        tp_batch_destroy(b);
        tp_model_destroy(m);
    }
}

/* ---------------------------------------------------------------- C15 */

/* Heights (m) of the lowest point of a ball of diameter 0.5 m and 1 kg at the
 * apex of each of its first `n` bounces, dropped with its lowest point `drop`
 * metres above a ground of the same restitution `e`. The apex is the largest
 * sampled height between an upward and the next downward step. */
static void bounce_apexes(float e, float drop, int n, double *apex)
{
    tp_model_def md = solver_def(TP_SOLVER_COLORED);
    tp_builder *b = builder_begin(&md);
    tp_body_def ground = body(TP_SHAPE_BOX, 0, 0, -0.5f);
    ground.type = TP_BODY_STATIC;
    ground.size[0] = ground.size[1] = 40.0f;
    ground.restitution = e;
    builder_add(b, &ground);
    tp_body_def ball = body(TP_SHAPE_BALL, 0, 0, drop + 0.25f);
    ball.size[0] = ball.size[1] = ball.size[2] = 0.5f;
    ball.restitution = e;
    builder_add(b, &ball);
    tp_model *m = builder_finish(b);
    tp_batch *batch = batch_of(m, 1, 1);
    int found = 0, rising = 0;
    double best = 0.0;
    for (int i = 0; i < 60 * 60 && found < n; ++i) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        double z = (double)s.pos[5] - 0.25, vz = s.v[5];
        if (!rising && vz > 0.0) {
            rising = 1;
            best = z;
        }
        if (rising) {
            if (z > best) best = z;
            if (vz < 0.0) {
                apex[found++] = best;
                rising = 0;
            }
        }
    }
    cr_assert_eq(found, n, "only %d of %d bounces within 60 s", found, n);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* C15: with restitution 1 nothing dissipates energy, so each of the first five
 * bounces brings the lowest point back to the drop height, within 1 %. The
 * apex is sampled once per step: near it the ball moves at most g dt / 2, so
 * the sample is at most g (dt/2)^2 / 2 = 0.34 mm low, 0.03 % of 1 m. */
Test(solver, c15_elastic_ball_keeps_its_height)
{
    const float drops[2] = {1.0f, 3.0f};
    for (int d = 0; d < 2; ++d) {
        double apex[5];
        bounce_apexes(1.0f, drops[d], 5, apex);
        for (int k = 0; k < 5; ++k) {
            cr_log_info("C15 e = 1, drop %.1f m: bounce %d apex %.5f m (%+.3f %%)", drops[d], k + 1, apex[k],
                        100.0 * (apex[k] - drops[d]) / drops[d]);
            cr_assert_float_eq(apex[k], drops[d], 0.01 * drops[d], "drop %.1f m, bounce %d: apex %.5f m", drops[d],
                               k + 1, apex[k]);
        }
    }
}

/* C15, second part: e = 0.5 on both, dropped 2 m: the ball leaves the ground
 * at e times its impact speed, so it rises to e^2 x 2 m = 0.5 m, within 2 %. */
Test(solver, c15_half_elastic_ball_rises_to_e_squared_height)
{
    double apex[1];
    bounce_apexes(0.5f, 2.0f, 1, apex);
    cr_log_info("C15 e = 0.5, drop 2 m: first apex %.5f m (%+.3f %%)", apex[0], 100.0 * (apex[0] - 0.5) / 0.5);
    cr_assert_float_eq(apex[0], 0.5, 0.02 * 0.5, "first apex %.5f m, expected 0.5 m within 2 %%", apex[0]);
}

/* Restitution of a box landing flat (four points at once) must not turn its
 * fall into spin or extra height: e = 1, dropped 1 m flat, the box comes back
 * to 1 m within 1 % and its spin stays below what a 1 mm height difference
 * across the face would make (a spin w lifts a corner by w r dt per step; we
 * allow 0.05 rad/s, a corner speed of 2.5 cm/s against the 4.4 m/s rebound). */
Test(solver, elastic_box_landing_flat_neither_spins_nor_gains_height)
{
    tp_model_def md = solver_def(TP_SOLVER_COLORED);
    tp_builder *b = builder_begin(&md);
    tp_body_def ground = body(TP_SHAPE_BOX, 0, 0, -0.5f);
    ground.type = TP_BODY_STATIC;
    ground.size[0] = ground.size[1] = 40.0f;
    ground.restitution = 1.0f;
    builder_add(b, &ground);
    tp_body_def box = body(TP_SHAPE_BOX, 0, 0, 1.5f);
    box.restitution = 1.0f;
    builder_add(b, &box);
    tp_model *m = builder_finish(b);
    tp_batch *batch = batch_of(m, 1, 1);
    int rising = 0, done = 0;
    double best = 0.0, spin = 0.0;
    for (int i = 0; i < 240 && !done; ++i) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        double z = (double)s.pos[5] - 0.5, vz = s.v[5];
        double w = sqrt((double)s.w[3] * s.w[3] + (double)s.w[4] * s.w[4] + (double)s.w[5] * s.w[5]);
        if (w > spin) spin = w;
        if (!rising && vz > 0.0) rising = 1;
        if (rising) {
            if (z > best) best = z;
            if (vz < 0.0) done = 1;
        }
    }
    cr_log_info("elastic box, flat landing: apex %.5f m (%+.3f %%), largest spin %.3g rad/s", best,
                100.0 * (best - 1.0), spin);
    cr_assert(done, "the box did not bounce and come back down within 4 s");
    cr_assert_float_eq(best, 1.0, 0.01, "apex %.5f m, expected 1 m within 1 %%", best);
    cr_assert_lt(spin, 0.05, "the box spins at %.3g rad/s after a flat landing", spin);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* A flat e = 1 landing is symmetric, so it must give no spin however many
 * times it repeats: a 1 m box dropped flat from 1 m (friction 0.6, e = 1 on
 * both) onto the ground and onto a static 1 m pillar under it (flush faces,
 * where a spin of a few degrees tips it off the edge) bounces four times,
 * each apex 1 m within 1 %, its spin below 1e-4 rad/s throughout and its face
 * flat within 1e-3 rad. The bound: exact arithmetic gives 0; the sweeps of a
 * phase stop once a backward sweep changes no velocity by more than
 * TP_SWEEP_TOL = 1e-5 rad/s, so each bounce leaves a few of those at most:
 * 1e-4 is ten. Before the bounce phase could sweep to convergence, 8 sweeps
 * left 0.011 rad/s at the first bounce, and the box tumbled at the fourth
 * (on the pillar: tipped off it). */
Test(solver, elastic_box_bounces_flat_four_times_without_spin)
{
    for (int pillar = 0; pillar < 2; ++pillar) {
        tp_model_def md = solver_def(TP_SOLVER_COLORED);
        tp_builder *b = builder_begin(&md);
        tp_body_def ground = body(TP_SHAPE_BOX, 0, 0, pillar ? 0.5f : -0.5f);
        ground.type = TP_BODY_STATIC;
        if (!pillar) ground.size[0] = ground.size[1] = 40.0f;
        ground.restitution = 1.0f;
        builder_add(b, &ground);
        float top = pillar ? 1.0f : 0.0f;
        tp_body_def box = body(TP_SHAPE_BOX, 0, 0, top + 1.5f);
        box.restitution = 1.0f;
        builder_add(b, &box);
        tp_model *m = builder_finish(b);
        tp_batch *batch = batch_of(m, 1, 1);
        int rising = 0, bounces = 0;
        double best = 0.0, spin = 0.0, tilt = 0.0;
        for (int i = 0; i < 60 * 8 && bounces < 4; ++i) {
            batch_steps(batch, 1);
            tp_state_view s = batch_view(batch);
            double z = (double)s.pos[5] - 0.5 - top, vz = s.v[5];
            double w = sqrt((double)s.w[3] * s.w[3] + (double)s.w[4] * s.w[4] + (double)s.w[5] * s.w[5]);
            const float *q = s.quat + 4;
            double t = 2.0 * asin(fmin(1.0, sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2])));
            spin = fmax(spin, w);
            tilt = fmax(tilt, t);
            if (!rising && vz > 0.0) {
                rising = 1;
                best = z;
            }
            if (rising) {
                best = fmax(best, z);
                if (vz < 0.0) {
                    rising = 0;
                    bounces++;
                    cr_log_info("flat e = 1 box%s: bounce %d apex %.5f m, spin so far %.3g rad/s", pillar ? " on a pillar" : "",
                                bounces, best, spin);
                    cr_assert_float_eq(best, 1.0, 0.01, "bounce %d: apex %.5f m, expected 1 m within 1 %%", bounces, best);
                }
            }
        }
        cr_assert_eq(bounces, 4, "%s: %d bounces in 8 s", pillar ? "pillar" : "ground", bounces);
        cr_assert_lt(spin, 1e-4, "%s: the box spins at %.3g rad/s after flat landings", pillar ? "pillar" : "ground", spin);
        cr_assert_lt(tilt, 1e-3, "%s: the box turned by %.3g rad", pillar ? "pillar" : "ground", tilt);
        tp_batch_destroy(batch);
        tp_model_destroy(m);
    }
}

/* Below the restitution threshold nothing bounces: a ball of e = 1 released
 * 2 cm above the ground meets it at sqrt(2 g 0.02) = 0.63 m/s, under the
 * default 1 m/s threshold, so it stays on the ground (lowest point within the
 * 0.5 mm slop plus 1 mm of the ground after 1 s). */
Test(solver, restitution_respects_the_threshold)
{
    double apex[1] = {0.0};
    tp_model_def md = solver_def(TP_SOLVER_COLORED);
    tp_builder *b = builder_begin(&md);
    tp_body_def ground = body(TP_SHAPE_BOX, 0, 0, -0.5f);
    ground.type = TP_BODY_STATIC;
    ground.size[0] = ground.size[1] = 40.0f;
    ground.restitution = 1.0f;
    builder_add(b, &ground);
    tp_body_def ball = body(TP_SHAPE_BALL, 0, 0, 0.27f);
    ball.size[0] = ball.size[1] = ball.size[2] = 0.5f;
    ball.restitution = 1.0f;
    builder_add(b, &ball);
    tp_model *m = builder_finish(b);
    tp_batch *batch = batch_of(m, 1, 1);
    for (int i = 0; i < 60; ++i) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        if (i > 10 && s.pos[5] - 0.25 > apex[0]) apex[0] = s.pos[5] - 0.25;
    }
    cr_log_info("threshold: highest point after landing %.3g m", apex[0]);
    cr_assert_lt(apex[0], 1.5e-3, "a 0.63 m/s impact bounced to %.3g m", apex[0]);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- C17 */

/* C17: two 0.5 m cubes stacked exactly on the ground, the lower of 1 kg, the
 * upper of `heavy` kg, default solver settings. For 10 s each contact overlaps
 * less than 1 mm (lower centre above 0.249 m, upper above 0.748 m), neither
 * cube moves sideways by more than 1 mm, and from 5 s on both are still
 * (speed under 0.1 mm/s). Beyond CASES.md: from 5 s on the contact forces read
 * the weights they carry (ground (1 + heavy) g, middle heavy g) within 1 %, so
 * the warm-start impulses have learnt the load that the shock pass held at
 * first (kernels/shock.h). */
static void heavy_on_light(float heavy)
{
    tp_model_def md = solver_def(TP_SOLVER_COLORED);
    tp_builder *b = builder_begin(&md);
    add_ground(b);
    tp_body_def lo = body(TP_SHAPE_BOX, 0, 0, 0.25f);
    lo.size[0] = lo.size[1] = lo.size[2] = 0.5f;
    builder_add(b, &lo);
    tp_body_def hi = body(TP_SHAPE_BOX, 0, 0, 0.75f);
    hi.size[0] = hi.size[1] = hi.size[2] = 0.5f;
    hi.mass = heavy;
    builder_add(b, &hi);
    tp_model *m = builder_finish(b);
    tp_batch *batch = batch_of(m, 1, 1);
    double low[2] = {1e9, 1e9}, side = 0.0, late_speed = 0.0, force_err = 0.0;
    const double g = 9.81, w_ground = (1.0 + (double)heavy) * g, w_top = (double)heavy * g;
    for (int i = 0; i < STEPS_10S; ++i) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        if (i >= STEPS_10S / 2) { /* from 5 s on each contact carries the weight above it */
            tp_contact_info c[16];
            int n = 0;
            cr_assert_eq(tp_batch_contacts(batch, 0, c, 16, &n), TP_OK);
            double f[2] = {0.0, 0.0};
            for (int k = 0; k < n && k < 16; ++k) f[c[k].body_a == 0 ? 0 : 1] += c[k].normal_force;
            force_err = fmax(force_err, fmax(fabs(f[0] / w_ground - 1.0), fabs(f[1] / w_top - 1.0)));
        }
        for (int k = 0; k < 2; ++k) {
            const float *p = s.pos + 3 * (1 + k), *v = s.v + 3 * (1 + k);
            if (p[2] < low[k]) low[k] = p[2];
            double d = sqrt((double)p[0] * p[0] + (double)p[1] * p[1]);
            if (d > side) side = d;
            double sp = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
            if (i >= STEPS_10S / 2 && sp > late_speed) late_speed = sp;
        }
    }
    cr_log_info("C17 %g:1: lowest centres %.5f / %.5f m, sideways %.3g mm, speed after 5 s %.3g mm/s, "
                "contact forces from 5 s on within %.3g %% of the weights carried", (double)heavy,
                low[0], low[1], 1e3 * side, 1e3 * late_speed, 1e2 * force_err);
    cr_assert_gt(low[0], 0.249, "%g:1: the light cube sank to %.5f m", (double)heavy, low[0]);
    cr_assert_gt(low[1], 0.748, "%g:1: the heavy cube sank to %.5f m", (double)heavy, low[1]);
    cr_assert_lt(side, 1e-3, "%g:1: a cube moved %.3g mm sideways", (double)heavy, 1e3 * side);
    cr_assert_lt(late_speed, 1e-4, "%g:1: still moving at %.3g mm/s after 5 s", (double)heavy, 1e3 * late_speed);
    cr_assert_lt(force_err, 0.01, "%g:1: a contact force is %.3g %% off the weight it carries", (double)heavy,
                 1e2 * force_err);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* Measured with the shock pass (kernels/shock.h; session 7): 1000:1 lowest
 * centres 0.24996 / 0.74977 m, sideways 0.24 mm, 0.049 mm/s after 5 s, forces
 * within 0.013 %. Before it (plain projected Gauss-Seidel): the light cube sank to
 * 0.2470 m and slid 27 mm, the heavy one sank to 0.7245 m, both still moved
 * at 4.6 mm/s after 5 s. */
Test(solver, c17_heavy_box_on_a_light_one) { heavy_on_light(1000.0f); }
Test(solver, c17_hundredfold_box_on_a_light_one) { heavy_on_light(100.0f); }

/* ---------------------------------------------------------------- C19 */

#define C04_SCENE TP_SOURCE_DIR "/tests/scenes/sleep/c04_tower.json"

/* Seconds after a push of `impulse` N s along +x on the top cube of the
 * sleeping C04 tower (at t = 1 s) until all ten cubes sleep again (-1: not
 * within 10 s); *slid: how far the top cube moved along x; *tilt: the largest
 * tilt (degrees) of any cube at the end. */
static double c19_sleep_again(float impulse, double *slid, double *tilt)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(C04_SCENE, &m), TP_OK, "%s", tp_last_error());
    tp_batch *batch = batch_of(m, 1, 1);
    batch_steps(batch, 60);
    tp_state_view s = batch_view(batch);
    cr_assert_eq(s.sleeping_count[0], 10, "the tower is not asleep at t = 1 s (%d asleep, %d awake)", s.sleeping_count[0], s.awake_count[0]);
    float x0 = s.pos[3 * 10];
    const float p[3] = {impulse, 0.0f, 0.0f};
    cr_assert_eq(tp_batch_apply_impulse(batch, 0, 10, p, NULL), TP_OK, "%s", tp_last_error());
    double t = -1.0;
    for (int i = 1; i <= 600 && t < 0.0; ++i) {
        batch_steps(batch, 1);
        s = batch_view(batch);
        if (s.sleeping_count[0] == 10 && s.awake_count[0] == 0) t = i / 60.0;
    }
    s = batch_view(batch);
    *slid = (double)s.pos[3 * 10] - x0;
    *tilt = 0.0;
    for (int b = 1; b <= 10; ++b)
        if (tilt_deg(s.quat + 4 * b) > *tilt) *tilt = tilt_deg(s.quat + 4 * b);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
    return t;
}

/* C19: pushed with 0.5 N s the top cube slides v^2 / (2 mu g) = 21 mm (we
 * accept 10-40 mm: the push also rocks the cubes below, which takes part of
 * the work) and the tower stays standing (no cube tilted by more than 1
 * degree at the end); all cubes sleep again within 3 s. With 0.25 N s, within
 * 2 s. The contacts have no restitution: rocking must die out. */
/* Measured with the shock pass (kernels/shock.h): asleep again 0.83 s and
 * 0.63 s after the push; before it 8.0 s and 6.5 s (the tower swayed as a
 * column within the contacts' 0.5 mm slop). */
Test(solver, c19_pushed_tower_sleeps_again, .timeout = 60)
{
    const struct { float impulse; double within; } cases[] = {{0.5f, 3.0}, {0.25f, 2.0}};
    for (int c = 0; c < 2; ++c) {
        double slid = 0.0, tilt = 0.0;
        double t = c19_sleep_again(cases[c].impulse, &slid, &tilt);
        cr_log_info("C19 push %.2f N s: asleep again after %.3f s, top slid %.1f mm, largest tilt %.3f deg",
                    (double)cases[c].impulse, t, 1e3 * slid, tilt);
        cr_assert_lt(tilt, 1.0, "push %.2f N s: a cube ends tilted by %.3f degree", (double)cases[c].impulse, tilt);
        if (c == 0) cr_assert(slid > 0.010 && slid < 0.040, "push 0.5 N s: the top cube slid %.1f mm", 1e3 * slid);
        cr_assert(t > 0.0 && t <= cases[c].within, "push %.2f N s: asleep again after %.3f s (limit %.1f s)",
                  (double)cases[c].impulse, t, cases[c].within);
    }
}
