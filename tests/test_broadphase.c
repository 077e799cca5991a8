/* test_broadphase.c - sort-and-sweep candidate pairs: the same set as testing
 * every pair of boxes, the pair filter (static, kinematic, sleeping, removed),
 * conservative boxes, and sub-quadratic work. */
#include "collision_world.h"

#include <criterion/criterion.h>

typedef struct pair_set {
    int n;
    uint8_t *hit; /* [bodies][bodies] */
    int bodies;
} pair_set;

static pair_set sweep_pairs(const tp_world *wd, int64_t *tests)
{
    pair_set s = {0, calloc((size_t)wd->bodies * (size_t)wd->bodies, 1), wd->bodies};
    void *scratch = malloc(tp_broadphase_scratch_bytes(wd->bodies));
    tp_broadphase bp;
    tp_broadphase_begin(&bp, wd, TP_CONTACT_MARGIN, scratch);
    int a, b;
    while (tp_broadphase_next(&bp, &a, &b)) {
        cr_assert(a < b, "pair (%d, %d) not ordered", a, b);
        cr_assert_eq(s.hit[a * s.bodies + b], 0, "pair (%d, %d) twice", a, b);
        s.hit[a * s.bodies + b] = 1;
        s.n++;
    }
    if (tests) *tests = bp.tests;
    free(scratch);
    return s;
}

/* Every pair of present bodies whose grown boxes overlap and one of which is simulated. */
static pair_set brute_pairs(const tp_world *wd)
{
    pair_set s = {0, calloc((size_t)wd->bodies * (size_t)wd->bodies, 1), wd->bodies};
    float lo[2][3], hi[2][3];
    for (int a = 0; a < wd->bodies; ++a)
        for (int b = a + 1; b < wd->bodies; ++b) {
            if ((wd->flags[a] | wd->flags[b]) & TP_FLAG_REMOVED) continue;
            if (!tp_body_is_simulated(wd, a) && !tp_body_is_simulated(wd, b)) continue;
            tp_body_aabb(wd, a, TP_CONTACT_MARGIN, lo[0], hi[0]);
            tp_body_aabb(wd, b, TP_CONTACT_MARGIN, lo[1], hi[1]);
            int overlap = 1;
            for (int k = 0; k < 3; ++k)
                if (lo[0][k] > hi[1][k] || lo[1][k] > hi[0][k]) overlap = 0;
            if (!overlap) continue;
            s.hit[a * s.bodies + b] = 1;
            s.n++;
        }
    return s;
}

static void assert_same_pairs(pair_set x, pair_set y)
{
    cr_assert_eq(x.n, y.n, "sweep found %d pairs, brute force %d", x.n, y.n);
    cr_assert(memcmp(x.hit, y.hit, (size_t)x.bodies * (size_t)x.bodies) == 0, "different pair sets");
    free(x.hit);
    free(y.hit);
}

Test(broadphase, sweep_finds_exactly_the_overlapping_pairs)
{
    test_world t;
    test_world_init(&t, 400, 0);
    test_world_scene(&t, 300, 12, 7);
    assert_same_pairs(sweep_pairs(&t.wd, NULL), brute_pairs(&t.wd));
    test_world_free(&t);
}

Test(broadphase, filter_skips_static_kinematic_sleeping_and_removed_pairs)
{
    test_world t;
    test_world_init(&t, 8, 0);
    tp_quat q = tp_q_identity();
    /* all eight boxes overlap one another */
    int s0 = test_world_add(&t, TP_BODY_STATIC, TP_SHAPE_BOX, 2, 2, 2, tp_v3(0, 0, 0), q);
    int s1 = test_world_add(&t, TP_BODY_STATIC, TP_SHAPE_BOX, 2, 2, 2, tp_v3(0.1f, 0, 0), q);
    int k0 = test_world_add(&t, TP_BODY_KINEMATIC, TP_SHAPE_BOX, 2, 2, 2, tp_v3(0.2f, 0, 0), q);
    int d0 = test_world_add(&t, TP_BODY_DYNAMIC, TP_SHAPE_BOX, 2, 2, 2, tp_v3(0.3f, 0, 0), q);
    int z0 = test_world_add(&t, TP_BODY_DYNAMIC, TP_SHAPE_BOX, 2, 2, 2, tp_v3(0.4f, 0, 0), q);
    int z1 = test_world_add(&t, TP_BODY_DYNAMIC, TP_SHAPE_BOX, 2, 2, 2, tp_v3(0.5f, 0, 0), q);
    int r0 = test_world_add(&t, TP_BODY_DYNAMIC, TP_SHAPE_BOX, 2, 2, 2, tp_v3(0.6f, 0, 0), q);
    t.sleep_state[z0] = TP_SLEEPING;
    t.sleep_state[z1] = TP_SLEEPING;
    t.flags[r0] = TP_FLAG_REMOVED;
    pair_set s = sweep_pairs(&t.wd, NULL);
    int bodies = t.wd.bodies;
#define HIT(a, b) s.hit[(a) * bodies + (b)]
    cr_assert_eq(HIT(s0, s1), 0, "static-static");
    cr_assert_eq(HIT(s0, k0), 0, "static-kinematic");
    cr_assert_eq(HIT(z0, z1), 0, "sleeping-sleeping");
    cr_assert_eq(HIT(s0, z0), 0, "static-sleeping");
    cr_assert_eq(HIT(s0, d0), 1, "static-awake");
    cr_assert_eq(HIT(k0, d0), 1, "kinematic-awake");
    cr_assert_eq(HIT(d0, z0), 1, "awake-sleeping");
    for (int b = 0; b < bodies; ++b) cr_assert_eq(HIT(b < r0 ? b : r0, b < r0 ? r0 : b), 0, "removed body paired");
    cr_assert_eq(s.n, 5, "the awake body with s0, s1, k0, z0 and z1 only; got %d pairs", s.n);
#undef HIT
    free(s.hit);
    test_world_free(&t);
}

Test(broadphase, boxes_hold_the_rotated_shape)
{
    uint64_t st = 3;
    for (int shape = 0; shape < TP_SHAPE_COUNT; ++shape)
        for (int trial = 0; trial < 20; ++trial) {
            test_world t;
            test_world_init(&t, 1, 0);
            float size[3] = {1.7f, 0.6f, 1.1f};
            tp_quat q = test_rand_quat(&st, 3.1);
            test_world_add(&t, TP_BODY_DYNAMIC, shape, size[0], size[1], size[2], tp_v3(1, 2, 3), q);
            float lo[3], hi[3];
            tp_body_aabb(&t.wd, 0, 0.0f, lo, hi);
            /* sample the surface of the shape's local box: every point of the
             * collision shape lies inside it, so the world box of the shape must
             * hold the support points of the shape in each world axis */
            tp_poly p;
            if (tp_poly_build(&p, shape, size)) {
                for (int i = 0; i < p.nv; ++i) {
                    tp_vec3 w = tp_add(tp_v3(1, 2, 3), tp_q_rotate(q, p.v[i]));
                    for (int k = 0; k < 3; ++k)
                        cr_assert(tp_v3_get(w, k) >= lo[k] - 1e-5f && tp_v3_get(w, k) <= hi[k] + 1e-5f);
                }
            } else {
                float r = tp_shape_radius(shape, size);
                float h = shape == TP_SHAPE_CAPSULE ? tp_capsule_half_core(size) : 0.0f;
                for (int e = -1; e <= 1; e += 2)
                    for (int k = 0; k < 3; ++k) {
                        tp_vec3 c = tp_add(tp_v3(1, 2, 3), tp_q_rotate(q, tp_v3(h * (float)e, 0, 0)));
                        cr_assert(tp_v3_get(c, k) - r >= lo[k] - 1e-5f && tp_v3_get(c, k) + r <= hi[k] + 1e-5f);
                    }
                if (shape == TP_SHAPE_BALL) cr_assert_float_eq(hi[0] - lo[0], 2.0f * r, 1e-5f);
            }
            test_world_free(&t);
        }
}

Test(broadphase, every_touching_pair_is_a_candidate)
{
    test_world t;
    test_world_init(&t, 200, 0);
    test_world_scene(&t, 150, 8, 11);
    pair_set s = sweep_pairs(&t.wd, NULL);
    int touching = 0;
    tp_contact pts[4];
    for (int a = 0; a < t.wd.bodies; ++a)
        for (int b = a + 1; b < t.wd.bodies; ++b) {
            if (!tp_body_is_simulated(&t.wd, a) && !tp_body_is_simulated(&t.wd, b)) continue;
            if (tp_collide_pair(&t.wd, a, b, TP_CONTACT_MARGIN, pts) == 0) continue;
            touching++;
            cr_assert(s.hit[a * t.wd.bodies + b], "touching pair (%d, %d) missed", a, b);
        }
    cr_assert(touching > 50, "scene too sparse: %d touching pairs", touching);
    free(s.hit);
    test_world_free(&t);
}

Test(broadphase, five_thousand_bodies_need_far_fewer_than_n_squared_tests)
{
    const int n = 5000;
    test_world t;
    test_world_init(&t, n + 1, 0);
    test_world_scene(&t, n, 50, 5); /* 50 x 50 cells, two layers */
    int64_t tests = 0;
    pair_set s = sweep_pairs(&t.wd, &tests);
    /* one sweep axis over a square floor: each body meets the bodies of its
     * column band (~sqrt(n) of them): of order n^1.5 tests (~450k here), not
     * n^2 / 2 = 12.5M; allow 5 % of n^2 */
    cr_assert(tests < (int64_t)n * n / 20, "%lld box tests for %d bodies (n^2/2 = %lld)", (long long)tests, n,
              (long long)n * n / 2);
    cr_assert(s.n > n, "only %d pairs", s.n);
    free(s.hit);
    /* the same set as brute force */
    assert_same_pairs(sweep_pairs(&t.wd, NULL), brute_pairs(&t.wd));
    test_world_free(&t);
}

Test(broadphase, tower_sweeps_along_its_height)
{
    test_world t;
    test_world_init(&t, 101, 0);
    test_world_add(&t, TP_BODY_STATIC, TP_SHAPE_BOX, 20, 20, 1, tp_v3(0, 0, -0.5f), tp_q_identity());
    for (int i = 0; i < 100; ++i)
        test_world_add(&t, TP_BODY_DYNAMIC, TP_SHAPE_BOX, 1, 1, 1, tp_v3(0, 0, 0.5f + (float)i), tp_q_identity());
    int64_t tests = 0;
    pair_set s = sweep_pairs(&t.wd, &tests);
    cr_assert_eq(s.n, 100, "each box with the next one and the ground with the first: got %d", s.n);
    cr_assert(tests <= 2 * 100 + 10, "%lld tests", (long long)tests);
    free(s.hit);
    test_world_free(&t);
}
