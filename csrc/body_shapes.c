/* body_shapes.c - compound bodies (several shapes per body) and given mass
 * properties, on the host: the checks of their definitions and the mass
 * properties of a compound body. What the step does with the shapes is
 * kernels/compound.h; the scene keys are read by csrc/scene_shapes.c.
 *
 * Mass properties of a compound body: each shape's mass m_i (density x its
 * true volume), centre c_i and inertia I_i about it come from
 * tp_shape_mass_props (kernels/shapes.h) in the shape's frame; turned into the
 * body frame by the shape's pose (c_i' = p_i + R_i c_i, I_i' = R_i I_i R_i^T)
 * they add up by the parallel-axis theorem (e.g. Goldstein, Classical
 * Mechanics, 3rd ed., section 5.3):
 *   m = sum m_i,   c = sum m_i c_i' / m,
 *   I = sum I_i' + m_i (|d_i|^2 E - d_i d_i^T),   d_i = c_i' - c.
 * Shapes that overlap count their common volume twice (as MuJoCo does with
 * geoms); give `mass`, `com` and `inertia` to override. Sums run in double
 * and are rounded to float once. */
#include "hull.h"
#include "model.h"
#include "shapes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

tp_shape_def tp_default_shape_def(void)
{
    tp_shape_def d;
    memset(&d, 0, sizeof d);
    d.shape = TP_SHAPE_BOX;
    d.size[0] = d.size[1] = d.size[2] = 1.0f;
    d.quat[3] = 1.0f;
    return d;
}

static int all_finite(const float *v, int n)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* One shape of a compound body; `at` is its path ("shapes[2]"). */
static int shape_def_check(const tp_shape_def *s, const char *at, char *field, size_t field_len, char *reason,
                           size_t reason_len)
{
    char path[48];
    if ((unsigned)s->sensor > 1u) {
        snprintf(path, sizeof path, "%s.sensor", at);
        return CHECK_FAIL(path, "must be 0 or 1, got %d", s->sensor);
    }
    if ((unsigned)s->shape >= TP_SHAPE_COUNT) {
        snprintf(path, sizeof path, "%s.shape", at);
        return CHECK_FAIL(path, "unknown shape %d", (int)s->shape);
    }
    if (!tp_shape_vertices_check(s->shape, s->vertices, s->vertex_count, at, field, field_len, reason, reason_len))
        return 0;
    for (int k = 0; k < 3 && s->shape != TP_SHAPE_CONVEX; ++k) { /* a hull's size comes from its vertices */
        snprintf(path, sizeof path, "%s.size[%d]", at, k);
        if (!isfinite(s->size[k]) || !(s->size[k] > 0.0f))
            return CHECK_FAIL(path, "must be > 0, got %g", (double)s->size[k]);
        if (s->size[k] < TP_MIN_SIZE || s->size[k] > TP_MAX_SIZE)
            return CHECK_FAIL(path, "must be within [%g, %g] m (docs/scene-format.md, \"Bounds\"), got %g",
                              (double)TP_MIN_SIZE, (double)TP_MAX_SIZE, (double)s->size[k]);
    }
    char shape_reason[160];
    snprintf(path, sizeof path, "%s.size", at);
    if (s->shape != TP_SHAPE_CONVEX && tp_shape_validate(s->shape, s->size, shape_reason, sizeof shape_reason) != 0)
        return CHECK_FAIL(path, "%s", shape_reason);
    snprintf(path, sizeof path, "%s.pos", at);
    if (!all_finite(s->pos, 3)) return CHECK_FAIL(path, "must be finite");
    for (int k = 0; k < 3; ++k) { /* a shape far out makes the bounding sphere (and its speed bound) infinite */
        snprintf(path, sizeof path, "%s.pos[%d]", at, k);
        if (!(fabsf(s->pos[k]) <= TP_MAX_SIZE))
            return CHECK_FAIL(path, "must be within [%g, %g] m of the body frame (docs/scene-format.md, \"Bounds\"), got %g",
                              -(double)TP_MAX_SIZE, (double)TP_MAX_SIZE, (double)s->pos[k]);
    }
    snprintf(path, sizeof path, "%s.quat", at);
    if (!all_finite(s->quat, 4)) return CHECK_FAIL(path, "must be finite");
    if (s->quat[0] == 0.0f && s->quat[1] == 0.0f && s->quat[2] == 0.0f && s->quat[3] == 0.0f)
        return CHECK_FAIL(path, "must not be the zero quaternion");
    snprintf(path, sizeof path, "%s.density", at);
    if (!isfinite(s->density) || s->density < 0.0f)
        return CHECK_FAIL(path, "must be > 0 kg/m^3 (or 0 for the body's density), got %g", (double)s->density);
    return 1;
}

/* A given inertia tensor must be one a body can have: finite, positive
 * definite (Sylvester's criterion), moments in [1e-30, 1e30] kg m^2 (so the
 * inverse stays a normal float), and each diagonal moment at most the sum of
 * the other two (I_xx + I_yy - I_zz = 2 int z^2 dm >= 0 in any frame). */
static int inertia_check(const float *t, char *field, size_t field_len, char *reason, size_t reason_len)
{
    if (!all_finite(t, 6)) return CHECK_FAIL("inertia", "must be finite");
    for (int k = 0; k < 3; ++k)
        if (!(t[k] >= 1e-30f && t[k] <= 1e30f)) {
            char path[32];
            snprintf(path, sizeof path, "inertia[%d]", k);
            return CHECK_FAIL(path, "a moment of inertia must be within [1e-30, 1e30] kg m^2, got %g", (double)t[k]);
        }
    double xx = t[0], yy = t[1], zz = t[2], xy = t[3], xz = t[4], yz = t[5];
    for (int k = 0; k < 3; ++k) {
        double sum = (double)t[(k + 1) % 3] + (double)t[(k + 2) % 3];
        if ((double)t[k] > sum * (1.0 + 1e-6))
            return CHECK_FAIL("inertia", "moment %d (%g) exceeds the sum of the other two (%g): no body has it", k,
                              (double)t[k], sum);
    }
    double m2 = xx * yy - xy * xy;
    double det = xx * (yy * zz - yz * yz) - xy * (xy * zz - yz * xz) + xz * (xy * yz - yy * xz);
    if (!(m2 > 0.0) || !(det > 0.0)) return CHECK_FAIL("inertia", "must be positive definite");
    return 1;
}

int tp_body_shapes_check(const tp_body_def *def, char *field, size_t field_len, char *reason, size_t reason_len)
{
    if (def->shape_count < 0 || def->shape_count > TP_MAX_BODY_SHAPES)
        return CHECK_FAIL("shapes", "must hold 1 to %d shapes, got %d", TP_MAX_BODY_SHAPES, def->shape_count);
    if (def->shape_count > 0 && !def->shapes)
        return CHECK_FAIL("shapes", "is NULL with shape_count %d", def->shape_count);
    for (int i = 0; i < def->shape_count; ++i) {
        char at[24];
        snprintf(at, sizeof at, "shapes[%d]", i);
        if (!shape_def_check(&def->shapes[i], at, field, field_len, reason, reason_len)) return 0;
    }
    if (def->has_com && !all_finite(def->com, 3)) return CHECK_FAIL("com", "must be finite");
    for (int k = 0; def->has_com && k < 3; ++k) /* as a shape's pos: a far centre turns any spin into a flight */
        if (!(fabsf(def->com[k]) <= TP_MAX_SIZE)) {
            char path[32];
            snprintf(path, sizeof path, "com[%d]", k);
            return CHECK_FAIL(path, "must be within [%g, %g] m of the body frame (docs/scene-format.md, \"Bounds\"), got %g",
                              -(double)TP_MAX_SIZE, (double)TP_MAX_SIZE, (double)def->com[k]);
        }
    if (def->has_inertia && !inertia_check(def->inertia, field, field_len, reason, reason_len)) return 0;
    return 1;
}

int tp_shape_vertices_check(int shape, const float *vertices, int count, const char *at, char *field, size_t field_len,
                            char *reason, size_t reason_len)
{
    char path[48];
    snprintf(path, sizeof path, "%s%svertices", at ? at : "", at ? "." : "");
    if (shape != TP_SHAPE_CONVEX) {
        if (vertices || count != 0)
            return CHECK_FAIL(path, "only a convex shape takes vertices (this one is a %s)", tp_shape_name(shape));
        return 1;
    }
    tp_hull h;
    char why[200];
    if (!tp_hull_build(vertices, count, &h, why, sizeof why)) return CHECK_FAIL(path, "%s", why);
    return 1;
}

void tp_shape_model_from_def(const tp_shape_def *d, tp_shape_model *out)
{
    memset(out, 0, sizeof *out);
    out->shape = (uint8_t)d->shape;
    memcpy(out->size, d->size, sizeof out->size);
    memcpy(out->pos, d->pos, sizeof out->pos);
    tp_q_store(out->quat, tp_q_normalize_any(tp_q_load(d->quat)));
}

static double shape_density(const tp_body_def *def, int i)
{
    return def->shapes[i].density > 0.0f ? (double)def->shapes[i].density : (double)def->density;
}

double tp_compound_density_mass(const tp_body_def *def)
{
    double m = 0.0;
    for (int i = 0; i < def->shape_count; ++i)
    {
        const tp_shape_def *s = &def->shapes[i];
        float vol, c[3], ii[6];
        tp_shape_unit_mass_props(s->shape, s->size, s->vertices, s->vertex_count, &vol, c, ii);
        m += shape_density(def, i) * (double)vol;
    }
    return m;
}

/* Rotation matrix of a unit quaternion [x y z w], in double. */
static void quat_matrix(const float *qf, double r[3][3])
{
    double x = qf[0], y = qf[1], z = qf[2], w = qf[3];
    r[0][0] = 1 - 2 * (y * y + z * z); r[0][1] = 2 * (x * y - w * z);     r[0][2] = 2 * (x * z + w * y);
    r[1][0] = 2 * (x * y + w * z);     r[1][1] = 1 - 2 * (x * x + z * z); r[1][2] = 2 * (y * z - w * x);
    r[2][0] = 2 * (x * z - w * y);     r[2][1] = 2 * (y * z + w * x);     r[2][2] = 1 - 2 * (x * x + y * y);
}

/* Symmetric 3x3 from xx yy zz xy xz yz, and back. */
static void sym_full(const float *s, double m[3][3])
{
    m[0][0] = s[0]; m[1][1] = s[1]; m[2][2] = s[2];
    m[0][1] = m[1][0] = s[3];
    m[0][2] = m[2][0] = s[4];
    m[1][2] = m[2][1] = s[5];
}

void tp_compound_mass_props(const tp_body_def *def, float *mass, float com[3], float inertia[6])
{
    int n = def->shape_count;
    double m[TP_MAX_BODY_SHAPES], c[TP_MAX_BODY_SHAPES][3], I[3][3] = {{0}}, total = 0.0, centre[3] = {0, 0, 0};
    double Ii[TP_MAX_BODY_SHAPES][3][3];
    for (int i = 0; i < n; ++i) {
        const tp_shape_def *s = &def->shapes[i];
        tp_shape_model sm;
        tp_shape_model_from_def(s, &sm);
        float vol, ci[3], ii[6];
        tp_shape_unit_mass_props(s->shape, s->size, s->vertices, s->vertex_count, &vol, ci, ii);
        double rho = shape_density(def, i), r[3][3], local[3][3];
        quat_matrix(sm.quat, r);
        sym_full(ii, local);
        m[i] = rho * (double)vol;
        for (int a = 0; a < 3; ++a) {
            c[i][a] = (double)sm.pos[a];
            for (int b = 0; b < 3; ++b) c[i][a] += r[a][b] * (double)ci[b];
        }
        for (int a = 0; a < 3; ++a) /* R I R^T, scaled by the density */
            for (int b = 0; b < 3; ++b) {
                double v = 0.0;
                for (int k = 0; k < 3; ++k)
                    for (int l = 0; l < 3; ++l) v += r[a][k] * local[k][l] * r[b][l];
                Ii[i][a][b] = rho * v;
            }
        total += m[i];
        for (int a = 0; a < 3; ++a) centre[a] += m[i] * c[i][a];
    }
    for (int a = 0; a < 3; ++a) centre[a] /= total;
    for (int i = 0; i < n; ++i) {
        double d[3] = {c[i][0] - centre[0], c[i][1] - centre[1], c[i][2] - centre[2]};
        double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) I[a][b] += Ii[i][a][b] + m[i] * ((a == b ? d2 : 0.0) - d[a] * d[b]);
    }
    double scale = def->mass > 0.0f ? (double)def->mass / total : 1.0;
    *mass = (float)(total * scale);
    for (int a = 0; a < 3; ++a) com[a] = (float)centre[a];
    inertia[0] = (float)(I[0][0] * scale);
    inertia[1] = (float)(I[1][1] * scale);
    inertia[2] = (float)(I[2][2] * scale);
    inertia[3] = (float)(I[0][1] * scale);
    inertia[4] = (float)(I[0][2] * scale);
    inertia[5] = (float)(I[1][2] * scale);
}

float tp_compound_bound_radius(const tp_body_def *def)
{
    float r = 0.0f;
    for (int i = 0; i < def->shape_count; ++i) {
        const tp_shape_def *s = &def->shapes[i];
        float d = sqrtf(s->pos[0] * s->pos[0] + s->pos[1] * s->pos[1] + s->pos[2] * s->pos[2]);
        r = fmaxf(r, d + tp_shape_bound_radius(s->shape, s->size));
    }
    return r * (1.0f + 1e-6f); /* rounding of the sum must not shrink the sphere */
}
