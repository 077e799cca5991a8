/* contact_cache.h - reusing last step's manifold of a body pair that has not
 * moved relative to itself (inside the `collide` stage).
 *
 * In a resting stack most pairs keep the same relative pose from step to step
 * to well under a millimetre, and their narrowphase finds the same features
 * again: on the 210-cube pyramid it was a fifth of a step. Jolt's body-pair
 * cache (Rouwe, JoltPhysics, ContactConstraintManager: a pair whose relative
 * position moved less than 1 mm and relative rotation less than 2 degrees
 * keeps its manifolds) skips it; torpor does the same with much tighter
 * limits (below).
 *
 * What is kept and what is computed again. A contact point's two ends are
 * stored in their own bodies' frames (contact.h), so they follow the bodies;
 * a reused manifold keeps them, their feature ids and keys, and takes its
 * normal from the normal it had in A's frame, rotated by A's orientation now.
 * Each point's separation is computed again from the current poses along that
 * normal (as the solver does, tp_solver_update_separations), and friction and
 * restitution from the current materials. So a pair that tilts within the
 * limit sees its points lift or sink by the tilt; what it cannot see is a
 * feature that was not within the margin when the manifold was found.
 *
 * The reference. The relative pose a manifold was found at is its pair's
 * tp_contact_ref, one per contact point in a buffer beside the contacts
 * (double-buffered like them). The collide stage marks a reused point with
 * the index of its pair's first point in last step's buffer
 * (tp_contact.cache_from), the sort carries the mark, and the warm-start stage
 * (tp_contact_refs_update) copies the old reference for marked points and
 * makes a new one from the current poses for the others, then clears the
 * marks. A reused manifold therefore keeps the pose it was found at: small
 * motions add up until the pair moves past a limit, and it is found afresh.
 *
 * Not reused: pairs with a compound body (a manifold per shape pair), and a
 * pair whose point count in last step's buffer differs from its manifold's
 * (an overflowing buffer dropped some of its points). The choice depends only
 * on the pair's own poses and last step's buffer, so it is the same on every
 * backend and thread count (DESIGN.md section 5). */
#ifndef TP_CONTACT_CACHE_H
#define TP_CONTACT_CACHE_H

#include "contact.h"
#include "narrowphase.h"
#include "tp_world.h"
#include "warm_start.h"

/* Limits on the motion of B relative to A since the manifold was found:
 * 5 micrometres of B's origin in A's frame, and 0.005 degrees of relative
 * rotation (sin of half of it: 4.3633e-5). Resting bodies creep by about a
 * micrometre per step, so even these limits keep nearly every resting pair's
 * manifold; looser ones let resting stacks drift more and save nothing
 * (docs/collision.md gives the comparison). */
#ifndef TP_CACHE_MAX_SHIFT
#define TP_CACHE_MAX_SHIFT 5.0e-6f
#endif
#ifndef TP_CACHE_MAX_SIN_HALF
#define TP_CACHE_MAX_SIN_HALF 4.3633e-5f
#endif

/* B's pose in A's frame now. */
TP_HD void tp_pair_relative_pose(const tp_world *wd, int a, int b, tp_quat *q, tp_vec3 *p)
{
    tp_quat qa = tp_q_load(wd->quat + 4 * a);
    *q = tp_q_mul(tp_q_conj(qa), tp_q_load(wd->quat + 4 * b));
    *p = tp_q_inv_rotate(qa, tp_sub(tp_v3_load(wd->pos + 3 * b), tp_v3_load(wd->pos + 3 * a)));
}

/* The reference of the pair of contact c (a manifold of `count` points) at
 * the current poses; the normal is set per point (tp_contact_refs_update). */
TP_HD tp_contact_ref tp_pair_ref_now(const tp_world *wd, const tp_contact *c, int count)
{
    tp_contact_ref r;
    tp_quat q;
    tp_vec3 p;
    tp_pair_relative_pose(wd, c->body_a, c->body_b, &q, &p);
    r.rel_q[0] = q.x, r.rel_q[1] = q.y, r.rel_q[2] = q.z, r.rel_q[3] = q.w;
    tp_v3_store(r.rel_p, p);
    r.count = count;
    return r;
}

/* First index in last step's buffer whose pair key is at least `pair`. */
TP_HD int tp_cache_lower_bound(const tp_contact *prev, int n, uint64_t pair)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (tp_pair_of_key(prev[mid].key) < pair) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Last step's manifold of bodies a < b, if the pair has one and has moved
 * within the limits since it was found: into m (the normal and separations
 * at the current poses). Returns 1 + the index of its first point in last
 * step's buffer, or 0 (the narrowphase runs). */
TP_HD int tp_cache_manifold(const tp_world *wd, int a, int b, tp_manifold *m)
{
    if (!wd->cache_contacts || wd->cache_count == 0) return 0;
    const tp_contact *prev = wd->cache_contacts;
    uint64_t pair = tp_pair_of_key(tp_contact_key(wd->index, a, b, 0u));
    int j0 = tp_cache_lower_bound(prev, wd->cache_count, pair), j1 = j0;
    while (j1 < wd->cache_count && tp_pair_of_key(prev[j1].key) == pair) ++j1;
    const tp_contact_ref *r = &wd->cache_refs[j0];
    if (j1 == j0 || j1 - j0 != r->count || r->count > TP_MAX_MANIFOLD_POINTS) return 0;
    tp_quat q;
    tp_vec3 p;
    tp_pair_relative_pose(wd, a, b, &q, &p);
    /* the rotation since: conj(q_then) q_now, whose vector part has length
     * sin(angle / 2) (a cosine test cannot resolve angles this small in float) */
    tp_quat turn = tp_q_mul(tp_q_conj(tp_q(r->rel_q[0], r->rel_q[1], r->rel_q[2], r->rel_q[3])), q);
    if (!(tp_len_sq(tp_v3(turn.x, turn.y, turn.z)) <= TP_CACHE_MAX_SIN_HALF * TP_CACHE_MAX_SIN_HALF)) return 0;
    if (!(tp_len_sq(tp_sub(p, tp_v3_load(r->rel_p))) <= TP_CACHE_MAX_SHIFT * TP_CACHE_MAX_SHIFT)) return 0;
    tp_quat qa = tp_q_load(wd->quat + 4 * a), qb = tp_q_load(wd->quat + 4 * b);
    tp_vec3 xa = tp_v3_load(wd->pos + 3 * a), xb = tp_v3_load(wd->pos + 3 * b);
    m->normal = tp_q_rotate(qa, tp_v3_load(r->normal_a));
    m->count = j1 - j0;
    for (int k = 0; k < m->count; ++k) {
        const tp_contact *c = &prev[j0 + k];
        m->local_a[k] = tp_v3_load(c->local_a);
        m->local_b[k] = tp_v3_load(c->local_b);
        m->feature[k] = c->feature;
        tp_vec3 pa = tp_add(xa, tp_q_rotate(qa, m->local_a[k])), pb = tp_add(xb, tp_q_rotate(qb, m->local_b[k]));
        m->separation[k] = tp_dot(tp_sub(pb, pa), m->normal);
    }
    return j0 + 1;
}

/* The warm-start stage's part: the references of this step's contacts
 * [0, n) (sorted by key) into refs, copied from last step's (prev_refs) for
 * reused points, made from the current poses for found ones; the marks
 * cleared. overflowed: the buffer lost points this step, so a pair's points in
 * it may be fewer than its manifold's: none is reused next step. */
TP_HD void tp_contact_refs_update(const tp_world *wd, tp_contact *contacts, int n, const tp_contact_ref *prev_refs,
                                  tp_contact_ref *refs, int overflowed)
{
    for (int i = 0; i < n;) {
        uint64_t pair = tp_pair_of_key(contacts[i].key);
        int e = i;
        while (e < n && tp_pair_of_key(contacts[e].key) == pair) ++e;
        /* a pair's points are all reused or all found: a found pair's pose once */
        tp_contact_ref found = {{0.0f, 0.0f, 0.0f, 1.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 0};
        tp_quat qa = tp_q_identity();
        if (!contacts[i].cache_from) {
            found = tp_pair_ref_now(wd, &contacts[i], overflowed ? 0 : e - i);
            qa = tp_q_load(wd->quat + 4 * contacts[i].body_a);
        }
        for (int k = i; k < e; ++k) {
            uint32_t from = contacts[k].cache_from;
            if (from) {
                refs[k] = prev_refs[from - 1];
            } else {
                refs[k] = found;
                tp_v3_store(refs[k].normal_a, tp_q_inv_rotate(qa, tp_v3_load(contacts[k].normal)));
            }
            if (overflowed) refs[k].count = 0;
            contacts[k].cache_from = 0u;
        }
        i = e;
    }
}

#endif
