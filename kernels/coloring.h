/* coloring.h - the `constraints` stage: group contact points into constraints
 * and color them.
 *
 * A constraint is the manifold of one contact pair: the consecutive points of
 * the key-sorted contact list that share (body_a, body_b). Coloring assigns
 * each constraint a color such that no two constraints of one color share a
 * simulated (awake dynamic) body, so every constraint of a color can be solved
 * in parallel and the result is the same bits as solving them in key order.
 *
 * Greedy first-fit in contact-key order over TP_MAX_COLORS colors, as Box2D v3's
 * constraint graph does (graph.c, 24 colors plus an overflow): a constraint
 * between two simulated bodies takes the lowest free color; one against a
 * static, kinematic or sleeping body takes the highest free color, so those
 * rows are solved last in a sweep and the ground's support arrives after the
 * body-body rows have spread the load. A constraint that finds no free color
 * goes to the overflow color, swept serially in key order after the colors
 * (the serial tail). Static bodies take no color: their velocity is never written.
 * Each simulated body keeps a 32-bit mask of the colors it already has. */
#ifndef TP_COLORING_H
#define TP_COLORING_H

#include "contact.h"
#include "tp_world.h"

/* A test may build the kernels with fewer colors to force the serial tail
 * (tests/test_overflow_color.c), as Box2D's B2_FORCE_OVERFLOW does; the
 * library always uses 24. At most 32 (a body's color mask is 32 bits). */
#ifndef TP_MAX_COLORS
#define TP_MAX_COLORS 24
#endif
#define TP_OVERFLOW_COLOR TP_MAX_COLORS

typedef struct tp_constraint {
    int32_t first, count; /* points contacts[first .. first + count) */
    int32_t body_a, body_b;
    int32_t color;        /* 0 .. TP_MAX_COLORS - 1, or TP_OVERFLOW_COLOR */
} tp_constraint;

/* Does body b take a color: simulated, or a link of an awake articulation?
 * An articulation takes colors as one body (tp_body_unit): an impulse on one
 * link moves the whole tree, so every row touching any of its links conflicts
 * with every other. */
TP_HD int tp_body_takes_color(const tp_world *wd, int b)
{
    return tp_body_is_simulated(wd, b) || tp_link_is_awake(wd, b);
}

/* End of the run of points from i that share i's body pair (the key order
 * keeps a pair's points together). */
TP_HD int tp_pair_run_end(const tp_contact *contacts, int n, int i)
{
    int a = contacts[i].body_a, b = contacts[i].body_b, j = i + 1;
    while (j < n && contacts[j].body_a == a && contacts[j].body_b == b) ++j;
    return j;
}

/* c: the constraint of points [i, j) (one body pair), uncolored (the overflow color). */
TP_HD void tp_constraint_set(tp_constraint *c, const tp_contact *contacts, int i, int j)
{
    c->first = i;
    c->count = j - i;
    c->body_a = contacts[i].body_a;
    c->body_b = contacts[i].body_b;
    c->color = TP_OVERFLOW_COLOR;
}

/* Group the sorted contacts into constraints; pairs with no simulated body
 * (both asleep, static or kinematic) are left out: their rows are skipped.
 * Returns the number of constraints written to out (at most n). */
TP_HD int tp_build_constraints(const tp_world *wd, const tp_contact *contacts, int n, tp_constraint *out)
{
    int count = 0;
    for (int i = 0; i < n;) {
        int j = tp_pair_run_end(contacts, n, i);
        if (tp_body_takes_color(wd, contacts[i].body_a) || tp_body_takes_color(wd, contacts[i].body_b))
            tp_constraint_set(&out[count++], contacts, i, j);
        i = j;
    }
    return count;
}

/* Lowest (or highest) set bit of a 32-bit mask below TP_MAX_COLORS, or -1. */
TP_HD int tp_pick_color(uint32_t free_colors, int from_top)
{
    free_colors &= (1u << TP_MAX_COLORS) - 1u;
    if (!free_colors) return -1;
    if (from_top) {
        for (int c = TP_MAX_COLORS - 1; c >= 0; --c)
            if (free_colors & (1u << c)) return c;
    }
    for (int c = 0; c < TP_MAX_COLORS; ++c)
        if (free_colors & (1u << c)) return c;
    return -1;
}

/* Color the constraints (colored mode) or put them all in the serial tail
 * (serial mode), then write the solve order: order[color_start[c] ..
 * color_start[c + 1]) are the constraints of color c in key order, and color
 * TP_OVERFLOW_COLOR is the serial tail. body_mask: [bodies] scratch. */
TP_HD void tp_color_constraints(const tp_world *wd, tp_constraint *cons, int n, int serial, uint32_t *body_mask,
                                int32_t *order, int32_t *color_start)
{
    for (int b = 0; b < wd->bodies; ++b) body_mask[b] = 0u;
    for (int i = 0; i < n && !serial; ++i) {
        tp_constraint *c = &cons[i];
        int sa = tp_body_takes_color(wd, c->body_a), sb = tp_body_takes_color(wd, c->body_b);
        int ua = tp_body_unit(wd, c->body_a), ub = tp_body_unit(wd, c->body_b);
        uint32_t used = (sa ? body_mask[ua] : 0u) | (sb ? body_mask[ub] : 0u);
        int color = tp_pick_color(~used, !(sa && sb) || ua == ub);
        if (color < 0) continue; /* overflow: serial tail */
        c->color = color;
        if (sa) body_mask[ua] |= 1u << color;
        if (sb) body_mask[ub] |= 1u << color;
    }
    /* Counting sort by color, stable, so each color keeps key order. */
    for (int c = 0; c <= TP_MAX_COLORS + 1; ++c) color_start[c] = 0;
    for (int i = 0; i < n; ++i) color_start[cons[i].color + 1]++;
    for (int c = 0; c <= TP_MAX_COLORS; ++c) color_start[c + 1] += color_start[c];
    for (int i = 0; i < n; ++i) {
        int c = cons[i].color;
        int at = color_start[c];
        order[at] = i;
        color_start[c] = at + 1;
    }
    for (int c = TP_MAX_COLORS; c > 0; --c) color_start[c] = color_start[c - 1];
    color_start[0] = 0;
}

/* ---------------------------------------------------------------- in lanes
 *
 * The same constraints, colors, order and color_start, computed by the nth
 * lanes of a group (lane tid; CUDA: the group stage kernel, kernels/solve_group.h),
 * with TP_BARRIER(nth) between phases; every loop bound depends on the world
 * only, so every lane reaches every barrier.
 *
 * Scratch of a group (tp_color_lanes_scratch, the world's solver scratch):
 * ticket [bodies], counts [slots][TP_MAX_COLORS + 1] (slots: the lanes that
 * count, tp_color_slots of the bodies; lanes past it idle in the counting
 * phases) and flags [4]. */

#define TP_COLOR_PENDING (-1)   /* tp_constraint.color while the lanes have not colored it */
#define TP_COLOR_MAX_SLOTS 128  /* counting lanes at most (the solve's lanes at most: TP_SOLVE_MAX_LANES) */
#define TP_COLOR_BINS (TP_MAX_COLORS + 1) /* colors and the overflow color */

/* Counting slots for worlds of `bodies` bodies: the smallest power of two >=
 * bodies, at most TP_COLOR_MAX_SLOTS (the device's lanes never exceed it
 * unless a tuning override asks for more: those lanes idle while counting). */
TP_HD int tp_color_slots(int bodies)
{
    int s = 1;
    while (s < bodies && s < TP_COLOR_MAX_SLOTS) s *= 2;
    return s;
}

typedef struct tp_color_lanes_scratch {
    int32_t *ticket; /* [bodies] per unit: the smallest pending constraint on it this round */
    int32_t *counts; /* [slots][TP_COLOR_BINS] per counting lane */
    int32_t *flags;  /* [4]: pending constraints seen in round r (slot r & 1); [2] constraints; [3] fresh points */
    int slots;
} tp_color_lanes_scratch;

/* Integer min of a 32-bit word shared by the lanes: atomicMin on the device
 * (the result does not depend on the order of the lanes); on the host the
 * lanes never run at once (one lane, or the replay of tests/test_stages.c). */
#if defined(__CUDA_ARCH__)
#define TP_MIN32(p, v) atomicMin((int *)(p), (int)(v))
#else
#define TP_MIN32(p, v)                                                                                                 \
    do {                                                                                                               \
        volatile int32_t *tp_min_p_ = (p);                                                                             \
        int32_t tp_min_v_ = (v);                                                                                       \
        if (tp_min_v_ < *tp_min_p_) *tp_min_p_ = tp_min_v_;                                                            \
    } while (0)
#endif

/* Does contacts[i] begin a constraint (a new body pair that takes a color)? */
TP_HD int tp_constraint_begins(const tp_world *wd, const tp_contact *contacts, int i)
{
    int a = contacts[i].body_a, b = contacts[i].body_b;
    if (i > 0 && contacts[i - 1].body_a == a && contacts[i - 1].body_b == b) return 0;
    return tp_body_takes_color(wd, a) || tp_body_takes_color(wd, b);
}

/* tp_build_constraints in lanes: each counting lane counts the constraints
 * that begin in its contiguous range of points (and the points without a
 * warm-start impulse), lane 0 turns the counts into offsets, and each lane
 * writes its constraints from its offset: a stable compaction, so out[] is
 * the serial loop's. Returns the number of constraints (every lane);
 * *fresh: the points whose normal impulse is 0 (tp_solver_constraints' test). */
TP_HD int tp_build_constraints_lanes(const tp_world *wd, const tp_contact *contacts, int n, tp_constraint *out,
                                     const tp_color_lanes_scratch *S, int *fresh, int tid, int nth)
{
    int slots = nth < S->slots ? nth : S->slots, lo, hi;
    if (tid < slots) {
        tp_lanes_range(n, tid, slots, &lo, &hi);
        int k = 0, f = 0;
        for (int i = lo; i < hi; ++i) {
            k += tp_constraint_begins(wd, contacts, i);
            f += contacts[i].normal_impulse == 0.0f;
        }
        S->counts[tid * TP_COLOR_BINS] = k;
        S->counts[tid * TP_COLOR_BINS + 1] = f;
    }
    TP_BARRIER(nth);
    if (tid == 0) { /* exclusive prefix over the lanes; integers, so any order of sums gives the same */
        int total = 0, f = 0;
        for (int t = 0; t < slots; ++t) {
            int k = S->counts[t * TP_COLOR_BINS];
            S->counts[t * TP_COLOR_BINS] = total;
            total += k;
            f += S->counts[t * TP_COLOR_BINS + 1];
        }
        S->flags[2] = total;
        S->flags[3] = f;
    }
    TP_BARRIER(nth);
    if (tid < slots) {
        tp_lanes_range(n, tid, slots, &lo, &hi);
        int k = S->counts[tid * TP_COLOR_BINS];
        for (int i = lo; i < hi; ++i) {
            if (!tp_constraint_begins(wd, contacts, i)) continue;
            tp_constraint_set(&out[k], contacts, i, tp_pair_run_end(contacts, n, i)); /* the run may leave the range */
            ++k;
        }
    }
    *fresh = ((volatile int32_t *)S->flags)[3]; /* written by lane 0 before the barrier above */
    return ((volatile int32_t *)S->flags)[2];
}

/* The units of constraint c that take a color (-1: none; *ub = -1 also when
 * both ends are one unit), and whether the greedy takes the highest free
 * color for it (an end takes no color, or both ends are one articulation). */
TP_HD void tp_constraint_units(const tp_world *wd, const tp_constraint *c, int *ua, int *ub, int *from_top)
{
    int sa = tp_body_takes_color(wd, c->body_a), sb = tp_body_takes_color(wd, c->body_b);
    int a = tp_body_unit(wd, c->body_a), b = tp_body_unit(wd, c->body_b);
    *from_top = !(sa && sb) || a == b;
    *ua = sa ? a : -1;
    *ub = sb && !(sa && a == b) ? b : -1;
}

/* The stable counting sort of tp_color_constraints in lanes: counting lane t
 * counts the colors of its contiguous range of constraints, lane c of the
 * bins turns column c into per-lane offsets (the lanes before) and its total,
 * lane 0 the totals into color_start, and each counting lane places its range
 * in order. Constraint i lands at color_start[c] + (constraints of color c
 * before i), as in the serial sort. */
TP_HD void tp_color_sort_lanes(const tp_constraint *cons, int n, const tp_color_lanes_scratch *S, int32_t *order,
                               int32_t *color_start, int tid, int nth)
{
    int slots = nth < S->slots ? nth : S->slots, lo, hi;
    int32_t *mine = S->counts + (tid < slots ? tid : 0) * TP_COLOR_BINS; /* used by counting lanes only */
    if (tid < slots) {
        for (int c = 0; c < TP_COLOR_BINS; ++c) mine[c] = 0;
        tp_lanes_range(n, tid, slots, &lo, &hi);
        for (int i = lo; i < hi; ++i) mine[cons[i].color]++;
    }
    TP_BARRIER(nth);
    for (int c = tid; c < TP_COLOR_BINS; c += nth) {
        int run = 0;
        for (int t = 0; t < slots; ++t) {
            int k = S->counts[t * TP_COLOR_BINS + c];
            S->counts[t * TP_COLOR_BINS + c] = run;
            run += k;
        }
        color_start[c + 1] = run; /* the total of color c, for now */
    }
    TP_BARRIER(nth);
    if (tid == 0) {
        color_start[0] = 0;
        for (int c = 0; c < TP_COLOR_BINS; ++c) color_start[c + 1] += color_start[c];
    }
    TP_BARRIER(nth);
    if (tid < slots) {
        tp_lanes_range(n, tid, slots, &lo, &hi);
        for (int i = lo; i < hi; ++i) {
            int c = cons[i].color;
            order[color_start[c] + mine[c]++] = i;
        }
    }
}

/* tp_color_constraints in lanes, with the greedy's result exactly.
 *
 * The greedy gives constraint i (key order) the lowest free color of
 * mask[ua] | mask[ub] (the highest: tp_constraint_units' from_top), where the
 * masks hold the colors of the constraints before i on those units. This is
 * Jones and Plassmann's parallel coloring ("A parallel graph coloring
 * heuristic", SIAM J. Sci. Comput. 14(3), 1993) with the key order as the
 * priority: run with a fixed priority order it colors exactly as the serial
 * greedy in that order (Hasenplaugh, Kaler, Schardl and Leiserson, "Ordering
 * heuristics for parallel graph coloring", SPAA 2014). Rounds, until no
 * constraint is pending:
 *   (a) every pending constraint resets the tickets of its units (lanes may
 *       write the same INT32_MAX to one ticket);
 *   (b) every pending constraint i takes ticket[u] = min(ticket[u], i) on
 *       each of its units (an integer min: atomicMin on the device, the result
 *       independent of order), and marks the round as having work;
 *   (c) constraint i is ready if it holds the ticket of each of its units:
 *       it picks its color from the masks as the greedy does (the overflow
 *       color if none is free, masks then unchanged) and sets its bits.
 * Why the colors are the greedy's: at (c) of a round, ticket[u] == i means no
 * pending constraint before i is on u, so every constraint before i on u is
 * colored already; and none after i on u is, since while i was pending
 * ticket[u] <= i in every earlier round, so no later constraint held u then.
 * So mask[u] holds exactly the colors of the constraints before i on u, as
 * in the greedy, and by induction over i every color is the greedy's. Two
 * ready constraints never share a unit (each holds its units' tickets), so
 * the mask reads and writes of (c) are race-free. The smallest pending
 * constraint is always ready, so every round colors one at least. The number
 * of rounds is the longest chain of constraints in key order each sharing a
 * unit with the next (a tower of 10 on the ground: 10, one per storey; the
 * 20-row pyramid: 111 for its 590 constraints; docs/cuda.md).
 *
 * Then the stable counting sort by color (tp_color_sort_lanes). With nth = 1
 * it gives the greedy's colors at O(rounds x n) instead of O(n), so the CPU
 * runs tp_color_constraints itself (tp_solver_constraints_lanes). Scratch: S; body_mask
 * [bodies]; order [n] serves as scratch until the sort writes it. */
TP_HD void tp_color_constraints_lanes(const tp_world *wd, tp_constraint *cons, int n, int serial, uint32_t *body_mask,
                                      const tp_color_lanes_scratch *S, int32_t *order, int32_t *color_start, int tid,
                                      int nth)
{
    volatile int32_t *flags = S->flags;
    int ua, ub, top;
    for (int b = tid; b < wd->bodies; b += nth) body_mask[b] = 0u;
    /* Constraint i belongs to lane i % nth throughout the rounds: only that
     * lane reads or writes its color, and order[i], free until the sort,
     * holds its units (ua + 1) | (ub + 1) << 16 (bodies < 32768: the contact
     * key's 15 bits), so a round reads one word, not the body table. */
    for (int i = tid; i < n; i += nth) {
        cons[i].color = serial ? TP_OVERFLOW_COLOR : TP_COLOR_PENDING;
        tp_constraint_units(wd, &cons[i], &ua, &ub, &top);
        order[i] = (int32_t)((uint32_t)(ua + 1) | (uint32_t)(ub + 1) << 16);
    }
    if (tid == 0) flags[0] = 0;
    TP_BARRIER(nth);
    for (int round = 0; !serial; ++round) {
        for (int i = tid; i < n; i += nth) { /* (a) */
            if (cons[i].color != TP_COLOR_PENDING) continue;
            uint32_t u = (uint32_t)order[i];
            ua = (int)(u & 0xffffu) - 1, ub = (int)(u >> 16) - 1;
            if (ua >= 0) S->ticket[ua] = INT32_MAX;
            if (ub >= 0) S->ticket[ub] = INT32_MAX;
        }
        TP_BARRIER(nth);
        if (tid == 0) flags[(round + 1) & 1] = 0; /* for the next round; read by nobody in this one */
        for (int i = tid; i < n; i += nth) { /* (b) */
            if (cons[i].color != TP_COLOR_PENDING) continue;
            uint32_t u = (uint32_t)order[i];
            ua = (int)(u & 0xffffu) - 1, ub = (int)(u >> 16) - 1;
            if (ua >= 0) TP_MIN32(&S->ticket[ua], i);
            if (ub >= 0) TP_MIN32(&S->ticket[ub], i);
            flags[round & 1] = 1; /* lanes may store the same 1 */
        }
        TP_BARRIER(nth);
        if (!flags[round & 1]) break; /* the same for every lane: written before the barrier, next written
                                         after the next round's first barrier */
        volatile int32_t *ticket = S->ticket;
        for (int i = tid; i < n; i += nth) { /* (c) */
            tp_constraint *c = &cons[i];
            if (c->color != TP_COLOR_PENDING) continue;
            uint32_t u = (uint32_t)order[i];
            ua = (int)(u & 0xffffu) - 1, ub = (int)(u >> 16) - 1;
            if ((ua >= 0 && ticket[ua] != i) || (ub >= 0 && ticket[ub] != i)) continue;
            tp_constraint_units(wd, c, &ua, &ub, &top); /* once per constraint: the side of the palette */
            uint32_t used = (ua >= 0 ? body_mask[ua] : 0u) | (ub >= 0 ? body_mask[ub] : 0u);
            int color = tp_pick_color(~used, top);
            c->color = color < 0 ? TP_OVERFLOW_COLOR : color;
            if (color < 0) continue;
            if (ua >= 0) body_mask[ua] |= 1u << color;
            if (ub >= 0) body_mask[ub] |= 1u << color;
        }
        TP_BARRIER(nth);
    }
    tp_color_sort_lanes(cons, n, S, order, color_start, tid, nth);
}

#endif
