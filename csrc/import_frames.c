/* import_frames.c - poses and mass properties for the importers (import_frames.h). */
#define _DEFAULT_SOURCE /* strdup, M_PI under -std=c11 */
#include "import_frames.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void fq_identity(double q[4]) { q[0] = q[1] = q[2] = 0.0; q[3] = 1.0; }

void fq_mul(const double a[4], const double b[4], double out[4])
{
    double r[4];
    r[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    r[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    r[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    r[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    memcpy(out, r, sizeof r);
}

void fq_rotate(const double q[4], const double v[3], double out[3])
{
    double r[3][3];
    fq_to_matrix(q, r);
    double o[3];
    for (int i = 0; i < 3; ++i) o[i] = r[i][0] * v[0] + r[i][1] * v[1] + r[i][2] * v[2];
    memcpy(out, o, sizeof o);
}

void fq_normalize(double q[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n == 0.0) { fq_identity(q); return; }
    for (int k = 0; k < 4; ++k) q[k] /= n;
}

void fq_axis_angle(const double axis[3], double angle, double out[4])
{
    double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    double s = n > 0.0 ? sin(0.5 * angle) / n : 0.0;
    out[0] = axis[0] * s;
    out[1] = axis[1] * s;
    out[2] = axis[2] * s;
    out[3] = cos(0.5 * angle);
}

void fq_to_matrix(const double q[4], double r[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    r[0][0] = 1 - 2 * (y * y + z * z); r[0][1] = 2 * (x * y - z * w); r[0][2] = 2 * (x * z + y * w);
    r[1][0] = 2 * (x * y + z * w); r[1][1] = 1 - 2 * (x * x + z * z); r[1][2] = 2 * (y * z - x * w);
    r[2][0] = 2 * (x * z - y * w); r[2][1] = 2 * (y * z + x * w); r[2][2] = 1 - 2 * (x * x + y * y);
}

/* Shepperd's method: the largest of w, x, y, z first. */
void fq_from_matrix(const double r[3][3], double out[4])
{
    double t = r[0][0] + r[1][1] + r[2][2];
    if (t > 0.0) {
        double s = 2.0 * sqrt(1.0 + t);
        out[3] = 0.25 * s;
        out[0] = (r[2][1] - r[1][2]) / s;
        out[1] = (r[0][2] - r[2][0]) / s;
        out[2] = (r[1][0] - r[0][1]) / s;
    } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
        double s = 2.0 * sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]);
        out[3] = (r[2][1] - r[1][2]) / s;
        out[0] = 0.25 * s;
        out[1] = (r[0][1] + r[1][0]) / s;
        out[2] = (r[0][2] + r[2][0]) / s;
    } else if (r[1][1] > r[2][2]) {
        double s = 2.0 * sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]);
        out[3] = (r[0][2] - r[2][0]) / s;
        out[0] = (r[0][1] + r[1][0]) / s;
        out[1] = 0.25 * s;
        out[2] = (r[1][2] + r[2][1]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]);
        out[3] = (r[1][0] - r[0][1]) / s;
        out[0] = (r[0][2] + r[2][0]) / s;
        out[1] = (r[1][2] + r[2][1]) / s;
        out[2] = 0.25 * s;
    }
    fq_normalize(out);
}

void fq_between(const double a[3], const double b[3], double out[4])
{
    double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    if (d < -1.0 + 1e-12) { /* opposite: half a turn about any axis normal to a */
        double p[3] = {0.0, -a[2], a[1]};
        if (fabs(a[0]) > 0.9) { p[0] = -a[2]; p[1] = 0.0; p[2] = a[0]; }
        fq_axis_angle(p, M_PI, out);
        return;
    }
    out[0] = c[0];
    out[1] = c[1];
    out[2] = c[2];
    out[3] = 1.0 + d;
    fq_normalize(out);
}

void fr_compose(const fr_pose *parent, const fr_pose *local, fr_pose *out)
{
    fr_pose r;
    fq_rotate(parent->quat, local->pos, r.pos);
    for (int k = 0; k < 3; ++k) r.pos[k] += parent->pos[k];
    fq_mul(parent->quat, local->quat, r.quat);
    fq_normalize(r.quat);
    *out = r;
}

void fr_relative(const fr_pose *parent, const fr_pose *world, fr_pose *out)
{
    double inv[4] = {-parent->quat[0], -parent->quat[1], -parent->quat[2], parent->quat[3]};
    double d[3] = {world->pos[0] - parent->pos[0], world->pos[1] - parent->pos[1], world->pos[2] - parent->pos[2]};
    fr_pose r;
    fq_rotate(inv, d, r.pos);
    fq_mul(inv, world->quat, r.quat);
    fq_normalize(r.quat);
    *out = r;
}

void fm_add_full(fm_sum *s, double m, const double c[3], const double t[6])
{
    double r2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    s->mass += m;
    for (int k = 0; k < 3; ++k) s->first[k] += m * c[k];
    /* parallel axis to the origin: m (|c|^2 E - c c^T) */
    s->inertia_origin[0] += t[0] + m * (r2 - c[0] * c[0]);
    s->inertia_origin[1] += t[1] + m * (r2 - c[1] * c[1]);
    s->inertia_origin[2] += t[2] + m * (r2 - c[2] * c[2]);
    s->inertia_origin[3] += t[3] - m * c[0] * c[1];
    s->inertia_origin[4] += t[4] - m * c[0] * c[2];
    s->inertia_origin[5] += t[5] - m * c[1] * c[2];
}

void fm_rotate_tensor(const double q[4], const double t6[6], double out[6])
{
    double r[3][3], rt[3][3];
    double t[3][3] = {{t6[0], t6[3], t6[4]}, {t6[3], t6[1], t6[5]}, {t6[4], t6[5], t6[2]}};
    fq_to_matrix(q, r);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            rt[i][j] = 0.0;
            for (int k = 0; k < 3; ++k)
                for (int l = 0; l < 3; ++l) rt[i][j] += r[i][k] * t[k][l] * r[j][l];
        }
    out[0] = rt[0][0]; out[1] = rt[1][1]; out[2] = rt[2][2];
    out[3] = rt[0][1]; out[4] = rt[0][2]; out[5] = rt[1][2];
}

void fm_add(fm_sum *s, double m, const double c[3], const double q[4], const double diag[3])
{
    double d[6] = {diag[0], diag[1], diag[2], 0.0, 0.0, 0.0}, full[6];
    fm_rotate_tensor(q, d, full);
    fm_add_full(s, m, c, full);
}

int fm_result(const fm_sum *s, double com[3], double inertia[6])
{
    if (!(s->mass > 0.0)) return 0;
    for (int k = 0; k < 3; ++k) com[k] = s->first[k] / s->mass;
    double m = s->mass, r2 = com[0] * com[0] + com[1] * com[1] + com[2] * com[2];
    inertia[0] = s->inertia_origin[0] - m * (r2 - com[0] * com[0]);
    inertia[1] = s->inertia_origin[1] - m * (r2 - com[1] * com[1]);
    inertia[2] = s->inertia_origin[2] - m * (r2 - com[2] * com[2]);
    inertia[3] = s->inertia_origin[3] + m * com[0] * com[1];
    inertia[4] = s->inertia_origin[4] + m * com[0] * com[2];
    inertia[5] = s->inertia_origin[5] + m * com[1] * com[2];
    return 1;
}

int fm_inertia_impossible(const double t[6], char *why, size_t why_len)
{
    for (int k = 0; k < 3; ++k) {
        double other = t[(k + 1) % 3] + t[(k + 2) % 3];
        if (!(t[k] > 0.0)) {
            snprintf(why, why_len, "moment %d (%g) must be > 0", k, t[k]);
            return 1;
        }
        if (t[k] > other * (1.0 + 1e-9)) {
            snprintf(why, why_len, "moment %d (%g) exceeds the sum of the other two (%g): no body has it", k, t[k], other);
            return 1;
        }
    }
    /* Sylvester's criterion on the 2x2 and 3x3 leading minors */
    double m2 = t[0] * t[1] - t[3] * t[3];
    double m3 = t[0] * (t[1] * t[2] - t[5] * t[5]) - t[3] * (t[3] * t[2] - t[5] * t[4]) + t[4] * (t[3] * t[5] - t[1] * t[4]);
    if (!(m2 > 0.0) || !(m3 > 0.0)) {
        snprintf(why, why_len, "the tensor is not positive definite");
        return 1;
    }
    return 0;
}
