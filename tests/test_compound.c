/* test_compound.c - bodies of several shapes (tp_body_def.shapes; kernels/compound.h,
 * csrc/body_shapes.c): mass properties against values derived by hand, resting
 * and tipping against statics, feature ids, scene keys and their errors, and
 * determinism. */
#include "helpers.h"

#include <math.h>
#include <stdio.h>

#define G 9.81f

static tp_shape_def shape_box(float sx, float sy, float sz, float x, float y, float z)
{
    tp_shape_def s = tp_default_shape_def();
    s.size[0] = sx;
    s.size[1] = sy;
    s.size[2] = sz;
    s.pos[0] = x;
    s.pos[1] = y;
    s.pos[2] = z;
    return s;
}

static void expect_near(double got, double want, double rel, const char *what)
{
    cr_assert(fabs(got - want) <= rel * fabs(want) + 1e-9, "%s: got %.9g, want %.9g", what, got, want);
}

/* A static ground (top face z = 0) and one compound body, sleep off. */
static tp_model *ground_and(const tp_body_def *body)
{
    tp_model_def md = tp_default_model_def();
    md.sleep.enabled = 0;
    tp_builder *b = builder_begin(&md);
    tp_body_def g = tp_default_body_def();
    g.type = TP_BODY_STATIC;
    g.size[0] = g.size[1] = 20.0f;
    g.pos[2] = -0.5f;
    builder_add(b, &g);
    builder_add(b, body);
    return builder_finish(b);
}

/* Two unit-density-1000 boxes in an L: a foot [2, 1, 1] at the origin and a post
 * [1, 1, 2] on its +x end, (0.5, 0, 1.5). Each is 2000 kg. By hand: the centre
 * of mass is (0.25, 0, 0.75); each box's offset from it is d = -/+(0.25, 0, 0.75),
 * |d|^2 = 0.625; own moments (m/12)(b^2 + c^2): foot 333.33, 833.33, 833.33,
 * post 833.33, 833.33, 333.33; so
 *   Ixx = 1166.67 + 2 x 2000 (0.625 - 0.0625) = 3416.67
 *   Iyy = 1666.67 + 2 x 2000 x 0.625           = 4166.67
 *   Izz = 1166.67 + 2 x 2000 (0.625 - 0.5625)  = 1416.67
 *   Ixz = -sum m dx dz = -2 x 2000 x 0.1875     = -750 (tensor entry), Ixy = Iyz = 0.
 * The post is also given as a [2, 1, 1] box turned 90 degrees about y, which
 * must give the same numbers. */
static void check_l_inertia(int turned)
{
    tp_shape_def s[2] = {shape_box(2, 1, 1, 0, 0, 0), shape_box(1, 1, 2, 0.5f, 0, 1.5f)};
    if (turned) {
        s[1] = shape_box(2, 1, 1, 0.5f, 0, 1.5f);
        s[1].quat[1] = sinf(0.25f * 3.14159265f);
        s[1].quat[3] = cosf(0.25f * 3.14159265f);
    }
    tp_body_def bd = tp_default_body_def();
    bd.shapes = s;
    bd.shape_count = 2;
    tp_model_def md = tp_default_model_def();
    tp_builder *b = builder_begin(&md);
    builder_add(b, &bd);
    tp_model *m = builder_finish(b);
    float mass = 0.0f, diag[3];
    cr_assert_eq(tp_model_body_mass(m, 0, &mass, diag), TP_OK);
    expect_near(mass, 4000.0, 1e-6, "mass");
    expect_near(diag[0], 3416.6667, 2e-6, "Ixx");
    expect_near(diag[1], 4166.6667, 2e-6, "Iyy");
    expect_near(diag[2], 1416.6667, 2e-6, "Izz");
    float full[6], com[3];
    cr_assert_eq(tp_model_body_inertia(m, 0, com, full), TP_OK, "%s", tp_last_error());
    expect_near(com[0], 0.25, 1e-6, "com x");
    cr_assert(fabsf(com[1]) < 1e-7f);
    expect_near(com[2], 0.75, 1e-6, "com z");
    expect_near(full[4], -750.0, 2e-6, "Ixz");
    cr_assert(fabsf(full[3]) < 1e-3f && fabsf(full[5]) < 1e-3f, "Ixy %g Iyz %g", full[3], full[5]);
    tp_model_destroy(m);
}

Test(compound, l_shape_inertia_by_hand) { check_l_inertia(0); }
Test(compound, turned_shape_gives_the_same_inertia) { check_l_inertia(1); }

/* Two boxes side by side that fill a [3, 1, 1] bar are that bar: mass 3000,
 * centre at the bar's centre, Iyy = Izz = 3000 (9 + 1) / 12 = 2500, Ixx = 500.
 * Independent of the parallel-axis sum: the single-box formula. `mass` rescales. */
Test(compound, two_boxes_make_a_bar)
{
    tp_shape_def s[2] = {shape_box(2, 1, 1, 0, 0, 0), shape_box(1, 1, 1, 1.5f, 0, 0)};
    tp_body_def bd = tp_default_body_def();
    bd.shapes = s;
    bd.shape_count = 2;
    tp_model_def md = tp_default_model_def();
    tp_builder *b = builder_begin(&md);
    builder_add(b, &bd);
    bd.mass = 3.0f; /* 1 kg per m^3 */
    builder_add(b, &bd);
    tp_model *m = builder_finish(b);
    float mass, d[3], com[3], full[6];
    tp_model_body_mass(m, 0, &mass, d);
    tp_model_body_inertia(m, 0, com, full);
    expect_near(mass, 3000.0, 1e-6, "mass");
    expect_near(com[0], 0.5, 1e-6, "com x");
    expect_near(d[0], 500.0, 2e-6, "Ixx");
    expect_near(d[1], 2500.0, 2e-6, "Iyy");
    expect_near(d[2], 2500.0, 2e-6, "Izz");
    tp_model_body_mass(m, 1, &mass, d);
    expect_near(mass, 3.0, 1e-6, "given mass");
    expect_near(d[1], 2.5, 2e-6, "Iyy at the given mass");
    tp_model_destroy(m);
}

/* The L of check_l_inertia standing on its foot: its centre of mass (x 0.25)
 * is over the foot ([-1, 1] in x), so it rests with the foot's bottom on the
 * ground: origin at z = 0.5 within the solver's slop, not turned. */
Test(compound, l_shape_rests_at_the_right_height)
{
    tp_shape_def s[2] = {shape_box(2, 1, 1, 0, 0, 0), shape_box(1, 1, 2, 0.5f, 0, 1.5f)};
    tp_body_def bd = tp_default_body_def();
    bd.shapes = s;
    bd.shape_count = 2;
    bd.pos[2] = 0.5f;
    tp_model *m = ground_and(&bd);
    tp_batch *bt = make_batch(m, 1, 1);
    batch_steps(bt, 180);
    tp_state_view v = batch_view(bt);
    const float *p = v.pos + 3, *q = v.quat + 4;
    cr_assert(fabsf(p[2] - 0.5f) < 0.002f, "origin at z %.5f, want 0.5 (foot on the ground)", p[2]);
    cr_assert(fabsf(p[0]) < 1e-3f && fabsf(p[1]) < 1e-3f, "slid to (%g, %g)", p[0], p[1]);
    cr_assert(fabsf(q[3]) > 0.99999f, "turned: quat (%g %g %g %g)", q[0], q[1], q[2], q[3]);
    cr_assert(fabsf(v.v[5]) < 1e-3f, "still moving: vz %g", v.v[5]);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* A post [1, 1, 3] standing on the ground with an arm [L, 1, 1] at its top
 * reaching out along +x from the post's face: the centre of mass is at
 * x = m_arm (0.5 + L/2) / (m_post + m_arm). Arm 1 m: x = 1000 / 4000 = 0.25,
 * inside the post's foot ([-0.5, 0.5]): it stands. Arm 2 m: x = 2000 x 1.5 /
 * 5000 = 0.6, outside: it tips over towards +x. */
static float tilt_after(float arm, int steps)
{
    tp_shape_def s[2] = {shape_box(1, 1, 3, 0, 0, 0), shape_box(arm, 1, 1, 0.5f + 0.5f * arm, 0, 1.0f)};
    tp_body_def bd = tp_default_body_def();
    bd.shapes = s;
    bd.shape_count = 2;
    bd.pos[2] = 1.5f;
    tp_model *m = ground_and(&bd);
    tp_batch *bt = make_batch(m, 1, 1);
    batch_steps(bt, steps);
    tp_state_view v = batch_view(bt);
    const float *q = v.quat + 4;
    /* angle of the post's axis from vertical, and its direction: tipping towards +x turns about +y */
    float up_z = 1.0f - 2.0f * (q[0] * q[0] + q[1] * q[1]);
    float tilt = acosf(fminf(1.0f, fmaxf(-1.0f, up_z)));
    float up_x = 2.0f * (q[0] * q[2] + q[3] * q[1]);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
    return up_x >= 0.0f ? tilt : -tilt;
}

Test(compound, stands_when_centre_of_mass_is_over_the_support)
{
    float t = tilt_after(1.0f, 180);
    cr_assert(fabsf(t) < 0.01f, "tilted %.4f rad", t);
}

/* Tipping about the foot's +x edge (0.5, 0) until the arm's far bottom corner,
 * (2.5, 2) from the ground's origin, i.e. (2, 2) from the edge, meets the
 * ground: at 45 degrees, where it rests on edge and corner. */
Test(compound, tips_when_centre_of_mass_is_not)
{
    float t = tilt_after(2.0f, 180);
    cr_assert(fabsf(t - 0.785398f) < 0.01f, "tilt towards +x %.4f rad after 3 s, want pi/4 (resting on the arm)", t);
}

/* Contact keys of a compound pair are unique and keep their ids step to step
 * while resting: the L on the ground has 2 x 4 points (foot) ... here the foot
 * and the arm's underside do not touch the ground, so the foot's 4 points. A
 * compound resting on a compound: every key of the world distinct. */
Test(compound, keys_unique_and_stable)
{
    tp_shape_def s[2] = {shape_box(1, 1, 1, -0.6f, 0, 0), shape_box(1, 1, 1, 0.6f, 0, 0)};
    tp_model_def md = tp_default_model_def();
    md.sleep.enabled = 0;
    tp_builder *b = builder_begin(&md);
    tp_body_def g = tp_default_body_def();
    g.type = TP_BODY_STATIC;
    g.size[0] = g.size[1] = 20.0f;
    g.pos[2] = -0.5f;
    builder_add(b, &g);
    tp_body_def bd = tp_default_body_def();
    bd.shapes = s;
    bd.shape_count = 2;
    bd.pos[2] = 0.5f;
    builder_add(b, &bd);
    bd.pos[2] = 1.5f; /* a second one on top */
    builder_add(b, &bd);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 1, 1);
    batch_steps(bt, 60);
    tp_contact_info c1[64], c2[64];
    int n1 = 0, n2 = 0;
    cr_assert_eq(tp_batch_contacts(bt, 0, c1, 64, &n1), TP_OK, "%s", tp_last_error());
    cr_assert_eq(n1, 16, "points: %d, want 8 on the ground and 8 between the two", n1);
    for (int i = 1; i < n1; ++i) cr_assert(c1[i].key > c1[i - 1].key, "keys %d and %d not increasing", i - 1, i);
    batch_steps(bt, 1);
    cr_assert_eq(tp_batch_contacts(bt, 0, c2, 64, &n2), TP_OK);
    cr_assert_eq(n2, n1);
    for (int i = 0; i < n1; ++i) cr_assert_eq(c1[i].key, c2[i].key, "key %d changed", i);
    tp_state_view v = batch_view(bt);
    cr_assert(fabsf(v.pos[3 * 2 + 2] - 1.5f) < 0.003f, "upper compound at z %.4f, want 1.5", v.pos[3 * 2 + 2]);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- scenes */

#define COMPOUND_SCENE                                                                                        \
    "{\"version\": 2, \"sleep\": {\"enabled\": false}, \"randomize\": {\"pos_noise\": 0.01, \"yaw_noise_deg\": 5},\n" \
    " \"bodies\": [{\"name\": \"ground\", \"size\": [20, 20, 1], \"pos\": [0, 0, -0.5], \"static\": true},\n"  \
    "  {\"name\": \"l\", \"pos\": [0, 0, 0.6], \"quat\": [0.05, 0, 0, 1],\n"                                  \
    "   \"shapes\": [{\"size\": [2, 1, 1]}, {\"shape\": \"capsule\", \"size\": [2, 0.6, 0.6], \"pos\": [0.5, 0, 1.5],\n" \
    "               \"quat\": [0, 0.7071068, 0, 0.7071068], \"density\": 500}]},\n"                            \
    "  {\"name\": \"ball\", \"shape\": \"ball\", \"size\": [0.5, 0.5, 0.5], \"pos\": [0.2, 0.1, 3.5]}]}"

static uint64_t run_hash(const tp_model *m, int worlds, int threads, int steps, int world)
{
    tp_batch *bt = make_batch(m, worlds, threads);
    batch_steps(bt, steps);
    uint64_t h = batch_world_hash(bt, world);
    tp_batch_destroy(bt);
    return h;
}

Test(compound_scenes, deterministic_runs_threads_worlds)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(COMPOUND_SCENE, "c.json", &m), TP_OK, "%s", tp_last_error());
    uint64_t a = run_hash(m, 2, 1, 90, 1);
    cr_assert_eq(run_hash(m, 2, 1, 90, 1), a, "run to run");
    cr_assert_eq(run_hash(m, 2, 2, 90, 1), a, "threads 1 vs 2");
    cr_assert_eq(run_hash(m, 5, 2, 90, 1), a, "2 vs 5 worlds");
    tp_model_destroy(m);
}

/* A `shapes` list of one shape at the origin with no turn is the plain body:
 * same mass properties, and the same trajectory up to the contact keys' ids
 * (the compound ids differ, so warm starting matches the same points). */
Test(compound_scenes, one_shape_list_matches_the_plain_body)
{
    const char *plain = "{\"version\": 2, \"bodies\": [{\"size\": [20, 20, 1], \"pos\": [0, 0, -0.5], \"static\": true},"
                        " {\"size\": [1, 0.5, 0.3], \"pos\": [0, 0, 1], \"quat\": [0.2, 0.1, 0, 1]}]}";
    const char *one = "{\"version\": 2, \"bodies\": [{\"size\": [20, 20, 1], \"pos\": [0, 0, -0.5], \"static\": true},"
                      " {\"shapes\": [{\"size\": [1, 0.5, 0.3]}], \"pos\": [0, 0, 1], \"quat\": [0.2, 0.1, 0, 1]}]}";
    tp_model *a = NULL, *b = NULL;
    cr_assert_eq(tp_model_load_string(plain, "a", &a), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_model_load_string(one, "b", &b), TP_OK, "%s", tp_last_error());
    float ma, mb, da[3], db[3];
    tp_model_body_mass(a, 1, &ma, da);
    tp_model_body_mass(b, 1, &mb, db);
    expect_near(mb, ma, 1e-6, "mass");
    for (int k = 0; k < 3; ++k) expect_near(db[k], da[k], 1e-6, "inertia");
    tp_batch *ba = make_batch(a, 1, 1), *bb = make_batch(b, 1, 1);
    batch_steps(ba, 120);
    batch_steps(bb, 120);
    tp_state_view va = batch_view(ba), vb = batch_view(bb);
    for (int k = 0; k < 3; ++k)
        cr_assert(fabsf(va.pos[3 + k] - vb.pos[3 + k]) < 1e-3f, "pos[%d] %g vs %g", k, va.pos[3 + k], vb.pos[3 + k]);
    tp_batch_destroy(ba);
    tp_batch_destroy(bb);
    tp_model_destroy(a);
    tp_model_destroy(b);
}

Test(compound_scenes, given_mass_properties)
{
    const char *json = "{\"version\": 2, \"bodies\": [{\"shapes\": [{\"size\": [1, 1, 1]}, {\"pos\": [1, 0, 0]}],"
                       " \"mass\": 2, \"com\": [0.1, 0.2, 0.3], \"inertia\": [1, 2, 2.5]}]}";
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(json, "g", &m), TP_OK, "%s", tp_last_error());
    float mass, com[3], full[6];
    cr_assert_eq(tp_model_body_inertia(m, 0, com, full), TP_OK);
    tp_model_body_mass(m, 0, &mass, NULL);
    cr_assert_float_eq(mass, 2.0f, 1e-6f);
    cr_assert(com[0] == 0.1f && com[1] == 0.2f && com[2] == 0.3f);
    cr_assert(full[0] == 1.0f && full[1] == 2.0f && full[2] == 2.5f && full[3] == 0.0f);
    tp_model_destroy(m);
}

static void expect_error(const char *json, const char *where, const char *reason)
{
    tp_model *model = NULL;
    tp_status status = tp_model_load_string(json, "t.json", &model);
    const char *msg = tp_last_error();
    cr_assert_eq(status, TP_ERR_PARSE, "status %d (%s)", (int)status, msg);
    cr_assert_null(model);
    cr_assert(strncmp(msg, where, strlen(where)) == 0, "message\n  %s\ndoes not start with\n  %s", msg, where);
    cr_assert(strstr(msg, reason) != NULL, "message\n  %s\ndoes not say\n  %s", msg, reason);
}

Test(compound_scenes, bad_shapes_name_the_place)
{
    expect_error("{\"version\": 2, \"bodies\": [\n {\"shapes\": [{\"size\": [1, 1, 1]},\n  {\"size\": [1, -2, 1]}]}]}",
                 "t.json:3:16: bodies[0].shapes[1].size[1]: ", "must be > 0");
    expect_error("{\"version\": 2, \"bodies\": [\n {\"shapes\": [{\"shape\": \"capsule\", \"size\": [0.2, 1, 1]}]}]}",
                 "t.json:2:43: bodies[0].shapes[0].size: ", "capsule");
    expect_error("{\"version\": 2, \"bodies\": [\n {\"shapes\": [{\"shape\": \"cone\"}]}]}",
                 "t.json:2:24: bodies[0].shapes[0].shape: ", "cone");
    expect_error("{\"version\": 2, \"bodies\": [\n {\"shapes\": [{\"sise\": [1, 1, 1]}]}]}",
                 "t.json:2:15: bodies[0].shapes[0].sise: ", "size");
    expect_error("{\"version\": 2, \"bodies\": [\n {\"shapes\": [{\"quat\": [0, 0, 0, 0]}]}]}",
                 "t.json:2:23: bodies[0].shapes[0].quat: ", "zero quaternion");
    expect_error("{\"version\": 2, \"bodies\": [\n {\"shapes\": []}]}", "t.json:2:13: bodies[0].shapes: ",
                 "1 to 8 shapes");
    expect_error("{\"version\": 2, \"bodies\": [\n {\"shape\": \"ball\", \"shapes\": [{}]}]}",
                 "t.json:2:20: bodies[0].shapes: ", "not both");
    expect_error("{\"bodies\": [\n {\"shapes\": [{}]}]}", "t.json:2:3: bodies[0].shapes: ", "version");
    expect_error("{\"version\": 2, \"bodies\": [\n {\"inertia\": [1, 1, 5]}]}", "t.json:2:14: bodies[0].inertia: ",
                 "exceeds the sum");
    expect_error("{\"version\": 2, \"bodies\": [\n {\"inertia\": [1, 1]}]}", "t.json:2:14: bodies[0].inertia: ",
                 "3 numbers");
    expect_error("{\"version\": 2, \"bodies\": [\n {\"shapes\": [{\"density\": 0}]}]}",
                 "t.json:2:26: bodies[0].shapes[0].density: ", "> 0");
    /* a shape 1e30 m from its body frame gave an infinite bounding sphere: every world faulted at its first step */
    expect_error("{\"version\": 2, \"bodies\": [\n {\"shapes\": [{\"pos\": [0, 1e30, 0]}]}]}",
                 "t.json:2:26: bodies[0].shapes[0].pos[1]: ", "must be within [-10000, 10000] m");
    expect_error("{\"version\": 2, \"bodies\": [\n {\"static\": true, \"shapes\": [{\"pos\": [-2e4, 0, 0]}]}]}",
                 "t.json:2:39: bodies[0].shapes[0].pos[0]: ", "Bounds");
    /* a centre of mass 1e30 m out: a spin of 1 mrad/s flung the body's origin 1.7e25 m in one step, unflagged */
    expect_error("{\"version\": 2, \"bodies\": [\n {\"com\": [0, 1e30, 0]}]}", "t.json:2:14: bodies[0].com[1]: ",
                 "must be within [-10000, 10000] m");
}

/* The builder refuses bad shape lists with the field named, and keeps nothing. */
Test(compound, builder_names_the_bad_shape)
{
    tp_model_def md = tp_default_model_def();
    tp_builder *b = builder_begin(&md);
    tp_shape_def s[TP_MAX_BODY_SHAPES + 1];
    for (int i = 0; i <= TP_MAX_BODY_SHAPES; ++i) s[i] = shape_box(1, 1, 1, (float)i, 0, 0);
    tp_body_def bd = tp_default_body_def();
    bd.shapes = s;
    bd.shape_count = TP_MAX_BODY_SHAPES + 1;
    cr_assert_eq(tp_builder_add_body(b, &bd, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "shapes: must hold 1 to 8 shapes, got 9") != NULL, "%s", tp_last_error());
    bd.shape_count = 2;
    s[1].size[2] = 2e4f;
    cr_assert_eq(tp_builder_add_body(b, &bd, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "shapes[1].size[2]: must be within") != NULL, "%s", tp_last_error());
    s[1].size[2] = 1.0f;
    bd.shapes = NULL;
    cr_assert_eq(tp_builder_add_body(b, &bd, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "shapes: is NULL") != NULL, "%s", tp_last_error());
    bd.shapes = s;
    bd.has_inertia = 1;
    const float not_pd[6] = {1, 1, 1, -0.6f, -0.6f, -0.6f}; /* triangle holds; eigenvalue 1 - 2 x 0.6 < 0 */
    memcpy(bd.inertia, not_pd, sizeof not_pd);
    cr_assert_eq(tp_builder_add_body(b, &bd, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "inertia: must be positive definite") != NULL, "%s", tp_last_error());
    /* nothing was added; the caller's array may go away once a body is added */
    bd.has_inertia = 0;
    cr_assert_eq(builder_add(b, &bd), 0);
    memset(s, 0, sizeof s);
    tp_model *m = builder_finish(b);
    tp_body_def back;
    cr_assert_eq(tp_model_body(m, 0, &back), TP_OK);
    cr_assert_eq(back.shape_count, 2);
    cr_assert_float_eq(back.shapes[1].pos[0], 1.0f, 0.0f);
    tp_model_destroy(m);
}

/* Compound bodies sleep as others do: the L of l_shape_rests and a dumbbell
 * (two balls on a capsule) at rest on the ground are asleep within 2 s. */
Test(compound, compound_bodies_fall_asleep)
{
    tp_shape_def l[2] = {shape_box(2, 1, 1, 0, 0, 0), shape_box(1, 1, 2, 0.5f, 0, 1.5f)};
    tp_shape_def d[3] = {shape_box(2, 0.2f, 0.2f, 0, 0, 0), shape_box(0.8f, 0.8f, 0.8f, 1, 0, 0),
                         shape_box(0.8f, 0.8f, 0.8f, -1, 0, 0)};
    d[0].shape = TP_SHAPE_CAPSULE;
    d[1].shape = d[2].shape = TP_SHAPE_BALL;
    tp_model_def md = tp_default_model_def();
    tp_builder *b = builder_begin(&md);
    tp_body_def g = tp_default_body_def();
    g.type = TP_BODY_STATIC;
    g.size[0] = g.size[1] = 20.0f;
    g.pos[2] = -0.5f;
    builder_add(b, &g);
    tp_body_def bd = tp_default_body_def();
    bd.shapes = l;
    bd.shape_count = 2;
    bd.pos[2] = 0.5f;
    builder_add(b, &bd);
    bd.shapes = d;
    bd.shape_count = 3;
    bd.pos[1] = 3.0f;
    bd.pos[2] = 0.45f; /* balls of radius 0.4, 5 cm drop */
    builder_add(b, &bd);
    tp_model *m = builder_finish(b);
    tp_batch *bt = make_batch(m, 2, 1);
    batch_steps(bt, 120);
    tp_state_view v = batch_view(bt);
    for (int w = 0; w < 2; ++w) cr_assert_eq(v.sleeping_count[w], 2, "world %d: %d asleep", w, v.sleeping_count[w]);
    cr_assert(fabsf(v.pos[3 * 2 + 2] - 0.4f) < 0.003f, "dumbbell axis at z %.4f, want the balls' radius 0.4",
              v.pos[3 * 2 + 2]);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}
