/* broadphase.h - candidate contact pairs of one world by sort and sweep.
 *
 * Each present body gets a world axis-aligned bounding box (the rotated local
 * box of its collision shape, exact for balls, grown by the speculative
 * margin). The boxes are sorted by their lower bound along the axis on which
 * the box centres spread most, with a stable radix sort (ties keep body order),
 * and swept: body i is tested only against the bodies that start before it ends
 * on that axis (Baraff's sweep and prune; Ericson 7.5). For scattered bodies the
 * cost is O(n log n)-like rather than n^2 / 2 box tests.
 *
 * Pairs are kept when the boxes overlap on all three axes and at least one body
 * is simulated (tp_body_is_simulated: dynamic, present, not sleeping): this
 * skips static-static, kinematic-static, sleeping-sleeping and sleeping-static
 * pairs, and removed bodies take no part at all.
 *
 * The sweep is an iterator (tp_broadphase_next) so the caller needs no pair
 * buffer; the pair order is deterministic, but nothing may depend on it
 * (collision.h sorts the contacts by key). The caller passes scratch of
 * tp_broadphase_scratch_bytes(bodies) bytes, 8-byte aligned. */
#ifndef TP_BROADPHASE_H
#define TP_BROADPHASE_H

#include "compound.h"
#include "contact_sort.h"
#include "shapes.h"
#include "tp_world.h"
#include <stddef.h>

typedef struct tp_broadphase {
    const tp_world *wd;
    int n;              /* present bodies in the sweep */
    int axis;           /* sweep axis 0, 1, 2 */
    float *lo, *hi;     /* [bodies][3] box bounds, m */
    int32_t *order;     /* [n] body indices sorted by lo[axis] */
    int i, j;           /* iterator position in `order` */
    int64_t tests;      /* candidate pairs examined on the sweep axis (for tests and benchmarks) */
} tp_broadphase;


/* Scratch bytes the broadphase of a world of `bodies` bodies needs. */
TP_HD size_t tp_broadphase_scratch_bytes(int bodies)
{
    size_t n = (size_t)(bodies > 0 ? bodies : 0);
    return 2 * tp_align8(n * 3 * sizeof(float)) + 4 * tp_align8(n * sizeof(uint32_t));
}

/* World-frame box of body b, grown by margin on every side (a compound
 * body: the union of its shapes' boxes). */
TP_HD void tp_body_aabb(const tp_world *wd, int b, float margin, float *lo, float *hi)
{
    const tp_body_model *bm = &wd->model[b];
    if (bm->shape_count > 0) {
        tp_compound_aabb(wd, b, margin, lo, hi);
        return;
    }
    tp_vec3 c = tp_v3_load(wd->pos + 3 * b), h;
    if (bm->shape == TP_SHAPE_BALL) {
        float r = tp_shape_radius(TP_SHAPE_BALL, bm->size);
        h = tp_v3(r, r, r);
    } else {
        tp_vec3 e = tp_shape_half_extents(bm->shape, bm->size);
        tp_mat3 r = tp_q_to_mat3(tp_q_load(wd->quat + 4 * b));
        h = tp_v3(tp_absf(r.m[0][0]) * e.x + tp_absf(r.m[0][1]) * e.y + tp_absf(r.m[0][2]) * e.z,
                  tp_absf(r.m[1][0]) * e.x + tp_absf(r.m[1][1]) * e.y + tp_absf(r.m[1][2]) * e.z,
                  tp_absf(r.m[2][0]) * e.x + tp_absf(r.m[2][1]) * e.y + tp_absf(r.m[2][2]) * e.z);
    }
    h = tp_add(h, tp_v3(margin, margin, margin));
    tp_v3_store(lo, tp_sub(c, h));
    tp_v3_store(hi, tp_add(c, h));
}

/* Compute the boxes, choose the axis and sort; then call tp_broadphase_next. */
/* How far body b's surface can move in one step (m): speed of its centre plus
 * spin times its bounding radius, times dt. Boxes and contact margins grow by
 * it, so a fast body meets what lies in its path as a speculative contact and
 * the solver stops it at the surface instead of letting it tunnel through
 * (Catto, "Continuous Collision", GDC 2013: speculative contacts). Static,
 * sleeping and removed bodies do not move; dt == 0 turns it off. */
TP_HD float tp_body_sweep(const tp_world *wd, int b)
{
    if (!(wd->dt > 0.0f) || wd->model[b].type == TP_BODY_STATIC || (wd->flags[b] & TP_FLAG_REMOVED) ||
        (wd->model[b].type == TP_BODY_DYNAMIC && wd->sleep_state[b] == TP_SLEEPING))
        return 0.0f;
    float speed = tp_len(tp_v3_load(wd->v + 3 * b)) + tp_len(tp_v3_load(wd->w + 3 * b)) * wd->model[b].bound_radius;
    return speed * wd->dt;
}

TP_HD void tp_broadphase_begin(tp_broadphase *bp, const tp_world *wd, float margin, void *scratch)
{
    size_t nb = (size_t)wd->bodies;
    char *s = (char *)scratch;
    bp->wd = wd;
    bp->lo = (float *)s;
    s += tp_align8(nb * 3 * sizeof(float));
    bp->hi = (float *)s;
    s += tp_align8(nb * 3 * sizeof(float));
    uint32_t *keys = (uint32_t *)s;
    s += tp_align8(nb * sizeof(uint32_t));
    uint32_t *tmp_keys = (uint32_t *)s;
    s += tp_align8(nb * sizeof(uint32_t));
    bp->order = (int32_t *)s;
    s += tp_align8(nb * sizeof(int32_t));
    int32_t *tmp_order = (int32_t *)s;

    /* boxes of present bodies; spread of their centres per axis */
    float sum[3] = {0.0f, 0.0f, 0.0f}, sum2[3] = {0.0f, 0.0f, 0.0f};
    int n = 0;
    for (int b = 0; b < wd->bodies; ++b) {
        if (wd->flags[b] & TP_FLAG_REMOVED) continue;
        tp_body_aabb(wd, b, margin + tp_body_sweep(wd, b), bp->lo + 3 * b, bp->hi + 3 * b);
        for (int k = 0; k < 3; ++k) {
            float c = 0.5f * (bp->lo[3 * b + k] + bp->hi[3 * b + k]);
            sum[k] += c;
            sum2[k] += c * c;
        }
        bp->order[n++] = b;
    }
    bp->axis = 0;
    float best = -1.0f;
    for (int k = 0; k < 3 && n > 0; ++k) {
        float mean = sum[k] / (float)n, var = sum2[k] / (float)n - mean * mean;
        if (var > best) { best = var; bp->axis = k; }
    }
    for (int i = 0; i < n; ++i) keys[i] = tp_float_sort_bits(bp->lo[3 * bp->order[i] + bp->axis]);
    tp_radix_sort_u32(keys, bp->order, tmp_keys, tmp_order, n);
    bp->n = n;
    bp->i = 0;
    bp->j = 1;
    bp->tests = 0;
}

/* Is the pair worth a narrowphase? (boxes overlap, someone is simulated) */
TP_HD int tp_broadphase_keep(const tp_broadphase *bp, int a, int b)
{
    for (int k = 0; k < 3; ++k)
        if (bp->lo[3 * a + k] > bp->hi[3 * b + k] || bp->lo[3 * b + k] > bp->hi[3 * a + k]) return 0;
    const tp_world *wd = bp->wd;
    if (tp_links_adjacent(wd, a, b)) return 0; /* parent and child links never collide */
    if (tp_body_is_simulated(wd, a) || tp_body_is_simulated(wd, b)) return 1;
    /* an awake articulation link collides with everything: its rows use the tree's response */
    if (tp_link_is_awake(wd, a) || tp_link_is_awake(wd, b)) return 1;
    /* a moving kinematic body against a sleeping one: collide, so it can wake it */
    return (tp_body_is_moving_kinematic(wd, a) && wd->model[b].type == TP_BODY_DYNAMIC) ||
           (tp_body_is_moving_kinematic(wd, b) && wd->model[a].type == TP_BODY_DYNAMIC);
}

/* Next candidate pair: returns 1 with *a < *b, or 0 when the sweep is done. */
TP_HD int tp_broadphase_next(tp_broadphase *bp, int *a, int *b)
{
    int ax = bp->axis;
    while (bp->i < bp->n) {
        int bi = bp->order[bp->i];
        float end = bp->hi[3 * bi + ax];
        while (bp->j < bp->n) {
            int bj = bp->order[bp->j];
            if (bp->lo[3 * bj + ax] > end) break;
            bp->j++;
            bp->tests++;
            if (tp_broadphase_keep(bp, bi, bj)) {
                *a = bi < bj ? bi : bj;
                *b = bi < bj ? bj : bi;
                return 1;
            }
        }
        bp->i++;
        bp->j = bp->i + 1;
    }
    return 0;
}

#endif
