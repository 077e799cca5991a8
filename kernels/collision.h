/* collision.h - the collision stage of one world: broadphase, narrowphase,
 * contact buffer (the `collide` stage; the `sort` stage is contact_sort.h).
 *
 * tp_collide_world writes the world's contact points into a buffer of fixed
 * capacity, sorted by contact key. It never writes past the capacity: points
 * that do not fit are counted in *overflow. Which points are kept does not
 * depend on the order in which they were found either: once the buffer is
 * full it becomes a max-heap on the key and a new point replaces the largest
 * key when its own key is smaller, so the buffer ends with the `capacity`
 * smallest keys. The CPU backend runs it in a loop over worlds, the CUDA
 * backend as a thread per world listing the candidate pairs, a thread per
 * pair for the manifolds and a thread per world gathering them in the same
 * order (kernels/collide_pairs.h). */
#ifndef TP_COLLISION_H
#define TP_COLLISION_H

#include "broadphase.h"
#include "contact.h"
#include "contact_cache.h"
#include "contact_sort.h"
#include "narrowphase.h"

/* Scratch bytes tp_collide_world needs for a world of `bodies` bodies and a
 * buffer of `capacity` contacts (8-byte aligned). */
TP_HD size_t tp_collide_scratch_bytes(int bodies, int capacity)
{
    size_t c = (size_t)(capacity > 0 ? capacity : 0);
    return tp_broadphase_scratch_bytes(bodies) + 2 * tp_align8(c * sizeof(uint64_t)) +
           2 * tp_align8(c * sizeof(int32_t));
}

TP_HD float tp_body_friction(const tp_world *wd, int b)
{
    return wd->friction ? wd->friction[b] : wd->model[b].friction;
}

/* One contact point of bodies a < b, with zeroed solver accumulators. */
TP_HD void tp_contact_fill(tp_contact *c, int world, int a, int b, tp_vec3 normal, float separation, tp_vec3 local_a,
                           tp_vec3 local_b, uint32_t feature, float friction, float restitution)
{
    c->key = tp_contact_key(world, a, b, feature);
    c->body_a = a;
    c->body_b = b;
    tp_v3_store(c->normal, normal);
    c->separation = separation;
    tp_v3_store(c->local_a, local_a);
    tp_v3_store(c->local_b, local_b);
    c->feature = feature;
    c->friction = friction;
    c->restitution = restitution;
    c->normal_impulse = 0.0f;
    c->tangent_impulse[0] = c->tangent_impulse[1] = 0.0f;
    c->normal_force = c->tangent_force[0] = c->tangent_force[1] = 0.0f;
    c->cache_from = 0u;
}

/* The contact points of manifold m of bodies a < b of world wd into pts
 * (m->count of them); the solver accumulators are zeroed. from: as
 * tp_collide_pair_manifold returns it (the points' cache_from). */
TP_HD int tp_manifold_contacts(const tp_world *wd, int a, int b, const tp_manifold *m, int from, tp_contact *pts)
{
    const tp_body_model *ma = &wd->model[a], *mb = &wd->model[b];
    float friction = sqrtf(tp_body_friction(wd, a) * tp_body_friction(wd, b));
    float restitution = tp_maxf(ma->restitution, mb->restitution);
    for (int i = 0; i < m->count; ++i) {
        tp_contact_fill(&pts[i], wd->index, a, b, m->normal, m->separation[i], m->local_a[i], m->local_b[i],
                        m->feature[i], friction, restitution);
        pts[i].cache_from = (uint32_t)from;
    }
    return m->count;
}

/* The model's polytopes, one per body (unused entries zeroed): built once per
 * batch (csrc/batch.c for the CPU, the CUDA backend's upload), so that the
 * narrowphase does not build two per candidate pair (tp_poly_build depends on
 * the shape and size only: the same bits either way). A convex body's is a
 * copy of its hull from the model's table `hulls`. */
TP_HD void tp_build_body_polys(const tp_body_model *model, int bodies, const tp_poly *hulls, tp_poly *polys)
{
    for (int b = 0; b < bodies; ++b) {
        char *p = (char *)&polys[b];
        for (size_t k = 0; k < sizeof(tp_poly); ++k) p[k] = 0;
        if (model[b].shape == TP_SHAPE_CONVEX) polys[b] = hulls[model[b].hull];
        else if (tp_shape_is_poly(model[b].shape)) tp_poly_build(&polys[b], model[b].shape, model[b].size);
    }
}

/* The polytope of body b's one shape: from the batch's table `polys` when
 * there is one, else a convex body's hull from the model's, else NULL (the
 * narrowphase builds a box's or a wedge's itself). */
TP_HD const tp_poly *tp_body_poly(const tp_world *wd, const tp_poly *polys, int b)
{
    if (polys) return &polys[b];
    return wd->model[b].shape == TP_SHAPE_CONVEX ? &wd->hulls[wd->model[b].hull] : 0;
}

/* Manifold of bodies a < b of world wd; polys: [bodies] their polytopes
 * (tp_build_body_polys), or NULL to build them for this pair. Last step's
 * manifold when the pair has not moved (kernels/contact_cache.h): *from is
 * then 1 + the index of its first point in last step's buffer, else 0.
 * Returns the manifold's point count. */
TP_HD int tp_collide_pair_manifold(const tp_world *wd, int a, int b, float margin, const tp_poly *polys,
                                   tp_manifold *m, int *from)
{
    *from = tp_cache_manifold(wd, a, b, m);
    if (*from) return m->count;
    const tp_body_model *ma = &wd->model[a], *mb = &wd->model[b];
    return tp_collide_shapes_polys(ma->shape, ma->size, tp_body_poly(wd, polys, a), tp_v3_load(wd->pos + 3 * a),
                                   tp_q_load(wd->quat + 4 * a), mb->shape, mb->size, tp_body_poly(wd, polys, b),
                                   tp_v3_load(wd->pos + 3 * b), tp_q_load(wd->quat + 4 * b), margin, m);
}

/* Contact points of bodies a < b of world wd (up to 4) into pts; the solver
 * accumulators are zeroed. margin: TP_CONTACT_MARGIN normally. The polytopes
 * are the world's (wd->polys), or built for the pair when it has none. */
TP_HD int tp_collide_pair(const tp_world *wd, int a, int b, float margin, tp_contact *pts)
{
    tp_manifold m;
    int from;
    if (tp_collide_pair_manifold(wd, a, b, margin, wd->polys, &m, &from) == 0) return 0;
    return tp_manifold_contacts(wd, a, b, &m, from, pts);
}

/* Speculative margin of a pair: TP_CONTACT_MARGIN plus how far both bodies can
 * move in the step (tp_body_sweep; 0 for static and sleeping bodies), so a
 * fast body meets what lies in its path, static, awake or asleep, before it
 * passes it. Against a sleeper the predicted contact
 * links the two (wake.h, tp_contact_links) when the awake body can close the
 * gap within the step, so the sleeper wakes and collides as an awake body
 * before the solve; one that cannot close the gap leaves a speculative row
 * that does not push. */
TP_HD float tp_pair_margin(const tp_world *wd, int a, int b)
{
    return TP_CONTACT_MARGIN + tp_body_sweep(wd, a) + tp_body_sweep(wd, b);
}

/* Max-heap on key over out[0..n): restore below slot i. */
TP_HD void tp_contact_sift_down(tp_contact *out, int n, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, big = i;
        if (l < n && out[l].key > out[big].key) big = l;
        if (r < n && out[r].key > out[big].key) big = r;
        if (big == i) return;
        tp_contact t = out[i];
        out[i] = out[big];
        out[big] = t;
        i = big;
    }
}

/* A contact buffer being filled. */
typedef struct tp_contact_buffer {
    tp_contact *out;
    int capacity, count, overflow, heap;
} tp_contact_buffer;

/* Append c; when full keep the `capacity` smallest keys and count the rest. */
TP_HD void tp_contact_push(tp_contact_buffer *cb, const tp_contact *c)
{
    if (cb->count < cb->capacity) {
        cb->out[cb->count++] = *c;
        return;
    }
    cb->overflow++;
    if (cb->capacity == 0) return;
    if (!cb->heap) {
        for (int i = cb->capacity / 2 - 1; i >= 0; --i) tp_contact_sift_down(cb->out, cb->capacity, i);
        cb->heap = 1;
    }
    if (c->key < cb->out[0].key) {
        cb->out[0] = *c;
        tp_contact_sift_down(cb->out, cb->capacity, 0);
    }
}

/* Contact points of bodies a < b when one of them (or both) is compound
 * (kernels/compound.h): a manifold per pair of shapes whose boxes meet, each
 * point attached to the body pair, pushed into cb. */
TP_HD void tp_collide_compound_pair(const tp_world *wd, int a, int b, float margin, tp_contact_buffer *cb)
{
    tp_body_shapes sa, sb;
    tp_body_shapes_get(wd, a, margin, &sa);
    tp_body_shapes_get(wd, b, margin, &sb);
    float friction = sqrtf(tp_body_friction(wd, a) * tp_body_friction(wd, b));
    float restitution = tp_maxf(wd->model[a].restitution, wd->model[b].restitution);
    for (int i = 0; i < sa.count; ++i)
        for (int j = 0; j < sb.count; ++j) {
            if (!tp_boxes_overlap(sa.lo[i], sa.hi[i], sb.lo[j], sb.hi[j])) continue;
            tp_manifold m;
            int n = tp_collide_shapes_polys(sa.shape[i], sa.size[i], sa.poly[i], sa.pos[i], sa.q[i], sb.shape[j],
                                            sb.size[j], sb.poly[j], sb.pos[j], sb.q[j], margin, &m);
            uint32_t ids[TP_MAX_MANIFOLD_POINTS];
            for (int k = 0; k < n; ++k) {
                ids[k] = tp_compound_feature(i, j, m.feature[k], ids, k);
                tp_contact c;
                tp_contact_fill(&c, wd->index, a, b, m.normal, m.separation[k],
                                tp_shape_point_in_body(&sa, i, m.local_a[k]),
                                tp_shape_point_in_body(&sb, j, m.local_b[k]), ids[k], friction, restitution);
                tp_contact_push(cb, &c);
            }
        }
}

/* Broadphase and narrowphase of one world into out[0..capacity), not yet
 * sorted: the same set of points as tp_collide_world (once the buffer is full,
 * the `capacity` smallest keys, in heap order). Returns the number written;
 * *overflow gets the number of points that did not fit. scratch as for
 * tp_collide_world (only its broadphase part is used). */
TP_HD int tp_collide_world_unsorted(const tp_world *wd, void *scratch, tp_contact *out, int capacity, int *overflow)
{
    tp_broadphase bp;
    tp_broadphase_begin(&bp, wd, TP_CONTACT_MARGIN, scratch);
    tp_contact_buffer cb;
    cb.out = out;
    cb.capacity = capacity > 0 ? capacity : 0;
    cb.count = cb.overflow = cb.heap = 0;
    int a, b;
    tp_contact pts[TP_MAX_MANIFOLD_POINTS];
    while (tp_broadphase_next(&bp, &a, &b)) {
        if (tp_body_is_compound(wd, a) || tp_body_is_compound(wd, b)) {
            tp_collide_compound_pair(wd, a, b, tp_pair_margin(wd, a, b), &cb);
            continue;
        }
        int n = tp_collide_pair(wd, a, b, tp_pair_margin(wd, a, b), pts);
        for (int i = 0; i < n; ++i) tp_contact_push(&cb, &pts[i]);
    }
    *overflow = cb.overflow;
    return cb.count;
}

/* The collision stage of one world. scratch: tp_collide_scratch_bytes(
 * wd->bodies, capacity) bytes, 8-byte aligned; out: [capacity] contacts.
 * Returns the number written (<= capacity), sorted by key; *overflow gets the
 * number of points that did not fit (0 when all did). */
TP_HD int tp_collide_world(const tp_world *wd, void *scratch, tp_contact *out, int capacity, int *overflow)
{
    int n = tp_collide_world_unsorted(wd, scratch, out, capacity, overflow);
    tp_contacts_sort(out, n, (char *)scratch + tp_broadphase_scratch_bytes(wd->bodies), capacity > 0 ? capacity : 0);
    return n;
}

#endif
