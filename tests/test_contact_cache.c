/* test_contact_cache.c - reuse of a resting pair's manifold
 * (kernels/contact_cache.h): the reused manifold is the narrowphase's to
 * within what the limits allow, a pair that moved past a limit is found
 * again, a normal follows its bodies when they turn together, and nothing is
 * reused without warm starting or after the buffer overflowed. */
#include "batch.h"
#include "collision.h"
#include "helpers.h"

#include <math.h>

/* A 1 m cube resting on a static ground slab (or on a kinematic platform),
 * sleep off so that it keeps stepping. */
static tp_model *cube_on_slab(int kinematic, int warm_starting)
{
    tp_model_def md = tp_default_model_def();
    md.name = "cube_on_slab";
    md.sleep.enabled = 0;
    md.solver.warm_starting = warm_starting;
    tp_builder *b = builder_begin(&md);
    tp_body_def ground = tp_default_body_def();
    ground.name = "slab";
    ground.type = kinematic ? TP_BODY_KINEMATIC : TP_BODY_STATIC;
    ground.size[0] = ground.size[1] = 6.0f;
    ground.size[2] = 0.2f;
    ground.pos[2] = -0.1f;
    builder_add(b, &ground);
    tp_body_def cube = tp_default_body_def();
    cube.name = "cube";
    cube.pos[2] = 0.5f;
    builder_add(b, &cube);
    return builder_finish(b);
}

/* A CPU batch of one world of cube_on_slab(kinematic, warm_starting),
 * stepped `steps` times; its model in *model. */
static tp_batch *cube_batch(int kinematic, int warm_starting, int steps, tp_model **model)
{
    *model = cube_on_slab(kinematic, warm_starting);
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = 1;
    bd.threads = 1;
    tp_batch *b = NULL;
    cr_assert_eq(tp_batch_create(*model, &bd, &b), TP_OK, "%s", tp_last_error());
    batch_steps(b, steps);
    return b;
}

static void cube_done(tp_batch *b, tp_model *model)
{
    tp_batch_destroy(b);
    tp_model_destroy(model);
}

/* The cube's manifold from last step's buffer (0: not reused) and from the
 * narrowphase, at the current poses. */
static int cached(tp_batch *b, tp_manifold *m)
{
    tp_world wd = tp_layout_world_stepping(&b->layout, 0, b->current);
    return tp_cache_manifold(&wd, 0, 1, m);
}

static void found(tp_batch *b, tp_manifold *m)
{
    tp_world wd = tp_layout_world(&b->layout, 0);
    int from = -1;
    cr_assert(tp_collide_pair_manifold(&wd, 0, 1, tp_pair_margin(&wd, 0, 1), wd.polys, m, &from) > 0);
    cr_assert_eq(from, 0, "a world view outside a step has no cache");
}

/* Turn the cube about z by `deg` degrees and move it by dx along x. */
static void nudge(tp_batch *b, float dx, float deg)
{
    tp_state_view s = batch_view(b);
    float p[3], q[4], h = 0.5f * deg * 3.14159265f / 180.0f;
    memcpy(p, s.pos + 3, sizeof p);
    const float *c = s.quat + 4;
    float r[4] = {0.0f, 0.0f, sinf(h), cosf(h)}; /* r * c */
    q[0] = r[3] * c[0] + r[0] * c[3] + r[1] * c[2] - r[2] * c[1];
    q[1] = r[3] * c[1] - r[0] * c[2] + r[1] * c[3] + r[2] * c[0];
    q[2] = r[3] * c[2] + r[0] * c[1] - r[1] * c[0] + r[2] * c[3];
    q[3] = r[3] * c[3] - r[0] * c[0] - r[1] * c[1] - r[2] * c[2];
    p[0] += dx;
    cr_assert_eq(tp_batch_set_pose(b, 0, 1, p, q), TP_OK, "%s", tp_last_error());
}

/* A resting cube reuses its manifold, and what it reuses is what the
 * narrowphase finds now: the same features, the normal within the 0.005
 * degree limit, and each point's separation within what that turn and the
 * 5 um shift can change it by (5 um + 0.87 m x 8.7e-5 rad < 0.1 mm, 0.87 m
 * being the cube's half diagonal). */
Test(contact_cache, resting_pair_reuses_what_the_narrowphase_finds)
{
    tp_model *model = NULL;
    tp_batch *b = cube_batch(0, 1, 120, &model);
    tp_manifold mc, mf;
    cr_assert(cached(b, &mc) > 0, "a cube at rest for 2 s reuses its manifold");
    found(b, &mf);
    cr_assert_eq(mc.count, 4);
    cr_assert_eq(mf.count, mc.count);
    cr_expect(tp_dot(mc.normal, mf.normal) >= cosf(1.0e-4f), "normals (%g %g %g) and (%g %g %g)", mc.normal.x,
              mc.normal.y, mc.normal.z, mf.normal.x, mf.normal.y, mf.normal.z);
    for (int i = 0; i < mc.count; ++i) {
        int k = 0;
        while (k < mf.count && mf.feature[k] != mc.feature[i]) ++k;
        cr_assert(k < mf.count, "the reused feature %u is not among the narrowphase's", mc.feature[i]);
        cr_expect(fabsf(mc.separation[i] - mf.separation[k]) <= 1.0e-4f, "point %d: separation %g, narrowphase %g",
                  i, mc.separation[i], mf.separation[k]);
        cr_expect(tp_len(tp_sub(mc.local_b[i], mf.local_b[k])) <= 1.0e-4f, "point %d: the cube's end moved", i);
    }
    cube_done(b, model);
}

/* Past either limit the narrowphase runs again; within both the manifold is
 * kept. */
Test(contact_cache, moving_past_a_limit_finds_the_pair_again)
{
    tp_model *model = NULL;
    tp_batch *b = cube_batch(0, 1, 120, &model);
    tp_manifold m;
    static const struct { float dx, deg; int reused; } cases[] = {
        {2.0e-6f, 0.0f, 1}, {2.0e-5f, 0.0f, 0}, {0.0f, 0.002f, 1}, {0.0f, 0.02f, 0}, {-2.0e-6f, -0.002f, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        cr_assert(cached(b, &m) > 0, "case %zu: at rest before the nudge", i);
        tp_state_view s = batch_view(b);
        float p0[3], q0[4];
        memcpy(p0, s.pos + 3, sizeof p0);
        memcpy(q0, s.quat + 4, sizeof q0);
        nudge(b, cases[i].dx, cases[i].deg);
        cr_expect_eq(cached(b, &m) > 0, cases[i].reused, "case %zu: moved %g m, turned %g degrees: reused %d", i,
                     cases[i].dx, cases[i].deg, cached(b, &m) > 0);
        cr_assert_eq(tp_batch_set_pose(b, 0, 1, p0, q0), TP_OK); /* back where the manifold was found */
    }
    cube_done(b, model);
}

/* A reused manifold keeps the pose it was found at, so small motions add up:
 * two nudges of 3 um, each within the 5 um limit, with a step between them
 * (which reuses the manifold), take the pair 6 um from where its manifold was
 * found, and it is found again. (Were the reference made anew each step, the
 * pair could creep forever on its first manifold.) */
Test(contact_cache, small_motions_add_up)
{
    tp_model *model = NULL;
    tp_batch *b = cube_batch(0, 1, 120, &model);
    tp_manifold m;
    const float zero[3] = {0.0f, 0.0f, 0.0f};
    nudge(b, 3.0e-6f, 0.0f);
    cr_assert(cached(b, &m) > 0, "3 um from where it was found: reused");
    cr_assert_eq(tp_batch_set_velocity(b, 0, 1, zero, zero), TP_OK);
    batch_steps(b, 1);
    cr_assert(cached(b, &m) > 0, "a step later, still within 5 um: reused");
    nudge(b, 3.0e-6f, 0.0f);
    cr_expect_eq(cached(b, &m), 0, "6 um from where it was found: found again");
    cube_done(b, model);
}

/* A cube on a platform that tilts about x at 0.05 rad/s: the two turn
 * together, so the pair keeps its manifold most steps, and the normal it
 * reuses turns with the platform (it is kept in the platform's frame). After
 * 2 s (0.1 rad, 5.7 degrees) the contact normals are the platform's up axis
 * to within 0.2 degrees; a normal kept in the world frame would be 5.7
 * degrees off. */
Test(contact_cache, reused_normal_turns_with_its_bodies)
{
    tp_model *model = NULL;
    tp_batch *b = cube_batch(1, 1, 30, &model);
    const float zero[3] = {0.0f, 0.0f, 0.0f}, tilt[3] = {0.05f, 0.0f, 0.0f};
    cr_assert_eq(tp_batch_set_velocity(b, 0, 0, zero, tilt), TP_OK, "%s", tp_last_error());
    int steps = 120, reused = 0;
    for (int k = 0; k < steps; ++k) {
        tp_manifold m;
        reused += cached(b, &m) > 0;
        batch_steps(b, 1);
    }
    cr_expect(reused >= steps / 2, "the tilting pair reused its manifold in %d of %d steps", reused, steps);
    tp_state_view s = batch_view(b);
    tp_vec3 up = tp_q_rotate(tp_q_load(s.quat), tp_v3(0.0f, 0.0f, 1.0f));
    cr_assert(up.z < cosf(0.09f), "the platform tilted (up z %g)", up.z);
    tp_contact_info c[8];
    int n = 0;
    cr_assert_eq(tp_batch_contacts(b, 0, c, 8, &n), TP_OK);
    cr_assert(n >= 3 && n <= 8, "%d contact points", n);
    for (int i = 0; i < n; ++i)
        cr_expect(tp_dot(tp_v3_load(c[i].normal), up) >= cosf(0.2f * 3.14159265f / 180.0f),
                  "point %d: normal (%g %g %g), platform up (%g %g %g)", i, c[i].normal[0], c[i].normal[1],
                  c[i].normal[2], up.x, up.y, up.z);
    cube_done(b, model);
}

/* Warm starting off: a step depends on the bodies' state alone, so nothing
 * is reused. */
Test(contact_cache, no_reuse_without_warm_starting)
{
    tp_model *model = NULL;
    tp_batch *b = cube_batch(0, 0, 120, &model);
    tp_manifold m;
    cr_expect_eq(cached(b, &m), 0);
    tp_world wd = tp_layout_world_stepping(&b->layout, 0, b->current);
    cr_expect(wd.cache_contacts == NULL && wd.cache_count == 0);
    cube_done(b, model);
}

/* A step whose buffer overflowed may have kept only part of a pair's points:
 * its references are made with no point count, so that next step no pair is
 * reused (its manifold would come back short). Here the resting cube's
 * references are made again as an overflowing step makes them. */
Test(contact_cache, no_reuse_after_an_overflow)
{
    tp_model *model = NULL;
    tp_batch *b = cube_batch(0, 1, 120, &model);
    tp_manifold m;
    cr_assert(cached(b, &m) > 0, "at rest, the cube reuses its manifold");
    tp_world wd = tp_layout_world_stepping(&b->layout, 0, b->current);
    tp_contact *contacts = b->contacts[b->current];
    tp_contact_ref *refs = b->contact_refs[b->current];
    int n = b->contact_count[b->current][0];
    cr_assert_eq(n, 4);
    tp_contact_refs_update(&wd, contacts, n, b->contact_refs[1 - b->current], refs, 1);
    for (int i = 0; i < n; ++i) cr_expect_eq(refs[i].count, 0, "point %d: count %d after an overflow", i, refs[i].count);
    cr_expect_eq(cached(b, &m), 0, "a pair's points after an overflow are not reused");
    cube_done(b, model);
}
