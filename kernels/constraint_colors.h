/* constraint_colors.h - constraints between two bodies and movers in the
 * colors of the contact constraints (kernels/coloring.h), so that their rows
 * are solved in the same parallel color passes.
 *
 * After the contacts are colored, each constraint and each mover with rows
 * this step takes, in index order (constraints, then movers), a color in
 * which neither of its bodies that take colors has a row already: the
 * greedy's rule, on the masks the contacts left (static bodies, the world
 * and sleeping bodies block nothing; an end on one of them takes the
 * highest free color, as a contact on the ground does). One that finds none
 * takes the overflow color: the serial tail, after the contacts' tail, in
 * index order. In serial mode every one is in the tail, so the serial
 * reference sweeps the contacts in key order, then the constraints, then the
 * movers. A color's constraints and movers share no body that moves with
 * each other or with its contact constraints, so any lane may solve any of
 * them while the other lanes solve the color's contacts: the bits are those
 * of the order contacts, constraints, movers within each color.
 *
 * The colors live in each one's state (tp_cons_state.color,
 * tp_mover_state.color); the solver's scratch keeps how many each color has
 * (tp_solver_work.cons_colors). Colored by one lane (lane 0 on the device,
 * after the contacts): a few per world. */
#ifndef TP_CONSTRAINT_COLORS_H
#define TP_CONSTRAINT_COLORS_H

#include "coloring.h"
#include "mover_rows.h"

#define TP_CONS_UNCOLORED (-1) /* no rows this step: in no color */

/* Does mover k have rows in this step's sweeps (tp_mover_build: active, its
 * body moving, not a push)? *other: the rows' other body (attachment1's
 * under reaction while it moves, else -1). */
TP_HD int tp_mover_has_rows(const tp_world *wd, const tp_solver_body *sb, int k, int *other)
{
    const tp_mover_model *m = &wd->movers[k];
    *other = -1;
    if (m->type == TP_MOVER_VECTOR_FORCE || m->type == TP_MOVER_TORQUE) return 0;
    if (!tp_mover_active(wd, m, &wd->mover_state[k]) || !tp_cons_moves(sb, m->body0)) return 0;
    if (tp_mover_uses_body1(m) && (m->flags & TP_MOVER_REACTION) && tp_cons_moves(sb, m->body1)) *other = m->body1;
    return 1;
}

/* The color of rows on bodies a and b (-1: the world), its bits set in the
 * bodies' masks; TP_OVERFLOW_COLOR if none is free (masks unchanged). */
TP_HD int tp_cons_pick_color(const tp_world *wd, uint32_t *body_mask, int a, int b)
{
    int sa = a >= 0 && tp_body_takes_color(wd, a), sb = b >= 0 && tp_body_takes_color(wd, b);
    uint32_t used = (sa ? body_mask[a] : 0u) | (sb ? body_mask[b] : 0u);
    int color = tp_pick_color(~used, !(sa && sb) || a == b);
    if (color < 0) return TP_OVERFLOW_COLOR;
    if (sa) body_mask[a] |= 1u << color;
    if (sb) body_mask[b] |= 1u << color;
    return color;
}

/* Color every constraint and mover with rows (serial: all in the overflow
 * color) on the masks the contacts' coloring left; count[TP_COLOR_BINS]
 * gets the number of each color. */
TP_HD void tp_cons_color_all(tp_world *wd, const tp_solver_body *sb, int serial, uint32_t *body_mask, int32_t *count)
{
    for (int c = 0; c < TP_COLOR_BINS; ++c) count[c] = 0;
    for (int k = 0; k < wd->cons_count; ++k) {
        const tp_cons_model *m = &wd->cons[k];
        int color = TP_CONS_UNCOLORED;
        if (tp_cons_active(wd, sb, k))
            color = serial ? TP_OVERFLOW_COLOR : tp_cons_pick_color(wd, body_mask, m->body0, m->body1);
        wd->cons_state[k].color = color;
        if (color != TP_CONS_UNCOLORED) count[color]++;
    }
    for (int k = 0; k < wd->mover_count; ++k) {
        int other, color = TP_CONS_UNCOLORED;
        if (tp_mover_has_rows(wd, sb, k, &other))
            color = serial ? TP_OVERFLOW_COLOR : tp_cons_pick_color(wd, body_mask, other, wd->movers[k].body0);
        wd->mover_state[k].color = color;
        if (color != TP_CONS_UNCOLORED) count[color]++;
    }
}

/* The constraints and movers of color c in a sweep, lane tid of nth taking
 * every nth of each: constraints, then movers, in index order. */
TP_HD void tp_cons_sweep_color(tp_world *wd, const tp_solver_body *sb, int c, float inv_h, int use_bias, int tid,
                               int nth)
{
    tp_row_soft soft = tp_cons_make_soft(1.0f / inv_h);
    for (int k = tid; k < wd->cons_count; k += nth)
        if (wd->cons_state[k].color == c) tp_cons_solve(wd, sb, k, inv_h, &soft, use_bias);
    for (int k = tid; k < wd->mover_count; k += nth)
        if (wd->mover_state[k].color == c) tp_mover_solve(wd, sb, k, inv_h, &soft, use_bias);
}

#endif
