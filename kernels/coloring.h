/* coloring.h - stage 7: group contact points into constraints and color them.
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

/* Group the sorted contacts into constraints; pairs with no simulated body
 * (both asleep, static or kinematic) are left out: their rows are skipped.
 * Returns the number of constraints written to out (at most n). */
TP_HD int tp_build_constraints(const tp_world *wd, const tp_contact *contacts, int n, tp_constraint *out)
{
    int count = 0;
    for (int i = 0; i < n;) {
        int a = contacts[i].body_a, b = contacts[i].body_b, j = i + 1;
        while (j < n && contacts[j].body_a == a && contacts[j].body_b == b) ++j;
        if (tp_body_takes_color(wd, a) || tp_body_takes_color(wd, b)) {
            tp_constraint *c = &out[count++];
            c->first = i;
            c->count = j - i;
            c->body_a = a;
            c->body_b = b;
            c->color = TP_OVERFLOW_COLOR;
        }
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

#endif
