/* test_robot_scenes.c - the robot scenes of issue 14 item 8 (scenes/README.md,
 * written by scripts/gen_robot_scenes.py): the 7-dof arm that pushes the top
 * cube off a tower, and the four-legged walker. */
#include "helpers.h"

#include <math.h>
#include <stdio.h>

static tp_model *load_scene(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/%s", TP_SOURCE_DIR, name);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(path, &m), TP_OK, "%s", tp_last_error());
    return m;
}

static int steps_for(const tp_model *m, double seconds) { return (int)(seconds / tp_model_settings(m).dt + 0.5); }

/* The yaw joint turns from -1 rad at 0.8 rad/s and reaches the tower's bearing
 * (pi/2) at t = (pi/2 + 1) / 0.8 = 3.2 s: before that nothing moves; by 5 s
 * the top cube is off the tower (its centre more than a cube's width away
 * sideways and down on the ground, within 1 cm of z = 0.05), while the four
 * below stand where they were (within 5 mm). */
Test(robot_scenes, arm_pushes_the_top_cube_off)
{
    tp_model *m = load_scene("arm_tower.json");
    cr_assert_eq(tp_model_joint_count(m), 7);
    cr_assert_eq(tp_model_joint_dof_count(m), 7);
    int c0 = tp_model_find_body(m, "cube0");
    cr_assert_geq(c0, 0);
    tp_batch *b = make_batch(m, 2, 1);
    tp_state_view s = batch_view(b);
    float start[5][3];
    for (int i = 0; i < 5; ++i) memcpy(start[i], s.pos + 3 * (c0 + i), sizeof start[i]);
    batch_steps(b, steps_for(m, 3.0));
    s = batch_view(b);
    for (int i = 0; i < 5; ++i)
        for (int k = 0; k < 3; ++k)
            cr_assert(fabsf(s.pos[3 * (c0 + i) + k] - start[i][k]) < 2e-3f, "cube%d moved before the arm came", i);
    batch_steps(b, steps_for(m, 2.0));
    s = batch_view(b);
    for (int w = 0; w < 2; ++w) {
        const float *top = s.pos + 3 * ((size_t)w * s.bodies + c0 + 4);
        float side = hypotf(top[0] - start[4][0], top[1] - start[4][1]);
        cr_assert_gt(side, 0.1f, "world %d: top cube moved only %.3f m sideways", w, side);
        cr_assert_lt(fabsf(top[2] - 0.05f), 0.01f, "world %d: top cube at z %.3f, not on the ground", w, top[2]);
        for (int i = 0; i < 4; ++i) {
            const float *p = s.pos + 3 * ((size_t)w * s.bodies + c0 + i);
            for (int k = 0; k < 3; ++k)
                cr_assert_lt(fabsf(p[k] - start[i][k]), 5e-3f, "world %d: cube%d moved %.4f m along %d", w, i,
                             p[k] - start[i][k], k);
        }
        cr_assert_eq(s.faults[w], 0);
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The walker loads with its 9 joints (free root, 8 hinges: nq 7 + 8, nv 6 + 8),
 * drops the 1 cm to the ground and stands on its four ball feet under the PD
 * drives. With straight vertical legs the load runs along each leg, so gravity
 * puts no torque on a hinge: the drives hold 0 and the torso rests at the
 * height of the straight legs, foot (6 cm ball) + two 0.25 m links + half the
 * 0.1 m torso = 0.58 m, within the contact slop and the compression of four
 * feet (5 mm); level (tilt < 0.01 rad), not wandering (< 1 cm sideways) and at
 * rest (< 1 cm/s) after 3 s. */
Test(robot_scenes, walker_stands)
{
    tp_model *m = load_scene("walker.json");
    cr_assert_eq(tp_model_joint_count(m), 9);
    cr_assert_eq(tp_model_joint_q_count(m), 15);
    cr_assert_eq(tp_model_joint_dof_count(m), 14);
    int torso = tp_model_find_body(m, "torso");
    tp_batch *b = make_batch(m, 1, 1);
    float x0 = batch_view(b).pos[3 * torso], y0 = batch_view(b).pos[3 * torso + 1];
    batch_steps(b, steps_for(m, 3.0));
    tp_state_view s = batch_view(b);
    tp_joint_view j;
    cr_assert_eq(tp_batch_joints(b, &j), TP_OK);
    for (int k = 7; k < 15; ++k) cr_assert_lt(fabsf(j.q[k]), 1e-2f, "hinge q[%d] = %g", k, j.q[k]);
    const float *p = s.pos + 3 * torso, *q = s.quat + 4 * torso, *v = s.v + 3 * torso;
    cr_assert_lt(fabsf(p[2] - 0.58f), 5e-3f, "torso at z %.4f m, straight legs give 0.58 m", p[2]);
    cr_assert_lt(hypotf(p[0] - x0, p[1] - y0), 1e-2f, "torso wandered %.4f m", hypotf(p[0] - x0, p[1] - y0));
    /* tilt: the torso's z axis is (2(xz + wy), 2(yz - wx), 1 - 2(x^2 + y^2)) */
    float tilt_sin = 2.0f * hypotf(q[0] * q[2] + q[3] * q[1], q[1] * q[2] - q[3] * q[0]);
    cr_assert_lt(tilt_sin, 1e-2f, "torso tilted, sin %.4f", tilt_sin);
    cr_assert_lt(sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), 1e-2f, "torso still moving");
    cr_assert_eq(s.faults[0], 0);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Bitwise: run to run, 1 vs 2 threads, and world 0 alone vs among 3. */
Test(robot_scenes, deterministic)
{
    const char *names[] = {"arm_tower.json", "walker.json"};
    for (int i = 0; i < 2; ++i) {
        tp_model *m = load_scene(names[i]);
        int steps = steps_for(m, 3.5);
        uint64_t h[3], w0 = 0;
        const int worlds[4] = {3, 3, 3, 1}, threads[4] = {1, 1, 2, 1};
        for (int r = 0; r < 4; ++r) {
            tp_batch *b = make_batch(m, worlds[r], threads[r]);
            batch_steps(b, steps);
            if (r < 3) h[r] = batch_state_hash(b);
            if (r == 0) {
                w0 = batch_world_hash(b, 0);
                cr_assert_eq(w0, batch_world_hash(b, 2), "%s: replicas differ", names[i]);
            }
            if (r == 3) cr_assert_eq(batch_world_hash(b, 0), w0, "%s: world count changes world 0", names[i]);
            tp_batch_destroy(b);
        }
        cr_assert_eq(h[0], h[1], "%s: runs differ", names[i]);
        cr_assert_eq(h[0], h[2], "%s: thread count changes the result", names[i]);
        tp_model_destroy(m);
    }
}

/* The contact buffers hold what the bodies can touch (csrc/batch.c,
 * model_contact_bound): per pair that may collide, per pair of their shapes,
 * 1 point with a ball, 2 with a capsule, 4 between boxes. Walker: the ground
 * against the torso box (4), four thigh capsules (4 x 2) and four shins of a
 * capsule and a ball (4 x 3): 24; link pairs other than parent and child: the
 * torso and the shins 4 x 3, the thighs 6 x 2, a thigh and another leg's shin
 * 12 x 3, the shins 6 x (2 + 1 + 1 + 1): 90; 114 in all (under the 16 x 9 + 32
 * = 176 of 16 per body). Cart-pole: cart and pole boxes on the ground, 2 x 4
 * (the two are parent and child). Compared through the contact bytes of a
 * batch given that capacity. */
static void expect_capacity(const char *name, int capacity)
{
    tp_model *m = load_scene(name);
    tp_batch *d = make_batch(m, 1, 1), *e = NULL;
    tp_batch_def bd = tp_default_batch_def();
    bd.contact_capacity = capacity;
    cr_assert_eq(tp_batch_create(m, &bd, &e), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_contact_memory_bytes(d), tp_batch_contact_memory_bytes(e),
                 "%s: %zu contact bytes by default, %zu at capacity %d", name, tp_batch_contact_memory_bytes(d),
                 tp_batch_contact_memory_bytes(e), capacity);
    tp_batch_destroy(d);
    tp_batch_destroy(e);
    tp_model_destroy(m);
}

Test(robot_scenes, contact_capacity_is_what_the_links_can_touch)
{
    expect_capacity("walker.json", 114);
    expect_capacity("cartpole.json", 8);
}

/* The bound holds when everything touches: walkers thrown about with their
 * legs driven to random angles (knees through each other, feet at the torso)
 * tumble for 4 s; no world overflows its contact buffer, and the worlds did
 * touch themselves, not only the ground with four feet. */
Test(robot_scenes, tumbling_walkers_fit_their_contacts)
{
    tp_model *m = load_scene("walker.json");
    enum { W = 8 };
    tp_batch *b = make_batch(m, W, 1);
    int nv = tp_model_joint_dof_count(m);
    float target[W * 14], qd[W * 14];
    cr_assert_eq(nv, 14);
    uint32_t r = 12345u;
    for (int i = 0; i < W * nv; ++i) {
        r = r * 1664525u + 1013904223u;
        float u = (float)(r >> 8) / 16777216.0f * 2.0f - 1.0f; /* [-1, 1) */
        target[i] = i % nv < 6 ? 0.0f : 2.5f * u;
        qd[i] = i % nv < 6 ? 3.0f * u : 0.0f;
    }
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_TARGET_Q, NULL, target), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_QD, NULL, qd), TP_OK, "%s", tp_last_error());
    int most = 0, self = 0;
    for (int s = 0; s < steps_for(m, 4.0); ++s) {
        batch_steps(b, 1);
        for (int w = 0; w < W; ++w) {
            tp_contact_info c[200];
            int n = 0;
            cr_assert_eq(tp_batch_contacts(b, w, c, 200, &n), TP_OK);
            most = n > most ? n : most;
            for (int k = 0; k < n && k < 200; ++k) self += c[k].body_a != 0 && c[k].body_b != 0;
        }
    }
    tp_state_view v = batch_view(b);
    for (int w = 0; w < W; ++w) {
        cr_assert_eq(v.contact_overflow[w], 0, "world %d: %d points overflowed", w, v.contact_overflow[w]);
        cr_assert_eq(v.faults[w], 0);
    }
    cr_assert_gt(self, 0, "no link touched another link");
    cr_assert_gt(most, 4, "at most %d points in a world", most);
    cr_log_info("most points in a world %d, link-link points over the run %d\n", most, self);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The walker scene with its substeps per dt replaced, loaded. */
#define TP_PI_F 3.14159265f

static tp_model *load_walker_at(int substeps)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/walker.json", TP_SOURCE_DIR);
    static char out[(1 << 16) + 16];
    const char *text = read_scene_text(path);
    const char *at = strstr(text, "\"substeps\": 4");
    cr_assert(at, "walker.json no longer says \"substeps\": 4");
    snprintf(out, sizeof out, "%.*s\"substeps\": %d%s", (int)(at - text), text, substeps, at + strlen("\"substeps\": 4"));
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(out, path, &m), TP_OK, "%s", tp_last_error());
    return m;
}

/* A trot of the walker, open loop: thigh targets a sin(2 pi t / 1.2 s + phase),
 * the diagonal pairs half a period apart, each shin bent by up to 0.3 rad while
 * its leg swings forward; a from 0.15 to 0.29 rad over 8 worlds. With every
 * hinge within 0.59 rad of straight, a loaded leg holds the hip at least
 * 0.06 + 0.25 cos 0.29 + 0.25 cos 0.59 = 0.507 m up and the torso's centre
 * 0.05 m above that; the feet stand 0.5 m by 0.3 m apart. So at one substep
 * per dt (the setting bench_mujoco.py compares with MuJoCo) as at the scene's
 * four, for 8 s: no world faults, the torso stays level within 30 degrees and
 * between 0.45 m and 0.8 m, no point is more than 2 cm deep (the slop is
 * 0.5 mm; 2 cm is a step's travel at 1.2 m/s), and after the first second
 * some step has two or fewer feet carrying load (the legs do swing). */
static void expect_walker_trots(int substeps)
{
    tp_model *m = load_walker_at(substeps);
    enum { W = 8, NV = 14 };
    cr_assert_eq(tp_model_joint_dof_count(m), NV);
    int torso = tp_model_find_body(m, "torso");
    tp_batch *b = make_batch(m, W, 1);
    float dt = tp_model_settings(m).dt, target[W * NV] = {0};
    const float phase[4] = {0.0f, TP_PI_F, TP_PI_F, 0.0f}; /* fl, fr, hl, hr */
    float deepest = 0.0f, lowest = 1.0f, highest = 0.0f, least_up = 1.0f;
    int fewest_feet = 4;
    for (int s = 0; s < steps_for(m, 8.0); ++s) {
        float t = (float)s * dt;
        for (int w = 0; w < W; ++w)
            for (int leg = 0; leg < 4; ++leg) {
                float a = 0.15f + 0.02f * (float)w, x = 2.0f * TP_PI_F * t / 1.2f + phase[leg];
                target[w * NV + 6 + 2 * leg] = a * sinf(x);
                target[w * NV + 7 + 2 * leg] = -0.3f * fmaxf(0.0f, cosf(x));
            }
        cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_TARGET_Q, NULL, target), TP_OK, "%s", tp_last_error());
        batch_steps(b, 1);
        tp_state_view v = batch_view(b);
        for (int w = 0; w < W; ++w) {
            const float *p = v.pos + 3 * ((size_t)w * v.bodies + torso), *q = v.quat + 4 * ((size_t)w * v.bodies + torso);
            lowest = fminf(lowest, p[2]);
            highest = fmaxf(highest, p[2]);
            least_up = fminf(least_up, 1.0f - 2.0f * (q[0] * q[0] + q[1] * q[1])); /* the torso's z axis, up part */
            tp_contact_info c[64];
            int n = 0, feet = 0, last = -1;
            cr_assert_eq(tp_batch_contacts(b, w, c, 64, &n), TP_OK);
            for (int k = 0; k < n && k < 64; ++k) { /* in key order: a body's points together */
                if (c[k].body_a != 0) continue; /* the ground is body 0 */
                deepest = fmaxf(deepest, -c[k].separation);
                if (c[k].normal_force > 0.0f && c[k].body_b != last) ++feet;
                if (c[k].normal_force > 0.0f) last = c[k].body_b;
            }
            if (t >= 1.0f) fewest_feet = feet < fewest_feet ? feet : fewest_feet; /* after the 1 cm drop */
            cr_assert_eq(v.faults[w], 0, "%d substeps: world %d faulted at step %d", substeps, w, s);
        }
    }
    cr_log_info("walker trot, %d substeps: torso z %.3f..%.3f m, up %.3f, deepest %.4f m, fewest points %d\n",
                substeps, lowest, highest, least_up, deepest, fewest_feet);
    cr_assert_gt(lowest, 0.45f, "%d substeps: the torso sank to %.3f m", substeps, lowest);
    cr_assert_lt(highest, 0.8f, "%d substeps: the torso rose to %.3f m", substeps, highest);
    cr_assert_gt(least_up, cosf(30.0f * TP_PI_F / 180.0f), "%d substeps: the torso tilted, up %.3f", substeps,
                 least_up);
    cr_assert_lt(deepest, 0.02f, "%d substeps: a point %.4f m deep", substeps, deepest);
    cr_assert_leq(fewest_feet, 2, "%d substeps: the feet never left the ground", substeps);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(robot_scenes, walker_trots_at_one_and_four_substeps)
{
    expect_walker_trots(4);
    expect_walker_trots(1);
}
