/* test_movers.c - movers against values derived from seed 004's own rules:
 * AlignPosition's per-step approach law (the distance left shrinks by
 * 0.3 x responsiveness x dt each step), its velocity cap (a linear approach),
 * its force cap (acceleration F / m; a sag at F < m g), AlignOrientation's
 * law on the angle, LinearVelocity's modes (a line holds one direction only),
 * AngularVelocity, VectorForce (a = F / m) and Torque (alpha = tau / I); the
 * attachment rules, per-world writes, sleep, the scene format, determinism. */
#include "helpers.h"
#include "tp_math.h"

#include <float.h>
#include <math.h>

#define G 9.81
#define DT (1.0 / 60.0)
#define SUBSTEPS 4

static tp_model_def mover_def(float gz)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = gz;
    md.dt = (float)DT;
    md.substeps = SUBSTEPS;
    md.sleep.enabled = 0;
    return md;
}

static int add_mover(tp_builder *b, const tp_mover_def *d)
{
    int i = -1;
    cr_assert_eq(tp_builder_add_mover(b, d, &i), TP_OK, "%s", tp_last_error());
    return i;
}

/* A dynamic cube of side s and mass m at (x, y, z). */
static int add_cube(tp_builder *b, float s, float m, float x, float y, float z)
{
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = bd.size[1] = bd.size[2] = s;
    bd.mass = m;
    bd.pos[0] = x;
    bd.pos[1] = y;
    bd.pos[2] = z;
    return builder_add(b, &bd);
}

/* One cube of 2 kg at the origin moved by mover d (d.body0 set here). */
static tp_model *one_cube(float gz, tp_mover_def d)
{
    tp_model_def md = mover_def(gz);
    tp_builder *b = builder_begin(&md);
    d.body0 = add_cube(b, 0.5f, 2.0f, 0.0f, 0.0f, 0.0f);
    add_mover(b, &d);
    return builder_finish(b);
}

static const float *body_pos(tp_batch *b, int world, int body)
{
    tp_state_view v = batch_view(b);
    return v.pos + 3 * ((size_t)world * (size_t)v.bodies + (size_t)body);
}

static const float *body_v(tp_batch *b, int world, int body)
{
    tp_state_view v = batch_view(b);
    return v.v + 3 * ((size_t)world * (size_t)v.bodies + (size_t)body);
}

static const float *body_w(tp_batch *b, int world, int body)
{
    tp_state_view v = batch_view(b);
    return v.w + 3 * ((size_t)world * (size_t)v.bodies + (size_t)body);
}

static const float *body_quat(tp_batch *b, int world, int body)
{
    tp_state_view v = batch_view(b);
    return v.quat + 4 * ((size_t)world * (size_t)v.bodies + (size_t)body);
}

/* ---------------------------------------------------------------- AlignPosition */

/* Seed 004: "the speed it heads for the goal at is the distance still to go
 * times responsiveness times 0.3, per second", worked out per physics step:
 * each step leaves (1 - 0.3 r dt) of the distance. Zero gravity, through the
 * centre of mass. */
Test(movers, align_position_follows_the_approach_law)
{
    tp_mover_def d = tp_default_mover_def();
    d.apply_at_com = 1;
    d.target[0] = 3.0f;
    tp_model *m = one_cube(0.0f, d);
    tp_batch *b = make_batch(m, 1, 1);
    double k = 0.3 * 10.0, left = 1.0;
    for (int n = 1; n <= 120; ++n) {
        batch_steps(b, 1);
        left *= 1.0 - k * DT;
        double dist = 3.0 - body_pos(b, 0, 0)[0];
        cr_assert(fabs(dist - 3.0 * left) < 1e-4 * 3.0, "step %d: %.7f m to go, the law says %.7f", n, dist, 3.0 * left);
    }
    /* the continuous law exp(-k t) is the limit at small k dt: within its first-order gap */
    double cont = 3.0 * exp(-k * 2.0), dist = 3.0 - body_pos(b, 0, 0)[0];
    cr_assert(fabs(dist - cont) < cont * k * k * DT * 2.0, "%.6f vs exp law %.6f", dist, cont);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* "At 200 it gets there in one physics step." */
Test(movers, align_position_at_responsiveness_200_arrives_in_one_step)
{
    tp_mover_def d = tp_default_mover_def();
    d.apply_at_com = 1;
    d.responsiveness = 200.0f;
    d.target[0] = 1.0f;
    d.target[1] = -2.0f;
    tp_model *m = one_cube(0.0f, d);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 1);
    const float *p = body_pos(b, 0, 0);
    cr_assert(fabs(p[0] - 1.0) < 1e-5 && fabs(p[1] + 2.0) < 1e-5, "at (%g, %g)", p[0], p[1]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* It holds the weight: a cube on its goal under gravity stays there; with
 * max_force = m g / 2 it sags, falling at g / 2 (the rest of its weight). */
Test(movers, align_position_holds_the_weight_up_to_max_force)
{
    tp_mover_def d = tp_default_mover_def();
    d.apply_at_com = 1;
    tp_model *m = one_cube(-(float)G, d);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 120);
    cr_assert(fabs(body_pos(b, 0, 0)[2]) < 1e-5, "floats at z = %g", body_pos(b, 0, 0)[2]);
    float force = 0.0f;
    cr_assert_eq(tp_batch_movers(b, NULL, NULL, &force), TP_OK);
    cr_assert(fabs(force - 2.0 * G) < 1e-3 * 2.0 * G, "holds with %g N, weight %g N", force, 2.0 * G);
    tp_batch_destroy(b);
    tp_model_destroy(m);

    d.max_force = (float)(2.0 * G / 2.0);
    m = one_cube(-(float)G, d);
    b = make_batch(m, 1, 1);
    batch_steps(b, 60);
    cr_assert(fabs(body_v(b, 0, 0)[2] + G / 2.0) < 1e-3, "sags at %g m/s after 1 s, g/2 t = %g", body_v(b, 0, 0)[2],
              -G / 2.0);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Capped at max_velocity the approach is linear: 1 m/s while the law asks
 * for more (distance x 0.3 r > 1 m/s, i.e. beyond 1/3 m at r = 10). */
Test(movers, align_position_capped_velocity_is_a_linear_approach)
{
    tp_mover_def d = tp_default_mover_def();
    d.apply_at_com = 1;
    d.max_velocity = 1.0f;
    d.target[0] = 5.0f;
    tp_model *m = one_cube(0.0f, d);
    tp_batch *b = make_batch(m, 1, 1);
    for (int s = 1; s <= 4; ++s) {
        batch_steps(b, 60);
        cr_assert(fabs(body_pos(b, 0, 0)[0] - (double)s) < 1e-4, "after %d s at x = %g", s, body_pos(b, 0, 0)[0]);
        cr_assert(fabs(body_v(b, 0, 0)[0] - 1.0) < 1e-5);
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* max_force caps the acceleration at F / m: 4 N on 2 kg toward a far goal,
 * v = 2 t exactly (one push per substep), x = 2 t^2 / 2 within the
 * symplectic Euler gap a h t. */
Test(movers, align_position_max_force_caps_the_acceleration)
{
    tp_mover_def d = tp_default_mover_def();
    d.apply_at_com = 1;
    d.max_force = 4.0f;
    d.target[0] = 100.0f;
    tp_model *m = one_cube(0.0f, d);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 60);
    double a = 4.0 / 2.0, t = 1.0, h = DT / SUBSTEPS;
    cr_assert(fabs(body_v(b, 0, 0)[0] - a * t) < 1e-4, "v %g, F/m t = %g", body_v(b, 0, 0)[0], a * t);
    cr_assert(fabs(body_pos(b, 0, 0)[0] - 0.5 * a * t * t) <= a * h * t, "x %g, a t^2/2 = %g", body_pos(b, 0, 0)[0],
              0.5 * a * t * t);
    float force = 0.0f;
    cr_assert_eq(tp_batch_movers(b, NULL, NULL, &force), TP_OK);
    cr_assert(fabs(force - 4.0f) < 1e-4, "read-out %g N", force);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Two free bodies, two attachments, reaction: they pull toward each other
 * and meet in between (the centre of mass stays); their momentum stays zero. */
Test(movers, align_position_reaction_meets_in_between)
{
    tp_model_def md = mover_def(0.0f);
    tp_builder *b = builder_begin(&md);
    tp_mover_def d = tp_default_mover_def();
    d.body0 = add_cube(b, 0.5f, 1.0f, -2.0f, 0.0f, 0.0f);
    d.body1 = add_cube(b, 0.5f, 3.0f, 2.0f, 0.0f, 0.0f);
    d.two_attachment = 1;
    d.reaction = 1;
    d.apply_at_com = 1;
    d.pos0[0] = 0.3f; /* they meet with their centres 0.6 m apart, not touching */
    d.pos1[0] = -0.3f;
    add_mover(b, &d);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    batch_steps(bt, 180);
    const float *p0 = body_pos(bt, 0, 0), *p1 = body_pos(bt, 0, 1);
    double com = (1.0 * p0[0] + 3.0 * p1[0]) / 4.0, mom = 1.0 * body_v(bt, 0, 0)[0] + 3.0 * body_v(bt, 0, 1)[0];
    cr_assert(fabs(p1[0] - p0[0] - 0.6) < 1e-3, "centres %g m apart (0.6 when met)", p1[0] - p0[0]);
    cr_assert(fabs(com - 1.0) < 1e-4, "centre of mass moved to %g (started at 1)", com);
    cr_assert(fabs(mom) < 1e-4, "momentum %g", mom);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- AlignOrientation */

/* Angle between the cube's turn and quaternion g, rad. */
static double angle_to(const float *q, const double *g)
{
    double dot = fabs(q[0] * g[0] + q[1] * g[1] + q[2] * g[2] + q[3] * g[3]);
    return 2.0 * acos(fmin(dot, 1.0));
}

/* A cube (isotropic inertia) turned 1 rad about an oblique axis toward its
 * goal: the angle left follows the same per-step law; capped at 0.5 rad/s it
 * turns at 0.5 rad/s. */
Test(movers, align_orientation_follows_the_approach_law)
{
    double ax[3] = {1.0 / sqrt(3.0), 1.0 / sqrt(3.0), -1.0 / sqrt(3.0)}, a0 = 1.0;
    double g[4] = {ax[0] * sin(a0 / 2), ax[1] * sin(a0 / 2), ax[2] * sin(a0 / 2), cos(a0 / 2)};
    tp_mover_def d = tp_default_mover_def_of(TP_MOVER_ALIGN_ORIENTATION);
    for (int c = 0; c < 4; ++c) d.target[c] = (float)g[c];
    tp_model *m = one_cube(0.0f, d);
    tp_batch *b = make_batch(m, 1, 1);
    double k = 0.3 * 10.0, left = a0;
    for (int n = 1; n <= 90; ++n) {
        batch_steps(b, 1);
        left *= 1.0 - k * DT;
        double got = angle_to(body_quat(b, 0, 0), g);
        cr_assert(fabs(got - left) < 2e-4, "step %d: %.6f rad to go, the law says %.6f", n, got, left);
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);

    d.max_velocity = 0.5f;
    m = one_cube(0.0f, d);
    b = make_batch(m, 1, 1);
    batch_steps(b, 60); /* 1 s at the cap: the law asks for 3 x 0.5 rad/s or more */
    cr_assert(fabs(angle_to(body_quat(b, 0, 0), g) - 0.5) < 1e-3, "%.6f rad to go after 1 s",
              angle_to(body_quat(b, 0, 0), g));
    const float *w = body_w(b, 0, 0);
    cr_assert(fabs(sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) - 0.5) < 1e-4);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* primary_axis_only lines up the X axes and leaves the roll: a goal that
 * differs by a roll about X only turns nothing; a yaw of 1 rad is closed. */
Test(movers, align_orientation_primary_axis_only)
{
    tp_mover_def d = tp_default_mover_def_of(TP_MOVER_ALIGN_ORIENTATION);
    d.primary_axis_only = 1;
    d.target[0] = (float)sin(0.5); /* 1 rad about X */
    d.target[3] = (float)cos(0.5);
    tp_model *m = one_cube(0.0f, d);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 30);
    const float *q = body_quat(b, 0, 0);
    cr_assert(q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 1.0f, "turned: [%g %g %g %g]", q[0], q[1], q[2], q[3]);
    tp_batch_destroy(b);
    tp_model_destroy(m);

    d.target[0] = 0.0f; /* 1 rad about Z */
    d.target[2] = (float)sin(0.5);
    m = one_cube(0.0f, d);
    b = make_batch(m, 1, 1);
    batch_steps(b, 240);
    q = body_quat(b, 0, 0);
    tp_vec3 x = tp_q_rotate(tp_q_load(q), tp_v3(1, 0, 0));
    cr_assert(fabs(x.x - cos(1.0)) < 1e-4 && fabs(x.y - sin(1.0)) < 1e-4, "X axis at (%g, %g, %g)", x.x, x.y, x.z);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- LinearVelocity, AngularVelocity */

/* A line holds only its direction: a cube moving at (0, 2, 1) held at 5 m/s
 * along X keeps its Y and Z speeds; a plane holds two; a vector three. */
Test(movers, linear_velocity_modes_hold_only_their_directions)
{
    tp_velocity_mode modes[3] = {TP_VELOCITY_LINE, TP_VELOCITY_PLANE, TP_VELOCITY_VECTOR};
    float want[3][3] = {{5, 2, 1}, {5, -1, 1}, {5, -1, 3}};
    for (int i = 0; i < 3; ++i) {
        tp_mover_def d = tp_default_mover_def_of(TP_MOVER_LINEAR_VELOCITY);
        d.velocity_mode = modes[i];
        d.target[0] = 5.0f;
        d.target[1] = -1.0f;
        d.target[2] = 3.0f;
        tp_model_def md = mover_def(0.0f);
        tp_builder *b = builder_begin(&md);
        tp_body_def bd = tp_default_body_def();
        bd.vel[1] = 2.0f;
        bd.vel[2] = 1.0f;
        d.body0 = builder_add(b, &bd);
        add_mover(b, &d);
        tp_model *m = builder_finish(b);
        tp_batch *bt = make_batch(m, 1, 1);
        batch_steps(bt, 3);
        const float *v = body_v(bt, 0, 0);
        for (int c = 0; c < 3; ++c)
            cr_assert(fabs(v[c] - want[i][c]) < 1e-5, "mode %d: v = (%g, %g, %g)", i, v[0], v[1], v[2]);
        tp_batch_destroy(bt);
        tp_model_destroy(m);
    }
}

/* Relative frames: relative to attachment0 (the cube turned a quarter turn
 * about Z) a vector target (1, 0, 0) is world (0, 1, 0); relative to
 * attachment1 on a kinematic body moving at (0, 0, 2), (1, 0, 0) is measured
 * against it: world (1, 0, 2). */
Test(movers, linear_velocity_relative_frames)
{
    tp_model_def md = mover_def(0.0f);
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    float s = (float)sqrt(0.5);
    bd.quat[2] = s, bd.quat[3] = s;
    int turned = builder_add(b, &bd);
    tp_body_def fb = tp_default_body_def();
    fb.pos[0] = 5.0f;
    int free_ = builder_add(b, &fb);
    tp_body_def kb = tp_default_body_def();
    kb.type = TP_BODY_KINEMATIC;
    kb.pos[0] = -5.0f;
    kb.vel[2] = 2.0f;
    int kin = builder_add(b, &kb);
    tp_mover_def d = tp_default_mover_def_of(TP_MOVER_LINEAR_VELOCITY);
    d.relative_to = TP_FRAME_ATTACHMENT0;
    d.target[0] = 1.0f;
    d.body0 = turned;
    add_mover(b, &d);
    d.relative_to = TP_FRAME_ATTACHMENT1;
    d.body0 = free_;
    d.body1 = kin;
    add_mover(b, &d);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    batch_steps(bt, 2);
    const float *v0 = body_v(bt, 0, turned), *v1 = body_v(bt, 0, free_);
    cr_assert(fabs(v0[0]) < 1e-5 && fabs(v0[1] - 1.0) < 1e-5 && fabs(v0[2]) < 1e-5, "(%g, %g, %g)", v0[0], v0[1], v0[2]);
    cr_assert(fabs(v1[0] - 1.0) < 1e-5 && fabs(v1[1]) < 1e-5 && fabs(v1[2] - 2.0) < 1e-5, "(%g, %g, %g)", v1[0], v1[1],
              v1[2]);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* A 10 kg box on the ground (friction 0.3 against 0.3) held at 5 m/s along
 * X with max_force 2 mu m g: it speeds up at (F - mu m g) / m = mu g, then
 * holds 5 m/s with the mover pushing mu m g against the friction. */
Test(movers, linear_velocity_holds_a_cart_against_friction)
{
    tp_model_def md = mover_def(-(float)G);
    tp_builder *b = builder_begin(&md);
    tp_body_def gd = tp_default_body_def();
    gd.type = TP_BODY_STATIC;
    gd.size[0] = 200.0f, gd.size[1] = 40.0f;
    gd.pos[0] = 50.0f, gd.pos[2] = -0.5f;
    gd.friction = 0.3f;
    builder_add(b, &gd);
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = 1.0f, bd.size[1] = 0.6f, bd.size[2] = 0.4f;
    bd.mass = 10.0f;
    bd.friction = 0.3f;
    bd.pos[2] = 0.2f;
    tp_mover_def d = tp_default_mover_def_of(TP_MOVER_LINEAR_VELOCITY);
    d.body0 = builder_add(b, &bd);
    d.velocity_mode = TP_VELOCITY_LINE;
    d.target[0] = 5.0f;
    double mu = 0.3, F = 2.0 * mu * 10.0 * G;
    d.max_force = (float)F;
    add_mover(b, &d);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    batch_steps(bt, 30); /* 0.5 s: at mu g = 2.94 m/s^2, 1.47 m/s */
    double v = body_v(bt, 0, 1)[0];
    cr_assert(fabs(v - mu * G * 0.5) < 0.02 * mu * G * 0.5, "v %g after 0.5 s, mu g t = %g", v, mu * G * 0.5);
    batch_steps(bt, 120);
    v = body_v(bt, 0, 1)[0];
    float force = 0.0f;
    cr_assert_eq(tp_batch_movers(bt, NULL, NULL, &force), TP_OK);
    cr_assert(fabs(v - 5.0) < 1e-3, "holds %g m/s", v);
    cr_assert(fabs(force - mu * 10.0 * G) < 0.02 * mu * 10.0 * G, "pushes %g N, friction mu m g = %g N", force,
              mu * 10.0 * G);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* AngularVelocity: held at once with no torque limit; with max_force tau
 * the spin grows at tau / I (a cube: I = m s^2 / 6). */
Test(movers, angular_velocity_spins_up_at_tau_over_i)
{
    tp_mover_def d = tp_default_mover_def_of(TP_MOVER_ANGULAR_VELOCITY);
    d.target[2] = 2.0f;
    tp_model *m = one_cube(0.0f, d);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 1);
    cr_assert(fabs(body_w(b, 0, 0)[2] - 2.0) < 1e-5);
    tp_batch_destroy(b);
    tp_model_destroy(m);

    double I = 2.0 * 0.25 / 6.0;
    d.max_force = 0.05f;
    m = one_cube(0.0f, d);
    b = make_batch(m, 1, 1);
    batch_steps(b, 30);
    cr_assert(fabs(body_w(b, 0, 0)[2] - 0.05 / I * 0.5) < 1e-4, "w %g after 0.5 s, tau / I t = %g", body_w(b, 0, 0)[2],
              0.05 / I * 0.5);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- VectorForce, Torque */

/* a = F / m: 3 N on 2 kg for 1 s gives 1.5 m/s; relative to attachment0 a
 * local X force on a cube turned a quarter turn about Z pushes along world Y;
 * a balloon pushed up with 1.5 its weight rises at g / 2. */
Test(movers, vector_force_gives_f_over_m)
{
    tp_mover_def d = tp_default_mover_def_of(TP_MOVER_VECTOR_FORCE);
    d.relative_to = TP_FRAME_WORLD;
    d.apply_at_com = 1;
    d.target[0] = 3.0f;
    tp_model *m = one_cube(0.0f, d);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 60);
    double a = 1.5, h = DT / SUBSTEPS;
    cr_assert(fabs(body_v(b, 0, 0)[0] - a) < 1e-5, "v %g", body_v(b, 0, 0)[0]);
    cr_assert(fabs(body_pos(b, 0, 0)[0] - 0.5 * a) <= a * h, "x %g", body_pos(b, 0, 0)[0]);
    float force = 0.0f;
    uint8_t active = 0;
    cr_assert_eq(tp_batch_movers(b, NULL, &active, &force), TP_OK);
    cr_assert(active == 1 && fabs(force - 3.0f) < 1e-5);
    tp_batch_destroy(b);
    tp_model_destroy(m);

    tp_model_def md = mover_def(-(float)G);
    tp_builder *bb = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    float s = (float)sqrt(0.5);
    bd.quat[2] = s, bd.quat[3] = s;
    bd.mass = 2.0f;
    d = tp_default_mover_def_of(TP_MOVER_VECTOR_FORCE); /* relative to attachment0 */
    d.body0 = builder_add(bb, &bd);
    d.target[0] = 3.0f;
    d.target[2] = (float)(1.5 * 2.0 * G); /* attachment0's Z is world Z */
    add_mover(bb, &d);
    m = builder_finish(bb);
    b = make_batch(m, 1, 1);
    batch_steps(b, 60);
    const float *v = body_v(b, 0, 0);
    cr_assert(fabs(v[0]) < 1e-5 && fabs(v[1] - 1.5) < 1e-4 && fabs(v[2] - G / 2.0) < 1e-4, "v (%g, %g, %g)", v[0], v[1],
              v[2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A force off the centre turns the body: 1 N along X at (0, 0.25, 0) on the
 * cube gives torque -0.25 N m about Z; a Torque of 0.1 N m gives 0.1 / I. */
Test(movers, vector_force_off_centre_and_torque_turn_at_tau_over_i)
{
    double I = 2.0 * 0.25 / 6.0, t = 0.25;
    tp_mover_def d = tp_default_mover_def_of(TP_MOVER_VECTOR_FORCE);
    d.relative_to = TP_FRAME_WORLD;
    d.pos0[1] = 0.25f;
    d.target[0] = 1.0f;
    tp_model *m = one_cube(0.0f, d);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 15);
    /* the arm turns with the cube: over 0.25 s it turns w t / 2 ~ 0.09 rad, cos 0.996 */
    cr_assert(fabs(body_w(b, 0, 0)[2] + 0.25 / I * t) < 0.01 * 0.25 / I * t, "w %g, tau / I t = %g",
              body_w(b, 0, 0)[2], -0.25 / I * t);
    cr_assert(fabs(body_v(b, 0, 0)[0] - 0.5 * t) < 1e-5);
    tp_batch_destroy(b);
    tp_model_destroy(m);

    d = tp_default_mover_def_of(TP_MOVER_TORQUE);
    d.target[2] = 0.1f;
    m = one_cube(0.0f, d);
    b = make_batch(m, 1, 1);
    batch_steps(b, 15);
    cr_assert(fabs(body_w(b, 0, 0)[2] - 0.1 / I * t) < 1e-5, "w %g", body_w(b, 0, 0)[2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- attachment rules, writes */

/* active is 0 (and nothing moves) for a disabled mover, a static body0, a
 * body0 that collides with nothing, two attachments without body1, a
 * removed body. */
Test(movers, attachment_rules_set_active)
{
    tp_model_def md = mover_def(0.0f);
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    int ok = builder_add(b, &bd);
    bd.pos[0] = 2.0f;
    bd.type = TP_BODY_STATIC;
    int anchored = builder_add(b, &bd);
    bd.type = TP_BODY_DYNAMIC;
    bd.pos[0] = 4.0f;
    bd.contype = bd.conaffinity = 0;
    int ghost = builder_add(b, &bd);
    tp_mover_def d = tp_default_mover_def_of(TP_MOVER_VECTOR_FORCE);
    d.target[2] = 1.0f;
    int bodies[5] = {ok, anchored, ghost, ok, ok};
    for (int i = 0; i < 5; ++i) {
        d.body0 = bodies[i];
        d.enabled = i != 4;
        d.relative_to = i == 3 ? TP_FRAME_ATTACHMENT1 : TP_FRAME_ATTACHMENT0; /* no body1 */
        add_mover(b, &d);
    }
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    batch_steps(bt, 1);
    uint8_t active[5];
    cr_assert_eq(tp_batch_movers(bt, NULL, active, NULL), TP_OK);
    uint8_t want[5] = {1, 0, 0, 0, 0};
    for (int i = 0; i < 5; ++i) cr_assert_eq(active[i], want[i], "mover %d", i);
    cr_assert_gt(body_v(bt, 0, ok)[2], 0.0f);
    cr_assert_eq(body_v(bt, 0, ghost)[2], 0.0f);
    cr_assert_eq(tp_batch_remove_body(bt, 0, ok), TP_OK);
    cr_assert_eq(tp_batch_movers(bt, NULL, active, NULL), TP_OK);
    cr_assert_eq(active[0], 0);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* Per-world targets and enabled flags through a selection and a mover mask:
 * worlds 1 and 3 get their own goals, the masked-out mover keeps its value,
 * a NaN changes nothing; a reset puts the model's values back. */
Test(movers, per_world_writes_with_selection_and_mask)
{
    tp_model_def md = mover_def(0.0f);
    tp_builder *b = builder_begin(&md);
    tp_mover_def d = tp_default_mover_def();
    d.apply_at_com = 1;
    d.responsiveness = 200.0f;
    d.body0 = add_cube(b, 0.5f, 1.0f, 0.0f, 0.0f, 0.0f);
    add_mover(b, &d);
    tp_mover_def f = tp_default_mover_def_of(TP_MOVER_VECTOR_FORCE);
    f.body0 = add_cube(b, 0.5f, 1.0f, 0.0f, 3.0f, 0.0f);
    add_mover(b, &f);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 4, 1);
    int32_t idx[2] = {3, 1};
    tp_world_select sel = {idx, 2, NULL};
    float t[2][2][4] = {{{1, 0, 0, 0}, {9, 9, 9, 0}}, {{0, 2, 0, 0}, {9, 9, 9, 0}}};
    uint8_t only_first[2] = {1, 0};
    cr_assert_eq(tp_batch_set_mover_targets(bt, &sel, &t[0][0][0], only_first), TP_OK, "%s", tp_last_error());
    float bad[2][2][4] = {{{NAN, 0, 0, 0}, {0}}, {{0}}};
    cr_assert_eq(tp_batch_set_mover_targets(bt, &sel, &bad[0][0][0], NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "row 0, mover 0"), "%s", tp_last_error());
    uint8_t mask[4] = {0, 0, 1, 0}, en[4][2] = {{0}, {0}, {0, 0}, {0}};
    tp_world_select by_mask = {NULL, 0, mask};
    cr_assert_eq(tp_batch_set_mover_enabled(bt, &by_mask, &en[0][0], only_first), TP_OK);
    uint8_t two[4][2] = {{2, 2}};
    cr_assert_eq(tp_batch_set_mover_enabled(bt, NULL, &two[0][0], NULL), TP_ERR_INVALID_ARGUMENT);
    batch_steps(bt, 1);
    float got[4][2][4];
    uint8_t act[4][2];
    cr_assert_eq(tp_batch_movers(bt, &got[0][0][0], &act[0][0], NULL), TP_OK);
    cr_assert(got[3][0][0] == 1.0f && got[1][0][1] == 2.0f && got[0][0][0] == 0.0f, "targets not as written");
    cr_assert(got[3][1][0] == 0.0f, "the masked-out mover was written");
    cr_assert(act[2][0] == 0 && act[2][1] == 1 && act[0][0] == 1);
    cr_assert(fabs(body_pos(bt, 3, 0)[0] - 1.0f) < 1e-5 && fabs(body_pos(bt, 1, 0)[1] - 2.0f) < 1e-5);
    cr_assert_eq(tp_batch_reset_worlds(bt, &sel), TP_OK);
    cr_assert_eq(tp_batch_movers(bt, &got[0][0][0], NULL, NULL), TP_OK);
    cr_assert(got[3][0][0] == 0.0f && got[1][0][1] == 0.0f, "a reset keeps the written targets");
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

Test(movers, builder_refuses_bad_values)
{
    tp_model_def md = mover_def(0.0f);
    tp_builder *b = builder_begin(&md);
    int c = add_cube(b, 0.5f, 1.0f, 0, 0, 0);
    tp_mover_def d = tp_default_mover_def_of(TP_MOVER_LINEAR_VELOCITY);
    d.body0 = c;
    d.velocity_mode = TP_VELOCITY_LINE;
    d.line_direction[0] = 0.0f;
    cr_assert_eq(tp_builder_add_mover(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "line_direction"), "%s", tp_last_error());
    d = tp_default_mover_def();
    d.body0 = 7;
    cr_assert_eq(tp_builder_add_mover(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "body0: no body 7"), "%s", tp_last_error());
    d.body0 = c;
    d.max_force = -1.0f;
    cr_assert_eq(tp_builder_add_mover(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "max_force"), "%s", tp_last_error());
    d.max_force = 1.0f;
    d.target[1] = INFINITY;
    cr_assert_eq(tp_builder_add_mover(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "target"), "%s", tp_last_error());
    d = tp_default_mover_def_of(TP_MOVER_LINEAR_VELOCITY);
    d.body0 = c;
    d.velocity_mode = TP_VELOCITY_PLANE;
    d.tangent1[0] = 2.0f, d.tangent1[1] = 0.0f;
    cr_assert_eq(tp_builder_add_mover(b, &d, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "parallel"), "%s", tp_last_error());
    tp_builder_destroy(b);
}

/* ---------------------------------------------------------------- sleep */

/* Island policy: a cube resting on the ground under an enabled mover stays
 * awake; disabled, it sleeps; a new goal written while it sleeps wakes it
 * and it goes there. */
Test(movers, an_active_mover_keeps_its_body_awake)
{
    tp_model_def md = mover_def(-(float)G);
    md.sleep.enabled = 1;
    tp_builder *b = builder_begin(&md);
    builder_add_ground(b);
    tp_mover_def d = tp_default_mover_def();
    d.apply_at_com = 1;
    d.body0 = add_cube(b, 0.5f, 1.0f, 0.0f, 0.0f, 0.25f);
    d.target[2] = 0.25f;
    d.max_force = 20.0f; /* its goal is where it rests on the ground */
    add_mover(b, &d);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    batch_steps(bt, 180);
    cr_assert_eq(batch_view(bt).awake_count[0], 1, "slept under an active mover");
    uint8_t off = 0, on = 1;
    cr_assert_eq(tp_batch_set_mover_enabled(bt, NULL, &off, NULL), TP_OK);
    batch_steps(bt, 120);
    cr_assert_eq(batch_view(bt).awake_count[0], 0, "did not sleep once disabled");
    float goal[4] = {1.0f, 0.0f, 0.25f, 0.0f};
    cr_assert_eq(tp_batch_set_mover_targets(bt, NULL, goal, NULL), TP_OK);
    cr_assert_eq(batch_view(bt).awake_count[0], 0, "a disabled mover's target woke it");
    cr_assert_eq(tp_batch_set_mover_enabled(bt, NULL, &on, NULL), TP_OK);
    cr_assert_eq(batch_view(bt).awake_count[0], 1, "enabling did not wake it");
    batch_steps(bt, 120);
    cr_assert_gt(body_pos(bt, 0, 1)[0], 0.2f, "did not move toward the new goal");
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* Seed 004: "A mover does not join its two parts into an assembly". Island
 * policy: two cubes under an AlignPosition between them (with reaction, so
 * it acts on both) stay in two islands; a ball socket between the other two
 * joins them into one. */
Test(movers, a_mover_joins_no_island)
{
    tp_model_def md = mover_def(0.0f);
    md.sleep.enabled = 1;
    tp_builder *b = builder_begin(&md);
    tp_mover_def d = tp_default_mover_def();
    d.two_attachment = 1, d.reaction = 1;
    d.body0 = add_cube(b, 0.5f, 1.0f, 0.0f, 0.0f, 0.0f);
    d.body1 = add_cube(b, 0.5f, 1.0f, 2.0f, 0.0f, 0.0f);
    d.pos1[0] = -2.0f; /* on its goal: nothing moves */
    add_mover(b, &d);
    tp_constraint_def c = tp_default_constraint_def();
    c.type = TP_CONSTRAINT_BALL;
    c.body0 = add_cube(b, 0.5f, 1.0f, 0.0f, 4.0f, 0.0f);
    c.body1 = add_cube(b, 0.5f, 1.0f, 2.0f, 4.0f, 0.0f);
    c.pos0[0] = 1.0f, c.pos1[0] = -1.0f;
    cr_assert_eq(tp_builder_add_constraint(b, &c, NULL), TP_OK, "%s", tp_last_error());
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    batch_steps(bt, 2);
    const int32_t *isl = batch_view(bt).island;
    cr_assert(isl[0] >= 0 && isl[1] >= 0 && isl[0] != isl[1], "the mover's cubes: islands %d and %d", isl[0], isl[1]);
    cr_assert(isl[2] >= 0 && isl[2] == isl[3], "the ball socket's cubes: islands %d and %d", isl[2], isl[3]);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* Two 1 kg cubes (0.5 m) in zero gravity, 2 m apart on x, joined by an
 * AlignPosition with reaction, cube 0's centre to a goal 0.6 m short of cube
 * 1's: "the two parts pull towards each other and meet in between". Only
 * internal forces act, so the pair's centre of mass stays at x = 1: they end
 * at 0.7 and 1.3. Cube 1 is put to sleep before the first step: the pull
 * from the awake cube 0 must wake it (otherwise cube 0 flies the whole way
 * to a frozen cube 1, and they end at 1.4 and 2). */
static void pull_wakes_attachment1(int policy)
{
    tp_model_def md = mover_def(0.0f);
    md.sleep.enabled = 1;
    md.sleep.policy = policy;
    tp_builder *b = builder_begin(&md);
    tp_mover_def d = tp_default_mover_def();
    d.apply_at_com = 1, d.two_attachment = 1, d.reaction = 1, d.max_velocity = 1.0f;
    d.body0 = add_cube(b, 0.5f, 1.0f, 0.0f, 0.0f, 0.0f);
    d.body1 = add_cube(b, 0.5f, 1.0f, 2.0f, 0.0f, 0.0f);
    d.pos1[0] = -0.6f;
    add_mover(b, &d);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    cr_assert_eq(tp_batch_sleep(bt, 0, 1), TP_OK, "%s", tp_last_error());
    cr_assert_eq(batch_view(bt).sleep_state[1], TP_SLEEPING);
    batch_steps(bt, 1);
    cr_assert_eq(batch_view(bt).sleep_state[1], TP_AWAKE, "policy %d: the pulled cube is %d, not awake", policy,
                 batch_view(bt).sleep_state[1]);
    batch_steps(bt, 240);
    double x0 = body_pos(bt, 0, 0)[0], x1 = body_pos(bt, 0, 1)[0];
    cr_log_info("policy %d: the cubes met at x = %.5f and %.5f (0.7 and 1.3 expected)", policy, x0, x1);
    /* island: the active mover keeps both awake to the end; assembly: each
     * sleeps once under the actuated 0.033 m/s, which the approach law
     * (0.3 x 10 per second x distance) reaches 0.011 m from its goal */
    double tol = policy == TP_SLEEP_ISLAND ? 1e-3 : 0.033 / 3.0;
    cr_assert(fabs(x1 - x0 - 0.6) < tol && fabs(0.5 * (x0 + x1) - 1.0) < tol, "policy %d: cubes at %g and %g",
              policy, x0, x1);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

Test(movers, the_reaction_pull_wakes_attachment1s_body)
{
    pull_wakes_attachment1(TP_SLEEP_ISLAND);
    pull_wakes_attachment1(TP_SLEEP_ASSEMBLY);
}

/* Two 1 kg cubes (0.5 m) in zero gravity, 2 m apart, pulled together by an
 * AlignPosition with reaction and no force limit whose goal (cube 1's centre)
 * they cannot reach: they touch with centres 0.5 m apart and the mover keeps
 * pushing. At rest against each other they must read a velocity at rest:
 * the mover's accumulated impulse is held within TP_MOVER_MAX_SPEED_CHANGE
 * (839 m/s) x the row's effective mass (0.5 kg, the pair's reduced mass),
 * so its push is F = 839 x 0.5 / h = 100.7 kN, the same every step, and the
 * rounding of each impulse applied (F h x 2^-23 / 1 kg = 5e-5 m/s) over the
 * 4 substeps x (warm start + 12 sweeps) x 2 rows of a step bounds |v| by
 * 104 x 5e-5 = 5.2e-3 m/s. Before, the push and the contact grew every sweep
 * (15 MN after 50 s) and the cubes read +-0.5 m/s, the mover's speed, while
 * their poses stood still. Island policy: the active mover keeps them awake;
 * assembly policy: both sleep (the actuated threshold is 0.033 m/s). */
static void pushing_mover_rests(int policy)
{
    tp_model_def md = mover_def(0.0f);
    md.sleep.enabled = 1;
    md.sleep.policy = policy;
    tp_builder *b = builder_begin(&md);
    tp_mover_def d = tp_default_mover_def();
    d.apply_at_com = 1, d.two_attachment = 1, d.reaction = 1, d.max_velocity = 1.0f;
    d.body0 = add_cube(b, 0.5f, 1.0f, 0.0f, 0.0f, 0.0f);
    d.body1 = add_cube(b, 0.5f, 1.0f, 2.0f, 0.0f, 0.0f);
    add_mover(b, &d);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    batch_steps(bt, 150); /* they touch after 1.5 m at 1 m/s closing: 1.5 s */
    double h = DT / SUBSTEPS, cap = (1.0e-4 / 1.1920929e-7) * 0.5 / h, bound = 4 * 13 * 2 * cap * h * pow(2, -23);
    float f0 = 0.0f, f1 = 0.0f;
    cr_assert_eq(tp_batch_movers(bt, NULL, NULL, &f0), TP_OK);
    double x0 = body_pos(bt, 0, 0)[0], x1 = body_pos(bt, 0, 1)[0], worst = 0.0;
    for (int s = 0; s < 300; ++s) {
        batch_steps(bt, 1);
        for (int i = 0; i < 2; ++i)
            for (int c = 0; c < 3; ++c) worst = fmax(worst, fabs(body_v(bt, 0, i)[c]));
    }
    cr_assert_eq(tp_batch_movers(bt, NULL, NULL, &f1), TP_OK);
    tp_state_view v = batch_view(bt);
    cr_log_info("policy %d: centres %.5f m apart, |v| <= %.2e m/s (bound %.2e), push %.1f then %.1f N (cap %.1f), "
                "states %d %d", policy, x1 - x0, worst, bound, f0, f1, cap, v.sleep_state[0], v.sleep_state[1]);
    cr_assert(fabs(x1 - x0 - 0.5) < 2e-3, "policy %d: centres %g m apart, not touching", policy, x1 - x0);
    cr_assert(fabs(body_pos(bt, 0, 0)[0] - x0) < 1e-4 && fabs(body_pos(bt, 0, 1)[0] - x1) < 1e-4,
              "policy %d: the cubes moved from %g, %g to %g, %g", policy, x0, x1, body_pos(bt, 0, 0)[0],
              body_pos(bt, 0, 1)[0]);
    cr_assert(worst < bound, "policy %d: the cubes at rest read %g m/s", policy, worst);
    if (policy == TP_SLEEP_ISLAND) {
        cr_assert(f0 > 0.99 * cap && f0 <= 1.0001 * cap && f1 == f0, "push %g N then %g N, cap %g N", f0, f1, cap);
        cr_assert(v.sleep_state[0] == TP_AWAKE && v.sleep_state[1] == TP_AWAKE, "slept under an active mover");
    } else {
        cr_assert(v.sleep_state[0] == TP_SLEEPING && v.sleep_state[1] == TP_SLEEPING, "states %d %d, not asleep",
                  v.sleep_state[0], v.sleep_state[1]);
    }
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

Test(movers, a_mover_pushing_into_a_contact_leaves_its_bodies_at_rest)
{
    pushing_mover_rests(TP_SLEEP_ISLAND);
    pushing_mover_rests(TP_SLEEP_ASSEMBLY);
}

/* Seed 000, "Additional wake situations": any property change of a constraint
 * wakes the assembly of each part one of its attachments is in, so a write to
 * a mover without reaction wakes attachment1's body too. Zero gravity: a
 * drone (AlignPosition, two attachments, no reaction) on its goal 1 m over a
 * free cube. Assembly policy: both sleep; a new target wakes both. Island
 * policy (the active mover keeps the drone awake): disabled, both sleep;
 * enabled again, both wake. */
static void write_wakes_attachment1(int policy)
{
    tp_model_def md = mover_def(0.0f);
    md.sleep.enabled = 1;
    md.sleep.policy = policy;
    tp_builder *b = builder_begin(&md);
    tp_mover_def d = tp_default_mover_def();
    d.two_attachment = 1;
    d.body0 = add_cube(b, 0.5f, 2.0f, 0.0f, 0.0f, 1.0f);
    d.body1 = add_cube(b, 0.5f, 1.0f, 0.0f, 0.0f, 0.0f);
    d.pos1[2] = 1.0f;
    add_mover(b, &d);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    uint8_t off = 0, on = 1;
    if (policy == TP_SLEEP_ISLAND) cr_assert_eq(tp_batch_set_mover_enabled(bt, NULL, &off, NULL), TP_OK);
    batch_steps(bt, 60);
    tp_state_view v = batch_view(bt);
    cr_assert(v.sleep_state[0] == TP_SLEEPING && v.sleep_state[1] == TP_SLEEPING, "policy %d: states %d %d, not asleep",
              policy, v.sleep_state[0], v.sleep_state[1]);
    if (policy == TP_SLEEP_ISLAND) {
        cr_assert_eq(tp_batch_set_mover_enabled(bt, NULL, &on, NULL), TP_OK);
    } else {
        float goal[4] = {1.0f, 0.0f, 0.0f, 0.0f}; /* not read in two-attachment mode: still a property change */
        cr_assert_eq(tp_batch_set_mover_targets(bt, NULL, goal, NULL), TP_OK);
    }
    v = batch_view(bt);
    cr_assert(v.sleep_state[0] == TP_AWAKE && v.sleep_state[1] == TP_AWAKE,
              "policy %d: after the write the drone is %d, the cube it follows %d", policy, v.sleep_state[0],
              v.sleep_state[1]);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

Test(movers, a_write_wakes_attachment1s_body_without_reaction)
{
    write_wakes_attachment1(TP_SLEEP_ISLAND);
    write_wakes_attachment1(TP_SLEEP_ASSEMBLY);
}

/* Assembly policy, zero gravity: seed 000's actuated movers (a LinearVelocity,
 * an AngularVelocity, an AlignPosition that is not rigid) use the velocity
 * thresholds x actuated_factor (0.033 m/s, |w| r 0.042 m/s), so a cube they
 * drive at 0.1 m/s (under the plain 0.33 m/s) or 0.3 rad/s (|w| r = 0.13 m/s,
 * under 0.42) stays awake and moves v t (turns w t). A VectorForce is no
 * actuated joint: a cube pushed against nothing at 0.1 m/s by a zero force
 * falls asleep at the plain threshold. */
Test(movers, assembly_actuated_movers_use_the_stricter_threshold)
{
    tp_model_def md = mover_def(0.0f);
    md.sleep.enabled = 1;
    md.sleep.policy = TP_SLEEP_ASSEMBLY;
    tp_builder *b = builder_begin(&md);
    tp_mover_def lv = tp_default_mover_def_of(TP_MOVER_LINEAR_VELOCITY);
    lv.velocity_mode = TP_VELOCITY_LINE, lv.target[0] = 0.1f, lv.body0 = add_cube(b, 0.5f, 1.0f, 0.0f, 0.0f, 0.0f);
    add_mover(b, &lv);
    tp_mover_def av = tp_default_mover_def_of(TP_MOVER_ANGULAR_VELOCITY);
    av.target[2] = 0.3f, av.body0 = add_cube(b, 0.5f, 1.0f, 0.0f, 3.0f, 0.0f);
    add_mover(b, &av);
    tp_mover_def ap = tp_default_mover_def_of(TP_MOVER_ALIGN_POSITION);
    ap.apply_at_com = 1, ap.max_velocity = 0.1f, ap.target[0] = 10.0f, ap.target[1] = 6.0f;
    ap.body0 = add_cube(b, 0.5f, 1.0f, 0.0f, 6.0f, 0.0f);
    add_mover(b, &ap);
    tp_mover_def vf = tp_default_mover_def_of(TP_MOVER_VECTOR_FORCE);
    vf.relative_to = TP_FRAME_WORLD, vf.target[0] = 1e-6f, vf.body0 = add_cube(b, 0.5f, 1.0f, 0.0f, 9.0f, 0.0f);
    add_mover(b, &vf);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    float kick[4][3] = {{0}};
    kick[3][0] = 0.1f; /* the pushed cube starts at 0.1 m/s, as the others are driven */
    cr_assert_eq(tp_batch_apply_impulses(bt, NULL, &kick[0][0], NULL), TP_OK, "%s", tp_last_error());
    batch_steps(bt, 30);
    float x0 = body_pos(bt, 0, 0)[0], x2 = body_pos(bt, 0, 2)[0], q1z = body_quat(bt, 0, 1)[2];
    batch_steps(bt, 180); /* 3 s, ten times the quiet time */
    tp_state_view v = batch_view(bt);
    for (int i = 0; i < 3; ++i) cr_assert_eq(v.sleep_state[i], TP_AWAKE, "actuated cube %d is %d, not awake", i, v.sleep_state[i]);
    cr_assert_eq(v.sleep_state[3], TP_SLEEPING, "the cube under a VectorForce is %d, not asleep", v.sleep_state[3]);
    double t = 180 * DT;
    cr_assert(fabs(body_pos(bt, 0, 0)[0] - x0 - 0.1 * t) < 2e-3, "LinearVelocity cube moved %g m, not %g",
              body_pos(bt, 0, 0)[0] - x0, 0.1 * t);
    cr_assert(fabs(body_pos(bt, 0, 2)[0] - x2 - 0.1 * t) < 2e-3, "AlignPosition cube moved %g m, not %g",
              body_pos(bt, 0, 2)[0] - x2, 0.1 * t);
    /* the turn about z: quat z = sin(angle / 2), angle 0.3 t from where it was */
    double a0 = 2.0 * asin(q1z), a1 = 2.0 * asin(body_quat(bt, 0, 1)[2]);
    cr_assert(fabs(a1 - a0 - 0.3 * t) < 2e-3, "AngularVelocity cube turned %g rad, not %g", a1 - a0, 0.3 * t);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* Assembly policy: a mover is a constraint between body0 and the body its
 * mode reads (seed 004: "movers are constraints"), so seed 000's neighbour
 * rules apply. A drone (AlignPosition, two attachments, no reaction; 2 kg)
 * starting on its goal 1 m over its marker (a free 1 kg cube, zero gravity)
 * sleeps with it. Knocked to 1 m/s (over the 0.48 m/s neighbour threshold),
 * the marker wakes the drone in the next step. Knocked to 0.2 m/s, it leaves
 * the drone sleep-checking (held where it is): the drone's own acceleration,
 * the speed its mover gives it over dt, is about 0.2 m/s / dt = 12 m/s^2,
 * under the 16.9 m/s^2 wake threshold. As the gap grows the mover's pull
 * passes it within a few steps and the drone wakes; both follow their
 * markers 1 s later. */
Test(movers, assembly_a_movers_bodies_are_neighbours)
{
    tp_model_def md = mover_def(0.0f);
    md.sleep.enabled = 1;
    md.sleep.policy = TP_SLEEP_ASSEMBLY;
    tp_builder *b = builder_begin(&md);
    tp_mover_def d = tp_default_mover_def_of(TP_MOVER_ALIGN_POSITION);
    d.apply_at_com = 1, d.two_attachment = 1, d.responsiveness = 25.0f, d.max_velocity = 8.0f;
    d.body1 = add_cube(b, 0.4f, 1.0f, 0.0f, 0.0f, 0.0f);
    d.body0 = add_cube(b, 0.5f, 2.0f, 0.0f, 0.0f, 1.0f);
    d.pos1[2] = 1.0f; /* the goal: 1 m over the marker */
    add_mover(b, &d);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 2, 1);
    batch_steps(bt, 60);
    tp_state_view v = batch_view(bt);
    for (int i = 0; i < 4; ++i) cr_assert_eq(v.sleep_state[i], TP_SLEEPING, "body %d of 4 is %d, not asleep", i, v.sleep_state[i]);
    float knock[2][2][3] = {{{1.0f, 0, 0}, {0}}, {{0.2f, 0, 0}, {0}}};
    cr_assert_eq(tp_batch_apply_impulses(bt, NULL, &knock[0][0][0], NULL), TP_OK, "%s", tp_last_error());
    batch_steps(bt, 1);
    v = batch_view(bt);
    cr_assert_eq(v.sleep_state[1], TP_AWAKE, "the drone of a fast marker is %d, not awake", v.sleep_state[1]);
    cr_assert_eq(v.sleep_state[2 + 1], TP_CHECKING, "the drone of a slow marker is %d, not checking", v.sleep_state[3]);
    cr_assert_eq(body_pos(bt, 1, 1)[0], 0.0f, "the held drone moved to x = %g", body_pos(bt, 1, 1)[0]);
    batch_steps(bt, 60);
    for (int w = 0; w < 2; ++w) {
        const float *mk = body_pos(bt, w, 0), *dr = body_pos(bt, w, 1);
        double gap = sqrt((dr[0] - mk[0]) * (dr[0] - mk[0]) + (dr[1] - mk[1]) * (dr[1] - mk[1]) +
                          (dr[2] - mk[2] - 1.0) * (dr[2] - mk[2] - 1.0));
        cr_log_info("world %d: marker at x = %.4f, drone %.2e m off its goal, state %d", w, mk[0], gap,
                    batch_view(bt).sleep_state[2 * w + 1]);
        cr_assert_eq(batch_view(bt).sleep_state[2 * w + 1], TP_AWAKE, "world %d: the drone is not awake", w);
        cr_assert(gap < 0.01, "world %d: marker at x = %g, drone %g m off its goal", w, mk[0], gap);
    }
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- scene format */

static void expect_scene_error(const char *json, const char *where, const char *reason)
{
    tp_model *m = NULL;
    cr_assert_neq(tp_model_load_string(json, "t.json", &m), TP_OK);
    cr_assert_null(m);
    cr_assert(strstr(tp_last_error(), where), "error \"%s\" lacks \"%s\"", tp_last_error(), where);
    cr_assert(strstr(tp_last_error(), reason), "error \"%s\" lacks \"%s\"", tp_last_error(), reason);
}

#define SCENE_HEAD "{\"version\": 2, \"bodies\": [{\"name\": \"drone\", \"size\": [1, 1, 0.4]}],\n"

Test(movers, scene_errors_point_at_the_value)
{
    expect_scene_error(SCENE_HEAD "\"movers\": [{\"type\": \"align_position\", \"body0\": \"dron\"}]}",
                       "t.json:2:48: movers[0].body0: ", "unknown body \"dron\"");
    expect_scene_error(SCENE_HEAD "\"movers\": [{\"type\": \"linear_velocity\", \"body0\": \"drone\", "
                                  "\"velocity_mode\": \"line\", \"line_direction\": [0, 0, 0]}]}",
                       "movers[0].line_direction: ", "non-zero direction");
    expect_scene_error(SCENE_HEAD "\"movers\": [{\"type\": \"align_position\", \"body0\": \"drone\", \"max_force\": -1}]}",
                       "movers[0].max_force: ", "must be >= 0");
    expect_scene_error(SCENE_HEAD "\"movers\": [{\"type\": \"align_pos\", \"body0\": \"drone\"}]}", "movers[0].type",
                       "align_pos");
    expect_scene_error(SCENE_HEAD "\"movers\": [{\"type\": \"torque\"}]}", "movers[0]", "body0");
}

/* A key the mover's type or velocity mode does not use is refused at that
 * key, naming the type (it was silently ignored); the same keys load where used. */
Test(movers, scene_refuses_keys_the_type_does_not_use)
{
    const struct { const char *keys, *where, *reason; } cases[] = {
        {"\"type\": \"linear_velocity\", \"rigid\": true", "movers[0].rigid: ", "a linear_velocity mover has no rigid"},
        {"\"type\": \"vector_force\", \"primary_axis_only\": true", "movers[0].primary_axis_only: ",
         "a vector_force mover has no primary_axis_only"},
        {"\"type\": \"align_position\", \"velocity_mode\": \"line\"", "movers[0].velocity_mode: ",
         "an align_position mover has no velocity_mode"},
        {"\"type\": \"linear_velocity\", \"line_direction\": [0, 0, 0]", "movers[0].line_direction: ",
         "a linear_velocity mover with \"velocity_mode\": \"vector\" has no line_direction"},
        {"\"type\": \"linear_velocity\", \"velocity_mode\": \"line\", \"tangent0\": [0, 1, 0]", "movers[0].tangent0: ",
         "with \"velocity_mode\": \"line\" has no tangent0"},
        {"\"type\": \"torque\", \"max_force\": 3", "movers[0].max_force: ", "a torque mover has no max_force"},
        {"\"type\": \"angular_velocity\", \"responsiveness\": 3", "movers[0].responsiveness: ",
         "an angular_velocity mover has no responsiveness"},
        {"\"type\": \"align_orientation\", \"relative_to\": \"world\"", "movers[0].relative_to: ",
         "an align_orientation mover has no relative_to"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char json[512];
        snprintf(json, sizeof json, SCENE_HEAD "\"movers\": [{\"body0\": \"drone\", %s}]}", cases[i].keys);
        expect_scene_error(json, cases[i].where, cases[i].reason);
    }
    const char *used[] = {"\"type\": \"align_position\", \"rigid\": true, \"apply_at_com\": true, \"mode\": \"one_attachment\"",
                          "\"type\": \"align_orientation\", \"primary_axis_only\": true, \"max_velocity\": 2",
                          "\"type\": \"linear_velocity\", \"velocity_mode\": \"plane\", \"tangent0\": [1, 0, 0], "
                          "\"tangent1\": [0, 1, 0], \"relative_to\": \"attachment0\"",
                          "\"type\": \"vector_force\", \"apply_at_com\": true, \"relative_to\": \"world\"",
                          "\"type\": \"torque\", \"relative_to\": \"world\", \"enabled\": false"};
    for (size_t i = 0; i < sizeof used / sizeof used[0]; ++i) {
        char json[512];
        snprintf(json, sizeof json, SCENE_HEAD "\"movers\": [{\"body0\": \"drone\", %s}]}", used[i]);
        tp_model *m = NULL;
        cr_assert_eq(tp_model_load_string(json, "t.json", &m), TP_OK, "%s: %s", used[i], tp_last_error());
        tp_model_destroy(m);
    }
}

/* Attachment positions and an align_position's goal within TP_MAX_SIZE (a
 * goal at 1e20 m overflowed its squared distance: active, 0 N), in the
 * scene, a mover event and tp_batch_set_mover_targets (nothing changes). */
Test(movers, positions_and_goals_are_bounded)
{
    expect_scene_error(SCENE_HEAD "\"movers\": [{\"type\": \"align_position\", \"body0\": \"drone\", \"target\": [1e20, 0, 0]}]}",
                       "movers[0].target: ", "must be within [-10000, 10000] m in each component "
                       "(docs/scene-format.md, \"Bounds\"), got [1e+20, 0, 0]");
    expect_scene_error(SCENE_HEAD "\"movers\": [{\"type\": \"torque\", \"body0\": \"drone\", \"pos0\": [0, 0, 2e4]}]}",
                       "movers[0].pos0: ", "got [0, 0, 20000]");
    expect_scene_error(SCENE_HEAD "\"movers\": [{\"name\": \"m\", \"type\": \"align_position\", \"body0\": \"drone\"}],"
                                  "\"events\": [{\"time\": 0, \"action\": \"mover\", \"mover\": \"m\", \"target\": [0, 1e20, 0]}]}",
                       "events[0]", "target[1] of \"m\" (type align_position) must be within [-1e4, 1e4] m");
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(SCENE_HEAD "\"movers\": [{\"type\": \"align_position\", \"body0\": \"drone\", "
                                                 "\"target\": [1e4, -1e4, 0]}, {\"type\": \"vector_force\", "
                                                 "\"body0\": \"drone\", \"target\": [1e20, 0, 0]}]}", "t.json", &m),
                 TP_OK, "%s", tp_last_error());
    tp_batch *b = make_batch(m, 1, 1);
    float t[2][4] = {{1e20f, 0, 0, 0}, {0, 0, 0, 0}}, got[2][4];
    cr_assert_eq(tp_batch_set_mover_targets(b, NULL, &t[0][0], NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "targets row 0, mover 0 (mover0) [0] must be within [-1e4, 1e4] m"), "%s",
              tp_last_error());
    cr_assert_eq(tp_batch_movers(b, &got[0][0], NULL, NULL), TP_OK);
    cr_assert(got[0][0] == 1e4f && got[1][0] == 1e20f, "changed despite the error: %g %g", got[0][0], got[1][0]);
    t[0][0] = 1e4f;
    t[1][0] = 1e30f; /* a force: no position bound */
    cr_assert_eq(tp_batch_set_mover_targets(b, NULL, &t[0][0], NULL), TP_OK, "%s", tp_last_error());
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(movers, scene_loads_and_matches_the_api)
{
    const char *json = SCENE_HEAD "\"movers\": [{\"name\": \"follow\", \"type\": \"align_position\", \"body0\": \"drone\", "
                                  "\"target\": [0, 0, 4], \"responsiveness\": 25, \"max_velocity\": 8, \"rigid\": false},"
                                  "{\"type\": \"linear_velocity\", \"body0\": \"drone\", \"relative_to\": \"attachment0\", "
                                  "\"velocity_mode\": \"line\", \"line_direction\": [0, 2, 0], \"target\": 5, "
                                  "\"max_force\": 200, \"enabled\": false}]}";
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(json, "t.json", &m), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_model_mover_count(m), 2);
    tp_mover_def d;
    cr_assert_eq(tp_model_mover(m, tp_model_find_mover(m, "follow"), &d), TP_OK);
    cr_assert(d.type == TP_MOVER_ALIGN_POSITION && d.body0 == 0 && d.body1 == -1 && d.target[2] == 4.0f);
    cr_assert(d.responsiveness == 25.0f && d.max_velocity == 8.0f && d.max_force == FLT_MAX && d.enabled == 1);
    cr_assert_eq(tp_model_mover(m, 1, &d), TP_OK);
    cr_assert(d.type == TP_MOVER_LINEAR_VELOCITY && d.relative_to == TP_FRAME_ATTACHMENT0 &&
              d.velocity_mode == TP_VELOCITY_LINE && d.target[0] == 5.0f && d.target[1] == 0.0f && d.enabled == 0);
    cr_assert(d.line_direction[1] == 1.0f, "direction stored unit");
    cr_assert_eq(tp_model_find_mover(m, "mover1"), 1);
    tp_model_destroy(m);
}

/* Mover events (docs/scene-format.md, "Events"): a drone in zero gravity on an
 * AlignPosition of responsiveness 200 ("gets there in one physics step") at
 * dt = 1/60 s. The event at t = 1 s moves its goal to (2, -1, 3): one step
 * later the drone is there. The event at t = 2 s disables the mover and moves
 * its goal on: a disabled mover moves nothing, so the drone stays. In world 1
 * only, the event at 2.5 s enables it again: it goes to (5, 5, 5). */
Test(movers, scene_events_write_targets_and_enabled)
{
    const char *json =
        "{\"version\": 2, \"gravity\": [0, 0, 0], \"dt\": 0.016666667, \"substeps\": 4,\n"
        " \"bodies\": [{\"name\": \"drone\", \"size\": [1, 1, 0.4]}],\n"
        " \"movers\": [{\"name\": \"goal\", \"type\": \"align_position\", \"body0\": \"drone\", \"responsiveness\": 200,\n"
        "   \"apply_at_com\": true}],\n"
        " \"events\": [{\"time\": 1, \"action\": \"mover\", \"mover\": \"goal\", \"target\": [2, -1, 3]},\n"
        "  {\"time\": 2, \"action\": \"mover\", \"mover\": \"goal\", \"target\": [5, 5, 5], \"enabled\": false},\n"
        "  {\"time\": 2.5, \"action\": \"mover\", \"mover\": \"goal\", \"enabled\": true, \"worlds\": [1]}]}\n";
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(json, "t.json", &m), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_model_event_count(m), 3);
    tp_event_def e;
    cr_assert_eq(tp_model_event(m, 1, &e), TP_OK);
    cr_assert(e.action == TP_EVENT_MOVER && e.mover == 0 && e.has_target && e.enabled == 0 && e.target[2] == 5.0f);
    tp_batch *b = make_batch(m, 2, 1);
    batch_steps(b, 61); /* the event fires before step 60; after it the drone is at its goal */
    for (int w = 0; w < 2; ++w) {
        const float *p = body_pos(b, w, 0);
        cr_assert(fabs(p[0] - 2.0) < 1e-4 && fabs(p[1] + 1.0) < 1e-4 && fabs(p[2] - 3.0) < 1e-4, "world %d at (%g, %g, %g)",
                  w, p[0], p[1], p[2]);
    }
    batch_steps(b, 59 + 30); /* to 2.5 s: disabled, the new goal unheeded */
    float t[2][1][4];
    uint8_t active[2];
    cr_assert_eq(tp_batch_movers(b, &t[0][0][0], active, NULL), TP_OK);
    cr_assert(t[0][0][0] == 5.0f && active[0] == 0 && active[1] == 0, "target %g, active %d %d", t[0][0][0], active[0],
              active[1]);
    cr_assert(fabs(body_pos(b, 0, 0)[0] - 2.0) < 1e-3, "the disabled mover moved the drone to x = %g", body_pos(b, 0, 0)[0]);
    batch_steps(b, 2);
    cr_assert(fabs(body_pos(b, 0, 0)[0] - 2.0) < 1e-3, "world 0 moved to x = %g", body_pos(b, 0, 0)[0]);
    cr_assert(fabs(body_pos(b, 1, 0)[0] - 5.0) < 1e-4 && fabs(body_pos(b, 1, 0)[2] - 5.0) < 1e-4,
              "world 1, enabled again, at x = %g", body_pos(b, 1, 0)[0]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
    expect_scene_error(SCENE_HEAD "\"movers\": [{\"name\": \"goal\", \"type\": \"align_position\", \"body0\": \"drone\"}],\n"
                       "\"events\": [{\"time\": 1, \"action\": \"mover\", \"mover\": \"gaol\", \"target\": 1}]}",
                       "t.json:3:52: events[0].mover", "unknown mover \"gaol\"");
    expect_scene_error(SCENE_HEAD "\"movers\": [{\"name\": \"goal\", \"type\": \"align_position\", \"body0\": \"drone\"}],\n"
                       "\"events\": [{\"time\": 1, \"action\": \"mover\", \"mover\": \"goal\"}]}",
                       "events[0]", "needs \"target\" or \"enabled\"");
    expect_scene_error(SCENE_HEAD "\"movers\": [{\"name\": \"turn\", \"type\": \"align_orientation\", \"body0\": \"drone\"}],\n"
                       "\"events\": [{\"time\": 1, \"action\": \"mover\", \"mover\": \"turn\", \"target\": [0, 0, 0, 0]}]}",
                       "t.json:3:12: events[0]", "non-zero quaternion");
    expect_scene_error(SCENE_HEAD "\"events\": [{\"time\": 1, \"action\": \"wake\", \"body\": \"drone\", \"enabled\": true}]}",
                       "events[0].enabled", "takes no \"enabled\"");
}

/* ---------------------------------------------------------------- determinism */

/* A drone following a goal off its centre (it swings), a cart pushed along
 * the ground into a box, a spinning top held by AlignPosition rigid and
 * AngularVelocity, a rocket on a VectorForce: contacts and movers in one
 * solve, several worlds with their own goals, several threads. */
static tp_model *mixed_model(void)
{
    tp_model_def md = tp_default_model_def();
    tp_builder *b = builder_begin(&md);
    builder_add_ground(b);
    tp_mover_def d = tp_default_mover_def();
    d.body0 = add_cube(b, 0.6f, 1.0f, 0.0f, 0.0f, 2.0f);
    d.pos0[2] = 0.3f;
    d.target[0] = 1.0f, d.target[2] = 3.0f;
    d.responsiveness = 25.0f;
    d.max_velocity = 8.0f;
    add_mover(b, &d);
    d = tp_default_mover_def_of(TP_MOVER_LINEAR_VELOCITY);
    d.body0 = add_cube(b, 0.5f, 5.0f, 3.0f, 0.0f, 0.25f);
    add_cube(b, 0.5f, 2.0f, 4.0f, 0.0f, 0.25f);
    d.relative_to = TP_FRAME_ATTACHMENT0;
    d.velocity_mode = TP_VELOCITY_LINE;
    d.target[0] = 2.0f;
    d.max_force = 100.0f;
    add_mover(b, &d);
    d = tp_default_mover_def();
    d.body0 = add_cube(b, 0.8f, 2.0f, -3.0f, 0.0f, 1.0f);
    d.rigid = 1;
    d.target[0] = -3.0f, d.target[2] = 1.0f;
    add_mover(b, &d);
    d = tp_default_mover_def_of(TP_MOVER_ANGULAR_VELOCITY);
    d.body0 = 4;
    d.target[2] = 3.0f;
    d.max_force = 20.0f;
    add_mover(b, &d);
    d = tp_default_mover_def_of(TP_MOVER_VECTOR_FORCE);
    d.body0 = add_cube(b, 0.3f, 0.5f, 0.0f, 3.0f, 0.15f);
    d.pos0[0] = 0.1f;
    d.target[2] = 8.0f;
    add_mover(b, &d);
    return builder_finish(b);
}

static void mixed_goals(tp_batch *b)
{
    int W = tp_batch_worlds(b);
    float *t = calloc((size_t)W * 5 * 4, sizeof *t);
    cr_assert_eq(tp_batch_movers(b, t, NULL, NULL), TP_OK);
    for (int w = 0; w < W; ++w) t[20 * w + 1] = 0.5f * (float)(w % 3); /* the drone's goal y */
    cr_assert_eq(tp_batch_set_mover_targets(b, NULL, t, NULL), TP_OK);
    free(t);
}

Test(movers, determinism_threads_worlds)
{
    tp_model *m = mixed_model();
    tp_batch *one = make_batch(m, 1, 1), *many = make_batch(m, 5, 2), *again = make_batch(m, 1, 1);
    mixed_goals(one);
    mixed_goals(many);
    mixed_goals(again);
    batch_steps(one, 150);
    batch_steps(many, 150);
    batch_steps(again, 150);
    uint64_t h = batch_world_hash(one, 0);
    cr_assert_eq(h, batch_world_hash(again, 0));
    cr_assert_eq(h, batch_world_hash(many, 0));
    cr_assert_eq(h, batch_world_hash(many, 3));
    cr_assert_neq(h, batch_world_hash(many, 1), "worlds with other goals moved the same");
    tp_batch_destroy(one);
    tp_batch_destroy(many);
    tp_batch_destroy(again);
    tp_model_destroy(m);
}

Test(movers, determinism_simd_widths)
{
    tp_model *m = mixed_model();
    uint64_t first = 0;
    const tp_simd widths[] = {TP_SIMD_OFF, TP_SIMD_SSE2, TP_SIMD_AVX2, TP_SIMD_AUTO};
    for (int i = 0; i < 4; ++i) {
        tp_batch_def bd = tp_default_batch_def();
        bd.worlds = 2;
        bd.threads = 1;
        bd.simd = widths[i];
        tp_batch *b = NULL;
        if (tp_batch_create(m, &bd, &b) != TP_OK) continue; /* a width this CPU lacks */
        batch_steps(b, 120);
        uint64_t h = batch_world_hash(b, 1);
        if (i == 0) first = h;
        cr_assert_eq(h, first, "simd %d", (int)widths[i]);
        tp_batch_destroy(b);
    }
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- scenes */

static tp_model *load_scene(const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/%s", TP_SOURCE_DIR, file);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(path, &m), TP_OK, "%s", tp_last_error());
    return m;
}

/* Distance of body `body` of world 0 from point g. */
static double gap_to(tp_batch *b, int body, const double *g)
{
    const float *p = body_pos(b, 0, body);
    return sqrt((p[0] - g[0]) * (p[0] - g[0]) + (p[1] - g[1]) * (p[1] - g[1]) + (p[2] - g[2]) * (p[2] - g[2]));
}

/* scenes/drone.json, seed 004's drone whose goal a script jumps every 2 s:
 * the goal is written by `mover` events at 2, 4, 6, 8 and 10 s. The approach
 * law (responsiveness 25: 7.5 per second of the distance, capped at 8 m/s)
 * flies at 8 m/s down to 8 / 7.5 = 1.07 m, then leaves 1 - 7.5 dt = 0.875 of
 * the distance each step: within 1 mm 52 steps (0.87 s) later. So it rises
 * 3.8 m to its first goal and hovers there (weight carried) by 2 s; 0.25 s
 * after the jump to (4, -3, 4), 5 m away, it flies at 8 m/s toward it,
 * 5 - 8 x 0.25 m short (within a step's 8 dt); by 4 s it is there. */
Test(movers, scene_drone_follows_its_goal)
{
    tp_model *m = load_scene("drone.json");
    tp_batch *b = make_batch(m, 1, 1);
    const double g0[3] = {0, 0, 4}, g1[3] = {4, -3, 4};
    batch_steps(b, 120); /* the event at 2 s is due before the next step */
    const float *v = body_v(b, 0, 1);
    cr_assert(gap_to(b, 1, g0) < 1e-3, "at 2 s the drone is %g m off its first goal", gap_to(b, 1, g0));
    cr_assert(sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) < 1e-2, "hovering at %g %g %g m/s", v[0], v[1], v[2]);
    batch_steps(b, 15);
    v = body_v(b, 0, 1);
    double left = gap_to(b, 1, g1), along = (v[0] * 0.8 - v[1] * 0.6);
    cr_log_info("0.25 s after the jump: %.3f m to go (law %.3f), %.3f m/s toward the goal", left, 5.0 - 8.0 * 0.25,
                along);
    cr_assert(fabs(left - (5.0 - 8.0 * 0.25)) < 8.0 * DT, "%g m to go, the law says %g", left, 5.0 - 8.0 * 0.25);
    cr_assert(fabs(along - 8.0) < 1e-2, "flying at %g m/s toward the goal, max 8", along);
    batch_steps(b, 239 - 135);
    cr_assert(gap_to(b, 1, g1) < 1e-3, "at 4 s the drone is %g m off its second goal", gap_to(b, 1, g1));
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* scenes/turntable.json: a 6 m disc (0.3 m thick, density 100) pinned by a
 * rigid AlignPosition spins up under 5000 N m at tau / I (I = m r^2 / 2),
 * then turns at 1 rad/s, flat, its centre in place. */
Test(movers, scene_turntable_spins_up_and_holds)
{
    tp_model *m = load_scene("turntable.json");
    tp_batch *b = make_batch(m, 1, 1);
    double mass = 100.0 * 3.14159265358979 * 9.0 * 0.3, I = mass * 9.0 / 2.0;
    batch_steps(b, 30);
    cr_assert(fabs(body_w(b, 0, 1)[2] - 5000.0 / I * 0.5) < 0.01 * 5000.0 / I * 0.5, "w %g at 0.5 s, tau / I t = %g",
              body_w(b, 0, 1)[2], 5000.0 / I * 0.5);
    batch_steps(b, 150);
    const float *w = body_w(b, 0, 1), *p = body_pos(b, 0, 1);
    cr_assert(fabs(w[2] - 1.0) < 1e-3 && fabs(w[0]) < 1e-3 && fabs(w[1]) < 1e-3, "w (%g, %g, %g)", w[0], w[1], w[2]);
    cr_assert(fabs(p[0]) < 1e-3 && fabs(p[1]) < 1e-3 && fabs(p[2] - 3.0) < 1e-3, "centre at (%g, %g, %g)", p[0], p[1],
              p[2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}
