/* test_narrowphase.c - contact manifolds of every shape pair against analytic
 * geometry: normals, separations, points, point counts, feature ids.
 *
 * Tolerances: poses and sizes are O(1) m, computed in float32 with a handful of
 * rotations, so positions carry errors of a few ulp of 1 m (~1e-7); 2e-5 m
 * leaves room for rotated scenes without hiding a wrong feature (the nearest
 * wrong answer in these scenes is >= 1 cm away). */
#include "narrowphase.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI_D 3.14159265358979323846
#define POS_TOL 2e-5f
#define NRM_TOL 2e-5f

static const tp_quat ID = {0.0f, 0.0f, 0.0f, 1.0f};

/* Rotation of `angle` radians about a unit axis (test-side trig in double). */
static tp_quat axis_angle(float x, float y, float z, double angle)
{
    double l = sqrt((double)x * x + (double)y * y + (double)z * z);
    double s = sin(0.5 * angle) / l;
    return tp_q((float)(x * s), (float)(y * s), (float)(z * s), (float)cos(0.5 * angle));
}

static tp_vec3 world_point(tp_vec3 pos, tp_quat q, tp_vec3 local) { return tp_add(pos, tp_q_rotate(q, local)); }

static int collide(int sa, const float *za, tp_vec3 pa, tp_quat qa, int sb, const float *zb, tp_vec3 pb, tp_quat qb,
                   tp_manifold *m)
{
    return tp_collide_shapes(sa, za, pa, qa, sb, zb, pb, qb, TP_CONTACT_MARGIN, m);
}

static void assert_vec(tp_vec3 a, tp_vec3 e, float tol, const char *what)
{
    cr_assert(fabsf(a.x - e.x) <= tol && fabsf(a.y - e.y) <= tol && fabsf(a.z - e.z) <= tol,
              "%s: got (%g %g %g), expected (%g %g %g)", what, a.x, a.y, a.z, e.x, e.y, e.z);
}

/* Does the manifold hold a point whose B-local position is e? */
static int has_local_b(const tp_manifold *m, tp_vec3 e, float tol)
{
    for (int i = 0; i < m->count; ++i)
        if (tp_len(tp_sub(m->local_b[i], e)) <= tol) return 1;
    return 0;
}

static void assert_unique_features(const tp_manifold *m, const char *what)
{
    for (int i = 0; i < m->count; ++i)
        for (int j = i + 1; j < m->count; ++j)
            cr_assert_neq(m->feature[i], m->feature[j], "%s: points %d and %d share feature %x", what, i, j,
                          m->feature[i]);
}

/* ------------------------------------------------------------ specific scenes */

Test(narrowphase, unit_cube_resting_flat_on_box_gives_its_four_bottom_corners)
{
    float ground[3] = {10.0f, 10.0f, 1.0f}, cube[3] = {1.0f, 1.0f, 1.0f};
    tp_manifold m;
    int n = collide(TP_SHAPE_BOX, ground, tp_v3(0, 0, -0.5f), ID, TP_SHAPE_BOX, cube, tp_v3(0, 0, 0.5f), ID, &m);
    cr_assert_eq(n, 4);
    assert_vec(m.normal, tp_v3(0, 0, 1), NRM_TOL, "normal");
    for (int sx = -1; sx <= 1; sx += 2)
        for (int sy = -1; sy <= 1; sy += 2)
            cr_assert(has_local_b(&m, tp_v3(0.5f * sx, 0.5f * sy, -0.5f), POS_TOL), "corner %d %d missing", sx, sy);
    for (int i = 0; i < n; ++i) {
        cr_assert_float_eq(m.separation[i], 0.0f, POS_TOL);
        /* the point on the ground is the corner on the ground's top face */
        assert_vec(m.local_a[i], tp_add(m.local_b[i], tp_v3(0, 0, 1.0f)), POS_TOL, "point on ground");
    }
    assert_unique_features(&m, "cube on box");
}

Test(narrowphase, penetrating_cube_reports_depth_at_each_corner)
{
    float ground[3] = {10.0f, 10.0f, 1.0f}, cube[3] = {1.0f, 1.0f, 1.0f};
    tp_manifold m;
    int n = collide(TP_SHAPE_BOX, ground, tp_v3(0, 0, -0.5f), ID, TP_SHAPE_BOX, cube, tp_v3(0, 0, 0.45f), ID, &m);
    cr_assert_eq(n, 4);
    for (int i = 0; i < n; ++i) cr_assert_float_eq(m.separation[i], -0.05f, POS_TOL);
}

Test(narrowphase, cube_beyond_margin_has_no_points_and_within_margin_is_speculative)
{
    float ground[3] = {10.0f, 10.0f, 1.0f}, cube[3] = {1.0f, 1.0f, 1.0f};
    tp_manifold m;
    cr_assert_eq(collide(TP_SHAPE_BOX, ground, tp_v3(0, 0, -0.5f), ID, TP_SHAPE_BOX, cube,
                         tp_v3(0, 0, 0.5f + TP_CONTACT_MARGIN + 0.005f), ID, &m), 0);
    int n = collide(TP_SHAPE_BOX, ground, tp_v3(0, 0, -0.5f), ID, TP_SHAPE_BOX, cube, tp_v3(0, 0, 0.51f), ID, &m);
    cr_assert_eq(n, 4);
    for (int i = 0; i < n; ++i) cr_assert_float_eq(m.separation[i], 0.01f, POS_TOL);
}

Test(narrowphase, cube_balanced_on_an_edge_gives_two_points_at_the_edge_ends)
{
    float ground[3] = {10.0f, 10.0f, 1.0f}, cube[3] = {1.0f, 1.0f, 1.0f};
    /* 45 degrees about x: the edge (x, -0.5, -0.5) points straight down, sqrt(2)/2 below the centre */
    tp_quat q = axis_angle(1, 0, 0, PI_D / 4.0);
    tp_manifold m;
    int n = collide(TP_SHAPE_BOX, ground, tp_v3(0, 0, -0.5f), ID, TP_SHAPE_BOX, cube,
                    tp_v3(0, 0, (float)(sqrt(0.5))), q, &m);
    cr_assert_eq(n, 2);
    assert_vec(m.normal, tp_v3(0, 0, 1), NRM_TOL, "normal");
    cr_assert(has_local_b(&m, tp_v3(-0.5f, -0.5f, -0.5f), POS_TOL));
    cr_assert(has_local_b(&m, tp_v3(0.5f, -0.5f, -0.5f), POS_TOL));
    for (int i = 0; i < n; ++i) cr_assert_float_eq(m.separation[i], 0.0f, POS_TOL);
}

Test(narrowphase, crossed_box_edges_touch_at_one_point)
{
    /* A: edge along x on top at z = sqrt(2)/2; B: edge along y at the bottom */
    float cube[3] = {1.0f, 1.0f, 1.0f};
    float h = (float)sqrt(0.5), gap = 0.004f;
    tp_manifold m;
    int n = collide(TP_SHAPE_BOX, cube, tp_v3(0, 0, 0), axis_angle(1, 0, 0, PI_D / 4.0), TP_SHAPE_BOX, cube,
                    tp_v3(0.1f, -0.05f, 2.0f * h + gap), axis_angle(0, 1, 0, PI_D / 4.0), &m);
    cr_assert_eq(n, 1);
    assert_vec(m.normal, tp_v3(0, 0, 1), NRM_TOL, "normal");
    cr_assert_float_eq(m.separation[0], gap, POS_TOL);
    cr_assert_eq(m.feature[0] >> 15, TP_FEAT_EDGE_EDGE, "feature %x is not edge-edge", m.feature[0]);
    /* crossing point: x = 0.1 on A's edge, y = 0 on B's edge */
    tp_vec3 pa = world_point(tp_v3(0, 0, 0), axis_angle(1, 0, 0, PI_D / 4.0), m.local_a[0]);
    assert_vec(pa, tp_v3(0.1f, 0.0f, h), POS_TOL, "point on A");
}

Test(narrowphase, ball_on_wedge_slope_gets_one_point_with_the_slope_normal)
{
    float wedge[3] = {2.0f, 3.0f, 1.5f}, ball[3] = {0.4f, 0.4f, 0.4f};
    /* slope plane through (y=-1.5, z=0.75) and (y=1.5, z=-0.75): normal (0, sz, sy)/|.| */
    float l = sqrtf(1.5f * 1.5f + 3.0f * 3.0f);
    tp_vec3 n = tp_v3(0.0f, 1.5f / l, 3.0f / l);
    float gap = 0.005f;
    tp_vec3 on_slope = tp_v3(0.3f, 0.5f, -0.25f); /* a point of the slope plane y/2 + z = 0 */
    tp_vec3 c = tp_mad(on_slope, n, 0.2f + gap);
    tp_manifold m;
    int k = collide(TP_SHAPE_WEDGE, wedge, tp_v3(0, 0, 0), ID, TP_SHAPE_BALL, ball, c, ID, &m);
    cr_assert_eq(k, 1);
    assert_vec(m.normal, n, NRM_TOL, "normal");
    cr_assert_float_eq(m.separation[0], gap, POS_TOL);
    assert_vec(m.local_a[0], on_slope, POS_TOL, "point on slope");
    assert_vec(m.local_b[0], tp_scale(n, -0.2f), POS_TOL, "point on ball");
}

Test(narrowphase, ball_against_box_edge_and_corner_regions)
{
    float box[3] = {2.0f, 2.0f, 2.0f}, ball[3] = {1.0f, 1.0f, 1.0f};
    tp_manifold m;
    /* edge region: centre beyond the +x+z edge along the diagonal */
    float d = 0.5f - 0.01f;
    tp_vec3 dir = tp_v3((float)sqrt(0.5), 0.0f, (float)sqrt(0.5));
    tp_vec3 c = tp_mad(tp_v3(1, 0.3f, 1), dir, d);
    cr_assert_eq(collide(TP_SHAPE_BOX, box, tp_v3(0, 0, 0), ID, TP_SHAPE_BALL, ball, c, ID, &m), 1);
    assert_vec(m.normal, dir, NRM_TOL, "edge normal");
    cr_assert_float_eq(m.separation[0], -0.01f, POS_TOL);
    assert_vec(m.local_a[0], tp_v3(1, 0.3f, 1), POS_TOL, "edge point");
    /* corner region */
    float s3 = (float)(1.0 / sqrt(3.0));
    dir = tp_v3(s3, s3, s3);
    c = tp_mad(tp_v3(1, 1, 1), dir, 0.51f);
    cr_assert_eq(collide(TP_SHAPE_BOX, box, tp_v3(0, 0, 0), ID, TP_SHAPE_BALL, ball, c, ID, &m), 1);
    assert_vec(m.normal, dir, NRM_TOL, "corner normal");
    cr_assert_float_eq(m.separation[0], 0.01f, POS_TOL);
    /* centre inside the box: least penetration through the nearest face (+y) */
    cr_assert_eq(collide(TP_SHAPE_BOX, box, tp_v3(0, 0, 0), ID, TP_SHAPE_BALL, ball, tp_v3(0.1f, 0.8f, 0.0f), ID,
                         &m), 1);
    assert_vec(m.normal, tp_v3(0, 1, 0), NRM_TOL, "inside normal");
    cr_assert_float_eq(m.separation[0], -0.2f - 0.5f, POS_TOL);
}

Test(narrowphase, balls_along_a_diagonal)
{
    float a[3] = {1.0f, 1.0f, 1.0f}, b[3] = {0.6f, 2.0f, 3.0f}; /* radii 0.5 and 0.3 */
    tp_vec3 dir = tp_v3(1.0f / 3.0f, 2.0f / 3.0f, 2.0f / 3.0f);
    tp_vec3 pa = tp_v3(1, 2, 3);
    tp_manifold m;
    cr_assert_eq(collide(TP_SHAPE_BALL, a, pa, ID, TP_SHAPE_BALL, b, tp_mad(pa, dir, 0.75f), ID, &m), 1);
    assert_vec(m.normal, dir, NRM_TOL, "normal");
    cr_assert_float_eq(m.separation[0], -0.05f, POS_TOL);
    assert_vec(m.local_a[0], tp_scale(dir, 0.5f), POS_TOL, "point on A");
    assert_vec(m.local_b[0], tp_scale(dir, -0.3f), POS_TOL, "point on B");
    cr_assert_eq(collide(TP_SHAPE_BALL, a, pa, ID, TP_SHAPE_BALL, b, tp_mad(pa, dir, 0.8f + 0.021f), ID, &m), 0);
}

Test(narrowphase, capsules_crossed_give_one_point_parallel_give_two)
{
    float cap[3] = {2.0f, 0.4f, 0.4f}; /* radius 0.2, core half length 0.8 */
    tp_manifold m;
    /* crossed at right angles, 0.39 apart: 1 point, separation -0.01 */
    int n = collide(TP_SHAPE_CAPSULE, cap, tp_v3(0, 0, 0), ID, TP_SHAPE_CAPSULE, cap, tp_v3(0.3f, 0, 0.39f),
                    axis_angle(0, 0, 1, PI_D / 2.0), &m);
    cr_assert_eq(n, 1);
    assert_vec(m.normal, tp_v3(0, 0, 1), NRM_TOL, "normal");
    cr_assert_float_eq(m.separation[0], -0.01f, POS_TOL);
    assert_vec(m.local_a[0], tp_v3(0.3f, 0, 0.2f), POS_TOL, "point on A");
    /* parallel, shifted by 0.5 along x: overlap of the cores is [-0.3, 0.8] */
    n = collide(TP_SHAPE_CAPSULE, cap, tp_v3(0, 0, 0), ID, TP_SHAPE_CAPSULE, cap, tp_v3(0.5f, 0, 0.4f), ID, &m);
    cr_assert_eq(n, 2);
    assert_vec(m.normal, tp_v3(0, 0, 1), NRM_TOL, "normal");
    cr_assert(has_local_b(&m, tp_v3(-0.8f, 0, -0.2f), POS_TOL));
    cr_assert(has_local_b(&m, tp_v3(0.3f, 0, -0.2f), POS_TOL));
    for (int i = 0; i < n; ++i) cr_assert_float_eq(m.separation[i], 0.0f, POS_TOL);
    assert_unique_features(&m, "parallel capsules");
}

Test(narrowphase, capsule_lying_on_a_box_rests_on_both_core_ends)
{
    float box[3] = {4.0f, 4.0f, 1.0f}, cap[3] = {1.5f, 0.5f, 0.5f}; /* r 0.25, h 0.5 */
    tp_quat yaw = axis_angle(0, 0, 1, 0.3);
    tp_manifold m;
    int n = collide(TP_SHAPE_CAPSULE, cap, tp_v3(0.2f, 0.1f, 0.74f), yaw, TP_SHAPE_BOX, box, tp_v3(0, 0, 0), ID, &m);
    cr_assert_eq(n, 2);
    assert_vec(m.normal, tp_v3(0, 0, -1), NRM_TOL, "normal (capsule is A)");
    cr_assert(fabsf(m.local_a[0].x) > 0.49f && fabsf(m.local_a[1].x) > 0.49f);
    for (int i = 0; i < n; ++i) {
        cr_assert_float_eq(m.separation[i], -0.01f, POS_TOL);
        cr_assert_float_eq(m.local_b[i].z, 0.5f, POS_TOL);
    }
}

/* ------------------------------------------------------------ round cylinder */

/* World position of manifold point i on body B. */
static tp_vec3 point_b(const tp_manifold *m, int i, tp_vec3 pos_b, tp_quat q_b)
{
    return world_point(pos_b, q_b, m->local_b[i]);
}

Test(narrowphase, cylinder_on_its_side_rests_on_both_ends_of_its_bottom_line)
{
    /* length 1, radius 0.4, axis along x, 3 mm into the ground, at any spin
     * about its axis: 2 points at x = -0.5 and +0.5, on the ground plane, with
     * the same two ids whatever the spin */
    float ground[3] = {10.0f, 10.0f, 1.0f}, cyl[3] = {1.0f, 0.8f, 0.8f};
    uint32_t ids[2] = {0, 0};
    for (int k = 0; k < 7; ++k) {
        tp_quat spin = axis_angle(1, 0, 0, 0.37 * k);
        tp_vec3 pos = tp_v3(0.2f, -0.1f, 0.4f - 0.003f);
        tp_manifold m;
        int n = collide(TP_SHAPE_BOX, ground, tp_v3(0, 0, -0.5f), ID, TP_SHAPE_CYLINDER, cyl, pos, spin, &m);
        cr_assert_eq(n, 2, "spin %d: %d points", k, n);
        assert_vec(m.normal, tp_v3(0, 0, 1), NRM_TOL, "normal");
        assert_unique_features(&m, "lying cylinder");
        float xs[2];
        for (int i = 0; i < 2; ++i) {
            cr_assert_float_eq(m.separation[i], -0.003f, POS_TOL);
            tp_vec3 w = point_b(&m, i, pos, spin);
            assert_vec(tp_v3(w.y, w.z, 0), tp_v3(-0.1f, -0.003f, 0), POS_TOL, "point on the cylinder's bottom line");
            cr_assert_float_eq(m.local_a[i].z, 0.5f, POS_TOL); /* on the ground's top face */
            xs[i] = w.x;
        }
        cr_assert(fabsf(fminf(xs[0], xs[1]) - (0.2f - 0.5f)) <= POS_TOL && fabsf(fmaxf(xs[0], xs[1]) - 0.7f) <= POS_TOL,
                  "ends at x = %g, %g", xs[0], xs[1]);
        uint32_t lo = m.feature[0] < m.feature[1] ? m.feature[0] : m.feature[1];
        uint32_t hi = m.feature[0] ^ m.feature[1] ^ lo;
        if (k == 0) { ids[0] = lo; ids[1] = hi; }
        cr_assert(lo == ids[0] && hi == ids[1], "spin %d changed the ids", k);
    }
    /* tilted 0.5 degree about y: the -x end is lower by L sin(0.5 deg); the
     * low end's deepest point is the rim point at h sin + r cos below the
     * centre, here 2 mm into the ground */
    double t = 0.5 * PI_D / 180.0;
    tp_quat tilt = axis_angle(0, 1, 0, -t); /* turns +x up */
    float zc = (float)(0.5 * sin(t) + 0.4 * cos(t)) - 0.002f;
    tp_manifold m;
    int n = collide(TP_SHAPE_BOX, ground, tp_v3(0, 0, -0.5f), ID, TP_SHAPE_CYLINDER, cyl, tp_v3(0, 0, zc), tilt, &m);
    cr_assert_eq(n, 2);
    float low = zc - (float)(0.5 * sin(t) + 0.4 * cos(t)), high = zc - (float)(-0.5 * sin(t) + 0.4 * cos(t));
    float s0 = fminf(m.separation[0], m.separation[1]), s1 = fmaxf(m.separation[0], m.separation[1]);
    cr_assert_float_eq(s0, low, POS_TOL);
    cr_assert_float_eq(s1, high, POS_TOL);
}

Test(narrowphase, cylinder_on_its_end_rests_on_rim_points)
{
    /* upright (local +x down), 2 mm into the ground: 4 points, all on the rim
     * of the bottom cap, spanning it (each pair at least r apart), distinct ids */
    float ground[3] = {10.0f, 10.0f, 1.0f}, cyl[3] = {1.0f, 0.8f, 0.8f};
    for (int k = 0; k < 4; ++k) {
        tp_quat up = tp_q_mul(axis_angle(0, 0, 1, 0.5 * k), axis_angle(0, 1, 0, PI_D / 2.0));
        tp_vec3 pos = tp_v3(1.0f, 2.0f, 0.5f - 0.002f);
        tp_manifold m;
        int n = collide(TP_SHAPE_BOX, ground, tp_v3(0, 0, -0.5f), ID, TP_SHAPE_CYLINDER, cyl, pos, up, &m);
        cr_assert_eq(n, 4);
        assert_vec(m.normal, tp_v3(0, 0, 1), NRM_TOL, "normal");
        assert_unique_features(&m, "upright cylinder");
        for (int i = 0; i < n; ++i) {
            cr_assert_float_eq(m.separation[i], -0.002f, POS_TOL);
            cr_assert_float_eq(m.local_b[i].x, 0.5f, POS_TOL);
            cr_assert_float_eq(sqrtf(m.local_b[i].y * m.local_b[i].y + m.local_b[i].z * m.local_b[i].z), 0.4f, POS_TOL);
            for (int j = 0; j < i; ++j)
                cr_assert(tp_len(tp_sub(m.local_b[i], m.local_b[j])) >= 0.4f, "points %d and %d bunched", i, j);
        }
    }
    /* standing over the ground's edge (centre 0.1 m inside it): only rim
     * points over the ground, the cut ones on the edge x = 5 */
    tp_quat up = axis_angle(0, 1, 0, PI_D / 2.0);
    tp_manifold m;
    int n = collide(TP_SHAPE_BOX, ground, tp_v3(0, 0, -0.5f), ID, TP_SHAPE_CYLINDER, cyl, tp_v3(4.9f, 0, 0.5f), up, &m);
    cr_assert(n >= 3 && n <= 4);
    for (int i = 0; i < n; ++i) {
        tp_vec3 w = point_b(&m, i, tp_v3(4.9f, 0, 0.5f), up);
        cr_assert(w.x <= 5.0f + POS_TOL, "point at x = %g beyond the ground", w.x);
        cr_assert_float_eq(m.separation[i], 0.0f, POS_TOL);
    }
}

Test(narrowphase, cylinder_and_ball_on_side_cap_and_rim)
{
    /* cylinder (A) length 1, radius 0.4 at the origin; ball radius 0.3 */
    float cyl[3] = {1.0f, 0.8f, 0.8f}, ball[3] = {0.6f, 0.6f, 0.6f};
    struct { tp_vec3 c, normal; float sep; tp_vec3 on_cyl; } cases[] = {
        {{0.2f, 0.0f, 0.69f}, {0, 0, 1}, -0.01f, {0.2f, 0.0f, 0.4f}},             /* on the side */
        {{-0.795f, 0.1f, -0.05f}, {-1, 0, 0}, -0.005f, {-0.5f, 0.1f, -0.05f}},    /* on the -x cap */
        {{0.5f + 0.12f, 0.0f, 0.4f + 0.16f}, {0.6f, 0, 0.8f}, -0.1f, {0.5f, 0, 0.4f}}, /* on the rim: 0.2 away */
        {{0.0f, 0.3f, 0.0f}, {0, 1, 0}, -0.4f, {0.0f, 0.4f, 0.0f}},               /* centre inside, side nearer */
        {{0.45f, 0.1f, 0.0f}, {1, 0, 0}, -0.35f, {0.5f, 0.1f, 0.0f}},             /* centre inside, cap nearer */
        {{0.0f, 0.0f, -0.715f}, {0, 0, -1}, 0.015f, {0.0f, 0.0f, -0.4f}},         /* 15 mm apart: speculative */
    };
    for (int k = 0; k < 6; ++k) {
        tp_manifold m;
        int n = collide(TP_SHAPE_CYLINDER, cyl, tp_v3(0, 0, 0), ID, TP_SHAPE_BALL, ball, cases[k].c, ID, &m);
        cr_assert_eq(n, 1, "case %d", k);
        assert_vec(m.normal, cases[k].normal, NRM_TOL, "cylinder-ball normal");
        cr_assert_float_eq(m.separation[0], cases[k].sep, POS_TOL, "case %d separation %g", k, m.separation[0]);
        assert_vec(m.local_a[0], cases[k].on_cyl, POS_TOL, "point on the cylinder");
        assert_vec(m.local_b[0], tp_scale(cases[k].normal, -0.3f), POS_TOL, "point on the ball");
    }
    tp_manifold m;
    cr_assert_eq(collide(TP_SHAPE_CYLINDER, cyl, tp_v3(0, 0, 0), ID, TP_SHAPE_BALL, ball, tp_v3(0.752f, 0, 0.736f), ID, &m), 0,
                 "ball 0.12 m off the rim");
}

Test(narrowphase, cylinder_and_box_edge_face_and_cap)
{
    float cyl[3] = {1.0f, 0.8f, 0.8f}, cube[3] = {0.4f, 0.4f, 0.4f};
    tp_manifold m;
    /* a cube turned 45 degrees about x lies with an edge along the top line of
     * the lying cylinder: 2 points at the cube's ends x = +-0.2, depth 4 mm */
    tp_quat q45 = axis_angle(1, 0, 0, PI_D / 4.0);
    float zc = 0.4f + 0.2f * sqrtf(2.0f) - 0.004f;
    int n = collide(TP_SHAPE_BOX, cube, tp_v3(0.1f, 0, zc), q45, TP_SHAPE_CYLINDER, cyl, tp_v3(0, 0, 0), ID, &m);
    cr_assert_eq(n, 2);
    assert_vec(m.normal, tp_v3(0, 0, -1), NRM_TOL, "normal from the cube down to the cylinder");
    for (int i = 0; i < 2; ++i) {
        cr_assert_float_eq(m.separation[i], -0.004f, POS_TOL);
        cr_assert_float_eq(m.local_b[i].z, 0.4f, POS_TOL);
        cr_assert_float_eq(fabsf(m.local_b[i].x - 0.1f), 0.2f, POS_TOL);
    }
    /* the cube's -y face pressed on the side of the cylinder yawed 5 degrees
     * by a: the cylinder's farthest line towards +y is its axis moved by r
     * along (-sin a, cos a, 0), y = x tan a + r / cos a; clipped to the face
     * at x = +-0.2; the face is at y = r - 6 mm */
    double yaw_a = 5.0 * PI_D / 180.0;
    tp_quat yaw = axis_angle(0, 0, 1, yaw_a);
    n = collide(TP_SHAPE_BOX, cube, tp_v3(0, 0.4f + 0.2f - 0.006f, 0), ID, TP_SHAPE_CYLINDER, cyl, tp_v3(0, 0, 0), yaw, &m);
    cr_assert_eq(n, 2);
    assert_vec(m.normal, tp_v3(0, -1, 0), NRM_TOL, "normal from the cube to the cylinder");
    for (int i = 0; i < 2; ++i) {
        float x = m.local_a[i].x;
        cr_assert_float_eq(fabsf(x), 0.2f, POS_TOL);
        float y = (float)(x * tan(yaw_a) + 0.4 / cos(yaw_a));
        cr_assert_float_eq(m.separation[i], (0.4f - 0.006f) - y, POS_TOL, "at x = %g", x);
    }
    assert_unique_features(&m, "cube on a yawed cylinder");
    /* upright cylinder, the cube resting on its top cap: the cube's 4 bottom
     * corners (they lie within the cap's rim: 0.28 < 0.4) */
    tp_quat up = axis_angle(0, 1, 0, PI_D / 2.0); /* local -x up */
    n = collide(TP_SHAPE_BOX, cube, tp_v3(0.05f, 0, 0.5f + 0.2f - 0.001f), ID, TP_SHAPE_CYLINDER, cyl, tp_v3(0, 0, 0), up, &m);
    cr_assert_eq(n, 4);
    assert_vec(m.normal, tp_v3(0, 0, -1), NRM_TOL, "normal");
    assert_unique_features(&m, "cube on cap");
    for (int i = 0; i < n; ++i) {
        cr_assert_float_eq(m.separation[i], -0.001f, POS_TOL);
        cr_assert_float_eq(fabsf(m.local_a[i].x), 0.2f, POS_TOL);
        cr_assert_float_eq(fabsf(m.local_a[i].y), 0.2f, POS_TOL);
        cr_assert_float_eq(m.local_a[i].z, -0.2f, POS_TOL);
    }
}

Test(narrowphase, cylinder_and_cylinder_parallel_crossed_stacked)
{
    float cyl[3] = {1.0f, 0.8f, 0.8f};
    tp_manifold m;
    /* parallel, side by side along y, B shifted 0.1 m along the axis, 6 mm
     * overlap: 2 points at the ends of the overlap x = -0.4 and +0.5 */
    int n = collide(TP_SHAPE_CYLINDER, cyl, tp_v3(0, 0, 0), ID, TP_SHAPE_CYLINDER, cyl, tp_v3(0.1f, 0.8f - 0.006f, 0), ID, &m);
    cr_assert_eq(n, 2);
    assert_vec(m.normal, tp_v3(0, 1, 0), NRM_TOL, "parallel normal");
    float x0 = fminf(m.local_a[0].x, m.local_a[1].x), x1 = fmaxf(m.local_a[0].x, m.local_a[1].x);
    cr_assert_float_eq(x0, -0.4f, POS_TOL);
    cr_assert_float_eq(x1, 0.5f, POS_TOL);
    for (int i = 0; i < 2; ++i) {
        cr_assert_float_eq(m.separation[i], -0.006f, POS_TOL);
        cr_assert_float_eq(m.local_a[i].y, 0.4f, POS_TOL);
    }
    assert_unique_features(&m, "parallel cylinders");
    /* crossed: B along y lying on A, 5 mm deep: one point at the top of A */
    tp_quat cross = axis_angle(0, 0, 1, PI_D / 2.0);
    n = collide(TP_SHAPE_CYLINDER, cyl, tp_v3(0, 0, 0), ID, TP_SHAPE_CYLINDER, cyl, tp_v3(0.1f, 0.05f, 0.8f - 0.005f), cross, &m);
    cr_assert_eq(n, 1);
    assert_vec(m.normal, tp_v3(0, 0, 1), NRM_TOL, "crossed normal");
    cr_assert_float_eq(m.separation[0], -0.005f, POS_TOL);
    assert_vec(m.local_a[0], tp_v3(0.1f, 0.0f, 0.4f), POS_TOL, "point on A");
    /* stacked upright and coaxial, 2 mm deep: 4 points on B's bottom rim */
    tp_quat up = axis_angle(0, 1, 0, PI_D / 2.0);
    n = collide(TP_SHAPE_CYLINDER, cyl, tp_v3(0, 0, 0), up, TP_SHAPE_CYLINDER, cyl, tp_v3(0, 0, 1.0f - 0.002f), up, &m);
    cr_assert_eq(n, 4);
    assert_vec(m.normal, tp_v3(0, 0, 1), NRM_TOL, "stacked normal");
    assert_unique_features(&m, "stacked cylinders");
    for (int i = 0; i < 4; ++i) {
        cr_assert_float_eq(m.separation[i], -0.002f, POS_TOL);
        cr_assert_float_eq(m.local_b[i].x, 0.5f, POS_TOL); /* B's local +x points down */
    }
    /* B lying across A's top cap (A upright): B's bottom line clipped by the
     * rim circle, 2 points at x = +-0.4, 1 mm deep */
    n = collide(TP_SHAPE_CYLINDER, cyl, tp_v3(0, 0, 0), up, TP_SHAPE_CYLINDER, cyl, tp_v3(0, 0, 0.5f + 0.4f - 0.001f), ID, &m);
    cr_assert_eq(n, 2);
    assert_vec(m.normal, tp_v3(0, 0, 1), NRM_TOL, "across a cap");
    for (int i = 0; i < 2; ++i) {
        cr_assert_float_eq(m.separation[i], -0.001f, POS_TOL);
        cr_assert_float_eq(fabsf(m.local_b[i].x), 0.4f, POS_TOL);
        cr_assert_float_eq(m.local_b[i].z, -0.4f, POS_TOL);
    }
    assert_unique_features(&m, "across a cap");
}

Test(narrowphase, box_on_corner_wedge_apex_touches_one_point)
{
    float cw[3] = {1.0f, 2.0f, 1.5f}, cube[3] = {1.0f, 1.0f, 1.0f};
    tp_manifold m;
    int n = collide(TP_SHAPE_CORNER_WEDGE, cw, tp_v3(0, 0, 0), ID, TP_SHAPE_BOX, cube, tp_v3(0.5f, 1.0f, 1.24f), ID, &m);
    cr_assert_eq(n, 1);
    assert_vec(m.normal, tp_v3(0, 0, 1), NRM_TOL, "normal");
    cr_assert_float_eq(m.separation[0], -0.01f, POS_TOL);
    assert_vec(m.local_a[0], tp_v3(0.5f, 1.0f, 0.75f), POS_TOL, "apex");
}

/* ------------------------------------------------------------ every pair */

typedef struct stack_shape {
    int shape;
    float size[3];
    float top;        /* highest z of the shape, identity pose */
    float bottom;     /* lowest z (negative) */
    float top_x, top_y; /* where the highest point is */
} stack_shape;

static const char *const NAMES[6] = {"box", "ball", "cylinder", "capsule", "wedge", "corner_wedge"};

static const stack_shape STACK[6] = {
    {TP_SHAPE_BOX, {1, 1, 1}, 0.5f, -0.5f, 0.0f, 0.0f},
    {TP_SHAPE_BALL, {1, 1, 1}, 0.5f, -0.5f, 0.0f, 0.0f},
    {TP_SHAPE_CYLINDER, {1, 1, 1}, 0.5f, -0.5f, 0.0f, 0.0f},
    {TP_SHAPE_CAPSULE, {2, 1, 1}, 0.5f, -0.5f, 0.0f, 0.0f},
    {TP_SHAPE_WEDGE, {1, 1, 1}, 0.5f, -0.5f, 0.0f, -0.5f},      /* the top edge of the back face */
    {TP_SHAPE_CORNER_WEDGE, {1, 1, 1}, 0.5f, -0.5f, 0.5f, 0.5f} /* the apex */
};

/* Shape `up` stacked on shape `lo`, its lowest point `gap` above lo's highest,
 * the whole scene turned by rot. The lower shape is body A when lower_is_a. */
static void check_stack(int lo, int up, float gap, tp_quat rot, int lower_is_a)
{
    const stack_shape *l = &STACK[lo], *u = &STACK[up];
    tp_vec3 pl = tp_v3(0, 0, 0), pu = tp_v3(l->top_x, l->top_y, l->top - u->bottom + gap);
    tp_vec3 wl = tp_q_rotate(rot, pl), wu = tp_q_rotate(rot, pu);
    tp_quat ql = rot, qu = rot;
    tp_manifold m;
    int n = lower_is_a ? collide(l->shape, l->size, wl, ql, u->shape, u->size, wu, qu, &m)
                       : collide(u->shape, u->size, wu, qu, l->shape, l->size, wl, ql, &m);
    char what[96];
    snprintf(what, sizeof what, "%s on %s, gap %g, lower is %s", NAMES[u->shape], NAMES[l->shape], (double)gap, lower_is_a ? "A" : "B");
    if (gap > TP_CONTACT_MARGIN) {
        cr_assert_eq(n, 0, "%s: %d points beyond the margin", what, n);
        return;
    }
    cr_assert(n >= 1 && n <= 4, "%s: %d points", what, n);
    tp_vec3 up_dir = tp_q_rotate(rot, tp_v3(0, 0, 1));
    assert_vec(m.normal, lower_is_a ? up_dir : tp_neg(up_dir), NRM_TOL, what);
    assert_unique_features(&m, what);
    for (int i = 0; i < n; ++i) {
        cr_assert(fabsf(m.separation[i] - gap) <= POS_TOL, "%s: separation %g", what, m.separation[i]);
        tp_vec3 on_lo = lower_is_a ? m.local_a[i] : m.local_b[i];
        tp_vec3 on_up = lower_is_a ? m.local_b[i] : m.local_a[i];
        /* both points in the lower shape's (unrotated) frame */
        tp_vec3 up_in_lo = tp_add(tp_sub(pu, pl), on_up);
        cr_assert(fabsf(on_lo.z - l->top) <= POS_TOL, "%s: point on lower at z %g", what, on_lo.z);
        cr_assert(fabsf(up_in_lo.z - (l->top + gap)) <= POS_TOL, "%s: point on upper at z %g", what, up_in_lo.z);
        cr_assert(fabsf(up_in_lo.x - on_lo.x) <= POS_TOL && fabsf(up_in_lo.y - on_lo.y) <= POS_TOL,
                  "%s: points not aligned with the normal", what);
    }
}

Test(narrowphase, every_pair_touching_separated_penetrating_and_rotated)
{
    const float gaps[4] = {0.0f, 0.01f, -0.01f, 0.05f};
    tp_quat rots[3] = {ID, axis_angle(0.3f, -0.5f, 0.8f, 0.9), axis_angle(-0.7f, 0.2f, 0.1f, 2.4)};
    for (int lo = 0; lo < 6; ++lo)
        for (int up = 0; up < 6; ++up)
            for (int g = 0; g < 4; ++g)
                for (int r = 0; r < 3; ++r)
                    for (int order = 0; order < 2; ++order) check_stack(lo, up, gaps[g], rots[r], order);
}

/* ------------------------------------------------------------ feature ids */

Test(narrowphase, feature_ids_stay_equal_while_a_box_slides_across_another)
{
    float big[3] = {4.0f, 4.0f, 1.0f}, small[3] = {0.6f, 0.4f, 0.3f};
    tp_quat yaw = axis_angle(0, 0, 1, 0.2);
    tp_manifold first, m;
    for (int step = 0; step < 100; ++step) {
        /* 1 mm per step in x and 0.5 mm in y, sinking and rising by < 1 mm */
        tp_vec3 p = tp_v3(-0.05f + 0.001f * step, 0.02f + 0.0005f * step, 0.65f - 0.0008f * (float)(step % 3));
        int n = collide(TP_SHAPE_BOX, big, tp_v3(0, 0, 0), ID, TP_SHAPE_BOX, small, p, yaw, &m);
        cr_assert_eq(n, 4, "step %d: %d points", step, n);
        if (step == 0) {
            first = m;
            continue;
        }
        for (int i = 0; i < n; ++i) {
            cr_assert_eq(m.feature[i], first.feature[i], "step %d point %d: feature %x, was %x", step, i, m.feature[i],
                         first.feature[i]);
            assert_vec(m.local_b[i], first.local_b[i], POS_TOL, "the same corner");
        }
    }
}

Test(narrowphase, feature_swap_is_an_involution_and_maps_kinds)
{
    uint32_t f = tp_feat_edges(5, 9);
    cr_assert_eq(tp_feature_swap(f), tp_feat_edges(9, 5));
    cr_assert_eq(tp_feature_swap(tp_feature_swap(f)), f);
    uint32_t c = tp_feat_clip(TP_FEAT_CLIP_FIRST, TP_CLIP_EDGE, 7, 3);
    cr_assert_eq(tp_feature_swap(c), tp_feat_clip(TP_FEAT_CLIP_SECOND, TP_CLIP_EDGE, 7, 3));
    cr_assert_eq(tp_feature_swap(tp_feat_round(TP_ROUND_SEGMENTS, 1)), tp_feat_round(TP_ROUND_SEGMENTS, 3));
    cr_assert(tp_feat_edges(47, 47) < (1u << 17) && tp_feat_round(5, 0xFFF) < (1u << 17));
}

/* ------------------------------------------------------------ cylinder pairs against brute force */

/* Deterministic pseudo-random numbers (64-bit LCG, Knuth MMIX) in [0, 1). */
static double rnd_unit(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

/* Rotation by an angle up to max_angle about a random axis. */
static tp_quat rnd_quat(uint64_t *st, double max_angle)
{
    double x = rnd_unit(st) - 0.5, y = rnd_unit(st) - 0.5, z = rnd_unit(st) - 0.5;
    return axis_angle((float)x, (float)y, (float)z, max_angle * rnd_unit(st));
}

/* Support value max over the shape of dot(u, x) (world), from the support
 * functions of collide_support.h plus the shape's radius. */
static double support_value(int shape, const float *size, tp_vec3 pos, tp_quat q, tp_vec3 u)
{
    tp_poly poly;
    tp_cyl_shape s;
    tp_xform xf = {q, pos};
    tp_cyl_shape_init(&s, shape, size, xf, NULL, &poly);
    tp_vec3 x = tp_core_support(&s.core, u);
    return (double)tp_dot(x, u) + (double)s.radius;
}

/* Signed distance of two convex shapes as the largest separation over all
 * directions u (for convex sets it is the distance when apart and minus the
 * least penetration depth when they overlap): the face and axis directions of
 * both shapes, the caller's guess in *best_u, 3000 random directions, then a
 * shrinking random search from the best. Any direction's separation is a
 * lower bound, so a guess can only make it more accurate. */
static double brute_signed_distance(int sa, const float *za, tp_vec3 pa, tp_quat qa, int sb, const float *zb,
                                    tp_vec3 pb, tp_quat qb, uint64_t *st, tp_vec3 *best_u)
{
    double best = -1e30;
    tp_vec3 cand[13];
    cand[12] = *best_u; /* the caller's guess */
    for (int k = 0; k < 3; ++k) {
        tp_vec3 e = tp_v3(k == 0, k == 1, k == 2);
        cand[2 * k] = tp_q_rotate(qa, e);
        cand[2 * k + 1] = tp_q_rotate(qb, e);
        cand[6 + 2 * k] = tp_neg(cand[2 * k]);
        cand[7 + 2 * k] = tp_neg(cand[2 * k + 1]);
    }
    tp_poly p;
    int nf = tp_poly_build(&p, sb, zb) ? p.nf : 0;
    for (int i = 0; i < 13 + nf + 3000 + 600; ++i) {
        tp_vec3 u;
        if (i < 13) u = cand[i];
        else if (i < 13 + nf) u = tp_neg(tp_q_rotate(qb, p.f[i - 13].n));
        else {
            double step = i < 13 + nf + 3000 ? 2.0 : 0.05 * pow(0.5, (i - 13 - nf - 3000) / 60);
            tp_vec3 base = i < 13 + nf + 3000 ? tp_v3(0, 0, 0) : *best_u;
            tp_vec3 r;
            do {
                r = tp_v3((float)(rnd_unit(st) * 2 - 1), (float)(rnd_unit(st) * 2 - 1), (float)(rnd_unit(st) * 2 - 1));
            } while (tp_len_sq(r) > 1.0f || tp_len_sq(r) < 1e-4f);
            u = tp_normalize_or(tp_add(base, tp_scale(r, (float)step)), *best_u);
        }
        double s = -support_value(sb, zb, pb, qb, tp_neg(u)) - support_value(sa, za, pa, qa, u);
        if (s > best) { best = s; *best_u = u; }
    }
    return best;
}

Test(narrowphase, cylinder_pairs_at_random_poses_match_a_brute_force_distance)
{
    /* A cylinder against every shape at random sizes and poses, resting-
     * contact range (from 1 cm of penetration to the margin): the deepest
     * point's separation matches the brute-force signed distance within
     * 1 mm + 10 % (MPR's penetration is taken along the centres' ray, not the
     * least one; cylinder caps touch through 16 rim points; a face clipped
     * near its edge reports the face's separation), separated pairs get the
     * closest direction or one as good to 1 mm, every point is consistent
     * with the normal, and a pair within the margin is never missed. */
    uint64_t st = 11;
    int done = 0, tries = 0;
    while (done < 240) {
        cr_assert_lt(++tries, 20000);
        int sb = (int)(rnd_unit(&st) * 6.0) % 6;
        float za[3] = {0.3f + (float)rnd_unit(&st), 0.3f + (float)rnd_unit(&st), 0};
        za[2] = za[1];
        float zb[3] = {0.3f + (float)rnd_unit(&st), 0.3f + (float)rnd_unit(&st), 0.3f + (float)rnd_unit(&st)};
        if (sb == TP_SHAPE_CAPSULE) zb[0] = fmaxf(zb[0], fminf(zb[1], zb[2]) + 0.1f);
        tp_quat qa = rnd_quat(&st, 3.2), qb = rnd_quat(&st, 3.2);
        if (rnd_unit(&st) < 0.3) qa = ID;
        if (rnd_unit(&st) < 0.3) qb = ID;
        tp_vec3 dir = tp_normalize_or(tp_v3((float)rnd_unit(&st) - 0.5f, (float)rnd_unit(&st) - 0.5f,
                                            (float)rnd_unit(&st) - 0.5f), tp_v3(0, 0, 1));
        tp_vec3 pa = tp_v3(0.3f, -0.2f, 0.1f), pb = tp_add(pa, tp_scale(dir, 0.2f + 1.2f * (float)rnd_unit(&st)));
        tp_manifold m;
        int n = collide(TP_SHAPE_CYLINDER, za, pa, qa, sb, zb, pb, qb, &m);
        tp_vec3 u = n > 0 ? m.normal : dir;
        double sd = brute_signed_distance(TP_SHAPE_CYLINDER, za, pa, qa, sb, zb, pb, qb, &st, &u);
        if (sd > 0.03 || sd < -0.01) continue;
        done++;
        char what[64];
        snprintf(what, sizeof what, "case %d (cylinder-%s, distance %.5f)", done, NAMES[sb], sd);
        if (sd <= TP_CONTACT_MARGIN - 1e-3) cr_assert(n >= 1, "%s: no points", what);
        if (n == 0) continue;
        float lowest = 1e9f;
        for (int i = 0; i < n; ++i) {
            lowest = fminf(lowest, m.separation[i]);
            tp_vec3 wa = world_point(pa, qa, m.local_a[i]), wb = world_point(pb, qb, m.local_b[i]);
            cr_assert(fabsf(tp_dot(tp_sub(wb, wa), m.normal) - m.separation[i]) <= 1e-4f, "%s: point %d", what, i);
        }
        cr_assert_float_eq(tp_len(m.normal), 1.0f, 1e-5f);
        cr_assert(fabs(lowest - sd) <= 1e-3 + 0.1 * fabs(sd), "%s: deepest separation %g", what, lowest);
        /* apart: the normal is the closest direction, or one whose
         * separation is as good (a face normal near the face's edge) */
        if (sd > 1e-3) cr_assert(tp_dot(m.normal, u) >= 0.999f || fabs(lowest - sd) <= 1e-3,
                              "%s: %d points (feature %x), normal (%g %g %g), brute force (%g %g %g), deepest %g", what, n, m.feature[0], m.normal.x,
                              m.normal.y, m.normal.z, u.x, u.y, u.z, lowest);
    }
}

/* The collide stage reads polytopes built once per batch (tp_world.polys);
 * tp_collide_shapes builds them per call. The manifold must be the same bits
 * either way: the narrowphase may not write to a polytope it was handed, nor
 * read anything tp_poly_build leaves unset. Polyhedron pairs at random
 * poses, touching, apart and overlapping, including aligned ones. */
Test(narrowphase, prebuilt_polytopes_give_the_bits_of_per_pair_ones)
{
    const int poly[3] = {TP_SHAPE_BOX, TP_SHAPE_WEDGE, TP_SHAPE_CORNER_WEDGE};
    uint64_t st = 0x2545F4914F6CDD1Dull;
    int touching = 0;
    for (int k = 0; k < 3000; ++k) {
        int sa = poly[k % 3], sb = poly[(k / 3) % 3];
        float za[3], zb[3];
        for (int i = 0; i < 3; ++i) za[i] = 0.3f + (float)rnd_unit(&st), zb[i] = 0.3f + (float)rnd_unit(&st);
        tp_quat qa = rnd_quat(&st, PI_D), qb = rnd_quat(&st, PI_D);
        if (k % 4 == 0) qa = ID, qb = axis_angle(0, 0, 1, 0.01 * rnd_unit(&st));
        tp_vec3 pa = tp_v3((float)rnd_unit(&st), (float)rnd_unit(&st), (float)rnd_unit(&st));
        tp_vec3 d = tp_v3((float)rnd_unit(&st) - 0.5f, (float)rnd_unit(&st) - 0.5f, (float)rnd_unit(&st) - 0.5f);
        tp_vec3 pb = tp_add(pa, tp_scale(d, 2.5f));
        if (k % 4 == 0) pb = tp_add(pa, tp_v3(0.1f * d.x, 0.1f * d.y, 0.5f * (za[2] + zb[2]) - 0.002f));
        tp_poly A, B;
        memset(&A, 0, sizeof A);
        memset(&B, 0, sizeof B);
        tp_poly_build(&A, sa, za);
        tp_poly_build(&B, sb, zb);
        tp_poly A0 = A, B0 = B;
        tp_manifold m1, m2;
        memset(&m1, 0, sizeof m1);
        memset(&m2, 0, sizeof m2);
        int n1 = tp_collide_shapes(sa, za, pa, qa, sb, zb, pb, qb, TP_CONTACT_MARGIN, &m1);
        int n2 = tp_collide_shapes_polys(sa, za, &A, pa, qa, sb, zb, &B, pb, qb, TP_CONTACT_MARGIN, &m2);
        cr_assert(memcmp(&A, &A0, sizeof A) == 0 && memcmp(&B, &B0, sizeof B) == 0, "case %d: polytope written", k);
        cr_assert_eq(n1, n2, "case %d: %d points per pair, %d prebuilt", k, n1, n2);
        cr_assert(memcmp(&m1, &m2, sizeof m1) == 0, "case %d (%s-%s): manifolds differ", k, NAMES[sa], NAMES[sb]);
        touching += n1 > 0;
    }
    cr_assert(touching > 500 && touching < 2900, "%d of 3000 cases touch: the poses miss the interesting range",
              touching);
}

/* tp_capsule_clear_of_box lets the narrowphase skip a capsule that a box face
 * plane keeps beyond the margin. Wherever it says so, the full test must find
 * no point: capsules of random sizes and poses around boxes from 1 cm to
 * 40 m (a ground), far from the origin too, many within a millimetre of the
 * margin, where the skip's slack decides. */
Test(narrowphase, capsule_clear_of_a_box_only_where_the_full_test_finds_no_point)
{
    uint64_t st = 0x9E3779B97F4A7C15ull;
    int skipped = 0, near_margin = 0;
    for (int k = 0; k < 20000; ++k) {
        float size = k % 3 == 0 ? 40.0f : k % 3 == 1 ? 1.0f : 0.01f, z[3], cap[3];
        for (int i = 0; i < 3; ++i) z[i] = size * (0.2f + (float)rnd_unit(&st));
        cap[0] = 0.01f + 0.5f * (float)rnd_unit(&st), cap[1] = cap[2] = 0.5f * cap[0] * (float)rnd_unit(&st);
        tp_poly box;
        memset(&box, 0, sizeof box);
        tp_poly_build(&box, TP_SHAPE_BOX, z);
        float r = tp_shape_radius(TP_SHAPE_CAPSULE, cap), h = tp_capsule_half_core(cap);
        /* the capsule's centre at a gap of about the margin above a random face */
        tp_vec3 u = tp_v3((float)rnd_unit(&st) - 0.5f, (float)rnd_unit(&st) - 0.5f, (float)rnd_unit(&st) - 0.5f);
        tp_vec3 c = tp_v3(u.x * z[0], u.y * z[1], u.z * z[2]);
        int axis = (int)(3.0 * rnd_unit(&st)) % 3;
        float gap = TP_CONTACT_MARGIN + 0.002f * ((float)rnd_unit(&st) - 0.5f);
        if (k % 5 == 0) gap = 0.2f * (float)rnd_unit(&st) - 0.05f;
        float *ca = axis == 0 ? &c.x : axis == 1 ? &c.y : &c.z;
        *ca = 0.5f * z[axis] + gap + r + h * (float)rnd_unit(&st);
        tp_quat q = rnd_quat(&st, PI_D);
        if (k % 4 == 0) q = axis_angle(0, 1, 0, 0.5 * PI_D + 0.02 * (rnd_unit(&st) - 0.5));
        tp_vec3 off = tp_q_rotate(q, tp_v3(h, 0.0f, 0.0f));
        tp_vec3 e0 = tp_sub(c, off), e1 = tp_add(c, off);
        if (k % 7 == 0) e0 = tp_add(e0, tp_v3(1000.0f, 0.0f, 0.0f)), e1 = tp_add(e1, tp_v3(1000.0f, 0.0f, 0.0f));
        float margin = TP_CONTACT_MARGIN + (k % 2 ? 0.0f : 0.01f * (float)rnd_unit(&st));
        tp_pair_manifold m;
        int n = tp_collide_poly_capsule(&box, e0, e1, r, margin, &m);
        if (tp_capsule_clear_of_box(&box, e0, e1, r, margin)) {
            cr_assert_eq(n, 0, "case %d: skipped, but the full test finds %d points", k, n);
            ++skipped;
        }
        near_margin += n == 0 && !tp_capsule_clear_of_box(&box, e0, e1, r, margin);
    }
    cr_assert(skipped > 5000 && near_margin > 100, "skipped %d, not skipped without points %d", skipped, near_margin);
}

/* Non-finite capsule ends are never skipped: the full test decides what they give. */
Test(narrowphase, capsule_clear_of_a_box_never_for_non_finite_ends)
{
    float z[3] = {1.0f, 1.0f, 1.0f};
    tp_poly box;
    memset(&box, 0, sizeof box);
    tp_poly_build(&box, TP_SHAPE_BOX, z);
    tp_vec3 far = tp_v3(0.0f, 0.0f, 5.0f);
    cr_assert(tp_capsule_clear_of_box(&box, far, tp_v3(1.0f, 0.0f, 5.0f), 0.1f, TP_CONTACT_MARGIN));
    cr_assert(!tp_capsule_clear_of_box(&box, far, tp_v3(INFINITY, 0.0f, 5.0f), 0.1f, TP_CONTACT_MARGIN));
    cr_assert(!tp_capsule_clear_of_box(&box, far, tp_v3(NAN, 0.0f, 5.0f), 0.1f, TP_CONTACT_MARGIN));
    cr_assert(!tp_capsule_clear_of_box(&box, far, tp_v3(1.0f, 0.0f, 5.0f), NAN, TP_CONTACT_MARGIN));
    cr_assert(!tp_capsule_clear_of_box(&box, far, tp_v3(1.0f, 0.0f, 5.0f), 0.1f, NAN));
    cr_assert(!tp_capsule_clear_of_box(&box, far, tp_v3(1.0f, 0.0f, 5.0f), 0.1f, INFINITY));
    cr_assert(!tp_capsule_clear_of_box(&box, tp_v3(0.0f, 0.0f, 1e16f), tp_v3(1.0f, 0.0f, 1e16f), 0.1f, TP_CONTACT_MARGIN));
}
