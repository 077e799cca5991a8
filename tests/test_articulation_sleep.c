/* test_articulation_sleep.c - islands and sleep of articulations, the rules of
 * 002_a9dafb58cea291df.txt (its sleeping section), each in a small scene:
 * an undriven arm resting on a table sleeps (links counted in body_awake,
 * skipped rows report zero force); a driven or sprung one never does; an arm
 * and what rests on it are one island; a moving arm touching a sleeping tower
 * wakes it and joins its island; a non-zero joint_f wakes a sleeping arm;
 * determinism of these scenes; the per-thread articulation scratch holds
 * nothing a world's next step reads (three trees, some asleep). */
#include "helpers.h"

#include "articulation_host.h"
#include "batch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define G 9.81
#define LINK_L 0.5f
#define LINK_W 0.1f
#define HINGE_Z 1.0f

static tp_model_def sleepy_def(void)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = -(float)G;
    md.sleep.enabled = 1;
    return md;
}

static int add_static_box(tp_builder *b, float x, float y, float z, float sx, float sy, float sz)
{
    tp_body_def bd = tp_default_body_def();
    bd.type = TP_BODY_STATIC;
    bd.pos[0] = x;
    bd.pos[1] = y;
    bd.pos[2] = z;
    bd.size[0] = sx;
    bd.size[1] = sy;
    bd.size[2] = sz;
    return builder_add(b, &bd);
}

static int add_box(tp_builder *b, float x, float y, float z, float size)
{
    tp_body_def bd = tp_default_body_def();
    bd.pos[0] = x;
    bd.pos[1] = y;
    bd.pos[2] = z;
    bd.size[0] = bd.size[1] = bd.size[2] = size;
    return builder_add(b, &bd);
}

/* Arm kinds. */
enum { ARM_FREE = 0, ARM_PD = 1, ARM_SPRING = 2 };

/* A fixed-base two-link arm lying along +x on a static table: hinges about y
 * at (0, 0, HINGE_Z) and (LINK_L, 0, HINGE_Z), links of LINK_L x LINK_W x
 * LINK_W whose undersides touch the table top (z = HINGE_Z - LINK_W / 2).
 * Writes the two link bodies to links[2]. */
static void add_arm_on_table(tp_builder *b, int kind, int *links)
{
    add_static_box(b, 0.6f, 0.0f, HINGE_Z - 0.5f * LINK_W - 0.25f, 1.6f, 0.6f, 0.5f);
    for (int k = 0; k < 2; ++k) {
        tp_body_def bd = tp_default_body_def();
        bd.size[0] = LINK_L;
        bd.size[1] = bd.size[2] = LINK_W;
        bd.mass = 1.0f;
        bd.pos[0] = (0.5f + (float)k) * LINK_L;
        bd.pos[2] = HINGE_Z;
        links[k] = builder_add(b, &bd);
        tp_joint_def j = tp_default_joint_def();
        j.type = TP_JOINT_REVOLUTE;
        j.parent = k ? links[0] : -1;
        j.child = links[k];
        j.axis[0] = 0.0f;
        j.axis[1] = 1.0f;
        j.axis[2] = 0.0f;
        j.anchor[0] = -0.5f * LINK_L;
        if (kind == ARM_PD) {
            j.drive = TP_DRIVE_POSITION;
            j.kp = 50.0f;
            j.kd = 5.0f;
        } else if (kind == ARM_SPRING) {
            j.stiffness = 5.0f;
        }
        cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    }
}

static tp_model *arm_model(int kind, int *links)
{
    tp_model_def md = sleepy_def();
    tp_builder *b = builder_begin(&md);
    add_arm_on_table(b, kind, links);
    return builder_finish(b);
}

/* The step (from 1) at which both links are asleep, or -1 within `steps`. */
static int steps_until_asleep(tp_batch *batch, const int *links, int steps)
{
    for (int step = 1; step <= steps; ++step) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        if (s.sleep_state[links[0]] == TP_SLEEPING && s.sleep_state[links[1]] == TP_SLEEPING) return step;
    }
    return -1;
}

/* ---------------------------------------------------------------- sleeps */

/* Resting on the table from the start, the undriven arm is quiet at once:
 * it sleeps after the quiet time (0.5 s = 30 steps) plus the first steps in
 * which its contacts settle. Asleep, its links read body_awake 0 and count as
 * sleeping, its joint state is frozen bit for bit and its rows are skipped
 * (zero contact force). While it settles it counts as two awake bodies. */
Test(articulation_sleep, undriven_arm_on_a_table_sleeps)
{
    int links[2];
    tp_model *m = arm_model(ARM_FREE, links);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 1);
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.awake_count[0], 2, "links are counted awake: %d", s.awake_count[0]);
    cr_assert(s.body_awake[links[0]] == 1 && s.body_awake[links[1]] == 1);
    cr_assert_eq(s.island[links[0]], s.island[links[1]], "the links of a tree are one island");
    cr_assert(s.contact_f[3 * links[1] + 2] > 1.0f, "the table carries the arm: %g N", s.contact_f[3 * links[1] + 2]);
    int at = steps_until_asleep(b, links, 120);
    cr_assert(at > 0 && at <= 45, "the arm fell asleep at step %d (expected by 45)", at);
    s = batch_view(b);
    cr_assert_eq(s.awake_count[0], 0);
    cr_assert_eq(s.sleeping_count[0], 2);
    cr_assert(s.body_awake[links[0]] == 0 && s.body_awake[links[1]] == 0);
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK);
    float q[2] = {v.q[0], v.q[1]};
    cr_assert(v.qd[0] == 0.0f && v.qd[1] == 0.0f, "asleep with joint_qd %g %g", v.qd[0], v.qd[1]);
    float pos[3];
    memcpy(pos, s.pos + 3 * links[1], sizeof pos);
    batch_steps(b, 60);
    s = batch_view(b);
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK);
    cr_assert(memcmp(q, v.q, sizeof q) == 0, "joint_q changed while asleep");
    cr_assert(memcmp(pos, s.pos + 3 * links[1], sizeof pos) == 0, "a link moved while asleep");
    for (int k = 0; k < 3; ++k)
        cr_assert(s.contact_f[3 * links[1] + k] == 0.0f, "skipped rows report zero force, got %g",
                  s.contact_f[3 * links[1] + k]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The arm sleeps while its world stays busy: a rod spinning under a velocity
 * motor far away (a driven tree, never asleep) keeps the solve running every
 * step. The sleeping arm's links must stay frozen bit for bit all the same
 * (its tree is not stepped, its links not integrated). */
Test(articulation_sleep, sleeping_arm_stays_frozen_in_a_busy_world)
{
    int links[2];
    tp_model_def md = sleepy_def();
    tp_builder *b = builder_begin(&md);
    add_arm_on_table(b, ARM_FREE, links);
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = 0.8f;
    bd.size[1] = bd.size[2] = 0.05f;
    bd.pos[0] = 5.4f;
    bd.pos[2] = 2.0f;
    int spinner = builder_add(b, &bd);
    tp_joint_def j = tp_default_joint_def();
    j.type = TP_JOINT_REVOLUTE;
    j.parent = -1;
    j.child = spinner;
    j.axis[0] = 0.0f;
    j.axis[1] = 0.0f;
    j.axis[2] = 1.0f;
    j.anchor[0] = -0.4f;
    j.drive = TP_DRIVE_VELOCITY;
    j.target_qd = 1.0f;
    j.max_effort = 10.0f;
    cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    cr_assert(steps_until_asleep(batch, links, 120) > 0, "the arm never slept");
    tp_state_view s = batch_view(batch);
    float pose[2][7];
    for (int k = 0; k < 2; ++k) {
        memcpy(pose[k], s.pos + 3 * links[k], 3 * sizeof(float));
        memcpy(pose[k] + 3, s.quat + 4 * links[k], 4 * sizeof(float));
    }
    for (int step = 0; step < 60; ++step) {
        batch_steps(batch, 1);
        s = batch_view(batch);
        cr_assert_eq(s.body_awake[spinner], 1, "the driven spinner slept");
        for (int k = 0; k < 2; ++k)
            cr_assert(memcmp(pose[k], s.pos + 3 * links[k], 3 * sizeof(float)) == 0 &&
                          memcmp(pose[k] + 3, s.quat + 4 * links[k], 4 * sizeof(float)) == 0,
                      "step %d: sleeping link %d moved", step, k);
    }
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* The same arm with PD drives (kp 50, kd 5, targets at its pose) or with
 * passive springs is driven: it never sleeps (002), though it rests as still. */
static void stays_awake(int kind)
{
    int links[2];
    tp_model *m = arm_model(kind, links);
    tp_batch *b = make_batch(m, 1, 1);
    for (int step = 0; step < 300; ++step) {
        batch_steps(b, 1);
        tp_state_view s = batch_view(b);
        cr_assert(s.body_awake[links[0]] == 1 && s.body_awake[links[1]] == 1, "step %d: a driven link sleeps", step);
        cr_assert_eq(s.awake_count[0], 2);
    }
    tp_state_view s = batch_view(b);
    cr_assert(fabsf(s.v[3 * links[1] + 2]) < 0.01f, "the driven arm rests too: %g m/s", s.v[3 * links[1] + 2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(articulation_sleep, driven_arm_never_sleeps) { stays_awake(ARM_PD); }
Test(articulation_sleep, sprung_arm_never_sleeps) { stays_awake(ARM_SPRING); }

/* A cube resting on the driven arm is in the arm's island, which never
 * sleeps: once settled (after the quiet time, 30 steps, plus 30), the cube
 * and the links report awake, not checking, under the island policy,
 * whatever the cube's own quiet timer says (it runs: the cube is still). */
Test(articulation_sleep, cube_on_a_driven_arm_reports_awake)
{
    int links[2];
    tp_model_def md = sleepy_def();
    tp_builder *b = builder_begin(&md);
    add_arm_on_table(b, ARM_PD, links);
    int cube = add_box(b, 0.75f, 0.0f, HINGE_Z + 0.5f * LINK_W + 0.05f, 0.1f);
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    for (int step = 1; step <= 240; ++step) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        if (step < 60) continue;
        cr_assert_eq(s.island[cube], s.island[links[0]], "step %d: the cube left the arm's island", step);
        cr_assert_eq(s.body_awake[cube], 1, "step %d: the cube on a driven arm sleeps", step);
        for (int k = 0; k < 3; ++k) {
            int body = k < 2 ? links[k] : cube;
            cr_assert_eq(s.sleep_state[body], TP_AWAKE, "step %d: body %d reports state %d (timer %g s)", step, body,
                         s.sleep_state[body], s.quiet_timer[body]);
        }
        if (step == 240) cr_expect_gt(s.quiet_timer[cube], 0.5f, "the cube is quiet: its timer runs");
    }
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* A cube resting on the arm's second link joins the arm's island (the table,
 * static, joins nothing); they fall asleep together, and a non-zero joint_f
 * on the first joint wakes both (a wake event of 002): the arm lifts. */
Test(articulation_sleep, joint_f_wakes_a_sleeping_arm_and_its_island)
{
    int links[2];
    tp_model_def md = sleepy_def();
    tp_builder *b = builder_begin(&md);
    add_arm_on_table(b, ARM_FREE, links);
    int cube = add_box(b, 0.75f, 0.0f, HINGE_Z + 0.5f * LINK_W + 0.05f, 0.1f);
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    int at = steps_until_asleep(batch, links, 120);
    cr_assert(at > 0, "the arm never slept");
    tp_state_view s = batch_view(batch);
    cr_assert_eq(s.sleep_state[cube], TP_SLEEPING, "the cube on the arm sleeps with it");
    cr_assert_eq(s.island[cube], s.island[links[0]], "cube and arm are one island");
    cr_assert(s.island[0] == -1, "the table is in no island");
    batch_steps(batch, 5);
    /* lift: a negative torque about y turns the arm's free end up; 60 N m
     * is over three times the largest weight moment about the hinge (the
     * first link, 1 kg at 0.25 m, the second and the cube, 2 kg at 0.75 m:
     * 17.2 N m), so the first joint turns up within the step */
    float f[2] = {-60.0f, 0.0f};
    int world = 0;
    cr_assert_eq(tp_batch_set_joints(batch, TP_JOINT_ARRAY_F, WORLD_LIST(&world, 1), f), TP_OK, "%s", tp_last_error());
    s = batch_view(batch);
    cr_assert_eq(s.sleep_state[links[0]], TP_SLEEPING, "writing joint_f wakes in the step, not before");
    batch_steps(batch, 1);
    s = batch_view(batch);
    cr_assert(s.body_awake[links[0]] == 1 && s.body_awake[links[1]] == 1, "joint_f did not wake the arm");
    cr_assert_eq(s.body_awake[cube], 1, "the cube in the arm's island did not wake");
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(batch, &v), TP_OK);
    cr_assert(v.qd[0] < -0.1f, "the arm does not lift: qd = %g rad/s", v.qd[0]);
    cr_assert(v.f[0] == 0.0f, "joint_f lasts one step");
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- a moving arm wakes a tower */

/* A tower of three 0.2 m cubes at x = 0.7 falls asleep; a rod of 0.8 m on a
 * vertical hinge at (0, 0, 0.5), turned away by 1.2 rad, sweeps towards it
 * under a velocity motor (0.5 rad/s, so it reaches the top cube after about
 * 2 s, long after the tower slept). The motor drives it: it never sleeps. When
 * it reaches the top cube the tower wakes, joins the arm's island, and the
 * top cube is pushed. */
static tp_model *arm_tower_model(int *rod, int *cubes)
{
    tp_model_def md = sleepy_def();
    tp_builder *b = builder_begin(&md);
    add_static_box(b, 0.0f, 0.0f, -0.5f, 6.0f, 6.0f, 1.0f);
    for (int k = 0; k < 3; ++k) cubes[k] = add_box(b, 0.7f, 0.0f, 0.1f + 0.2f * (float)k, 0.2f);
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = 0.8f;
    bd.size[1] = bd.size[2] = 0.05f;
    bd.pos[0] = 0.4f;
    bd.pos[2] = 0.5f;
    *rod = builder_add(b, &bd);
    tp_joint_def j = tp_default_joint_def();
    j.type = TP_JOINT_REVOLUTE;
    j.parent = -1;
    j.child = *rod;
    j.axis[0] = 0.0f;
    j.axis[1] = 0.0f;
    j.axis[2] = 1.0f;
    j.anchor[0] = -0.4f;
    j.q0 = 1.2f;
    j.drive = TP_DRIVE_VELOCITY;
    j.target_qd = -0.5f;
    j.max_effort = 50.0f;
    cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    return builder_finish(b);
}

Test(articulation_sleep, moving_arm_wakes_a_sleeping_tower)
{
    int rod, cubes[3];
    tp_model *m = arm_tower_model(&rod, cubes);
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, 90); /* 1.5 s: the tower has slept, the rod is still 0.45 rad away */
    tp_state_view s = batch_view(b);
    for (int k = 0; k < 3; ++k) cr_assert_eq(s.sleep_state[cubes[k]], TP_SLEEPING, "cube %d is awake at 1.5 s", k);
    cr_assert_eq(s.body_awake[rod], 1, "the driven rod sleeps");
    cr_assert(s.island[rod] != s.island[cubes[0]], "the rod joined the tower before touching it");
    float top[3];
    memcpy(top, s.pos + 3 * cubes[2], sizeof top);
    int woke = -1;
    for (int step = 0; step < 120 && woke < 0; ++step) {
        batch_steps(b, 1);
        s = batch_view(b);
        if (s.sleep_state[cubes[0]] != TP_SLEEPING) woke = step;
    }
    cr_assert(woke >= 0, "the tower never woke");
    for (int k = 0; k < 3; ++k) cr_assert_eq(s.body_awake[cubes[k]], 1, "cube %d stayed asleep", k);
    /* it woke as the rod closed in (reach within the step); once they touch,
     * the rod, the top cube and what that rests on are one island */
    int joined = 0;
    for (int step = 0; step < 30; ++step) {
        batch_steps(b, 1);
        s = batch_view(b);
        joined |= s.island[rod] == s.island[cubes[2]] && s.island[rod] == s.island[cubes[0]];
    }
    cr_assert(joined, "the moving fixed-base arm never joined the island it touches");
    float moved = hypotf(s.pos[3 * cubes[2]] - top[0], s.pos[3 * cubes[2] + 1] - top[1]);
    cr_assert(moved > 0.01f, "the top cube was not pushed (moved %g m)", moved);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- determinism */

static void tower_hashes(int worlds, int threads, uint64_t *w0, uint64_t *all, int *awake_end)
{
    int rod, cubes[3];
    tp_model *m = arm_tower_model(&rod, cubes);
    tp_batch *b = make_batch(m, worlds, threads);
    batch_steps(b, 240);
    *w0 = batch_world_hash(b, 0);
    *all = batch_state_hash(b);
    tp_state_view s = batch_view(b);
    *awake_end = s.awake_count[0];
    for (int w = 1; w < worlds; ++w) cr_assert_eq(batch_world_hash(b, w), *w0, "world %d differs from world 0", w);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(articulation_sleep, deterministic_runs_threads_worlds)
{
    uint64_t a0, aa, b0, ba, c0, ca, d0, da;
    int n;
    tower_hashes(3, 1, &a0, &aa, &n);
    tower_hashes(3, 1, &b0, &ba, &n);
    tower_hashes(3, 2, &c0, &ca, &n);
    tower_hashes(1, 1, &d0, &da, &n);
    cr_assert_eq(aa, ba, "two runs differ");
    cr_assert_eq(aa, ca, "thread count changes the result");
    cr_assert_eq(a0, d0, "world 0 depends on the world count");
}

/* A non-finite joint_f is a wake event too (002). tp_batch_set_joints refuses
 * non-finite values, so the test writes the batch's own array through the
 * view: the plan stage must wake the sleeping tree, whose step then turns
 * non-finite and faults the world. Left asleep, the NaN would sit in joint_f
 * unseen and the world would stay sane. */
Test(articulation_sleep, non_finite_joint_f_wakes_and_faults)
{
    int links[2];
    tp_model *m = arm_model(ARM_FREE, links);
    tp_batch *b = make_batch(m, 1, 1);
    cr_assert(steps_until_asleep(b, links, 120) > 0, "the arm never slept");
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK);
    ((float *)v.f)[1] = NAN;
    batch_steps(b, 1);
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.faults[0], 1, "a NaN joint_f on a sleeping arm did not reach its dynamics");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* tp_batch_sleep on a link puts its tree's island to sleep at once, even
 * swinging: it freezes (joint_q kept bit for bit, joint_qd read as zero, as a
 * sleeping body's velocity is), and woken again it starts from rest at that
 * angle, not with the speed it had. A pendulum: one rod on a hinge about y at
 * (0, 0, HINGE_Z), released horizontal, no table. */
Test(articulation_sleep, sleep_call_freezes_a_swinging_tree)
{
    tp_model_def md = sleepy_def();
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = LINK_L;
    bd.size[1] = bd.size[2] = LINK_W;
    bd.pos[0] = 0.5f * LINK_L;
    bd.pos[2] = HINGE_Z;
    int rod = builder_add(b, &bd);
    tp_joint_def j = tp_default_joint_def();
    j.type = TP_JOINT_REVOLUTE;
    j.parent = -1;
    j.child = rod;
    j.axis[0] = 0.0f;
    j.axis[1] = 1.0f;
    j.axis[2] = 0.0f;
    j.anchor[0] = -0.5f * LINK_L;
    cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    batch_steps(batch, 15);
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(batch, &v), TP_OK);
    float swing = v.qd[0];
    cr_assert(swing > 2.0f, "the pendulum does not swing: %g rad/s", swing);
    cr_assert_eq(tp_batch_sleep(batch, 0, rod), TP_OK, "%s", tp_last_error());
    batch_steps(batch, 1);
    cr_assert_eq(tp_batch_joints(batch, &v), TP_OK);
    float q = v.q[0];
    cr_assert(v.qd[0] == 0.0f, "a sleeping tree reads joint_qd %g", v.qd[0]);
    batch_steps(batch, 20);
    cr_assert_eq(tp_batch_joints(batch, &v), TP_OK);
    cr_assert(v.q[0] == q && v.qd[0] == 0.0f, "the sleeping tree moved: q %g -> %g, qd %g", q, v.q[0], v.qd[0]);
    tp_state_view s = batch_view(batch);
    cr_assert_eq(s.body_awake[rod], 0);
    cr_assert_eq(tp_batch_wake(batch, 0, rod), TP_OK, "%s", tp_last_error());
    batch_steps(batch, 1);
    cr_assert_eq(tp_batch_joints(batch, &v), TP_OK);
    /* from rest, gravity gives at most (m g L/2) / I_hinge x dt = 29.4 rad/s^2 x 1/60 s = 0.49 rad/s */
    cr_assert(v.qd[0] > 0.0f && v.qd[0] < 0.5f, "woken, it moves at %g rad/s (it swung at %g)", v.qd[0], swing);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- the assembly policy */

/* Under the assembly policy a tree is one assembly (kernels/sleep_assembly.h,
 * "trees"): its links sleep and wake together, never held. */
static tp_model *assembly_arm_model(int kind, int *links, int *cube, float cube_z)
{
    tp_model_def md = sleepy_def();
    md.sleep.policy = TP_SLEEP_ASSEMBLY;
    tp_builder *b = builder_begin(&md);
    add_arm_on_table(b, kind, links);
    if (cube) *cube = add_box(b, 0.75f, 0.0f, cube_z, 0.1f);
    return builder_finish(b);
}

/* Step until both links sleep; fails if one link ever sleeps without the other. */
static int steps_until_tree_asleep(tp_batch *batch, const int *links, int steps)
{
    for (int step = 1; step <= steps; ++step) {
        batch_steps(batch, 1);
        tp_state_view s = batch_view(batch);
        cr_assert_eq(s.sleep_state[links[0]], s.sleep_state[links[1]], "step %d: links in states %d and %d", step,
                     s.sleep_state[links[0]], s.sleep_state[links[1]]);
        cr_assert_neq(s.sleep_state[links[0]], TP_CHECKING, "step %d: a tree is never held", step);
        if (s.sleep_state[links[0]] == TP_SLEEPING) return step;
    }
    return -1;
}

/* The undriven arm at rest on the table is quiet from the start: asleep after
 * the policy's quiet time (0.3 s = 18 steps) plus a few steps of settling,
 * counted as two sleeping bodies, frozen bit for bit with joint_qd 0. An
 * impulse on its second link wakes the whole tree, which falls asleep again. */
Test(articulation_sleep, assembly_policy_arm_sleeps_whole_and_wakes_whole)
{
    int links[2];
    tp_model *m = assembly_arm_model(ARM_FREE, links, NULL, 0.0f);
    tp_batch *b = make_batch(m, 1, 1);
    int at = steps_until_tree_asleep(b, links, 120);
    cr_assert(at >= 18 && at <= 40, "the arm fell asleep at step %d (expected 18 to 40)", at);
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.sleeping_count[0], 2);
    cr_assert_eq(s.awake_count[0], 0);
    cr_assert(s.body_awake[links[0]] == 0 && s.body_awake[links[1]] == 0);
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK);
    float q[2] = {v.q[0], v.q[1]};
    cr_assert(v.qd[0] == 0.0f && v.qd[1] == 0.0f, "asleep with joint_qd %g %g", v.qd[0], v.qd[1]);
    uint64_t h = batch_state_hash(b);
    batch_steps(b, 60);
    cr_assert_eq(batch_state_hash(b), h, "a sleeping tree changed");
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK);
    cr_assert(memcmp(q, v.q, sizeof q) == 0, "joint_q changed while asleep");
    /* an upward impulse on the second link's far end wakes both links */
    const float up[3] = {0.0f, 0.0f, 0.5f}, tip[3] = {2.0f * LINK_L, 0.0f, HINGE_Z};
    cr_assert_eq(tp_batch_apply_impulse(b, 0, links[1], up, tip), TP_OK, "%s", tp_last_error());
    s = batch_view(b);
    cr_assert(s.sleep_state[links[0]] == TP_AWAKE && s.sleep_state[links[1]] == TP_AWAKE,
              "the impulse woke states %d, %d", s.sleep_state[links[0]], s.sleep_state[links[1]]);
    /* the response of the two-link chain at q = 0 (links m = 1 kg, L = 0.5 m,
     * I_c = m (L^2 + W^2) / 12 about y): H = [[2 I_c + m L^2/4 + 9 m L^2/4,
     * I_c + 3 m L^2/4], [., I_c + m L^2/4]] = [[0.668333, 0.209167], [., 0.084167]],
     * J^T p = -(2L, L) p = (-0.5, -0.25) N m s: qd = H^-1 J^T p = (0.81667, -5.0)
     * rad/s; the first link turns down, the second up */
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK);
    cr_assert(fabsf(v.qd[0] - 0.81667f) < 0.01f * 0.81667f && fabsf(v.qd[1] + 5.0f) < 0.01f * 5.0f,
              "impulse response qd = (%g, %g), expected (0.81667, -5.0)", v.qd[0], v.qd[1]);
    at = steps_until_tree_asleep(b, links, 300);
    cr_assert(at > 18, "the lifted arm fell back and slept again at step %d (expected after > 18 steps)", at);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A cube dropped from 2 m above the second link lands (about 0.6 s, after the
 * arm slept): a moving body reaching a link wakes the whole tree in that step. */
Test(articulation_sleep, assembly_policy_falling_cube_wakes_the_tree)
{
    int links[2], cube;
    tp_model *m = assembly_arm_model(ARM_FREE, links, &cube, HINGE_Z + 2.0f);
    tp_batch *b = make_batch(m, 1, 1);
    int at = steps_until_tree_asleep(b, links, 30);
    cr_assert(at > 0, "the arm did not sleep before the cube arrived");
    int woke = -1;
    for (int step = at + 1; step <= 90 && woke < 0; ++step) {
        batch_steps(b, 1);
        tp_state_view s = batch_view(b);
        cr_assert_eq(s.sleep_state[links[0]], s.sleep_state[links[1]], "step %d: the links disagree", step);
        if (s.sleep_state[links[0]] == TP_AWAKE) {
            woke = step;
            cr_assert(s.pos[3 * cube + 2] < HINGE_Z + 0.5f * LINK_W + 0.06f + 0.2f,
                      "the tree woke with the cube at %g m, far from it", s.pos[3 * cube + 2]);
        }
    }
    cr_assert(woke > 0, "the landing cube did not wake the tree");
    /* the cube now rests on the arm; both sleep again, the tree never before the cube stops */
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A PD-driven arm (targets at its pose) is actuated: the stricter threshold
 * (x actuated_factor) still lets it sleep at rest; writing a new target wakes
 * it and the drive moves it (the source's actuated joints and its wake on a
 * changed constraint property). */
Test(articulation_sleep, assembly_policy_driven_arm_sleeps_and_a_target_wakes_it)
{
    int links[2];
    tp_model *m = assembly_arm_model(ARM_PD, links, NULL, 0.0f);
    tp_batch *b = make_batch(m, 1, 1);
    int at = steps_until_tree_asleep(b, links, 240);
    cr_assert(at > 0, "the driven arm at rest never slept");
    float target[2] = {-0.5f, 0.0f}; /* lift the first link off the table */
    int w = 0;
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_TARGET_Q, WORLD_LIST(&w, 1), target), TP_OK, "%s", tp_last_error());
    tp_state_view s = batch_view(b);
    cr_assert(s.sleep_state[links[0]] == TP_AWAKE && s.sleep_state[links[1]] == TP_AWAKE, "a target write wakes");
    batch_steps(b, 30);
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK);
    cr_assert(v.q[0] < -0.1f, "the drive did not lift the arm: q %g", v.q[0]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The falling-cube scene under the assembly policy (the tree sleeps, is woken
 * by the cube, sleeps again with the cube on it; joint_f -60 N m then lifts it
 * from sleep): bitwise the same over runs, thread counts and world counts. */
static void assembly_hashes(int worlds, int threads, uint64_t *w0, uint64_t *all)
{
    int links[2], cube;
    tp_model *m = assembly_arm_model(ARM_FREE, links, &cube, HINGE_Z + 2.0f);
    tp_batch *b = make_batch(m, worlds, threads);
    batch_steps(b, 150);
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.sleep_state[links[0]], TP_SLEEPING, "the arm and cube did not settle asleep in 2.5 s");
    float f[2] = {-60.0f, 0.0f};
    for (int w = 0; w < worlds; ++w)
        cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_F, WORLD_LIST(&w, 1), f), TP_OK, "%s", tp_last_error());
    batch_steps(b, 1);
    s = batch_view(b);
    cr_assert_eq(s.sleep_state[links[0]], TP_AWAKE, "joint_f did not wake the tree under the assembly policy");
    batch_steps(b, 30);
    *w0 = batch_world_hash(b, 0);
    *all = batch_state_hash(b);
    for (int w = 1; w < worlds; ++w) cr_assert_eq(batch_world_hash(b, w), *w0, "world %d differs from world 0", w);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(articulation_sleep, assembly_policy_deterministic_runs_threads_worlds)
{
    uint64_t a0, aa, b0, ba, c0, ca, d0, da;
    assembly_hashes(3, 1, &a0, &aa);
    assembly_hashes(3, 1, &b0, &ba);
    assembly_hashes(3, 2, &c0, &ca);
    assembly_hashes(1, 1, &d0, &da);
    cr_assert_eq(aa, ba, "two runs differ");
    cr_assert_eq(aa, ca, "thread count changes the result");
    cr_assert_eq(a0, d0, "world 0 depends on the world count");
}

/* tests/scenes/robot_trees.json (three trees) with sleep on: some trees sleep
 * while the others of their world are stepped and swept. */
static tp_model *robot_trees_sleeping(void)
{
    FILE *f = fopen(TP_SOURCE_DIR "/tests/scenes/robot_trees.json", "rb");
    cr_assert(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    cr_assert(n > 0 && n < sizeof text - 1);
    text[n] = 0;
    char *off = strstr(text, "\"enabled\": false");
    cr_assert(off, "robot_trees.json names sleep.enabled false");
    memcpy(off, "\"enabled\": true ", strlen("\"enabled\": true "));
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(text, "robot_trees.json", &m), TP_OK, "%s", tp_last_error());
    return m;
}

/* The articulation scratch is one block per CPU thread, which the thread's
 * worlds share one after another (csrc/articulation_world.c): a world's solve
 * must write every part it reads. Filling the block with 0xFF bytes (NaN)
 * before every step must change no bit of any world: a stale read would see
 * the NaN (a sleeping tree's pseudo velocities, read by the sweeps' note, were
 * one). 4 worlds on one thread, 240 steps. */
Test(articulation_sleep, scratch_holds_nothing_between_steps)
{
    tp_model *m = robot_trees_sleeping();
    tp_batch *clean = make_batch(m, 4, 1), *poisoned = make_batch(m, 4, 1);
    int slept = 0;
    for (int step = 0; step < 240; ++step) {
        memset(tp_artic_batch_scratch(poisoned, 0), 0xFF, poisoned->layout.artic_scratch_bytes);
        batch_steps(clean, 1);
        batch_steps(poisoned, 1);
        tp_state_view s = batch_view(clean);
        for (int w = 0; w < 4; ++w) { /* a world with bodies asleep and others awake */
            int asleep = 0, awake = 0;
            for (int k = w * s.bodies; k < (w + 1) * s.bodies; ++k) {
                asleep |= s.sleep_state[k] == TP_SLEEPING;
                awake |= s.body_awake[k] == 1;
            }
            slept |= asleep && awake;
        }
        for (int w = 0; w < 4; ++w)
            cr_assert_eq(batch_world_hash(clean, w), batch_world_hash(poisoned, w), "step %d: world %d differs", step, w);
    }
    cr_assert(slept, "no world had bodies asleep beside awake ones: the scene does not test a sleeping tree");
    tp_batch_destroy(clean);
    tp_batch_destroy(poisoned);
    tp_model_destroy(m);
}
