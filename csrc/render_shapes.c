/* render_shapes.c - bodies as flat items for tp_render_state (csrc/render.c):
 * box, wedge, corner wedge and convex hull: their faces (the hull's outline);
 * cylinder and capsule: a PRISM_SIDES-sided prism; ball and capsule ends:
 * discs. Faces turned away from the viewer are dropped. */
#include "render_items.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rotate v by the unit quaternion q = [x, y, z, w]. */
static v3 qrot(const float *q, v3 v)
{
    v3 u = {q[0], q[1], q[2]};
    v3 t = vscale(vcross(u, v), 2.0);
    return vadd(vadd(v, vscale(t, q[3])), vcross(u, t));
}

/* The camera sits in front (-y), 35 degrees round to the right (+x) and 25
 * degrees up, looking at the origin; screen up has +z in it. */
view3 tp_render_default_view(void)
{
    double phi = 35.0 * 3.14159265358979 / 180.0, el = 25.0 * 3.14159265358979 / 180.0;
    view3 v;
    v.into = (v3){-sin(phi) * cos(el), cos(phi) * cos(el), -sin(el)};
    v.right = (v3){cos(phi), sin(phi), 0.0};
    v.up = vcross(v.right, v.into);
    return v;
}

static item *push_item(item_list *l)
{
    if (l->count == l->capacity) {
        int cap = l->capacity ? 2 * l->capacity : 1024;
        item *p = realloc(l->items, (size_t)cap * sizeof *p);
        if (!p) {
            l->failed = 1;
            return NULL;
        }
        l->items = p;
        l->capacity = cap;
    }
    item *it = &l->items[l->count++];
    memset(it, 0, sizeof *it);
    return it;
}

/* Add face `idx` (n corners, counter-clockwise seen from outside) of a body
 * whose world-space corners are `p`, shaded by its normal; back faces are skipped. */
static void add_face(item_list *l, const view3 *vw, const v3 *p, const int *idx, int n, const float rgb[3])
{
    v3 normal = {0, 0, 0}, centre = {0, 0, 0};
    for (int i = 0; i < n; ++i) {
        normal = vadd(normal, vcross(p[idx[i]], p[idx[(i + 1) % n]]));
        centre = vadd(centre, p[idx[i]]);
    }
    if (vdot(normal, vw->into) >= 0.0) return; /* facing away (or edge-on) */
    item *it = push_item(l);
    if (!it) return;
    double len = sqrt(vdot(normal, normal));
    v3 light = {0.35, -0.5, 0.8};
    double lit = len > 0.0 ? vdot(normal, light) / (len * sqrt(vdot(light, light))) : 0.0;
    double shade = 0.62 + 0.38 * (lit > 0.0 ? lit : 0.0);
    it->n = n;
    it->depth = vdot(vscale(centre, 1.0 / n), vw->into);
    for (int i = 0; i < n; ++i) {
        it->sx[i] = vdot(p[idx[i]], vw->right);
        it->sy[i] = vdot(p[idx[i]], vw->up);
    }
    for (int k = 0; k < 3; ++k) it->rgb[k] = (float)(rgb[k] * shade);
}

static void add_disc(item_list *l, const view3 *vw, v3 c, double r, const float rgb[3])
{
    item *it = push_item(l);
    if (!it) return;
    it->n = 0;
    it->radius = r;
    it->depth = vdot(c, vw->into);
    it->sx[0] = vdot(c, vw->right);
    it->sy[0] = vdot(c, vw->up);
    memcpy(it->rgb, rgb, sizeof it->rgb);
}

/* Corners of the shape's box (x fastest), transformed to the world. */
static void box_corners(const float *size, const float *pos, const float *quat, v3 out[8])
{
    for (int i = 0; i < 8; ++i) {
        v3 local = {(i & 1 ? 0.5 : -0.5) * size[0], (i & 2 ? 0.5 : -0.5) * size[1], (i & 4 ? 0.5 : -0.5) * size[2]};
        out[i] = vadd((v3){pos[0], pos[1], pos[2]}, qrot(quat, local));
    }
}

static void add_box(item_list *l, const view3 *vw, const v3 *c, const float rgb[3])
{
    static const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int f = 0; f < 6; ++f) add_face(l, vw, c, faces[f], 4, rgb);
}

/* Wedge: full bottom and back (-y) faces, slope from the top back edge down to
 * the bottom front edge. Corners 0-3 bottom (x fastest), 4, 5 top back. */
static void add_wedge(item_list *l, const view3 *vw, const v3 *c, const float rgb[3])
{
    static const int quads[3][4] = {{0, 2, 3, 1}, {0, 1, 5, 4}, {4, 5, 3, 2}};
    static const int tris[2][3] = {{0, 4, 2}, {1, 3, 5}};
    v3 p[6] = {c[0], c[1], c[2], c[3], c[4], c[5]};
    for (int f = 0; f < 3; ++f) add_face(l, vw, p, quads[f], 4, rgb);
    for (int f = 0; f < 2; ++f) add_face(l, vw, p, tris[f], 3, rgb);
}

/* Corner wedge: a pyramid over the bottom face with its apex at the top (+x, +y) corner (7). */
static void add_corner_wedge(item_list *l, const view3 *vw, const v3 *c, const float rgb[3])
{
    static const int base[4] = {0, 2, 3, 1};
    static const int tris[4][3] = {{0, 1, 7}, {1, 3, 7}, {3, 2, 7}, {2, 0, 7}};
    add_face(l, vw, c, base, 4, rgb);
    for (int f = 0; f < 4; ++f) add_face(l, vw, c, tris[f], 3, rgb);
}

/* A prism of PRISM_SIDES sides along local x from x0 to x1, radius r. */
static void add_prism(item_list *l, const view3 *vw, const float *pos, const float *quat, double x0, double x1,
                      double r, const float rgb[3])
{
    v3 p[2 * PRISM_SIDES];
    for (int i = 0; i < PRISM_SIDES; ++i) {
        double a = 2.0 * 3.14159265358979 * i / PRISM_SIDES;
        v3 o = {pos[0], pos[1], pos[2]};
        p[i] = vadd(o, qrot(quat, (v3){x0, r * cos(a), r * sin(a)}));
        p[i + PRISM_SIDES] = vadd(o, qrot(quat, (v3){x1, r * cos(a), r * sin(a)}));
    }
    int cap0[PRISM_SIDES], cap1[PRISM_SIDES];
    for (int i = 0; i < PRISM_SIDES; ++i) {
        cap0[i] = PRISM_SIDES - 1 - i;
        cap1[i] = PRISM_SIDES + i;
        int side[4] = {i, (i + 1) % PRISM_SIDES, PRISM_SIDES + (i + 1) % PRISM_SIDES, PRISM_SIDES + i};
        add_face(l, vw, p, side, 4, rgb);
    }
    add_face(l, vw, p, cap0, PRISM_SIDES, rgb);
    add_face(l, vw, p, cap1, PRISM_SIDES, rgb);
}

static double min3(const float *s) { return fmin(s[0], fmin(s[1], s[2])); }

static int by_screen_x(const void *pa, const void *pb)
{
    const double *a = pa, *b = pb;
    return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : (a[1] > b[1]) - (a[1] < b[1]);
}

static double turn(const double *o, const double *a, const double *b)
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/* A convex hull drawn as its outline: the 2-D convex hull of its projected
 * points (Andrew's monotone chain), one flat polygon; the library's hull
 * faces are not public, and the outline of a convex solid is this polygon. */
static void add_hull_outline(item_list *l, const view3 *vw, const float *vertices, int count, const float *pos,
                             const float *quat, const float rgb[3])
{
    double *pt = malloc(2 * (size_t)count * sizeof *pt), *h = malloc(4 * (size_t)count * sizeof *h);
    double depth = 0.0;
    if (!pt || !h || count < 3) goto done;
    for (int i = 0; i < count; ++i) {
        v3 w = vadd((v3){pos[0], pos[1], pos[2]},
                    qrot(quat, (v3){vertices[3 * i], vertices[3 * i + 1], vertices[3 * i + 2]}));
        pt[2 * i] = vdot(w, vw->right);
        pt[2 * i + 1] = vdot(w, vw->up);
        depth += vdot(w, vw->into) / count;
    }
    qsort(pt, (size_t)count, 2 * sizeof *pt, by_screen_x);
    int k = 0;
    for (int i = 0; i < count; ++i) { /* lower chain, left to right */
        while (k >= 2 && turn(h + 2 * (k - 2), h + 2 * (k - 1), pt + 2 * i) <= 0.0) --k;
        h[2 * k] = pt[2 * i], h[2 * k + 1] = pt[2 * i + 1], ++k;
    }
    for (int i = count - 2, t = k + 1; i >= 0; --i) { /* upper chain, right to left */
        while (k >= t && turn(h + 2 * (k - 2), h + 2 * (k - 1), pt + 2 * i) <= 0.0) --k;
        h[2 * k] = pt[2 * i], h[2 * k + 1] = pt[2 * i + 1], ++k;
    }
    k -= 1; /* the last point is the first again */
    if (k < 3) goto done;
    item *it = push_item(l);
    if (!it) goto done;
    int n = k < 2 * PRISM_SIDES ? k : 2 * PRISM_SIDES;
    it->n = n;
    it->depth = depth;
    for (int i = 0; i < n; ++i) { /* past the item's room, every (k / n)-th point */
        int j = (int)((long)i * k / n);
        it->sx[i] = h[2 * j];
        it->sy[i] = h[2 * j + 1];
    }
    for (int c = 0; c < 3; ++c) it->rgb[c] = (float)(rgb[c] * 0.8);
done:
    free(pt);
    free(h);
}

/* One shape of extents `size` with the centre of its box at pos, turned by quat;
 * a convex shape draws its vertices (in the frame pos and quat place). */
static void add_shape(item_list *l, const view3 *vw, tp_shape_type shape, const float *size, const float *vertices,
                      int vertex_count, const float *pos, const float *quat, const float rgb[3])
{
    v3 c[8];
    double r = 0.5 * fmin(size[1], size[2]);
    v3 o = {pos[0], pos[1], pos[2]};
    switch (shape) {
    case TP_SHAPE_BALL: add_disc(l, vw, o, 0.5 * min3(size), rgb); break;
    case TP_SHAPE_CYLINDER: add_prism(l, vw, pos, quat, -0.5 * size[0], 0.5 * size[0], r, rgb); break;
    case TP_SHAPE_CAPSULE: {
        double h = 0.5 * size[0] - r;
        add_prism(l, vw, pos, quat, -h, h, r, rgb);
        add_disc(l, vw, vadd(o, qrot(quat, (v3){-h, 0, 0})), r, rgb);
        add_disc(l, vw, vadd(o, qrot(quat, (v3){h, 0, 0})), r, rgb);
        break;
    }
    case TP_SHAPE_WEDGE: box_corners(size, pos, quat, c); add_wedge(l, vw, c, rgb); break;
    case TP_SHAPE_CORNER_WEDGE: box_corners(size, pos, quat, c); add_corner_wedge(l, vw, c, rgb); break;
    case TP_SHAPE_CONVEX: add_hull_outline(l, vw, vertices, vertex_count, pos, quat, rgb); break;
    default: box_corners(size, pos, quat, c); add_box(l, vw, c, rgb); break;
    }
}

/* Hamilton product a b of [x y z w] quaternions. */
static void qmul(const float *a, const float *b, float *out)
{
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* A body: its one shape, or every shape of a compound body at its pose in the body. */
void tp_render_add_body(item_list *l, const view3 *vw, const tp_body_def *d, const float *pos, const float *quat,
                        const float rgb[3])
{
    if (d->shape_count == 0) {
        add_shape(l, vw, d->shape, d->size, d->vertices, d->vertex_count, pos, quat, rgb);
        return;
    }
    for (int i = 0; i < d->shape_count; ++i) {
        const tp_shape_def *s = &d->shapes[i];
        v3 p = vadd((v3){pos[0], pos[1], pos[2]}, qrot(quat, (v3){s->pos[0], s->pos[1], s->pos[2]}));
        float sp[3] = {(float)p.x, (float)p.y, (float)p.z}, sq[4];
        double n = sqrt((double)s->quat[0] * s->quat[0] + (double)s->quat[1] * s->quat[1] +
                        (double)s->quat[2] * s->quat[2] + (double)s->quat[3] * s->quat[3]);
        float local[4] = {(float)(s->quat[0] / n), (float)(s->quat[1] / n), (float)(s->quat[2] / n),
                          (float)(s->quat[3] / n)};
        qmul(quat, local, sq);
        add_shape(l, vw, s->shape, s->size, s->vertices, s->vertex_count, sp, sq, rgb);
    }
}

