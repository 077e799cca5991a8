/* test_convex.c - convex hull shapes (TP_SHAPE_CONVEX): mesh files the test
 * writes itself (a cube, an icosahedron, a tetrahedron as binary STL, ASCII
 * STL and OBJ), hull mass properties against closed forms, resting contact
 * against the box shape and on each face of a tetrahedron, collision with
 * every other shape, the JSON keys, determinism of a pile of rocks, and bad
 * input.
 *
 * Closed forms: cube of side a, V = a^3, I = m a^2 / 6; corner tetrahedron
 * (0, a e_x, a e_y, a e_z), V = a^3 / 6, centre a/4 (1, 1, 1), central
 * I_xx = 3 m a^2 / 40, tensor xy entry = +m a^2 / 80 (from int x^2 dV =
 * a^5 / 60, int x y dV = a^5 / 120); regular icosahedron of edge s,
 * V = 5 (3 + sqrt 5) s^3 / 12, I = (phi^2 / 10) m s^2 about any axis
 * through its centre (phi the golden ratio).
 * Resting tolerances as tests/test_cylinder.c: slop + g h^2 below the exact
 * height; the hull cube and the box are the same polytope, so the issue's
 * 0.1 mm is asked of their difference. */
#define _POSIX_C_SOURCE 200809L /* truncate, getpid */
#include "helpers.h"
#include "hull.h"
#include "narrowphase.h"
#include "solver.h"

#include <math.h>
#include <stdint.h>
#include <unistd.h>

/* ---------------------------------------------------------------- meshes */

typedef struct mesh {
    int nv, nt;
    double v[64][3];
    int t[128][3];
} mesh;

static mesh cube_mesh(double a, double cx, double cy, double cz)
{
    mesh m = {8, 12, {{0}}, {{0}}};
    for (int i = 0; i < 8; ++i) {
        m.v[i][0] = cx + ((i & 1) ? 0.5 : -0.5) * a;
        m.v[i][1] = cy + ((i & 2) ? 0.5 : -0.5) * a;
        m.v[i][2] = cz + ((i & 4) ? 0.5 : -0.5) * a;
    }
    const int t[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                          {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
    memcpy(m.t, t, sizeof t);
    return m;
}

static mesh corner_tetra_mesh(double a)
{
    mesh m = {4, 4, {{0, 0, 0}, {a, 0, 0}, {0, a, 0}, {0, 0, a}}, {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}};
    return m;
}

/* Regular icosahedron of edge 2 s: the cyclic permutations of (0, +-s, +-phi s). */
static mesh icosahedron_mesh(double s)
{
    mesh m;
    memset(&m, 0, sizeof m);
    double phi = 0.5 * (1.0 + sqrt(5.0));
    for (int c = 0; c < 3; ++c)
        for (int i = 0; i < 4; ++i) {
            double p[3] = {0, (i & 1 ? -1 : 1) * s, (i & 2 ? -1 : 1) * phi * s};
            for (int k = 0; k < 3; ++k) m.v[m.nv][k] = p[(k + 3 - c) % 3];
            m.nv++;
        }
    /* a hull needs no faces: one triangle so STL writers have something */
    m.nt = 0;
    for (int i = 0; i + 2 < m.nv; i += 3) {
        m.t[m.nt][0] = i, m.t[m.nt][1] = i + 1, m.t[m.nt][2] = i + 2;
        m.nt++;
    }
    return m;
}

static const char *tmp_path(const char *name)
{
    static char buf[8][256];
    static int at = 0;
    char *p = buf[at++ & 7];
    snprintf(p, 256, "/tmp/torpor_test_convex_%d_%s", (int)getpid(), name);
    return p;
}

static void write_stl_binary(const char *path, const mesh *m)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    unsigned char header[80] = {0};
    fwrite(header, 1, 80, f);
    uint32_t n = (uint32_t)m->nt;
    fwrite(&n, 4, 1, f); /* the test machine is little-endian (x86-64) */
    for (int t = 0; t < m->nt; ++t) {
        float rec[12] = {0};
        for (int k = 0; k < 3; ++k)
            for (int c = 0; c < 3; ++c) rec[3 + 3 * k + c] = (float)m->v[m->t[t][k]][c];
        fwrite(rec, 4, 12, f);
        uint16_t attr = 0;
        fwrite(&attr, 2, 1, f);
    }
    fclose(f);
}

static void write_stl_ascii(const char *path, const mesh *m)
{
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "solid test\n");
    for (int t = 0; t < m->nt; ++t) {
        fprintf(f, "  facet normal 0 0 0\n    outer loop\n");
        for (int k = 0; k < 3; ++k)
            fprintf(f, "      vertex %.9g %.9g %.9g\n", m->v[m->t[t][k]][0], m->v[m->t[t][k]][1], m->v[m->t[t][k]][2]);
        fprintf(f, "    endloop\n  endfacet\n");
    }
    fprintf(f, "endsolid test\n");
    fclose(f);
}

static void write_obj(const char *path, const mesh *m)
{
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "# test mesh\no thing\n");
    for (int i = 0; i < m->nv; ++i) fprintf(f, "v %.9g %.9g %.9g\n", m->v[i][0], m->v[i][1], m->v[i][2]);
    fprintf(f, "vn 0 0 1\n");
    for (int t = 0; t < m->nt; ++t) fprintf(f, "f %d %d %d\n", m->t[t][0] + 1, m->t[t][1] + 1, m->t[t][2] + 1);
    fclose(f);
}

/* The mesh written in format k (0 binary STL, 1 ASCII STL, 2 OBJ) and read back. */
static float *round_trip(const mesh *m, int k, int *count)
{
    const char *path = tmp_path(k == 0 ? "b.stl" : k == 1 ? "a.stl" : "m.obj");
    if (k == 0) write_stl_binary(path, m);
    else if (k == 1) write_stl_ascii(path, m);
    else write_obj(path, m);
    float *v = NULL;
    cr_assert_eq(tp_mesh_read(path, &v, count), TP_OK, "%s", tp_last_error());
    unlink(path);
    return v;
}

/* ---------------------------------------------------------------- bodies */

static tp_model *one_convex_model(const float *v, int n, float density)
{
    tp_model_def md = tp_default_model_def();
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    bd.shape = TP_SHAPE_CONVEX;
    bd.vertices = v;
    bd.vertex_count = n;
    bd.density = density;
    builder_add(b, &bd);
    return builder_finish(b);
}

static void check_rel(double got, double want, double rel, const char *what, int fmt)
{
    cr_assert(fabs(got - want) <= rel * fabs(want) + 1e-12, "%s (format %d): %.9g, closed form %.9g", what, fmt, got,
              want);
}

/* Mass (kg), centre of mass (m) and inertia (kg m^2) of the hull of mesh m
 * written in format k and read back, at density rho. */
static void hull_props(const mesh *msh, int k, double rho, float *mass, float com[3], float in[6])
{
    int n;
    float *v = round_trip(msh, k, &n);
    tp_model *m = one_convex_model(v, n, (float)rho);
    tp_mesh_free(v);
    tp_model_body_mass(m, 0, mass, NULL);
    tp_model_body_inertia(m, 0, com, in);
    tp_model_destroy(m);
}

Test(convex, cube_hull_mass_properties_in_every_format)
{
    const double a = 0.4, rho = 500.0, mass = rho * a * a * a, I = mass * a * a / 6.0;
    mesh cube = cube_mesh(a, 0, 0, 0);
    for (int k = 0; k < 3; ++k) {
        float mm, com[3], in[6];
        hull_props(&cube, k, rho, &mm, com, in);
        check_rel(mm, mass, 1e-6, "mass", k);
        for (int j = 0; j < 3; ++j) {
            check_rel(in[j], I, 1e-5, "principal moment", k);
            cr_assert(fabsf(in[3 + j]) <= 1e-6 * I, "product %d = %g", j, (double)in[3 + j]);
            cr_assert(fabsf(com[j]) <= 1e-7f, "com[%d] = %g", j, (double)com[j]);
        }
    }
    int n; /* the reader keeps STL's repeated vertices; the builder's size is the hull's box */
    float *v = round_trip(&cube, 0, &n);
    cr_assert_eq(n, 36, "binary STL of 12 triangles read %d vertices", n);
    tp_model *m = one_convex_model(v, n, (float)rho);
    tp_mesh_free(v);
    tp_body_def def;
    tp_model_body(m, 0, &def);
    for (int j = 0; j < 3; ++j) check_rel(def.size[j], a, 1e-7, "size (the hull's box)", 0);
    tp_model_destroy(m);
}

Test(convex, corner_tetrahedron_mass_properties_in_every_format)
{
    const double a = 0.3, rho = 1000.0, mass = rho * a * a * a / 6.0;
    mesh t = corner_tetra_mesh(a);
    for (int k = 0; k < 3; ++k) {
        float mm, com[3], in[6];
        hull_props(&t, k, rho, &mm, com, in);
        check_rel(mm, mass, 1e-6, "mass", k);
        for (int j = 0; j < 3; ++j) {
            check_rel(com[j], a / 4.0, 1e-6, "centre of mass", k);
            check_rel(in[j], 3.0 * mass * a * a / 40.0, 1e-5, "central moment", k);
            check_rel(in[3 + j], mass * a * a / 80.0, 1e-5, "product entry", k);
        }
    }
}

Test(convex, icosahedron_volume_and_isotropic_inertia)
{
    const double s = 0.1, edge = 2.0 * s, rho = 1000.0;
    const double mass = rho * 5.0 * (3.0 + sqrt(5.0)) / 12.0 * edge * edge * edge;
    mesh ico = icosahedron_mesh(s);
    for (int k = 0; k < 3; ++k) {
        float mm, com[3], in[6];
        hull_props(&ico, k, rho, &mm, com, in);
        check_rel(mm, mass, 1e-6, "mass", k);
        for (int j = 0; j < 3; ++j) {
            check_rel(in[j], in[0], 1e-5, "moments equal by symmetry", k);
            cr_assert(fabsf(in[3 + j]) <= 1e-5f * in[0]);
            cr_assert(fabsf(com[j]) <= 1e-7f);
        }
        double phi = 0.5 * (1.0 + sqrt(5.0));
        check_rel(in[0], phi * phi / 10.0 * mass * edge * edge, 1e-5, "moment (phi^2 / 10) m s^2", k);
    }
}

/* ---------------------------------------------------------------- resting */


static float rest_tolerance(void)
{
    tp_model_def md = tp_default_model_def();
    float h = md.dt / (float)md.substeps;
    return TP_LINEAR_SLOP + 9.81f * h * h;
}

/* Drop body bd on the ground for `seconds`; its final height, speed and the
 * contact force on it (z, N). Sleep is off: a sleeping body reports no force. */
static void settle(tp_body_def bd, float seconds, float *z, float *speed, float *fz, float q[4])
{
    tp_model_def md = tp_default_model_def();
    md.sleep.enabled = 0;
    tp_builder *b = builder_begin(&md);
    builder_add_ground(b);
    builder_add(b, &bd);
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 1, 1);
    batch_steps(batch, (int)(seconds / md.dt));
    tp_state_view v = batch_view(batch);
    *z = v.pos[5];
    *speed = sqrtf(v.v[3] * v.v[3] + v.v[4] * v.v[4] + v.v[5] * v.v[5]);
    *fz = v.contact_f[5];
    if (q) memcpy(q, v.quat + 4, 4 * sizeof(float));
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

Test(convex, hull_cube_rests_like_the_box_shape)
{
    const float a = 0.4f, rho = 500.0f;
    mesh cube = cube_mesh(a, 0, 0, 0);
    float v[24];
    for (int i = 0; i < 24; ++i) v[i] = (float)cube.v[i / 3][i % 3];
    tp_body_def box = tp_default_body_def();
    box.size[0] = box.size[1] = box.size[2] = a;
    box.density = rho;
    box.pos[2] = 0.5f;
    tp_body_def hull = box;
    hull.shape = TP_SHAPE_CONVEX;
    hull.vertices = v;
    hull.vertex_count = 8;
    float zb, sb, fb, zh, sh, fh;
    settle(box, 3.0f, &zb, &sb, &fb, NULL);
    settle(hull, 3.0f, &zh, &sh, &fh, NULL);
    float mg = rho * a * a * a * 9.81f, tol = rest_tolerance();
    cr_assert(fabsf(zh - zb) <= 1e-4f, "hull cube rests at %.6f, box at %.6f (more than 0.1 mm apart)", zh, zb);
    cr_assert(zh <= 0.5f * a + 1e-4f && zh >= 0.5f * a - tol, "hull cube rests at %.6f, not %.3f", zh, 0.5f * a);
    cr_assert(fabsf(fh - mg) <= 1e-3f * mg, "contact force on the hull %.4f N, m g = %.4f N", fh, mg);
    cr_assert(fabsf(fh - fb) <= 1e-3f * mg, "contact force hull %.4f N, box %.4f N", fh, fb);
    cr_assert(sh < 1e-3f, "hull cube still moves at %g m/s", sh);
}

/* Quaternion [x y z w] turning unit u onto unit w (u != -w). */
static void quat_between(const double *u, const double *w, float q[4])
{
    double c[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    double d = u[0] * w[0] + u[1] * w[1] + u[2] * w[2], s = sqrt(2.0 * (1.0 + d));
    for (int k = 0; k < 3; ++k) q[k] = (float)(c[k] / s);
    q[3] = (float)(0.5 * s);
}

static void rotate(const float q[4], const double *v, double *out)
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double t[3] = {2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])};
    out[0] = v[0] + w * t[0] + (y * t[2] - z * t[1]);
    out[1] = v[1] + w * t[1] + (z * t[0] - x * t[2]);
    out[2] = v[2] + w * t[2] + (x * t[1] - y * t[0]);
}

Test(convex, regular_tetrahedron_rests_on_each_face)
{
    const double s = 0.1; /* vertices s (+-1, +-1, +-1) with an even number of minus signs */
    const double p[4][3] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
    float v[12];
    for (int i = 0; i < 12; ++i) v[i] = (float)(s * p[i / 3][i % 3]);
    const double up[3] = {0, 0, 1}, inradius = s * sqrt(3.0) / 3.0;
    for (int f = 0; f < 4; ++f) { /* face f is opposite vertex f: turn vertex f up */
        double u[3];
        for (int k = 0; k < 3; ++k) u[k] = p[f][k] / sqrt(3.0);
        tp_body_def bd = tp_default_body_def();
        bd.shape = TP_SHAPE_CONVEX;
        bd.vertices = v;
        bd.vertex_count = 4;
        bd.pos[2] = (float)(inradius + 0.02);
        quat_between(u, up, bd.quat);
        float z, speed, fz, q[4];
        settle(bd, 3.0f, &z, &speed, &fz, q);
        double now[3];
        rotate(q, u, now);
        cr_assert(now[2] > 0.9999, "face %d: the top vertex tipped to direction (%g, %g, %g)", f, now[0], now[1], now[2]);
        cr_assert(fabs(z - inradius) <= rest_tolerance() + 1e-4, "face %d: centre at %.6f, inradius %.6f", f, z,
                  inradius);
        cr_assert(speed < 1e-3f, "face %d: still moving at %g m/s", f, speed);
        double mass = 1000.0 * 8.0 * s * s * s / 3.0; /* cube of side 2 s less 4 corners of a^3 / 6 */
        cr_assert(fabs(fz - mass * 9.81) <= 1e-3 * mass * 9.81, "face %d: contact force %g N, m g %g N", f, fz,
                  mass * 9.81);
    }
}

/* Every shape dropped on a static slab that is a hull rests where it rests on
 * the box ground: convex against box, ball, cylinder, capsule, wedge, corner
 * wedge and convex. */
Test(convex, every_shape_rests_on_a_hull_slab_as_on_a_box)
{
    float slab[24];
    mesh s = cube_mesh(1.0, 0, 0, 0);
    for (int i = 0; i < 24; ++i) slab[i] = (float)(s.v[i / 3][i % 3] * (i % 3 == 2 ? 1.0 : 8.0));
    float tet[12] = {-0.1f, -0.1f, -0.1f, 0.1f, -0.1f, -0.1f, -0.1f, 0.1f, -0.1f, -0.1f, -0.1f, 0.1f};
    for (int shape = 0; shape < TP_SHAPE_COUNT; ++shape) {
        float z[2];
        for (int ground = 0; ground < 2; ++ground) {
            tp_model_def md = tp_default_model_def();
            tp_builder *b = builder_begin(&md);
            tp_body_def g = tp_default_body_def();
            g.type = TP_BODY_STATIC;
            g.pos[2] = -0.5f;
            if (ground) {
                g.shape = TP_SHAPE_CONVEX;
                g.vertices = slab;
                g.vertex_count = 8;
            } else {
                g.size[0] = g.size[1] = 8.0f;
            }
            builder_add(b, &g);
            tp_body_def bd = tp_default_body_def();
            bd.shape = (tp_shape_type)shape;
            bd.size[0] = 0.5f, bd.size[1] = 0.3f, bd.size[2] = 0.3f;
            bd.pos[2] = 0.4f;
            if (shape == TP_SHAPE_CONVEX) {
                bd.vertices = tet;
                bd.vertex_count = 4;
            }
            builder_add(b, &bd);
            tp_model *m = builder_finish(b);
            tp_batch *batch = make_batch(m, 1, 1);
            batch_steps(batch, 150);
            tp_state_view v = batch_view(batch);
            z[ground] = v.pos[5];
            cr_assert(v.faults[0] == 0);
            tp_batch_destroy(batch);
            tp_model_destroy(m);
        }
        cr_assert(z[0] < 0.35f && z[0] > 0.0f, "%s did not land on the box ground: z %g", tp_shape_name(shape), z[0]);
        cr_assert(fabsf(z[1] - z[0]) <= 1e-4f, "%s rests at %.6f on the hull slab, %.6f on the box",
                  tp_shape_name(shape), z[1], z[0]);
    }
}

/* ---------------------------------------------------------------- bad input */

Test(convex, mesh_reader_errors_name_the_file)
{
    float *v = (float *)1;
    int n = 7;
    const char *missing = tmp_path("missing.stl");
    cr_assert_eq(tp_mesh_read(missing, &v, &n), TP_ERR_IO);
    cr_assert(v == NULL && n == 0);
    cr_assert(strstr(tp_last_error(), missing), "%s", tp_last_error());

    mesh cube = cube_mesh(1, 0, 0, 0);
    const char *path = tmp_path("trunc.stl");
    write_stl_binary(path, &cube);
    cr_assert_eq(truncate(path, 84 + 50 * 5 + 20), 0);
    cr_assert_eq(tp_mesh_read(path, &v, &n), TP_ERR_PARSE);
    cr_assert(strstr(tp_last_error(), path) && strstr(tp_last_error(), "promises 12 triangles, the file holds 5"), "%s",
              tp_last_error());
    unlink(path);

    path = tmp_path("bad.obj");
    FILE *f = fopen(path, "w");
    fprintf(f, "# x\nv 0 0 0\nv 1 zero 0\n");
    fclose(f);
    cr_assert_eq(tp_mesh_read(path, &v, &n), TP_ERR_PARSE);
    char where[300];
    snprintf(where, sizeof where, "%s:3:", path);
    cr_assert(strstr(tp_last_error(), where), "%s", tp_last_error());
    unlink(path);
}

/* tp_builder_add_body's error for a convex body of these points. */
static const char *add_error(const float *v, int n)
{
    tp_model_def md = tp_default_model_def();
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    bd.name = "rock";
    bd.shape = TP_SHAPE_CONVEX;
    bd.vertices = v;
    bd.vertex_count = n;
    cr_assert_eq(tp_builder_add_body(b, &bd, NULL), TP_ERR_INVALID_ARGUMENT);
    tp_builder_destroy(b);
    cr_assert(strstr(tp_last_error(), "rock") && strstr(tp_last_error(), "vertices"), "%s", tp_last_error());
    return tp_last_error();
}

Test(convex, bad_point_sets_are_refused_with_the_reason)
{
    float three[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    cr_assert(strstr(add_error(three, 3), "at least 4 vertices, got 3"), "%s", tp_last_error());
    float flat[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.5f, 0.5f, 0};
    cr_assert(strstr(add_error(flat, 5), "one plane"), "%s", tp_last_error());
    float line[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    cr_assert(strstr(add_error(line, 4), "one line"), "%s", tp_last_error());
    float *sphere = malloc(3 * 200 * sizeof(float)); /* 200 points on a sphere: all are hull vertices */
    for (int i = 0; i < 200; ++i) {
        double zc = 1.0 - (2.0 * i + 1.0) / 200.0, r = sqrt(1.0 - zc * zc), phi = 2.399963229728653 * i;
        sphere[3 * i] = (float)(r * cos(phi)), sphere[3 * i + 1] = (float)(r * sin(phi)), sphere[3 * i + 2] = (float)zc;
    }
    cr_assert(strstr(add_error(sphere, 200), "more than TP_MAX_HULL_VERTICES (32)"), "%s", tp_last_error());
    free(sphere);
    float nan_point[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, NAN};
    cr_assert(strstr(add_error(nan_point, 4), "vertices[3][2]"), "%s", tp_last_error());
}

/* ---------------------------------------------------------------- scenes */

Test(convex, scene_vertices_and_mesh_with_scale)
{
    mesh cube = cube_mesh(1.0, 0, 0, 0);
    const char *stl = tmp_path("rock.stl");
    write_stl_binary(stl, &cube);
    const char *name = strrchr(stl, '/') + 1;
    char json[2048];
    snprintf(json, sizeof json,
             "{\"format\": \"torpor-scene\", \"version\": 2, \"bodies\": [\n"
             " {\"name\": \"a\", \"shape\": \"convex\", \"mesh\": \"%s\", \"scale\": [0.2, 0.4, 0.5], \"density\": 1000},\n"
             " {\"name\": \"b\", \"shape\": \"convex\", \"vertices\": [[0,0,0],[0.3,0,0],[0,0.3,0],[0,0,0.3]],"
             " \"pos\": [2, 0, 0]}]}\n",
             name);
    const char *scene = tmp_path("scene.json");
    FILE *f = fopen(scene, "w");
    fputs(json, f);
    fclose(f);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(scene, &m), TP_OK, "%s", tp_last_error());
    float mass;
    tp_model_body_mass(m, 0, &mass, NULL);
    check_rel(mass, 1000.0 * 0.2 * 0.4 * 0.5, 1e-6, "scaled mesh mass", 0);
    tp_model_body_mass(m, 1, &mass, NULL);
    check_rel(mass, 1000.0 * 0.027 / 6.0, 1e-6, "vertices mass", 0);
    tp_model_destroy(m);
    unlink(stl);
    /* a missing mesh: file:line:col of the key, and the mesh's own path */
    f = fopen(scene, "w");
    fputs("{\"format\": \"torpor-scene\", \"version\": 2, \"bodies\": [\n"
          "  {\"shape\": \"convex\", \"mesh\": \"nope.stl\"}]}\n", f);
    fclose(f);
    cr_assert_eq(tp_model_load(scene, &m), TP_ERR_PARSE);
    char where[300];
    snprintf(where, sizeof where, "%s:2:", scene);
    cr_assert(strstr(tp_last_error(), where) && strstr(tp_last_error(), "bodies[0].mesh") &&
                  strstr(tp_last_error(), "nope.stl: cannot open"),
              "%s", tp_last_error());
    unlink(scene);
    /* a degenerate hull in a scene names the body's vertices */
    cr_assert_eq(tp_model_load_string("{\"format\": \"torpor-scene\", \"version\": 2, \"bodies\": [\n"
                                      "  {\"shape\": \"convex\", \"vertices\": [[0,0,0],[1,0,0],[0,1,0],[1,1,0]]}]}",
                                      "flat.json", &m),
                 TP_ERR_PARSE);
    cr_assert(strstr(tp_last_error(), "flat.json:2:") && strstr(tp_last_error(), "one plane"), "%s", tp_last_error());
}

Test(convex, compound_body_with_a_hull)
{
    float tet[12] = {0, 0, 0, 0.2f, 0, 0, 0, 0.2f, 0, 0, 0, 0.2f};
    tp_shape_def sh[2] = {tp_default_shape_def(), tp_default_shape_def()};
    sh[0].size[0] = sh[0].size[1] = sh[0].size[2] = 0.2f;
    sh[1].shape = TP_SHAPE_CONVEX;
    sh[1].vertices = tet;
    sh[1].vertex_count = 4;
    sh[1].pos[0] = 0.3f;
    tp_model_def md = tp_default_model_def();
    md.sleep.enabled = 0; /* a sleeping body reports no contact force */
    tp_builder *b = builder_begin(&md);
    builder_add_ground(b);
    tp_body_def bd = tp_default_body_def();
    bd.shapes = sh;
    bd.shape_count = 2;
    bd.pos[2] = 0.3f;
    builder_add(b, &bd);
    tp_model *m = builder_finish(b);
    float mass;
    tp_model_body_mass(m, 1, &mass, NULL);
    check_rel(mass, 1000.0 * (0.008 + 0.008 / 6.0), 1e-6, "compound mass", 0);
    tp_batch *batch = make_batch(m, 1, 1);
    batch_steps(batch, 180);
    tp_state_view v = batch_view(batch);
    cr_assert(v.faults[0] == 0);
    cr_assert(fabsf(v.contact_f[5] - mass * 9.81f) <= 1e-2f * mass * 9.81f, "compound at rest carries %g N, m g %g",
              (double)v.contact_f[5], mass * 9.81);
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}

/* scenes/rock_pile.json: the pile settles above the ground, and world 0's
 * state is bitwise the same at any thread count, world count and SIMD width. */
static uint64_t rock_pile_hash(int worlds, int threads, tp_simd simd, float *lowest)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(TP_SOURCE_DIR "/scenes/rock_pile.json", &m), TP_OK, "%s", tp_last_error());
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = worlds;
    bd.threads = threads;
    bd.simd = simd;
    tp_batch *b = NULL;
    cr_assert_eq(tp_batch_create(m, &bd, &b), TP_OK, "%s", tp_last_error());
    batch_steps(b, 180);
    uint64_t h = batch_world_hash(b, 0);
    tp_state_view v = batch_view(b);
    *lowest = 1e9f;
    for (int i = 1; i < v.bodies; ++i) *lowest = fminf(*lowest, v.pos[3 * i + 2]);
    cr_assert(v.faults[0] == 0 && v.contact_overflow[0] == 0);
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return h;
}

Test(convex, rock_pile_settles_and_is_deterministic)
{
    float low1, low2, low3;
    uint64_t h1 = rock_pile_hash(1, 1, TP_SIMD_OFF, &low1);
    uint64_t h2 = rock_pile_hash(3, 2, TP_SIMD_AUTO, &low2);
    uint64_t h3 = rock_pile_hash(2, 2, TP_SIMD_SSE2, &low3);
    cr_assert_eq(h1, h2, "world 0 differs: 1 world, 1 thread, no SIMD %016llx; 3 worlds, 2 threads, auto %016llx",
                 (unsigned long long)h1, (unsigned long long)h2);
    cr_assert_eq(h1, h3, "world 0 differs with SSE2 sweeps");
    /* each rock's origin is inside it: none has sunk through the ground, all have fallen */
    cr_assert(low1 > 0.0f && low1 < 0.5f, "lowest rock origin at %g m", (double)low1);
}

/* A hull box sliding across a box, and across a hull slab, keeps its four
 * feature ids, and its points are where the box shape's are. */
Test(convex, feature_ids_stay_equal_while_a_hull_box_slides)
{
    float big[3] = {4.0f, 4.0f, 1.0f}, small[3] = {0.6f, 0.4f, 0.3f};
    float vb[24], vs[24];
    for (int i = 0; i < 24; ++i) {
        float sign = ((i / 3) >> (i % 3)) & 1 ? 0.5f : -0.5f;
        vb[i] = sign * big[i % 3];
        vs[i] = sign * small[i % 3];
    }
    tp_hull hb, hs;
    char why[200];
    cr_assert(tp_hull_build(vb, 8, &hb, why, sizeof why), "%s", why);
    cr_assert(tp_hull_build(vs, 8, &hs, why, sizeof why), "%s", why);
    cr_assert(hs.poly.nv == 8 && hs.poly.nf == 6 && hs.poly.ne == 12, "a box's hull: %d %d %d", hs.poly.nv,
              hs.poly.nf, hs.poly.ne);
    tp_quat yaw = tp_q_normalize(tp_q(0, 0, (float)sin(0.1), (float)cos(0.1)));
    for (int ground = 0; ground < 2; ++ground) {
        const tp_poly *pg = ground ? &hb.poly : NULL;
        int sg = ground ? TP_SHAPE_CONVEX : TP_SHAPE_BOX;
        const float *size_g = ground ? hb.size : big;
        tp_manifold first, m, box;
        for (int step = 0; step < 100; ++step) {
            tp_vec3 p = tp_v3(-0.05f + 0.001f * step, 0.02f + 0.0005f * step, 0.65f - 0.0008f * (float)(step % 3));
            int n = tp_collide_shapes_polys(sg, size_g, pg, tp_v3(0, 0, 0), tp_q_identity(), TP_SHAPE_CONVEX, hs.size,
                                            &hs.poly, p, yaw, TP_CONTACT_MARGIN, &m);
            int nb = tp_collide_shapes(TP_SHAPE_BOX, big, tp_v3(0, 0, 0), tp_q_identity(), TP_SHAPE_BOX, small, p, yaw,
                                       TP_CONTACT_MARGIN, &box);
            cr_assert(n == 4 && nb == 4, "ground %d step %d: %d points (box %d)", ground, step, n, nb);
            for (int i = 0; i < n; ++i) { /* the same corners as the box shape's, in some order */
                int found = 0;
                for (int j = 0; j < nb; ++j)
                    found |= tp_len(tp_sub(m.local_b[i], box.local_b[j])) < 1e-6f &&
                             fabsf(m.separation[i] - box.separation[j]) < 1e-6f;
                cr_assert(found, "ground %d step %d: point %d is none of the box's", ground, step, i);
            }
            if (step == 0) {
                first = m;
                continue;
            }
            for (int i = 0; i < n; ++i)
                cr_assert_eq(m.feature[i], first.feature[i], "ground %d step %d point %d: feature %x, was %x", ground,
                             step, i, m.feature[i], first.feature[i]);
        }
    }
}
