/* collide_touch.h - the touching features of the shapes of a cylinder pair
 * (collide_cylinder.h): given a contact normal from GJK / MPR, the polygon
 * (a polyhedron face, a cylinder cap as a rim of TP_CYL_RIM points plus its
 * disc), segment (a polyhedron edge, a capsule core, a cylinder side as its
 * axis plus r) or point of each shape that faces the other, in the pair's
 * computation frame, with the vertex and edge numbers that become feature ids
 * (numbering in collide_cylinder.h). Also the nearest point of a solid
 * cylinder to a point, shared by the ball pair and the feature pairs. */
#ifndef TP_COLLIDE_TOUCH_H
#define TP_COLLIDE_TOUCH_H

#include "collide_support.h"

/* A feature counts as facing n when its normal is within acos(0.99) ~ 8.1
 * degrees of n, and as lying across n when its direction is within the same
 * angle of perpendicular (sin = 0.1411). */
#define TP_FEATURE_COS 0.99f
#define TP_FEATURE_SIN 0.1411f

#if TP_POLY_MAX_FACE_VERTS > TP_CYL_RIM
#error "a polyhedron face must fit in tp_touch.p (TP_CYL_RIM points)"
#endif

enum { TP_TOUCH_POINT = 0, TP_TOUCH_SEGMENT = 1, TP_TOUCH_POLYGON = 2 };

/* One shape of a pair: its core and the radius around it. */
typedef struct tp_cyl_shape {
    tp_core core;
    float radius; /* capsule, ball: r; 0 otherwise */
} tp_cyl_shape;

/* The touching feature of a shape, in the computation frame. */
typedef struct tp_touch {
    int kind;      /* TP_TOUCH_* */
    int count;     /* polygon vertices (CCW seen from outside); 2 segment; 1 point */
    int id;        /* polygon: face number (cylinder: cap 0 / 1) */
    int disc;      /* polygon is a cylinder cap: centre, rc hold the true disc */
    int side;      /* segment is a cylinder's side: its axis grown by r
                      perpendicular to the axis only (not a capsule) */
    int rim;       /* point is a cylinder rim point chosen by the GJK / MPR
                      normal, so only as good as that normal */
    float radius;  /* segment, point: radius around the core (cylinder side: r) */
    tp_vec3 n;     /* polygon: outward unit normal */
    float d;       /* polygon: plane offset, dot(n, x) = d */
    tp_vec3 centre;
    float rc;
    tp_vec3 p[TP_CYL_RIM];
    uint8_t vid[TP_CYL_RIM], eid[TP_CYL_RIM];
} tp_touch;

/* cos(k pi / 8) for any integer k, from a table (no trigonometry in the step). */
TP_HD float tp_cos_pi8(int k)
{
    const float c[5] = {1.0f, 0.923879532511287f, 0.707106781186548f, 0.382683432365090f, 0.0f};
    k &= 15;
    if (k <= 4) return c[k];
    if (k <= 8) return -c[8 - k];
    if (k <= 12) return -c[k - 8];
    return c[16 - k];
}
TP_HD float tp_sin_pi8(int k) { return tp_cos_pi8(k - 4); }

/* given: the shape's polytope when the caller has it (a convex hull always
 * comes so), else NULL and a polyhedron is built into `scratch`. */
TP_HD void tp_cyl_shape_init(tp_cyl_shape *s, int shape, const float *size, tp_xform xf, const tp_poly *given,
                             tp_poly *scratch)
{
    s->core.xf = xf;
    s->core.poly = given ? given : scratch;
    s->core.h = 0.0f;
    s->core.r = 0.0f;
    s->radius = 0.0f;
    if (shape == TP_SHAPE_CYLINDER) {
        s->core.kind = TP_CORE_CYLINDER;
        s->core.h = 0.5f * size[0];
        s->core.r = tp_shape_radius(shape, size);
    } else if (shape == TP_SHAPE_CAPSULE) {
        s->core.kind = TP_CORE_SEGMENT;
        s->core.h = tp_capsule_half_core(size);
        s->radius = tp_shape_radius(shape, size);
    } else if (shape == TP_SHAPE_BALL) {
        s->core.kind = TP_CORE_POINT;
        s->radius = tp_shape_radius(shape, size);
    } else {
        s->core.kind = TP_CORE_POLY;
        if (!given) tp_poly_build(scratch, shape, size);
    }
}

/* ---------------------------------------------------------------- features */

/* Cap polygon of a cylinder (sign +1: the +x cap). */
TP_HD void tp_touch_cap(const tp_core *c, float sign, tp_touch *f)
{
    int cap = sign > 0.0f ? 1 : 0;
    f->kind = TP_TOUCH_POLYGON;
    f->count = TP_CYL_RIM;
    f->id = cap;
    f->disc = 1;
    f->radius = 0.0f;
    for (int k = 0; k < TP_CYL_RIM; ++k) {
        int j = cap ? k : (TP_CYL_RIM - k) & (TP_CYL_RIM - 1); /* counter-clockwise seen from outside */
        f->p[k] = tp_xf_apply(c->xf, tp_v3(sign * c->h, c->r * tp_cos_pi8(j), c->r * tp_sin_pi8(j)));
        f->vid[k] = (uint8_t)(TP_CYL_RIM * cap + j);
        f->eid[k] = (uint8_t)(TP_CYL_RIM * cap + (cap ? j : ((j - 1) & (TP_CYL_RIM - 1))));
    }
    f->n = tp_q_rotate(c->xf.q, tp_v3(sign, 0.0f, 0.0f));
    f->d = tp_dot(f->n, f->p[0]);
    f->centre = tp_xf_apply(c->xf, tp_v3(sign * c->h, 0.0f, 0.0f));
    f->rc = c->r;
}

/* Face, edge or vertex of a polyhedron facing local direction dl. */
TP_HD void tp_touch_poly(const tp_core *c, tp_vec3 dl, tp_touch *f)
{
    const tp_poly *p = c->poly;
    int bf = 0;
    float bd = tp_dot(p->f[0].n, dl);
    for (int i = 1; i < p->nf; ++i) {
        float s = tp_dot(p->f[i].n, dl);
        if (s > bd) { bd = s; bf = i; }
    }
    if (bd >= TP_FEATURE_COS) {
        const tp_poly_face *face = &p->f[bf];
        f->kind = TP_TOUCH_POLYGON;
        f->count = face->count;
        f->id = bf;
        for (int k = 0; k < face->count; ++k) {
            f->p[k] = tp_xf_apply(c->xf, p->v[face->vert[k]]);
            f->vid[k] = face->vert[k];
            f->eid[k] = face->edge[k];
        }
        f->n = tp_q_rotate(c->xf.q, face->n);
        f->d = tp_dot(f->n, f->p[0]);
        return;
    }
    int bv = 0;
    float bvd = tp_dot(p->v[0], dl);
    for (int i = 1; i < p->nv; ++i) {
        float s = tp_dot(p->v[i], dl);
        if (s > bvd) { bvd = s; bv = i; }
    }
    int be = -1;
    float across = TP_FEATURE_SIN;
    for (int e = 0; e < p->ne; ++e) {
        if (p->e[e].v[0] != bv && p->e[e].v[1] != bv) continue;
        tp_vec3 u = tp_normalize_or(tp_sub(p->v[p->e[e].v[1]], p->v[p->e[e].v[0]]), tp_v3(1.0f, 0.0f, 0.0f));
        float s = tp_absf(tp_dot(u, dl));
        if (s <= across) { across = s; be = e; }
    }
    if (be >= 0) {
        f->kind = TP_TOUCH_SEGMENT;
        f->count = 2;
        f->id = be;
        f->p[0] = tp_xf_apply(c->xf, p->v[p->e[be].v[0]]);
        f->p[1] = tp_xf_apply(c->xf, p->v[p->e[be].v[1]]);
        return;
    }
    f->kind = TP_TOUCH_POINT;
    f->count = 1;
    f->id = bv;
    f->p[0] = tp_xf_apply(c->xf, p->v[bv]);
}

/* The touching feature of shape s towards unit direction dir (computation frame). */
TP_HD void tp_touch_of(const tp_cyl_shape *s, tp_vec3 dir, tp_touch *f)
{
    const tp_core *c = &s->core;
    tp_vec3 dl = tp_q_inv_rotate(c->xf.q, dir);
    f->disc = 0;
    f->side = 0;
    f->rim = 0;
    f->radius = s->radius;
    f->id = 0;
    if (c->kind == TP_CORE_POLY) {
        tp_touch_poly(c, dl, f);
        return;
    }
    float ax = tp_absf(dl.x);
    if (c->kind == TP_CORE_CYLINDER && ax >= TP_FEATURE_COS) {
        tp_touch_cap(c, dl.x > 0.0f ? 1.0f : -1.0f, f);
        return;
    }
    if ((c->kind == TP_CORE_CYLINDER || c->kind == TP_CORE_SEGMENT) && ax <= TP_FEATURE_SIN) {
        f->kind = TP_TOUCH_SEGMENT;
        f->count = 2;
        f->id = c->kind == TP_CORE_CYLINDER ? 2 : 3;
        if (c->kind == TP_CORE_CYLINDER) { /* the side: the axis grown by r */
            f->radius = c->r;
            f->side = 1;
        }
        f->p[0] = tp_xf_apply(c->xf, tp_v3(-c->h, 0.0f, 0.0f));
        f->p[1] = tp_xf_apply(c->xf, tp_v3(c->h, 0.0f, 0.0f));
        return;
    }
    f->kind = TP_TOUCH_POINT;
    f->count = 1;
    f->rim = c->kind == TP_CORE_CYLINDER;
    f->p[0] = tp_xf_apply(c->xf, tp_core_support_local(c, dl));
}

/* The offset (m, a vector) from segment feature S's core to its surface line
 * on the side facing unit direction dir. A capsule's core is grown by a ball:
 * r dir. A cylinder's side is its axis grown by discs perpendicular to the
 * axis: r w, with w the unit part of dir perpendicular to the axis, which is
 * exact also when the axis is not quite perpendicular to dir (a lying
 * cylinder tilted by a few degrees). */
TP_HD tp_vec3 tp_touch_offset(const tp_touch *S, tp_vec3 dir)
{
    if (!S->side) return tp_scale(dir, S->radius);
    tp_vec3 u = tp_normalize_or(tp_sub(S->p[1], S->p[0]), tp_v3(1.0f, 0.0f, 0.0f));
    return tp_scale(tp_normalize_or(tp_mad(dir, u, -tp_dot(dir, u)), dir), S->radius);
}

/* Nearest point *q of the solid cylinder (half length h, radius r, along x at
 * the origin) to point c, with the unit normal *n from the cylinder towards c
 * and the region (TP_CYL_PT_CAP0/CAP1/SIDE/RIM). Returns the signed distance:
 * negative for c inside, where *q is on the nearer of the cap and the side. */
TP_HD float tp_cylinder_nearest(float h, float r, tp_vec3 c, tp_vec3 *q, tp_vec3 *n, int *region)
{
    float rho = sqrtf(c.y * c.y + c.z * c.z), ax = tp_absf(c.x), sx = c.x >= 0.0f ? 1.0f : -1.0f;
    tp_vec3 radial = rho > 1e-7f ? tp_v3(0.0f, c.y / rho, c.z / rho) : tp_v3(0.0f, 0.0f, 1.0f);
    tp_vec3 cap_n = tp_v3(sx, 0.0f, 0.0f);
    int cap = sx > 0.0f ? TP_CYL_PT_CAP1 : TP_CYL_PT_CAP0;
    if (ax <= h && rho <= r) { /* inside: the nearer of the cap and the side */
        if (h - ax <= r - rho) {
            *n = cap_n;
            *q = tp_v3(sx * h, c.y, c.z);
            *region = cap;
            return -(h - ax);
        }
        *n = radial;
        *q = tp_v3(c.x, r * radial.y, r * radial.z);
        *region = TP_CYL_PT_SIDE;
        return -(r - rho);
    }
    *q = tp_v3(tp_clampf(c.x, -h, h), rho > r ? r * radial.y : c.y, rho > r ? r * radial.z : c.z);
    *region = ax > h ? (rho > r ? TP_CYL_PT_RIM : cap) : TP_CYL_PT_SIDE;
    tp_vec3 d = tp_sub(c, *q);
    float dist = tp_len(d);
    *n = dist > 1e-7f ? tp_scale(d, 1.0f / dist) : (*region == TP_CYL_PT_SIDE ? radial : cap_n);
    return dist;
}

#endif
