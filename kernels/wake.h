/* wake.h - every wake rule, in one place (DESIGN.md section 7).
 *
 * What wakes a sleeping body, under each policy (docs/sleep-policies.md), and
 * what waking does. The step and the host reach them through the policy
 * interface, kernels/sleep_policy.h.
 *
 * Both policies:
 *   - an awake body about to hit a sleeper within the step counts as touching
 *     it (tp_contact_links, tp_closing_reach, tp_link_horizon);
 *   - contact capacity overflow in a world wakes all of it (tp_world_wake_all:
 *     lost contacts may be what a body rested on);
 *   - a non-zero or non-finite joint_f on a dof of a sleeping tree wakes the
 *     tree (tp_dofs_pushed), and so does a host write of a world's joint state,
 *     targets or controls;
 *   - host events between steps: a force, impulse or write on a body, an
 *     explicit wake, a wake of everything within a radius (csrc/batch_wake.c).
 * Island policy: a touching contact between a sleeping island and an awake body
 * (or a moving kinematic body touching or about to reach it,
 * tp_kinematic_wake_flag), or a mover's pull (reaction) from an awake body0
 * (islands.h), wakes the whole island (tp_islands_wake_touched);
 * waking an island makes every body of it awake and resets every quiet timer
 * of it (the island timer rule); a host wake of a body wakes its island.
 * Assembly policy: a moving body that touches or is about to hit a sleeping one
 * turns it sleep-checking, or awake if faster than collision_wake_speed
 * (tp_assembly_contact_wakes), and so does an awake body sharing an enabled
 * constraint with it, or a mover that reads it (tp_assembly_neighbour_met);
 * a body a mover pulls on (reaction) from an awake body0 wakes; a host wake
 * wakes the body alone (a constraint's changed parameter wakes both its bodies); a tree wakes
 * whole (tp_tree_set_state). A checking body's own wake rules (acceleration,
 * fast neighbours) are part of its sleep decision (kernels/sleep_assembly.h). */
#ifndef TP_WAKE_H
#define TP_WAKE_H

#include "contact.h"
#include "mover.h"
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
    float arm = m->bound_radius + tp_len(tp_body_com_local(wd, b));
    float speed = toward * tp_dot(tp_v3_load(wd->v + 3 * b), n) + tp_len(tp_v3_load(wd->w + 3 * b)) * arm;
    return speed * dt + toward * tp_dot(a, n) * dt * dt;
}

/* How far ahead (s) an awake body's reach towards a sleeper is looked at: the
 * step and one substep more. The relax sweeps of a step's last substep already
 * bound the approach speed by the gap the next substep may close, so a gap
 * that closes early in the next step would slow the awake body against the
 * still frozen sleeper unless the sleeper wakes now (docs/sleep-policies.md). */
TP_HD float tp_link_horizon(float dt, int substeps) { return dt + dt / (float)(substeps > 0 ? substeps : 1); }

/* Does contact point c link its two (island) bodies? When they touch; and also
 * when one of them sleeps, the other is awake, and the awake one can close the
 * gap within the horizon (tp_link_horizon, tp_closing_reach). The solver acts on
 * such a speculative point, and a sleeping body enters its rows with infinite
 * mass: left asleep, it would stop the awake body like a wall and swallow the
 * impact. Linking them wakes the sleeper's island before the solve. A body
 * passing by, or resting beside a sleeper, does not close the gap and wakes
 * nothing. */
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
    float arm = m->bound_radius + tp_len(tp_body_com_local(wd, k));
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

/* Contact wakes (island policy): an island that now holds both awake and sleeping
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

/* Island policy: wake body b between steps, with its island (as the last
 * step's labels left it), or the body alone if it has not been through a step
 * yet. */
TP_HD void tp_island_wake_body(tp_world *wd, int b)
{
    if (!tp_body_in_islands(wd, b)) return;
    if (wd->island[b] >= 0) tp_island_wake(wd, wd->island[b]);
    wd->sleep_state[b] = TP_AWAKE;
    wd->quiet_timer[b] = 0.0f;
}

/* Island policy: wake every island with a body whose bounding sphere reaches
 * within `radius` (m) of `center` (world frame, m): an explosion-style wake. */
TP_HD void tp_island_wake_sphere(tp_world *wd, tp_vec3 center, float radius)
{
    for (int i = 0; i < wd->bodies; ++i) {
        if (!tp_body_in_islands(wd, i)) continue;
        float reach = radius + wd->model[i].bound_radius;
        if (tp_len_sq(tp_sub(tp_v3_load(wd->pos + 3 * i), center)) <= reach * reach) tp_island_wake_body(wd, i);
    }
}

/* Do the joint forces f [n] of a tree's dofs push it (non-zero, or not a
 * number)? A pushed sleeping tree wakes. */
TP_HD int tp_dofs_pushed(const float *f, int n)
{
    int pushed = 0;
    for (int d = 0; d < n; ++d) pushed |= !(f[d] == 0.0f);
    return pushed;
}

/* ---------------------------------------------------------------- assembly policy */

/* A body that is simulated as moving: awake dynamic, or a moving kinematic. */
TP_HD int tp_assembly_moving(const tp_world *wd, int b)
{
    if (tp_body_is_moving_kinematic(wd, b)) return 1;
    return tp_body_in_islands(wd, b) && wd->sleep_state[b] == TP_AWAKE;
}

/* |w| r of body b: the speed of a point on its bounding sphere (m/s). */
TP_HD float tp_assembly_rot_speed(const tp_world *wd, int b, const float *w)
{
    return tp_len(tp_v3_load(w + 3 * b)) * wd->model[b].bound_radius;
}

/* Set body b alone to `state` (a link: its whole tree, tp_tree_set_state):
 * waking resets its quiet timer, sleeping zeroes its velocity. */
TP_HD void tp_assembly_set_state(tp_world *wd, int b, uint8_t state)
{
    if (wd->model[b].link) {
        if (!(wd->flags[b] & TP_FLAG_REMOVED)) tp_tree_set_state(wd, b, state);
        return;
    }
    if (!tp_body_in_islands(wd, b)) return;
    wd->sleep_state[b] = state;
    if (state == TP_SLEEPING)
        for (int k = 0; k < 3; ++k) wd->v[3 * b + k] = wd->w[3 * b + k] = 0.0f;
    else
        wd->quiet_timer[b] = 0.0f;
}

/* Wake body b (awake, quiet timer reset); its neighbours are left alone. A
 * link wakes its whole tree. */
TP_HD void tp_assembly_wake_body(tp_world *wd, int b) { tp_assembly_set_state(wd, b, TP_AWAKE); }

/* Wake every body whose bounding sphere reaches within `radius` (m) of
 * `center` (m): the explosion-style wake, body by body. */
TP_HD void tp_assembly_wake_sphere(tp_world *wd, tp_vec3 center, float radius)
{
    for (int i = 0; i < wd->bodies; ++i) {
        float reach = radius + wd->model[i].bound_radius;
        if (tp_len_sq(tp_sub(tp_v3_load(wd->pos + 3 * i), center)) <= reach * reach) tp_assembly_wake_body(wd, i);
    }
}

/* Does contact c bring moving body y (its side: toward +1 if y is body_a)
 * against the other body within `horizon` (s, tp_link_horizon)? Touching, or
 * closing the gap (tp_closing_reach, as the island policy's tp_contact_links). */
TP_HD int tp_assembly_reaches(const tp_world *wd, const tp_contact *c, int y, float toward, float horizon)
{
    if (c->separation <= TP_TOUCH_DISTANCE) return 1;
    return c->separation - tp_closing_reach(wd, y, tp_v3_load(c->normal), toward, horizon) <= TP_TOUCH_DISTANCE;
}

/* Links x and y of one tree? */
TP_HD int tp_assembly_same_tree(const tp_world *wd, int x, int y)
{
    return wd->model[x].link && wd->model[x].link_root == wd->model[y].link_root;
}

/* One side of a contact before the solve: x (not awake) met by y (moving).
 * A sleeping tree has no held state: a moving body that reaches one of its
 * links wakes it whole, at any speed (as an island wakes). */
TP_HD int tp_assembly_met(tp_world *wd, const tp_contact *c, int x, int y, float toward, const tp_assembly_def *a,
                          float horizon)
{
    if (wd->model[x].link) {
        if ((wd->flags[x] & TP_FLAG_REMOVED) || wd->sleep_state[x] != TP_SLEEPING || tp_assembly_same_tree(wd, x, y) ||
            !tp_assembly_moving(wd, y) || !tp_assembly_reaches(wd, c, y, toward, horizon))
            return 0;
        tp_tree_set_state(wd, x, TP_AWAKE);
        return 1;
    }
    if (!tp_body_in_islands(wd, x) || wd->sleep_state[x] == TP_AWAKE || !tp_assembly_moving(wd, y)) return 0;
    if (!tp_assembly_reaches(wd, c, y, toward, horizon)) return 0;
    int was_sleeping = wd->sleep_state[x] == TP_SLEEPING;
    if (tp_len(tp_v3_load(wd->v + 3 * y)) > a->collision_wake_speed) tp_assembly_wake_body(wd, x);
    else wd->sleep_state[x] = TP_CHECKING;
    return was_sleeping;
}

/* One end of an enabled constraint before the solve: sleeping body x whose
 * neighbour y moves turns sleep-checking (seed 000: a non-moving assembly
 * sharing a constraint with an awake neighbour); 1 if it did. */
TP_HD int tp_assembly_neighbour_met(tp_world *wd, int x, int y)
{
    if (!tp_body_in_islands(wd, x) || wd->sleep_state[x] != TP_SLEEPING || !tp_assembly_moving(wd, y)) return 0;
    wd->sleep_state[x] = TP_CHECKING;
    return 1;
}

/* The contact rules before the solve (the wake stage): a sleeping body that a
 * moving body touches or is about to hit becomes sleep-checking, and awake if
 * that body is faster than collision_wake_speed (a checking body too).
 * Returns 1 if a sleeping body changed state: its own pairs were skipped by
 * the broadphase, so the world collides again. States only rise (sleeping ->
 * checking -> awake) and the caller repeats until nothing changes, so the
 * result does not depend on the order of the contacts. */
TP_HD int tp_assembly_contact_wakes(tp_world *wd, const tp_contact *contacts, int n, const tp_assembly_def *a,
                                    float horizon)
{
    int changed = 0;
    for (int i = 0; i < n; ++i) {
        const tp_contact *c = &contacts[i];
        changed |= tp_assembly_met(wd, c, c->body_a, c->body_b, -1.0f, a, horizon);
        changed |= tp_assembly_met(wd, c, c->body_b, c->body_a, 1.0f, a, horizon);
    }
    for (int k = 0; k < wd->cons_count; ++k) {
        const tp_cons_model *m = &wd->cons[k];
        if (!m->enabled || m->body0 < 0 || m->body1 < 0) continue;
        changed |= tp_assembly_neighbour_met(wd, m->body0, m->body1);
        changed |= tp_assembly_neighbour_met(wd, m->body1, m->body0);
    }
    for (int k = 0; k < wd->mover_count; ++k) { /* a mover links body0 to the body its mode reads */
        const tp_mover_model *m = &wd->movers[k];
        int n = tp_mover_neighbour(wd, m, &wd->mover_state[k]), p = tp_mover_pulls(wd, m, &wd->mover_state[k]);
        if (p >= 0 && tp_body_in_islands(wd, p) && wd->sleep_state[p] != TP_AWAKE && tp_assembly_moving(wd, m->body0)) {
            changed |= wd->sleep_state[p] == TP_SLEEPING; /* pulled (reaction): a force wakes it */
            tp_assembly_wake_body(wd, p);
        }
        if (n < 0) continue;
        changed |= tp_assembly_neighbour_met(wd, m->body0, n);
        changed |= tp_assembly_neighbour_met(wd, n, m->body0);
    }
    return changed;
}

#endif
