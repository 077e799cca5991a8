/* test_shapes.c - volumes, centres of mass and inertia tensors against closed
 * forms and against independent numeric integration (double precision), and
 * the collision polyhedra against their own geometry.
 *
 * Tolerances: closed forms evaluated in float32 agree with double to a few ulp
 * (relative 1e-6); 1e-5 relative leaves room for the products of up to five
 * factors. The slice integrations use the midpoint rule over 20000 slices whose
 * integrands are smooth polynomials (or sqrt of one, for the capsule caps), so
 * their error is far below 1e-6 relative; the comparison uses 2e-5. */
#include "shapes.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#define PI_D 3.14159265358979323846
#define REL 1e-5

static void assert_rel(double got, double want, double rel, const char *what)
{
    double scale = fabs(want) > 1e-12 ? fabs(want) : 1.0;
    cr_assert(fabs(got - want) <= rel * scale, "%s: got %.9g, expected %.9g", what, got, want);
}

typedef struct props { float mass, com[3], inertia[6]; } props;

static props get(int shape, float sx, float sy, float sz, float density)
{
    props p;
    float size[3] = {sx, sy, sz};
    tp_shape_mass_props(shape, size, density, &p.mass, p.com, p.inertia);
    return p;
}

Test(shapes, box_mass_and_inertia)
{
    double a = 0.6, b = 1.4, c = 2.2, rho = 1000.0, m = rho * a * b * c;
    props p = get(TP_SHAPE_BOX, 0.6f, 1.4f, 2.2f, 1000.0f);
    assert_rel(p.mass, m, REL, "mass");
    assert_rel(p.inertia[0], m * (b * b + c * c) / 12.0, REL, "Ixx");
    assert_rel(p.inertia[1], m * (a * a + c * c) / 12.0, REL, "Iyy");
    assert_rel(p.inertia[2], m * (a * a + b * b) / 12.0, REL, "Izz");
    for (int k = 3; k < 6; ++k) cr_assert_eq(p.inertia[k], 0.0f);
    for (int k = 0; k < 3; ++k) cr_assert_eq(p.com[k], 0.0f);
}

Test(shapes, ball_takes_the_smallest_extent_as_diameter)
{
    double d = 0.5, r = 0.25, m = 300.0 * PI_D * d * d * d / 6.0;
    props p = get(TP_SHAPE_BALL, 4.0f, 0.5f, 1.0f, 300.0f);
    assert_rel(p.mass, m, REL, "mass");
    for (int k = 0; k < 3; ++k) assert_rel(p.inertia[k], 0.4 * m * r * r, REL, "I");
}

Test(shapes, cylinder_along_x_uses_the_round_solid)
{
    double L = 1.5, r = 0.3, m = 1000.0 * PI_D * r * r * L;
    props p = get(TP_SHAPE_CYLINDER, 1.5f, 0.6f, 0.9f, 1000.0f);
    assert_rel(p.mass, m, REL, "mass");
    assert_rel(p.inertia[0], m * r * r / 2.0, REL, "Ixx");
    assert_rel(p.inertia[1], m * (3.0 * r * r + L * L) / 12.0, REL, "Iyy");
    assert_rel(p.inertia[2], m * (3.0 * r * r + L * L) / 12.0, REL, "Izz");
}

/* Capsule by slices along x: each slice a disc of radius rho(x), with area
 * pi rho^2, polar moment pi rho^4 / 2 and diametral moment pi rho^4 / 4. */
Test(shapes, capsule_against_slice_integration)
{
    const double L = 2.0, r = 0.35, h = L - 2.0 * r, rho_d = 800.0;
    const int N = 20000;
    double vol = 0.0, ixx = 0.0, iyy = 0.0, dx = L / N;
    for (int i = 0; i < N; ++i) {
        double x = -L / 2.0 + (i + 0.5) * dx, ax = fabs(x);
        double rr = ax <= h / 2.0 ? r * r : r * r - (ax - h / 2.0) * (ax - h / 2.0);
        if (rr < 0.0) rr = 0.0;
        vol += PI_D * rr * dx;
        ixx += PI_D * rr * rr / 2.0 * dx;
        iyy += (PI_D * rr * rr / 4.0 + x * x * PI_D * rr) * dx;
    }
    props p = get(TP_SHAPE_CAPSULE, 2.0f, 0.7f, 0.8f, 800.0f);
    double closed = PI_D * r * r * h + 4.0 / 3.0 * PI_D * r * r * r;
    assert_rel(p.mass, rho_d * closed, REL, "mass closed form");
    assert_rel(p.mass, rho_d * vol, 2e-5, "mass by slices");
    assert_rel(p.inertia[0], rho_d * ixx, 2e-5, "Ixx by slices");
    assert_rel(p.inertia[1], rho_d * iyy, 2e-5, "Iyy by slices");
    assert_rel(p.inertia[2], rho_d * iyy, 2e-5, "Izz by slices");
}

/* Mass moments of a solid given as slices along one axis whose cross-sections
 * are rectangles [u0, u1] x [v0, v1]: the rectangle moments are exact, the
 * slice axis uses the midpoint rule. Coordinates are permuted back to xyz by
 * `axis` (the slice axis) and the (u, v) axes that follow it cyclically. */
typedef struct moments { double m, c[3], s[3][3]; } moments;

static void rect_slice(moments *mo, int axis, double w, double dw, double u0, double u1, double v0, double v1)
{
    if (u1 <= u0 || v1 <= v0) return;
    double a = (u1 - u0) * (v1 - v0) * dw;
    double cu = 0.5 * (u0 + u1), cv = 0.5 * (v0 + v1);
    double uu = (u1 * u1 + u1 * u0 + u0 * u0) / 3.0, vv = (v1 * v1 + v1 * v0 + v0 * v0) / 3.0;
    double x[3];
    int iu = (axis + 1) % 3, iv = (axis + 2) % 3;
    x[axis] = w;
    x[iu] = cu;
    x[iv] = cv;
    mo->m += a;
    for (int i = 0; i < 3; ++i) mo->c[i] += a * x[i];
    /* E[x_i x_j] over the rectangle: independent u and v */
    double e[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) e[i][j] = x[i] * x[j];
    e[iu][iu] = uu;
    e[iv][iv] = vv;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) mo->s[i][j] += a * e[i][j];
}

static void check_against_moments(const props *p, const moments *mo, double density, const char *name)
{
    double m = density * mo->m, c[3], I[3][3], cov[3][3];
    for (int i = 0; i < 3; ++i) c[i] = mo->c[i] / mo->m;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) cov[i][j] = density * mo->s[i][j] - m * c[i] * c[j];
    double tr = cov[0][0] + cov[1][1] + cov[2][2];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) I[i][j] = (i == j ? tr : 0.0) - cov[i][j];
    double scale = I[0][0] + I[1][1] + I[2][2];
    assert_rel(p->mass, m, 2e-5, name);
    for (int i = 0; i < 3; ++i)
        cr_assert(fabs(p->com[i] - c[i]) <= 2e-6, "%s: com[%d] %.9g, expected %.9g", name, i, p->com[i], c[i]);
    const int idx[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
    for (int k = 0; k < 6; ++k)
        cr_assert(fabs(p->inertia[k] - I[idx[k][0]][idx[k][1]]) <= 2e-5 * scale,
                  "%s: inertia[%d] %.9g, expected %.9g", name, k, p->inertia[k], I[idx[k][0]][idx[k][1]]);
}

/* Wedge, sliced along y: at y the solid is x in [-hx, hx], z from the bottom
 * up to the slope, which falls from +hz at the back (y = -hy) to -hz at the
 * front. The yz product term is what this checks most. */
Test(shapes, wedge_against_slice_integration)
{
    const double sx = 1.2, sy = 2.0, sz = 0.8, hx = sx / 2, hy = sy / 2, hz = sz / 2;
    const int N = 20000;
    moments mo = {0};
    double dy = sy / N;
    for (int i = 0; i < N; ++i) {
        double y = -hy + (i + 0.5) * dy;
        double ztop = hz - (y + hy) * (sz / sy);
        rect_slice(&mo, 1, y, dy, -hz, ztop, -hx, hx); /* slice axis y: u = z, v = x */
    }
    props p = get(TP_SHAPE_WEDGE, (float)sx, (float)sy, (float)sz, 500.0f);
    assert_rel(p.mass, 500.0 * sx * sy * sz / 2.0, REL, "wedge mass closed form");
    check_against_moments(&p, &mo, 500.0, "wedge");
    cr_assert(p.inertia[5] > 0.0f, "the yz tensor entry of a wedge is positive");
}

/* Corner wedge, sliced along z: at height z the pyramid is the bottom
 * rectangle shrunk towards the apex corner (+hx, +hy): x in [hx - s sx, hx],
 * y in [hy - s sy, hy] with s = (hz - z) / sz. */
Test(shapes, corner_wedge_against_slice_integration)
{
    const double sx = 1.0, sy = 1.6, sz = 2.4, hx = sx / 2, hy = sy / 2, hz = sz / 2;
    const int N = 20000;
    moments mo = {0};
    double dz = sz / N;
    for (int i = 0; i < N; ++i) {
        double z = -hz + (i + 0.5) * dz, s = (hz - z) / sz;
        rect_slice(&mo, 2, z, dz, hx - s * sx, hx, hy - s * sy, hy); /* slice axis z: u = x, v = y */
    }
    props p = get(TP_SHAPE_CORNER_WEDGE, (float)sx, (float)sy, (float)sz, 1000.0f);
    assert_rel(p.mass, 1000.0 * sx * sy * sz / 3.0, REL, "corner wedge mass closed form");
    check_against_moments(&p, &mo, 1000.0, "corner wedge");
}

Test(shapes, capsule_shorter_than_its_diameter_is_refused)
{
    char msg[200];
    float ok[3] = {1.0f, 0.5f, 0.5f}, bad[3] = {0.4f, 0.5f, 0.6f}, neg[3] = {1.0f, -1.0f, 1.0f};
    cr_assert_eq(tp_shape_validate(TP_SHAPE_CAPSULE, ok, msg, sizeof msg), 0);
    cr_assert_eq(tp_shape_validate(TP_SHAPE_CAPSULE, bad, msg, sizeof msg), -1);
    cr_assert(strstr(msg, "capsule") && strstr(msg, "diameter"), "message: %s", msg);
    cr_assert_eq(tp_shape_validate(TP_SHAPE_BOX, neg, msg, sizeof msg), -1);
    cr_assert(strstr(msg, "size[1]"), "message: %s", msg);
    /* equal to the diameter: a ball-shaped capsule with a zero core */
    float eq[3] = {0.5f, 0.5f, 0.5f};
    cr_assert_eq(tp_shape_validate(TP_SHAPE_CAPSULE, eq, msg, sizeof msg), 0);
    cr_assert_eq(tp_capsule_half_core(eq), 0.0f);
}

/* ------------------------------------------------------------ polyhedra */

/* Volume by the divergence theorem: sum over faces of area x d / 3. */
static double poly_volume(const tp_poly *p)
{
    double v = 0.0;
    for (int f = 0; f < p->nf; ++f) {
        const tp_poly_face *face = &p->f[f];
        tp_vec3 a = p->v[face->vert[0]];
        double area = 0.0;
        for (int k = 1; k + 1 < face->count; ++k) {
            tp_vec3 c = tp_cross(tp_sub(p->v[face->vert[k]], a), tp_sub(p->v[face->vert[k + 1]], a));
            area += 0.5 * tp_dot(c, face->n);
        }
        v += area * face->d / 3.0;
    }
    return v;
}

static void check_poly(int shape, float sx, float sy, float sz, double volume)
{
    float size[3] = {sx, sy, sz};
    tp_poly p;
    cr_assert_eq(tp_poly_build(&p, shape, size), 1);
    cr_assert_eq(p.nv - p.ne + p.nf, 2, "Euler characteristic of shape %d", shape);
    float bound = tp_shape_bound_radius(shape, size);
    tp_vec3 he = tp_shape_half_extents(shape, size);
    for (int f = 0; f < p.nf; ++f) {
        cr_assert_float_eq(tp_len(p.f[f].n), 1.0f, 1e-6f);
        for (int k = 0; k < p.f[f].count; ++k) /* planar faces */
            cr_assert_float_eq(tp_dot(p.f[f].n, p.v[p.f[f].vert[k]]), p.f[f].d, 2e-6f);
        for (int i = 0; i < p.nv; ++i) /* convex: every vertex behind every face */
            cr_assert(tp_dot(p.f[f].n, p.v[i]) - p.f[f].d <= 2e-6f);
    }
    for (int e = 0; e < p.ne; ++e) cr_assert_neq(p.e[e].f[0], p.e[e].f[1], "edge %d has one face", e);
    for (int i = 0; i < p.nv; ++i) {
        cr_assert(tp_len(p.v[i]) <= bound * (1.0f + 1e-6f));
        cr_assert(fabsf(p.v[i].x) <= he.x && fabsf(p.v[i].y) <= he.y * 1.000001f && fabsf(p.v[i].z) <= he.z * 1.000001f);
    }
    assert_rel(poly_volume(&p), volume, 1e-5, "polyhedron volume");
}

Test(shapes, collision_polyhedra_are_closed_convex_and_have_the_right_volume)
{
    check_poly(TP_SHAPE_BOX, 1.0f, 2.0f, 3.0f, 6.0);
    check_poly(TP_SHAPE_WEDGE, 1.0f, 2.0f, 3.0f, 3.0);
    check_poly(TP_SHAPE_CORNER_WEDGE, 1.0f, 2.0f, 3.0f, 2.0);
    /* the round shapes have no polyhedron (the cylinder collides as a round
     * cylinder, collide_cylinder.h) */
    tp_poly p;
    float size[3] = {1, 1, 1};
    cr_assert_eq(tp_poly_build(&p, TP_SHAPE_BALL, size), 0);
    cr_assert_eq(tp_poly_build(&p, TP_SHAPE_CAPSULE, size), 0);
    cr_assert_eq(tp_poly_build(&p, TP_SHAPE_CYLINDER, size), 0);
}

Test(shapes, wedge_faces_follow_the_documented_orientation)
{
    float size[3] = {1.0f, 2.0f, 1.0f};
    tp_poly p;
    tp_poly_build(&p, TP_SHAPE_WEDGE, size);
    /* bottom full at z = -0.5, back face tall at y = -1, no vertex at (y = +1, z = +0.5) */
    int bottom = 0, back = 0, front_top = 0;
    for (int i = 0; i < p.nv; ++i) {
        if (p.v[i].z == -0.5f) bottom++;
        if (p.v[i].y == -1.0f) back++;
        if (p.v[i].y == 1.0f && p.v[i].z == 0.5f) front_top++;
    }
    cr_assert_eq(bottom, 4);
    cr_assert_eq(back, 4);
    cr_assert_eq(front_top, 0);
    tp_poly_build(&p, TP_SHAPE_CORNER_WEDGE, size);
    cr_assert_eq(p.nv, 5);
    cr_assert(p.v[4].x == 0.5f && p.v[4].y == 1.0f && p.v[4].z == 0.5f, "apex above the (+x, +y) corner");
}

Test(shapes, bounds)
{
    float cap[3] = {3.0f, 1.0f, 2.0f}, cyl[3] = {2.0f, 1.0f, 2.0f}, box[3] = {2.0f, 2.0f, 1.0f};
    cr_assert_float_eq(tp_shape_bound_radius(TP_SHAPE_CAPSULE, cap), 1.5f, 1e-6f);
    cr_assert_float_eq(tp_shape_bound_radius(TP_SHAPE_CYLINDER, cyl), sqrtf(1.25f), 1e-6f);
    cr_assert_float_eq(tp_shape_bound_radius(TP_SHAPE_BOX, box), 1.5f, 1e-6f);
    cr_assert_float_eq(tp_shape_bound_radius(TP_SHAPE_BALL, box), 0.5f, 1e-6f);
}
