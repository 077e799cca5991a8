/* compound.h - bodies made of several shapes (tp_body_model.shape_count >= 1).
 *
 * A compound body has its own frame: the body's pose (pos, quat) places it,
 * and each of its shapes sits in it at a fixed local pose (tp_shape_model.pos,
 * .quat). Its mass properties are computed once at model build (host code,
 * csrc/body_shapes.c); what the step needs is here:
 *
 *   - the world pose and world box of each shape (broadphase bounds are the
 *     union of the shapes' boxes);
 *   - the shapes of a body pair as two short lists, so that collision.h runs the
 *     narrowphase per shape pair (skipping pairs whose boxes do not meet) and
 *     attaches every manifold to the body pair: the points carry the body
 *     indices, points on each body's surface in that body's frame, and one
 *     normal per manifold;
 *   - feature ids that stay unique within the body pair and stable from step to
 *     step: the pair of shapes (i, j) takes the top 6 bits, a hash of the
 *     shape pair's own 17-bit feature id the low 11 (collisions inside one
 *     manifold are resolved by probing, in point order). Two different
 *     shape pairs therefore never share a contact key, and a point keeps its
 *     key while the same features touch (unless it had to probe, which needs
 *     two ids of one manifold to hash alike: rare, and the warm start then
 *     still matches it by place, kernels/warm_start.h).
 *
 * A body without a shape table entry (shape_count 0) is a list of one shape at
 * the body's own pose, and its points need no change of frame; a pair of two
 * such bodies never comes here, so single-shape bodies keep their bits. */
#ifndef TP_COMPOUND_H
#define TP_COMPOUND_H

#include "shapes.h"
#include "tp_world.h"

/* TP_MAX_BODY_SHAPES (include/torpor.h) shapes per body: 3 bits per shape
 * index, so a shape pair takes 6 of the feature's 17 bits. */
#define TP_COMPOUND_SHAPE_BITS 3
#define TP_COMPOUND_HASH_BITS (17 - 2 * TP_COMPOUND_SHAPE_BITS)
#if TP_MAX_BODY_SHAPES > (1 << TP_COMPOUND_SHAPE_BITS)
#error "TP_MAX_BODY_SHAPES must fit in TP_COMPOUND_SHAPE_BITS bits"
#endif

TP_HD int tp_body_is_compound(const tp_world *wd, int b) { return wd->model[b].shape_count > 0; }

/* Half extents of the world box of a shape of half extents e turned by q. */
TP_HD tp_vec3 tp_rotated_half_box(tp_vec3 e, tp_quat q)
{
    tp_mat3 r = tp_q_to_mat3(q);
    return tp_v3(tp_absf(r.m[0][0]) * e.x + tp_absf(r.m[0][1]) * e.y + tp_absf(r.m[0][2]) * e.z,
                 tp_absf(r.m[1][0]) * e.x + tp_absf(r.m[1][1]) * e.y + tp_absf(r.m[1][2]) * e.z,
                 tp_absf(r.m[2][0]) * e.x + tp_absf(r.m[2][1]) * e.y + tp_absf(r.m[2][2]) * e.z);
}

/* Half extents of the world box of one shape (exact for a ball). */
TP_HD tp_vec3 tp_shape_world_half_box(int shape, const float *size, tp_quat q)
{
    if (shape == TP_SHAPE_BALL) {
        float r = tp_shape_radius(TP_SHAPE_BALL, size);
        return tp_v3(r, r, r);
    }
    return tp_rotated_half_box(tp_shape_half_extents(shape, size), q);
}

/* The shapes of one body at its current pose, in world coordinates. */
typedef struct tp_body_shapes {
    int count;                        /* 1 for a single-shape body */
    int compound;                     /* points need the change of frame below */
    int shape[TP_MAX_BODY_SHAPES];
    const float *size[TP_MAX_BODY_SHAPES];
    const struct tp_poly *poly[TP_MAX_BODY_SHAPES]; /* a one-shape body: the batch's (tp_world.polys); a convex
                                                       shape: its hull; else NULL (built per pair) */
    tp_vec3 pos[TP_MAX_BODY_SHAPES];  /* world, centre of the shape's box, m */
    tp_quat q[TP_MAX_BODY_SHAPES];    /* world orientation */
    tp_vec3 lo[TP_MAX_BODY_SHAPES], hi[TP_MAX_BODY_SHAPES]; /* world box grown by the margin, m */
    const tp_shape_model *local[TP_MAX_BODY_SHAPES]; /* compound: the shape's pose in the body */
} tp_body_shapes;

/* World pose of shape s of a body at (p, q). */
TP_HD void tp_shape_world_pose(tp_vec3 p, tp_quat q, const tp_shape_model *s, tp_vec3 *ps, tp_quat *qs)
{
    *ps = tp_add(p, tp_q_rotate(q, tp_v3_load(s->pos)));
    *qs = tp_q_mul(q, tp_q_load(s->quat));
}

/* Fill out with body b's shapes; boxes grown by margin (m). */
TP_HD void tp_body_shapes_get(const tp_world *wd, int b, float margin, tp_body_shapes *out)
{
    const tp_body_model *bm = &wd->model[b];
    tp_vec3 p = tp_v3_load(wd->pos + 3 * b);
    tp_quat q = tp_q_load(wd->quat + 4 * b);
    tp_vec3 g = tp_v3(margin, margin, margin);
    out->compound = bm->shape_count > 0;
    out->count = out->compound ? (int)bm->shape_count : 1;
    for (int i = 0; i < out->count; ++i) {
        if (out->compound) {
            const tp_shape_model *s = &wd->shapes[bm->shape_first + i];
            out->local[i] = s;
            out->shape[i] = s->shape;
            out->size[i] = s->size;
            out->poly[i] = s->shape == TP_SHAPE_CONVEX ? &wd->hulls[s->hull] : 0;
            tp_shape_world_pose(p, q, s, &out->pos[i], &out->q[i]);
        } else {
            out->local[i] = 0;
            out->shape[i] = bm->shape;
            out->size[i] = bm->size;
            /* the batch's polytope (tp_body_poly): a box's is not rebuilt per pair, same bits */
            out->poly[i] = wd->polys ? &wd->polys[b] : bm->shape == TP_SHAPE_CONVEX ? &wd->hulls[bm->hull] : 0;
            out->pos[i] = p;
            out->q[i] = q;
        }
        tp_vec3 h = tp_add(tp_shape_world_half_box(out->shape[i], out->size[i], out->q[i]), g);
        out->lo[i] = tp_sub(out->pos[i], h);
        out->hi[i] = tp_add(out->pos[i], h);
    }
}

/* World box of a compound body: the union of its shapes' boxes, grown by margin. */
TP_HD void tp_compound_aabb(const tp_world *wd, int b, float margin, float *lo, float *hi)
{
    tp_body_shapes s;
    tp_body_shapes_get(wd, b, margin, &s);
    tp_vec3 l = s.lo[0], h = s.hi[0];
    for (int i = 1; i < s.count; ++i) {
        l = tp_vmin(l, s.lo[i]);
        h = tp_vmax(h, s.hi[i]);
    }
    tp_v3_store(lo, l);
    tp_v3_store(hi, h);
}

TP_HD int tp_boxes_overlap(tp_vec3 lo_a, tp_vec3 hi_a, tp_vec3 lo_b, tp_vec3 hi_b)
{
    return !(lo_a.x > hi_b.x || lo_b.x > hi_a.x || lo_a.y > hi_b.y || lo_b.y > hi_a.y || lo_a.z > hi_b.z ||
             lo_b.z > hi_a.z);
}

/* A point given in shape i's frame (from its centre) in the body's frame (from its origin). */
TP_HD tp_vec3 tp_shape_point_in_body(const tp_body_shapes *s, int i, tp_vec3 p)
{
    if (!s->compound) return p;
    const tp_shape_model *m = s->local[i];
    return tp_add(tp_v3_load(m->pos), tp_q_rotate(tp_q_load(m->quat), p));
}

/* Feature id of a point of shape pair (i, j) of a compound body pair, from the
 * shape pair's feature id f; `earlier` holds the ids given to the manifold's
 * points before this one (n of them). */
TP_HD uint32_t tp_compound_feature(int i, int j, uint32_t f, const uint32_t *earlier, int n)
{
    uint32_t mask = (1u << TP_COMPOUND_HASH_BITS) - 1u;
    uint32_t top = ((uint32_t)i << TP_COMPOUND_SHAPE_BITS | (uint32_t)j) << TP_COMPOUND_HASH_BITS;
    uint32_t h = ((f * 2654435761u) >> (32 - TP_COMPOUND_HASH_BITS)) & mask; /* Knuth's multiplicative hash */
    for (int probe = 0; probe <= n; ++probe) {
        uint32_t id = top | h;
        int taken = 0;
        for (int k = 0; k < n; ++k) taken |= earlier[k] == id;
        if (!taken) return id;
        h = (h + 1u) & mask;
    }
    return top | h; /* not reached: n < 4 ids cannot fill n + 1 probes */
}

#endif
