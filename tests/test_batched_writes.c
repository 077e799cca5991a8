/* test_batched_writes.c - writes of many worlds in one call, per-world
 * parameters, episodes and resets by selection (csrc/writes_batched.c). */
#include <criterion/criterion.h>

#include "helpers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Ground and a stack of three boxes, randomized in pose, yaw, mass and friction. */
static const char *rand_scene =
    "{\"name\": \"rand\", \"randomize\": {\"seed\": 11, \"pos_noise\": 0.03, \"yaw_noise_deg\": 15,"
    " \"mass_scale\": [0.8, 1.25], \"friction_range\": [0.3, 0.8]},"
    " \"bodies\": [{\"shape\": \"box\", \"size\": [4, 4, 0.2], \"pos\": [0, 0, -0.1], \"static\": true},"
    " {\"shape\": \"box\", \"size\": [0.4, 0.4, 0.4], \"pos\": [0, 0, 0.2]},"
    " {\"shape\": \"box\", \"size\": [0.4, 0.4, 0.4], \"pos\": [0, 0, 0.6]},"
    " {\"shape\": \"box\", \"size\": [0.4, 0.4, 0.4], \"pos\": [0, 0, 1.0]}]}";

static tp_model *load_rand(void)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(rand_scene, "rand", &m), TP_OK, "%s", tp_last_error());
    return m;
}

/* A deterministic non-trivial value for row r, body i, component c (0 on the ground, body 0). */
static float pattern(int r, int i, int c, float scale)
{
    return i == 0 ? 0.0f : scale * (float)(((r * 7 + i * 3 + c * 5) % 11) - 5) / 5.0f;
}

static void fill(float *x, int rows, int bodies, int k, float scale)
{
    for (int r = 0; r < rows; ++r)
        for (int i = 0; i < bodies; ++i)
            for (int c = 0; c < k; ++c) x[(r * bodies + i) * k + c] = pattern(r, i, c, scale);
}

enum { W = 6, B = 4 };

/* Each batched write gives the bits of the same single-body writes, for an
 * index list, a mask and all worlds, before and after stepping on. */
Test(batched, same_bits_as_single_writes)
{
    tp_model *m = load_rand();
    const int32_t list[2] = {4, 1};
    const uint8_t mask[W] = {0, 1, 0, 1, 1, 0};
    tp_world_select by_list = {list, 2, NULL}, by_mask = {NULL, 0, mask};
    const tp_world_select *sels[3] = {&by_list, &by_mask, NULL};
    for (int form = 0; form < 3; ++form) {
        tp_batch *a = make_batch(m, W, 1), *b = make_batch(m, W, 1);
        batch_steps(a, 20);
        batch_steps(b, 20);
        const tp_world_select *s = sels[form];
        int rows = form == 0 ? 2 : W;
        float f[W * B * 3], p[W * B * 3], t[W * B * 3], j[W * B * 3], pos[W * B * 3], q[W * B * 4], v[W * B * 3],
            w[W * B * 3];
        fill(f, rows, B, 3, 20.0f);
        fill(p, rows, B, 3, 0.1f);
        fill(t, rows, B, 3, 2.0f);
        fill(j, rows, B, 3, 0.5f);
        fill(v, rows, B, 3, 1.0f);
        fill(w, rows, B, 3, 3.0f);
        fill(pos, rows, B, 3, 1.0f);
        for (int k = 0; k < rows * B; ++k) {
            q[4 * k] = 0.1f * (float)(k % 3);
            q[4 * k + 1] = q[4 * k + 2] = 0.0f;
            q[4 * k + 3] = 1.0f;
            pos[3 * k + 2] += 1.5f;
        }
        cr_assert_eq(tp_batch_apply_forces(a, s, f, p), TP_OK, "%s", tp_last_error());
        cr_assert_eq(tp_batch_apply_torques(a, s, t), TP_OK, "%s", tp_last_error());
        cr_assert_eq(tp_batch_apply_impulses(a, s, j, NULL), TP_OK, "%s", tp_last_error());
        for (int r = 0; r < rows; ++r) {
            int wd = form == 0 ? list[r] : r;
            if (form == 1 && !mask[r]) continue;
            for (int i = 1; i < B; ++i) {
                int k = r * B + i;
                cr_assert_eq(tp_batch_apply_force(b, wd, i, f + 3 * k, p + 3 * k), TP_OK, "%s", tp_last_error());
                cr_assert_eq(tp_batch_apply_torque(b, wd, i, t + 3 * k), TP_OK, "%s", tp_last_error());
                cr_assert_eq(tp_batch_apply_impulse(b, wd, i, j + 3 * k, NULL), TP_OK, "%s", tp_last_error());
            }
        }
        cr_assert_eq(batch_state_hash(a), batch_state_hash(b), "form %d: forces and impulses differ", form);
        batch_steps(a, 3);
        batch_steps(b, 3);
        cr_assert_eq(batch_state_hash(a), batch_state_hash(b), "form %d: the step after the forces differs", form);
        cr_assert_eq(tp_batch_set_poses(a, s, pos, q), TP_OK, "%s", tp_last_error());
        cr_assert_eq(tp_batch_set_velocities(a, s, v, w), TP_OK, "%s", tp_last_error());
        for (int r = 0; r < rows; ++r) {
            int wd = form == 0 ? list[r] : r;
            if (form == 1 && !mask[r]) continue;
            for (int i = 1; i < B; ++i) {
                int k = r * B + i;
                cr_assert_eq(tp_batch_set_pose(b, wd, i, pos + 3 * k, q + 4 * k), TP_OK, "%s", tp_last_error());
                cr_assert_eq(tp_batch_set_velocity(b, wd, i, v + 3 * k, w + 3 * k), TP_OK, "%s", tp_last_error());
            }
        }
        cr_assert_eq(batch_state_hash(a), batch_state_hash(b), "form %d: poses and velocities differ", form);
        batch_steps(a, 10);
        batch_steps(b, 10);
        cr_assert_eq(batch_state_hash(a), batch_state_hash(b), "form %d: stepping on differs", form);
        tp_batch_destroy(a);
        tp_batch_destroy(b);
    }
    tp_model_destroy(m);
}

/* A bad value anywhere refuses the whole call: nothing is written, no force is
 * left pending (the next step is that of an untouched batch). */
Test(batched, bad_values_change_nothing)
{
    tp_model *m = load_rand();
    tp_batch *a = make_batch(m, W, 1), *ref = make_batch(m, W, 1);
    float x[W * B * 4], q[W * B * 4], g[W * 3];
    fill(x, W, B, 3, 5.0f);
    for (int k = 0; k < W * B; ++k) q[4 * k] = q[4 * k + 1] = q[4 * k + 2] = 0.0f, q[4 * k + 3] = 1.0f;
    for (int k = 0; k < W * 3; ++k) g[k] = -1.0f;
    x[(W * B - 1) * 3 + 2] = NAN; /* the very last value */
    uint64_t before = batch_state_hash(a);
    cr_assert_eq(tp_batch_apply_forces(a, NULL, x, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "force[5][11]") && strstr(tp_last_error(), "nothing was changed"), "message: %s",
              tp_last_error());
    cr_assert_eq(tp_batch_apply_torques(a, NULL, x), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_apply_impulses(a, NULL, x, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_set_velocities(a, NULL, x, x), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_set_poses(a, NULL, x, q), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_reset_to_state(a, NULL, x, q, NULL, NULL), TP_ERR_INVALID_ARGUMENT);
    float good[W * B * 3];
    fill(good, W, B, 3, 1.0f);
    q[4 * 7 + 3] = 0.0f; /* a zero quaternion in row 1, body 3 */
    cr_assert_eq(tp_batch_set_poses(a, NULL, good, q), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "zero quaternion"), "message: %s", tp_last_error());
    g[W * 3 - 1] = 600.0f;
    cr_assert_eq(tp_batch_set_gravities(a, NULL, g), TP_ERR_INVALID_ARGUMENT);
    float s[W * B];
    for (int k = 0; k < W * B; ++k) s[k] = 1.0f;
    s[W * B - 1] = 0.0f;
    cr_assert_eq(tp_batch_set_mass_scales(a, NULL, s), TP_ERR_INVALID_ARGUMENT);
    /* the bounds of randomize.mass_scale (docs/scene-format.md "Bounds"): a scale
     * of 1e-20 took a 1e-9 kg body's inverse mass past the float range */
    s[W * B - 1] = 1e-20f;
    cr_assert_eq(tp_batch_set_mass_scales(a, NULL, s), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "within [0.01, 100]"), "message: %s", tp_last_error());
    s[W * B - 1] = 1e3f;
    cr_assert_eq(tp_batch_set_mass_scales(a, NULL, s), TP_ERR_INVALID_ARGUMENT);
    s[W * B - 1] = 1.0f;
    s[W * B - 1] = -0.5f;
    cr_assert_eq(tp_batch_set_frictions(a, NULL, s), TP_ERR_INVALID_ARGUMENT);
    /* selections: out of range, repeated, negative count; nothing marked stays marked */
    const int32_t out_of_range[2] = {1, W}, twice[3] = {2, 3, 2};
    tp_world_select bad1 = {out_of_range, 2, NULL}, bad2 = {twice, 3, NULL}, bad3 = {twice, -1, NULL};
    cr_assert_eq(tp_batch_apply_forces(a, &bad1, good, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_apply_forces(a, &bad2, good, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "second time"), "message: %s", tp_last_error());
    cr_assert_eq(tp_batch_reset_worlds(a, &bad2), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_apply_forces(a, &bad3, good, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_apply_forces(a, NULL, NULL, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(before, batch_state_hash(a), "a refused call changed the state");
    uint32_t ep[W];
    cr_assert_eq(tp_batch_episodes(a, ep), TP_OK);
    for (int w = 0; w < W; ++w) cr_assert_eq(ep[w], 0u, "a refused reset counted an episode in world %d", w);
    /* a NaN in a row the mask leaves out is not read */
    const uint8_t mask[W] = {1, 1, 1, 1, 1, 0};
    tp_world_select masked = {NULL, 0, mask};
    const int32_t ok_list[2] = {3, 1};
    tp_world_select listed = {ok_list, 2, NULL};
    cr_assert_eq(tp_batch_apply_forces(a, &listed, good, NULL), TP_OK, "%s", tp_last_error()); /* marks cleared */
    cr_assert_eq(tp_batch_apply_forces(a, &masked, x, NULL), TP_OK, "%s", tp_last_error());
    batch_steps(a, 5);
    batch_steps(ref, 5);
    cr_assert_neq(batch_world_hash(a, 0), batch_world_hash(ref, 0), "the masked forces did nothing");
    cr_assert_eq(batch_world_hash(a, 5), batch_world_hash(ref, 5), "world 5 (masked out) changed");
    tp_batch_destroy(a);
    tp_batch_destroy(ref);
    tp_model_destroy(m);
}

/* tp_world_list(NULL, 3) kept count 3 over a one-element stand-in (read past
 * it), and tp_world_mask(NULL) selected every world: both are refused now by
 * the calls that take them, naming the call, and nothing changes;
 * tp_world_list(NULL, 0) stays the empty list. */
Test(batched, null_list_and_null_mask_refused)
{
    tp_model *m = load_rand();
    tp_batch *a = make_batch(m, W, 1);
    float x[W * B * 3];
    fill(x, W, B, 3, 5.0f);
    uint64_t before = batch_state_hash(a);
    tp_world_select list = tp_world_list(NULL, 3), mask = tp_world_mask(NULL), empty = tp_world_list(NULL, 0);
    cr_assert_eq(tp_batch_apply_forces(a, &list, x, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "tp_batch_apply_forces: select.indices is NULL with count 3"), "message: %s",
              tp_last_error());
    cr_assert_eq(tp_batch_reset_worlds(a, &list), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "tp_batch_reset_worlds:"), "message: %s", tp_last_error());
    cr_assert_eq(tp_batch_set_velocities(a, &mask, x, x), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "tp_batch_set_velocities: select.mask is NULL"), "message: %s", tp_last_error());
    cr_assert_eq(tp_batch_reset_worlds(a, &mask), TP_ERR_INVALID_ARGUMENT);
    const float center[3] = {0, 0, 0};
    cr_assert_eq(tp_batch_wake_sphere(a, &mask, center, 1.0f), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "tp_batch_wake_sphere: select.mask is NULL"), "message: %s", tp_last_error());
    cr_assert_eq(before, batch_state_hash(a), "a refused call changed the state");
    uint32_t ep[W];
    cr_assert_eq(tp_batch_episodes(a, ep), TP_OK);
    for (int w = 0; w < W; ++w) cr_assert_eq(ep[w], 0u, "a refused reset counted an episode in world %d", w);
    cr_assert_eq(tp_batch_reset_worlds(a, &empty), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_episodes(a, ep), TP_OK);
    for (int w = 0; w < W; ++w) cr_assert_eq(ep[w], 0u, "the empty list reset world %d", w);
    tp_batch_destroy(a);
    tp_model_destroy(m);
}

/* Per-world gravity: one falling cube per world; after t = 1 s each has moved
 * g t^2 / 2 along its own gravity (semi-implicit Euler is within dt g t of it:
 * 2 % at dt = 1/60). */
Test(batched, per_world_gravity)
{
    tp_model *m = make_falling_model(1, 10.0f, NULL);
    tp_batch *b = make_batch(m, 3, 1);
    const int32_t list[2] = {2, 1};
    const float g[6] = {2.0f, 0.0f, 0.0f, 0.0f, 0.0f, -1.62f};
    tp_world_select s = {list, 2, NULL};
    cr_assert_eq(tp_batch_set_gravities(b, &s, g), TP_OK, "%s", tp_last_error());
    float got[3];
    cr_assert_eq(tp_batch_gravity(b, 1, got), TP_OK);
    cr_assert_eq(got[2], -1.62f);
    batch_steps(b, 60);
    tp_state_view v = batch_view(b);
    const float t = 1.0f, tol = 0.02f;
    float want0 = -0.5f * 9.81f * t * t, want1 = -0.5f * 1.62f * t * t, want2 = 0.5f * 2.0f * t * t;
    cr_assert(fabsf(v.pos[2] - 10.0f - want0) < tol * fabsf(want0), "world 0 fell %g m", (double)(v.pos[2] - 10.0f));
    cr_assert(fabsf(v.pos[5] - 10.0f - want1) < tol * fabsf(want1), "world 1 fell %g m", (double)(v.pos[5] - 10.0f));
    cr_assert(fabsf(v.pos[6] - want2) < tol * want2 && v.pos[8] == 10.0f, "world 2 moved to (%g, _, %g)",
              (double)v.pos[6], (double)v.pos[8]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Mass scale: the same impulse gives half the speed at twice the mass, and
 * the same angular impulse half the spin (inertia scales with mass). A write
 * wakes a sleeping body. */
Test(batched, mass_scale)
{
    const float zero_g[3] = {0.0f, 0.0f, 0.0f};
    tp_model *m = make_falling_model(1, 0.0f, zero_g); /* a 1 kg unit cube: I = m / 6 */
    tp_batch *b = make_batch(m, 2, 1);
    const float scale[2] = {1.0f, 2.0f}, J[6] = {1.0f, 0, 0, 1.0f, 0, 0}, L[3] = {0.0f, 0.0f, 1.0f};
    cr_assert_eq(tp_batch_sleep(b, 1, 0), TP_OK);
    cr_assert_eq(tp_batch_set_mass_scales(b, NULL, scale), TP_OK, "%s", tp_last_error());
    tp_state_view v = batch_view(b);
    cr_assert_eq(v.body_awake[1], 1, "the mass write did not wake the sleeping body");
    cr_assert_eq(tp_batch_apply_impulses(b, NULL, J, NULL), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_apply_angular_impulse(b, 0, 0, L), TP_OK);
    cr_assert_eq(tp_batch_apply_angular_impulse(b, 1, 0, L), TP_OK);
    v = batch_view(b);
    cr_assert(fabsf(v.v[0] - 1.0f) < 1e-6f && fabsf(v.v[3] - 0.5f) < 1e-6f, "v = %g and %g m/s", (double)v.v[0],
              (double)v.v[3]);
    cr_assert(fabsf(v.w[2] - 6.0f) < 1e-4f && fabsf(v.w[5] - 3.0f) < 1e-4f, "w = %g and %g rad/s", (double)v.w[2],
              (double)v.w[5]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Friction: a box sliding at 2 m/s keeps its speed with friction 0 and stops
 * within 0.5 s with friction 1 (mu g t = 4.9 m/s > 2). Changing the ground's
 * friction wakes the box that sleeps on it. */
Test(batched, friction)
{
    tp_model_def md = tp_default_model_def();
    tp_builder *bl = builder_begin(&md);
    tp_body_def ground = tp_default_body_def(), box = tp_default_body_def();
    ground.type = TP_BODY_STATIC;
    ground.size[0] = ground.size[1] = 40.0f;
    ground.size[2] = 0.2f;
    ground.pos[2] = -0.1f;
    box.size[0] = box.size[1] = box.size[2] = 0.5f;
    box.pos[2] = 0.25f;
    box.vel[0] = 2.0f;
    builder_add(bl, &ground);
    builder_add(bl, &box);
    tp_model *m = builder_finish(bl);
    tp_batch *b = make_batch(m, 3, 1);
    const float f[6] = {0.0f, 0.0f, 1.0f, 1.0f, 0.6f, 0.6f};
    const int32_t list[3] = {0, 1, 2};
    tp_world_select first_two = {list, 2, NULL};
    cr_assert_eq(tp_batch_set_frictions(b, &first_two, f), TP_OK, "%s", tp_last_error());
    batch_steps(b, 30);
    tp_state_view v = batch_view(b);
    cr_assert(v.v[3] > 1.95f, "frictionless box slowed to %g m/s", (double)v.v[3]);
    cr_assert(fabsf(v.v[2 * 3 + 0 + 3]) < 0.05f, "box with friction 1 still at %g m/s", (double)v.v[9]);
    cr_assert_eq(tp_batch_sleep(b, 2, 1), TP_OK);
    v = batch_view(b);
    cr_assert_eq(v.body_awake[2 * 2 + 1], 0);
    const float g2[2] = {0.9f, 0.6f};
    tp_world_select third = {list + 2, 1, NULL};
    cr_assert_eq(tp_batch_set_frictions(b, &third, g2), TP_OK, "%s", tp_last_error());
    v = batch_view(b);
    cr_assert_eq(v.body_awake[2 * 2 + 1], 1, "changing the ground's friction did not wake the box on it");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Episodes: a reset draws anew (each episode differs from the ones before),
 * reproducibly and at any world count; a mask reset leaves the other worlds
 * bit for bit as they were. */
Test(batched, episodes)
{
    tp_model *m = load_rand();
    tp_batch *a = make_batch(m, 4, 1), *c = make_batch(m, 9, 2), *ref = make_batch(m, 4, 1);
    uint64_t h[3];
    h[0] = batch_world_hash(a, 2);
    const int two = 2;
    cr_assert_eq(tp_batch_reset_worlds(a, WORLD_LIST(&two, 1)), TP_OK);
    h[1] = batch_world_hash(a, 2);
    const uint8_t mask[4] = {0, 0, 1, 0};
    tp_world_select s = {NULL, 0, mask};
    batch_steps(a, 7);
    batch_steps(ref, 7);
    cr_assert_eq(tp_batch_reset_worlds(a, &s), TP_OK, "%s", tp_last_error());
    h[2] = batch_world_hash(a, 2);
    cr_assert(h[0] != h[1] && h[1] != h[2] && h[0] != h[2], "episodes 0, 1, 2 drew the same state");
    for (int w = 0; w < 4; ++w)
        if (w != 2) cr_assert_eq(batch_world_hash(a, w), batch_world_hash(ref, w), "world %d changed", w);
    uint32_t ep[9];
    cr_assert_eq(tp_batch_episodes(a, ep), TP_OK);
    cr_assert(ep[0] == 0 && ep[2] == 2, "episodes %u %u", ep[0], ep[2]);
    /* the same resets in a batch of 9 worlds give world 2 the same bits */
    const int32_t list[1] = {2};
    tp_world_select by_list = {list, 1, NULL};
    cr_assert_eq(tp_batch_reset_worlds(c, &by_list), TP_OK);
    batch_steps(c, 7);
    cr_assert_eq(tp_batch_reset_worlds(c, WORLD_LIST(&two, 1)), TP_OK);
    cr_assert_eq(batch_world_hash(c, 2), h[2], "episode 2 of world 2 differs at 9 worlds");
    cr_assert_eq(tp_batch_episodes(c, ep), TP_OK);
    cr_assert_eq(ep[2], 2u);
    tp_batch_destroy(a);
    tp_batch_destroy(c);
    tp_batch_destroy(ref);
    tp_model_destroy(m);
}

/* A reset to a given state: a new episode, the caller's poses and velocities
 * on the dynamic bodies, the rest as a reset makes it. */
Test(batched, reset_to_state)
{
    tp_model *m = load_rand();
    tp_batch *a = make_batch(m, 3, 1), *src = make_batch(m, 3, 1);
    batch_steps(src, 25);
    tp_state_view s = batch_view(src);
    float pos[B * 3], quat[B * 4], v[B * 3];
    memcpy(pos, s.pos + 1 * B * 3, sizeof pos); /* world 1 of src, after 25 steps */
    memcpy(quat, s.quat + 1 * B * 4, sizeof quat);
    memcpy(v, s.v + 1 * B * 3, sizeof v);
    const int32_t list[1] = {0};
    tp_world_select sel = {list, 1, NULL};
    cr_assert_eq(tp_batch_reset_to_state(a, &sel, pos, quat, v, NULL), TP_OK, "%s", tp_last_error());
    tp_state_view got = batch_view(a);
    for (int i = 1; i < B; ++i)
        for (int c = 0; c < 3; ++c) {
            cr_assert_eq(got.pos[3 * i + c], pos[3 * i + c], "body %d pos[%d]", i, c);
            cr_assert_eq(got.v[3 * i + c], v[3 * i + c], "body %d v[%d]", i, c);
            cr_assert_eq(got.w[3 * i + c], 0.0f, "body %d keeps the template's angular velocity", i);
        }
    cr_assert_eq(got.awake_count[0], 3);
    uint32_t ep[3];
    cr_assert_eq(tp_batch_episodes(a, ep), TP_OK);
    cr_assert_eq(ep[0], 1u);
    tp_batch_destroy(a);
    tp_batch_destroy(src);
    tp_model_destroy(m);
}
