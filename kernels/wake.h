/* wake.h - every wake rule, in one place (DESIGN.md section 7).
 *
 * What wakes a sleeping island, and what waking does:
 *   - a touching contact between it and an awake body (tp_islands_wake_touched,
 *     after the island builder found an island holding both);
 *   - an awake body about to hit it within the step (tp_contact_links: the
 *     contact links the two so the island builder puts them in one island);
 *   - a moving kinematic body touching or about to reach it
 *     (tp_kinematic_wake_flag);
 *   - contact capacity overflow in its world (tp_world_wake_all: lost contacts
 *     may be what it rested on);
 *   - host events between steps: a force, impulse or write on a body, an
 *     explicit wake, a wake of everything within a radius (tp_wake_body_in,
 *     tp_wake_sphere_in; csrc/batch_wake.c calls them).
 * Waking an island makes every body of it awake and resets every quiet timer
 * of it (the island timer rule). The wake stage of a step
 * (kernels/step.h, tp_stage_wake) applies the contact wakes and collides again
 * where something woke. */
#ifndef TP_WAKE_H
#define TP_WAKE_H

#include "contact.h"
#include "tp_world.h"

/* A contact point links (and supports) only when the surfaces are this close (m). */
#define TP_TOUCH_DISTANCE 0.005f

/* Island flags, kept per root in the scratch array root_flags by the island
 * builder (islands.h) and read by the wake and sleep rules. */
/* DRIVEN: the island holds a link of a driven or sprung tree, which is never
 * quiet, so the island never sleeps (its bodies report awake, not checking). */
enum { TP_ISLAND_HAS_AWAKE = 1, TP_ISLAND_HAS_SLEEPING = 2, TP_ISLAND_SUPPORTED = 4, TP_ISLAND_RESTLESS = 8,
       TP_ISLAND_DRIVEN = 16 };

/* How far body b, awake, can move towards its contact partner along the
 * contact's normal n within one step of dt (m, an upper bound): its velocity
 * towards the partner, |w| x (bounding radius + |centre of mass offset|) for
 * the rotation, and its acceleration (gravity and applied force) towards the
 * partner x dt^2 (semi-implicit Euler covers a dt^2 (k + 1) / (2 k) <= a dt^2
 * in k substeps). toward: +1 if b moving along +n closes the gap (b is body_a),
 * -1 if along -n (b is body_b). */
TP_HD float tp_closing_reach(const tp_world *wd, int b, tp_vec3 n, float toward, float dt)
{
    const tp_body_model *m = &wd->model[b];
    tp_vec3 a = tp_v3(wd->gravity[0], wd->gravity[1], wd->gravity[2]);
    a = tp_mad(a, tp_v3_load(wd->force + 3 * b), wd->inv_mass[b]);
    float arm = m->bound_radius + tp_len(tp_v3(m->com[0], m->com[1], m->com[2]));
    float speed = toward * tp_dot(tp_v3_load(wd->v + 3 * b), n) + tp_len(tp_v3_load(wd->w + 3 * b)) * arm;
    return speed * dt + toward * tp_dot(a, n) * dt * dt;
}

/* How far ahead (s) an awake body's reach towards a sleeper is looked at: the
 * step and one substep more. The relax sweeps of a step's last substep already
 * bound the approach speed by the gap the next substep may close, so a gap
 * that closes early in the next step slows the awake body against the still
 * frozen sleeper unless the sleeper wakes now (a 2 m/s cube lost 1.7 % of its
 * momentum that way when a pair with a sleeper got the speed-scaled margin). */
TP_HD float tp_link_horizon(float dt, int substeps) { return dt + dt / (float)(substeps > 0 ? substeps : 1); }

/* Does contact point c link its two (island) bodies? When they touch; and also
 * when one of them sleeps, the other is awake, and the awake one can close the
 * gap within the horizon (tp_link_horizon, tp_closing_reach). The solver acts on such a
 * speculative point, and a sleeping body enters its rows with infinite mass:
 * left asleep, it would stop the awake body like a wall and swallow the impact
 * (a 2 m/s cube hitting a sleeping one on frictionless ground ended with both at
 * rest when the gap at the start of the step was 5 mm..2 cm). Linking them wakes
 * the sleeper's island before the solve. A body passing by, or resting beside a
 * sleeper, does not close the gap and wakes nothing. */
TP_HD int tp_contact_links(const tp_world *wd, const tp_contact *c, float horizon)
{
    if (c->separation <= TP_TOUCH_DISTANCE) return 1;
    int sa = wd->sleep_state[c->body_a] == TP_SLEEPING, sb = wd->sleep_state[c->body_b] == TP_SLEEPING;
    if (sa == sb) return 0;
    tp_vec3 n = tp_v3_load(c->normal);
    float reach = sa ? tp_closing_reach(wd, c->body_b, n, -1.0f, horizon)
                     : tp_closing_reach(wd, c->body_a, n, 1.0f, horizon);
    return c->separation - reach <= TP_TOUCH_DISTANCE;
}

/* A moving kinematic body that touches a sleeping island, or will reach it
 * within the step, counts as something awake in that island, so the island
 * wakes (tp_islands_wake_touched) instead of being passed through. */
TP_HD void tp_kinematic_wake_flag(const tp_world *wd, const tp_contact *c, float dt, uint8_t *root_flags)
{
    int ka = tp_body_is_moving_kinematic(wd, c->body_a), kb = tp_body_is_moving_kinematic(wd, c->body_b);
    if (ka == kb) return;
    int k = ka ? c->body_a : c->body_b, other = ka ? c->body_b : c->body_a;
    if (!tp_body_in_islands(wd, other) || wd->sleep_state[other] != TP_SLEEPING) return;
    tp_vec3 n = tp_v3_load(c->normal);
    const tp_body_model *m = &wd->model[k];
    float arm = m->bound_radius + tp_len(tp_v3(m->com[0], m->com[1], m->com[2]));
    float toward = ka ? 1.0f : -1.0f; /* the normal points from a to b */
    float reach = (toward * tp_dot(tp_v3_load(wd->v + 3 * k), n) + tp_len(tp_v3_load(wd->w + 3 * k)) * arm) * dt;
    if (c->separation - reach <= TP_TOUCH_DISTANCE) root_flags[wd->island[other]] |= TP_ISLAND_HAS_AWAKE;
}

/* Wake every body of island `label`: awake, quiet timer reset (the
 * island timer rule: waking resets the timers of the whole island). */
TP_HD void tp_island_wake(tp_world *wd, int label)
{
    for (int b = 0; b < wd->bodies; ++b) {
        if (wd->island[b] != label) continue;
        wd->sleep_state[b] = TP_AWAKE;
        wd->quiet_timer[b] = 0.0f;
    }
}

/* Does an island with root flags f hold both awake and sleeping bodies? */
TP_HD int tp_island_touched(uint8_t f) { return (f & TP_ISLAND_HAS_AWAKE) && (f & TP_ISLAND_HAS_SLEEPING); }

/* Stage 6, contact wakes: an island that now holds both awake and sleeping
 * bodies was touched by something awake, so all of it wakes. One pass over
 * the bodies reading their root's flags, then one over the roots to clear
 * HAS_SLEEPING: O(bodies), where tp_island_wake per island is O(bodies x
 * islands); the same bodies wake (island[b] == r is what tp_island_wake tests). */
TP_HD void tp_islands_wake_touched(tp_world *wd, uint8_t *root_flags)
{
    for (int b = 0; b < wd->bodies; ++b) {
        int r = wd->island[b];
        if (r < 0 || !tp_island_touched(root_flags[r])) continue;
        wd->sleep_state[b] = TP_AWAKE;
        wd->quiet_timer[b] = 0.0f;
    }
    for (int r = 0; r < wd->bodies; ++r)
        if (tp_island_touched(root_flags[r])) root_flags[r] = (uint8_t)(root_flags[r] & ~TP_ISLAND_HAS_SLEEPING);
}

/* Wake every island of a world (contact capacity overflow: the lost points
 * may be what an island rested on). Returns 1 if a body was asleep. */
TP_HD int tp_world_wake_all(tp_world *wd)
{
    int woke = 0;
    for (int b = 0; b < wd->bodies; ++b) {
        if (!tp_body_in_islands(wd, b)) continue;
        woke |= wd->sleep_state[b] == TP_SLEEPING;
        wd->sleep_state[b] = TP_AWAKE;
        wd->quiet_timer[b] = 0.0f;
    }
    return woke;
}

/* 1 if an island holds both awake and sleeping bodies (tp_islands_wake_touched
 * would wake it). */
TP_HD int tp_islands_touched(const tp_world *wd, const uint8_t *root_flags)
{
    for (int r = 0; r < wd->bodies; ++r)
        if (tp_island_touched(root_flags[r])) return 1;
    return 0;
}

/* Wake body b of a world between steps: its island (as the last step's labels
 * left it), or the body alone if it has not been through a step yet. */
/* Set every link of the tree of link b (the links with b's root) to `state`,
 * quiet timers 0, velocities 0 when put to sleep: under the assembly policy a
 * tree sleeps and wakes whole (kernels/sleep_assembly.h). */
TP_HD void tp_tree_set_state(tp_world *wd, int b, uint8_t state)
{
    int32_t root = wd->model[b].link_root;
    for (int i = 0; i < wd->bodies; ++i) {
        if (wd->model[i].link_root != root || (wd->flags[i] & TP_FLAG_REMOVED)) continue;
        wd->sleep_state[i] = state;
        wd->quiet_timer[i] = 0.0f;
        if (state == TP_SLEEPING)
            for (int k = 0; k < 3; ++k) wd->v[3 * i + k] = wd->w[3 * i + k] = 0.0f;
    }
}

TP_HD void tp_wake_body_in(tp_world *wd, int b)
{
    if (wd->assembly && wd->model[b].link) { /* (the island policy wakes a tree as an island) */
        tp_tree_set_state(wd, b, TP_AWAKE);
        return;
    }
    if (!tp_body_in_islands(wd, b)) return;
    if (wd->island[b] >= 0) tp_island_wake(wd, wd->island[b]);
    wd->sleep_state[b] = TP_AWAKE;
    wd->quiet_timer[b] = 0.0f;
}

/* Wake every island with a body whose bounding sphere reaches within
 * `radius` (m) of `center` (world frame, m): an explosion-style wake. */
TP_HD void tp_wake_sphere_in(tp_world *wd, tp_vec3 center, float radius)
{
    for (int i = 0; i < wd->bodies; ++i) {
        if (!tp_body_in_islands(wd, i)) continue;
        float reach = radius + wd->model[i].bound_radius;
        if (tp_len_sq(tp_sub(tp_v3_load(wd->pos + 3 * i), center)) <= reach * reach) tp_wake_body_in(wd, i);
    }
}

#endif
