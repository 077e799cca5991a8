/* restitution.h - bounces, in the `solve` stage: which contact points bounce in a substep
 * and at what speed.
 *
 * A point bounces in the substep in which it first pushes during the step (its
 * impact), if its pair has restitution e > 0 and it closes faster than the
 * threshold (default 1 m/s, solver.restitution_threshold; Box2D v3's rule, so
 * resting contact never bounces). Its normal row then aims at a separating
 * speed w (tp_bounce_speed) in the rest of that substep: in restitution sweeps
 * run before the position update, and in the relax sweeps after it, together
 * with every other row. All the points of a body that land in one substep
 * (a box landing flat: four) are thereby solved as one block, iterated to
 * convergence with the rest of the rows, rather than one after the other in a
 * single pass (which made such a body gain spin and height).
 *
 * Why in the impact substep and not after the step (Box2D v3): the speculative
 * row stops a falling body at the surface, where it would then rest for the
 * rest of the step; a rebound aimed after the step loses the potential energy
 * of the gap it closed and mismeasures the impact speed (docs/solver.md,
 * "Restitution"). Here the body turns round where it stands
 * at the start of the impact substep (at most one substep's travel, a few mm,
 * above the surface), with the speed that conserves its energy through the
 * integrator (tp_bounce_speed). The impulses of a bouncing point are counted in
 * its forces but not warm started: the point is separating afterwards. */
#ifndef TP_RESTITUTION_H
#define TP_RESTITUTION_H

#include "contact_rows.h"

/* After a substep's velocity integration: note which points have not pushed
 * yet in this step (only those can start a bounce) and their normal speed now.
 * approach_start holds their speed before the integration (tp_prepare_row for
 * the first substep, tp_solver_end_substep for the others). */
TP_HD void tp_restitution_capture(const tp_world *wd, const tp_contact *contacts, tp_contact_row *rows, int n, int tid,
                                  int nth)
{
    for (int i = tid; i < n; i += nth) {
        tp_contact_row *r = &rows[i];
        r->fresh = r->max_normal_impulse == 0.0f;
        if (r->fresh) r->approach = tp_row_normal_speed(wd, &contacts[i], r);
    }
}

/* Separating speed w of a point that bounces in this substep.
 *   u = -approach_start: its closing speed at the start of the substep;
 *   g = (approach_start - approach) / h: its closing acceleration (gravity,
 *       applied forces), taken from the substep's velocity integration;
 *   s = max(separation, 0): the gap at the start of the substep.
 * Semi-implicit Euler (v += g h, then x += v h) conserves exactly the energy
 *   E = v^2 / 2 + g x - g h v / 2   (x the gap, v its rate),
 * so the point had E0 = u^2 / 2 + g s + g h u / 2 before the impact, counted
 * from the surface. An impact that keeps e^2 of the energy, E1 = e^2 E0, after
 * which the point leaves from gap s at speed w (E1 = w^2 / 2 + g s + g h w / 2),
 * gives w^2 + g h w = e^2 (u^2 + 2 g s + g h u) - 2 g s. For e = 1 the root is
 * w = u exactly: a perfectly elastic ball comes back to its drop height however
 * the impact falls within a step. Without acceleration it is w = e u. */
TP_HD float tp_bounce_speed(float e, float u, float g, float s, float h)
{
    float gh = g * h;
    float rhs = e * e * (u * u + 2.0f * g * s + gh * u) - 2.0f * g * s;
    float disc = gh * gh + 4.0f * rhs;
    if (!(disc > 0.0f)) return 0.0f;
    return tp_maxf(0.5f * (sqrtf(disc) - gh), 0.0f);
}

/* After the biased sweeps of a substep: every point that pushed for the first
 * time in the step, closing faster than the threshold, gets its bounce speed.
 * Returns nothing; tp_restitution_any tells whether any point bounces. */
TP_HD void tp_restitution_targets(const tp_contact *contacts, tp_contact_row *rows, int n, float h, float threshold,
                                  int tid, int nth)
{
    for (int i = tid; i < n; i += nth) {
        tp_contact_row *r = &rows[i];
        float e = contacts[i].restitution;
        if (!r->fresh || r->max_normal_impulse == 0.0f || e == 0.0f || -r->approach <= threshold) continue;
        float u = -r->approach_start, g = (r->approach_start - r->approach) / h;
        r->bounce_speed = tp_bounce_speed(e, u, g, tp_maxf(r->separation, 0.0f), h);
    }
}

/* 1 if some point of this step can bounce: its pair's restitution is not 0.
 * Otherwise no point ever gets a bounce speed (tp_restitution_targets skips
 * e == 0), and the step leaves out the bounce bookkeeping, whose only reader
 * is that test: tp_restitution_capture, tp_restitution_targets,
 * tp_restitution_any and the starting speed in tp_solver_end_substep. Three
 * passes over the points per substep go (the peers' scenes have no bounce);
 * the bits are the same. Every thread of a block scans all points, as in
 * tp_restitution_any. */
TP_HD int tp_restitution_possible(const tp_contact *contacts, int n)
{
    for (int i = 0; i < n; ++i)
        if (!(contacts[i].restitution == 0.0f)) return 1;
    return 0;
}

/* 1 if any point bounces in this substep. Every thread of a block scans all
 * points (after a barrier), so they all take the same branch without a shared
 * write. */
TP_HD int tp_restitution_any(const tp_contact_row *rows, int n)
{
    for (int i = 0; i < n; ++i)
        if (rows[i].bounce_speed > 0.0f) return 1;
    return 0;
}

#endif
