/* broadphase.h - candidate contact pairs of one world by sort and sweep.
 *
 * Each present body gets a world axis-aligned bounding box (the rotated local
 * box of its collision shape, exact for balls, grown by the speculative
 * margin). The boxes are sorted by their lower bound along the axis on which
 * the box centres spread most, with a stable sort (radix; insertion for a few
 * boxes: tp_sort_u32; ties keep body order),
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
 * tp_broadphase_scratch_bytes(bodies) bytes, 8-byte aligned.
 *
 * tp_broadphase_pairs_lanes (at the end) finds the same pairs in the same
 * order with a group of lanes sharing one work area (the CUDA backend's
 * collide stage, its boxes in shared memory): a bitonic sort instead of the
 * radix sort, the sweep counted, scanned and written. */
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

/* The sweep axis: the one along which the n box centres spread most (the
 * largest variance from their sums and sums of squares; the first on a tie). */
TP_HD int tp_broadphase_axis(const float *sum, const float *sum2, int n)
{
    int axis = 0;
    float best = -1.0f;
    for (int k = 0; k < 3 && n > 0; ++k) {
        float mean = sum[k] / (float)n, var = sum2[k] / (float)n - mean * mean;
        if (var > best) { best = var; axis = k; }
    }
    return axis;
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
    bp->axis = tp_broadphase_axis(sum, sum2, n);
    for (int i = 0; i < n; ++i) keys[i] = tp_float_sort_bits(bp->lo[3 * bp->order[i] + bp->axis]);
    tp_sort_u32(keys, bp->order, tmp_keys, tmp_order, n);
    bp->n = n;
    bp->i = 0;
    bp->j = 1;
    bp->tests = 0;
}

/* Is the pair worth a narrowphase? (boxes lo, hi [bodies][3] overlap, someone
 * is simulated) */
TP_HD int tp_broadphase_keep_boxes(const tp_world *wd, const float *lo, const float *hi, int a, int b)
{
    for (int k = 0; k < 3; ++k)
        if (lo[3 * a + k] > hi[3 * b + k] || lo[3 * b + k] > hi[3 * a + k]) return 0;
    if (tp_links_adjacent(wd, a, b)) return 0; /* parent and child links never collide */
    if (tp_bodies_filtered(wd, a, b)) return 0;
    if (tp_body_is_simulated(wd, a) || tp_body_is_simulated(wd, b)) return 1;
    /* an awake articulation link collides with everything: its rows use the tree's response */
    if (tp_link_is_awake(wd, a) || tp_link_is_awake(wd, b)) return 1;
    /* a moving kinematic body against a sleeping one: collide, so it can wake it */
    return (tp_body_is_moving_kinematic(wd, a) && wd->model[b].type == TP_BODY_DYNAMIC) ||
           (tp_body_is_moving_kinematic(wd, b) && wd->model[a].type == TP_BODY_DYNAMIC);
}

TP_HD int tp_broadphase_keep(const tp_broadphase *bp, int a, int b)
{
    return tp_broadphase_keep_boxes(bp->wd, bp->lo, bp->hi, a, b);
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

/* ---------------------------------------------------------------- a group of lanes
 *
 * The same candidate pairs in the same order, found by the nth lanes of a
 * group (lane tid) working in one area (shared memory on the device), with
 * TP_BARRIER(nth) between phases (kernels/islands.h's tp_islands_build_lanes
 * is written the same way). The CUDA backend runs it in its collide stage's
 * first launch (kernels/collide_pairs.h, tp_collide_list_pairs_lanes); the CPU
 * keeps the iterator above, and tests/test_stages.c checks that the two give
 * the same list on every scene, the lanes run one after the other between
 * barriers in both orders. Phases:
 *
 *   1. boxes: body b by lane b % nth (tp_body_aabb, tp_body_sweep: the
 *      iterator's functions);
 *   2. the axis: the six sums of the centres and their squares are six
 *      independent chains of float additions in body order, each run whole by
 *      one lane, so they are the iterator's sums bit for bit (a tree
 *      reduction would round differently and could pick another axis);
 *      tp_broadphase_axis then picks the same axis;
 *   3. the sort: every present body's 64-bit value (sort bits of its lower
 *      bound on the axis) << 32 | body index, removed bodies and the padding
 *      to a power of two UINT64_MAX, sorted by Batcher's bitonic network
 *      (K. E. Batcher, "Sorting networks and their applications", AFIPS 1968;
 *      the form over a power of two with compare-exchange partners i ^ j, as in
 *      the CUDA samples' sortingNetworks): log2(P) (log2(P) + 1) / 2 stages of
 *      independent compare-exchanges, a barrier after each. The values are
 *      distinct, so every correct sort gives one order: ascending bound, and
 *      body order among equal bounds, which is the order the iterator's stable
 *      radix sort gives (it sorts the present bodies listed in body order);
 *   4. the sweep, counting: sorted position i by lane i % nth counts its kept
 *      pairs exactly as tp_broadphase_next visits them (j = i + 1 .. while
 *      box j starts before box i ends on the axis);
 *   5. an exclusive scan of the counts (integers): each lane sums a
 *      contiguous chunk, then offsets its chunk by the chunks before it;
 *   6. the sweep again, each lane writing its positions' pairs from their
 *      offsets: the list is ordered by i, then j, as the iterator's.
 *
 * Every loop bound and barrier depends on the world only (bodies, the padded
 * size, the present count), so every lane reaches every barrier. Work: the
 * sort is O(P log^2 P / nth) per lane against the radix sort's 4 x (n + 256)
 * on one thread; for a tower (11 bodies, P = 16, 16 lanes) 10 stages of one
 * compare-exchange. */

/* The smallest power of two >= n (n >= 1). */
TP_HD int tp_pow2_ceil(int n)
{
    int p = 1;
    while (p < n) p *= 2;
    return p;
}

/* Where the parts of the lanes' work area are (tp_broadphase_area_at). */
typedef struct tp_broadphase_area {
    float *sums;        /* [6] sums of the box centres per axis, then of their squares */
    int32_t *head;      /* [2] present bodies, sweep axis */
    uint64_t *sorted;   /* [pow2] (sort bits of lo[axis]) << 32 | body, ascending after phase 3 */
    float *lo, *hi;     /* [bodies][3] boxes */
    int32_t *first;     /* [bodies + 1] per sorted position its kept pairs, then their offsets; [n]: the total */
    int32_t *lane_sum;  /* [nth] the scan's chunk sums */
    int32_t *lane_flag; /* [nth] 1 if the lane saw a pair with a compound body */
    int pow2;
} tp_broadphase_area;

/* Lay the area out from `work` (8-byte aligned; NULL: only size it); returns
 * its bytes, a multiple of 8: 28 per body, 8 per padded body, 8 per lane, 32. */
TP_HD size_t tp_broadphase_area_at(int bodies, int nth, void *work, tp_broadphase_area *A)
{
    size_t B = (size_t)(bodies > 0 ? bodies : 0), L = (size_t)(nth > 0 ? nth : 1);
    int pow2 = tp_pow2_ceil(bodies > 0 ? bodies : 1);
    size_t off_sorted = 32, off_lo = off_sorted + (size_t)pow2 * sizeof(uint64_t);
    size_t off_hi = off_lo + tp_align8(3 * B * sizeof(float)), off_first = off_hi + tp_align8(3 * B * sizeof(float));
    size_t off_lanes = off_first + tp_align8((B + 1) * sizeof(int32_t));
    size_t end = off_lanes + 2 * tp_align8(L * sizeof(int32_t));
    if (A) {
        char *p = (char *)work;
        A->sums = (float *)p;
        A->head = (int32_t *)(p + 6 * sizeof(float));
        A->sorted = (uint64_t *)(p + off_sorted);
        A->lo = (float *)(p + off_lo);
        A->hi = (float *)(p + off_hi);
        A->first = (int32_t *)(p + off_first);
        A->lane_sum = (int32_t *)(p + off_lanes);
        A->lane_flag = (int32_t *)(p + off_lanes + tp_align8(L * sizeof(int32_t)));
        A->pow2 = pow2;
    }
    return end;
}

TP_HD size_t tp_broadphase_lanes_bytes(int bodies, int nth) { return tp_broadphase_area_at(bodies, nth, NULL, NULL); }

/* The body at sorted position i (phase 3 done). */
TP_HD int tp_broadphase_sorted_body(const tp_broadphase_area *A, int i) { return (int)(uint32_t)A->sorted[i]; }

/* The sweep from sorted position i (n present bodies, axis ax): counts the
 * kept pairs, writes them from out[k * stride] on (k from `at`, while below
 * `capacity`) when out is not NULL; *compound |= a pair with a compound body. */
TP_HD int tp_broadphase_sweep_from(const tp_world *wd, const tp_broadphase_area *A, int n, int ax, int i, int32_t *out,
                                   int stride, int at, int capacity, int *compound)
{
    int bi = tp_broadphase_sorted_body(A, i), k = at;
    float end = A->hi[3 * bi + ax];
    for (int j = i + 1; j < n; ++j) {
        int bj = tp_broadphase_sorted_body(A, j);
        if (A->lo[3 * bj + ax] > end) break;
        if (!tp_broadphase_keep_boxes(wd, A->lo, A->hi, bi, bj)) continue;
        *compound |= tp_body_is_compound(wd, bi) || tp_body_is_compound(wd, bj);
        if (out && k < capacity) {
            out[(size_t)k * (size_t)stride] = bi < bj ? bi : bj;
            out[(size_t)k * (size_t)stride + 1] = bi < bj ? bj : bi;
        }
        ++k;
    }
    return k - at;
}

/* The candidate pairs of world wd, as tp_broadphase_begin / tp_broadphase_next
 * give them, by lane tid of nth: pair k (a < b) into out[k * stride] and
 * out[k * stride + 1] for k < capacity (stride in int32 words, >= 2).
 * Returns the number of pairs (all of them, also those past capacity), the
 * same in every lane; *compound = 1 if one of them has a compound body.
 * work: tp_broadphase_lanes_bytes(wd->bodies, nth) bytes, 8-byte aligned,
 * shared by the group's lanes (its old contents do not matter). */
TP_HD int tp_broadphase_pairs_lanes(const tp_world *wd, float margin, void *work, int32_t *out, int stride,
                                    int capacity, int *compound, int tid, int nth)
{
    tp_broadphase_area A;
    tp_broadphase_area_at(wd->bodies, nth, work, &A);
    int B = wd->bodies, P = A.pow2;
    /* 1: boxes */
    for (int b = tid; b < B; b += nth)
        if (!(wd->flags[b] & TP_FLAG_REMOVED)) tp_body_aabb(wd, b, margin + tp_body_sweep(wd, b), A.lo + 3 * b, A.hi + 3 * b);
    TP_BARRIER(nth);
    /* 2: the six sums, each one lane's chain in body order; lane 0 counts */
    for (int k = tid; k < 6; k += nth) {
        int ax = k % 3;
        float acc = 0.0f;
        for (int b = 0; b < B; ++b) {
            if (wd->flags[b] & TP_FLAG_REMOVED) continue;
            float c = 0.5f * (A.lo[3 * b + ax] + A.hi[3 * b + ax]);
            acc += k < 3 ? c : c * c;
        }
        A.sums[k] = acc;
    }
    if (tid == 0) {
        int n = 0;
        for (int b = 0; b < B; ++b) n += !(wd->flags[b] & TP_FLAG_REMOVED);
        A.head[0] = n;
    }
    TP_BARRIER(nth);
    /* 3: the axis (every lane alike), the values, the bitonic sort */
    int n = A.head[0], ax = tp_broadphase_axis(A.sums, A.sums + 3, n);
    for (int i = tid; i < P; i += nth)
        A.sorted[i] = i < B && !(wd->flags[i] & TP_FLAG_REMOVED)
                          ? ((uint64_t)tp_float_sort_bits(A.lo[3 * i + ax]) << 32) | (uint64_t)(uint32_t)i
                          : UINT64_MAX;
    TP_BARRIER(nth);
    for (int k = 2; k <= P; k *= 2)
        for (int j = k / 2; j > 0; j /= 2) {
            for (int i = tid; i < P; i += nth) {
                int l = i ^ j;
                if (l <= i) continue; /* the pair's lower index does the exchange */
                uint64_t x = A.sorted[i], y = A.sorted[l];
                int ascending = (i & k) == 0;
                if (ascending ? x > y : x < y) {
                    A.sorted[i] = y;
                    A.sorted[l] = x;
                }
            }
            TP_BARRIER(nth);
        }
    /* 4: count each position's pairs */
    int flag = 0;
    for (int i = tid; i < n; i += nth) A.first[i] = tp_broadphase_sweep_from(wd, &A, n, ax, i, NULL, 0, 0, 0, &flag);
    A.lane_flag[tid] = flag;
    TP_BARRIER(nth);
    /* 5: exclusive scan, a contiguous chunk per lane */
    int chunk = (n + nth - 1) / nth, c0 = tid * chunk < n ? tid * chunk : n, c1 = c0 + chunk < n ? c0 + chunk : n;
    int sum = 0;
    for (int i = c0; i < c1; ++i) sum += A.first[i];
    A.lane_sum[tid] = sum;
    TP_BARRIER(nth);
    int base = 0;
    for (int l = 0; l < tid; ++l) base += A.lane_sum[l];
    for (int i = c0; i < c1; ++i) {
        int c = A.first[i];
        A.first[i] = base;
        base += c;
    }
    if (tid == nth - 1) A.first[n] = base; /* the last chunk ends at n: the total */
    TP_BARRIER(nth);
    /* 6: write the pairs */
    for (int i = tid; i < n; i += nth) tp_broadphase_sweep_from(wd, &A, n, ax, i, out, stride, A.first[i], capacity, &flag);
    int any = 0;
    for (int l = 0; l < nth; ++l) any |= A.lane_flag[l];
    *compound = any;
    return A.first[n];
}

#endif
