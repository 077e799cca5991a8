/* sleep_assembly.h - the assembly sleep policy: per body, three states.
 *
 * The assembly sleep rules (awake, sleep-checking, sleeping), where every body
 * is its own assembly and an articulation tree one, with the thresholds of
 * tp_assembly_def:
 *   - awake -> not awake when its speed and |w| r are under the velocity
 *     thresholds (x actuated_factor for an actuated body, or one on an
 *     actuated constraint or mover: tp_cons_actuated, tp_mover_actuated) and its |dv/dt| and
 *     |dw/dt| r under the acceleration thresholds (r: bounding radius), held
 *     for quiet_time; it then sleeps, or is sleep-checking if it touches a
 *     body that stays awake;
 *   - sleeping -> sleep-checking or awake: kernels/wake.h
 *     (tp_assembly_contact_wakes);
 *   - sleep-checking: held in place (not integrated), wakes when its own
 *     acceleration exceeds the wake thresholds or a touching (or constrained)
 *     awake body's speed or |w| r exceeds the neighbour thresholds; sleeps
 *     once no awake body touches it or shares a constraint with it (a mover
 *     counts as a constraint between body0 and the body its mode reads);
 *   - a body a mover pulls on (reaction) stays awake while body0 is awake;
 *   - an awake body on a spring whose damper carries load stays awake
 *     (tp_cons_spring_unsettled, with the linear acceleration threshold).
 * How a held body's acceleration is measured: it takes part in the velocity
 * solve as a dynamic body (gravity and every row it is in, those against the
 * ground and other held or sleeping bodies included), but its pose is not
 * integrated (tp_body_moves) and the velocity the solve gave it is dropped at
 * the end of the step. That velocity over dt is (the impulses its rows gave it
 * + m g dt) / (m dt): the acceleration it would have if it were let go.
 * Treating it as infinite mass instead leaves its rows against the ground
 * unsolved, so a held body under one awake body of its mass reads 2 g
 * (> 16.9 m/s^2) and every held body under a stack wakes (docs/sleep-policies.md).
 * A held body that wakes keeps that velocity as its start.
 *
 * Every decision of a step reads the states at the start of that decision
 * and writes only per-body flags, then applies them: the result does not
 * depend on the order of the contacts or of the bodies. The step calls it
 * through the sleep policy interface (kernels/sleep_policy.h). */
#ifndef TP_SLEEP_ASSEMBLY_H
#define TP_SLEEP_ASSEMBLY_H

#include "contact.h"
#include "mover.h"
#include "tp_world.h"
#include "wake.h"

/* Per-body flags of the sleep decision (scratch [bodies]); a tree's are on
 * its root link's entry. */
enum { TP_ASM_STAYS_AWAKE = 1, TP_ASM_TOUCHES_AWAKE = 2, TP_ASM_TREE_BUSY = 4, TP_ASM_TREE_TOUCHES = 8,
       TP_ASM_ACTUATED = 16 /* on an actuated constraint or mover (tp_cons_actuated, tp_mover_actuated) */ };

/* Put body b to sleep alone (tp_batch_sleep); a link, its whole tree. */
TP_HD void tp_assembly_sleep_body(tp_world *wd, int b) { tp_assembly_set_state(wd, b, TP_SLEEPING); }

/* Is body b at rest this step by the awake -> sleeping thresholds (velocity
 * thresholds x f)? v0, w0: its velocities at the start of the step. */
TP_HD int tp_assembly_quiet(const tp_world *wd, int b, const tp_assembly_def *a, float dt, tp_vec3 v0, tp_vec3 w0,
                            float f)
{
    float r = wd->model[b].bound_radius, inv_dt = 1.0f / dt;
    tp_vec3 v = tp_v3_load(wd->v + 3 * b), w = tp_v3_load(wd->w + 3 * b);
    float lin_a = tp_len(tp_sub(v, v0)) * inv_dt, rot_a = tp_len(tp_sub(w, w0)) * r * inv_dt;
    return tp_len(v) < a->linear_velocity * f && tp_len(w) * r < a->rotational_velocity * f &&
           lin_a < a->linear_acceleration && rot_a < a->rotational_acceleration;
}

/* Pass 1 for body b, awake or checking: does it stay (or become) awake on its
 * own velocity and acceleration? v0, w0: its velocities at the start of the
 * step. Updates the quiet timer of an awake body. */
TP_HD int tp_assembly_body_awake(tp_world *wd, int b, const tp_assembly_def *a, float dt, tp_vec3 v0, tp_vec3 w0,
                                 int actuated)
{
    if (wd->sleep_state[b] == TP_CHECKING) {
        float r = wd->model[b].bound_radius, inv_dt = 1.0f / dt;
        tp_vec3 v = tp_v3_load(wd->v + 3 * b), w = tp_v3_load(wd->w + 3 * b);
        float lin_a = tp_len(tp_sub(v, v0)) * inv_dt, rot_a = tp_len(tp_sub(w, w0)) * r * inv_dt;
        return lin_a > a->wake_linear_acceleration || rot_a > a->wake_rotational_acceleration;
    }
    int quiet = tp_assembly_quiet(wd, b, a, dt, v0, w0, actuated ? a->actuated_factor : 1.0f);
    wd->quiet_timer[b] = quiet ? wd->quiet_timer[b] + dt : 0.0f;
    return !quiet || !(wd->quiet_timer[b] >= a->quiet_time);
}

/* ---------------------------------------------------------------- trees
 *
 * Under this policy an articulation tree is one assembly (a unit of sleep):
 * its links are awake or sleeping together, never held (no sleep-checking
 * state: a tree's response is its joints', which a held state would drop).
 * It falls asleep when every link passes the awake -> sleeping test (the
 * velocity thresholds x actuated_factor for a tree with drives of non-zero
 * gains or passive springs, the source's actuated joints) for quiet_time, and
 * no link touches a body that stays awake (so nothing awake leans on it); a
 * moving body reaching a link wakes it whole (tp_assembly_met), as do the host
 * wakes of any of its links. Its decision is taken on its root link's flags. */

/* Tree pass 1 for link b of an awake tree: a link not at rest makes its tree busy. */
TP_HD void tp_assembly_link_quiet(const tp_world *wd, int b, const tp_assembly_def *a, float dt, tp_vec3 v0,
                                  tp_vec3 w0, uint8_t *flags)
{
    int driven = (wd->model[b].link_flags & TP_LINK_DRIVEN) || wd->model[b].actuated;
    if (!tp_assembly_quiet(wd, b, a, dt, v0, w0, driven ? a->actuated_factor : 1.0f))
        flags[wd->model[b].link_root - 1] |= TP_ASM_TREE_BUSY;
}

/* Does link x's tree stay awake on its own (flags of tree pass 1)? */
TP_HD int tp_assembly_tree_stays(const tp_world *wd, int x, const uint8_t *flags)
{
    return (flags[wd->model[x].link_root - 1] & TP_ASM_STAYS_AWAKE) != 0;
}

/* Tree pass 2 on one side of a touching contact: link x (of an awake tree)
 * touches y, which stays awake (pass 1 of bodies and trees) or is a moving
 * kinematic body. */
TP_HD void tp_assembly_tree_touch(const tp_world *wd, int x, int y, uint8_t *flags)
{
    if (!wd->model[x].link || wd->sleep_state[x] == TP_SLEEPING || tp_assembly_same_tree(wd, x, y)) return;
    int moving = wd->model[y].link ? wd->sleep_state[y] != TP_SLEEPING && tp_assembly_tree_stays(wd, y, flags)
                                   : tp_body_is_moving_kinematic(wd, y) ||
                                         (tp_body_in_islands(wd, y) && (flags[y] & TP_ASM_STAYS_AWAKE));
    if (moving) flags[wd->model[x].link_root - 1] |= TP_ASM_TREE_TOUCHES;
}

/* Pass 2 on one side of a touching contact: checking body x wakes when y,
 * awake at the start of the decision, moves or turns faster than the
 * neighbour thresholds. */
TP_HD void tp_assembly_neighbour(const tp_world *wd, int x, int y, const tp_assembly_def *a, uint8_t *flags)
{
    if (!tp_body_in_islands(wd, x) || wd->sleep_state[x] != TP_CHECKING || !tp_assembly_moving(wd, y)) return;
    if (tp_len(tp_v3_load(wd->v + 3 * y)) > a->neighbour_linear_velocity ||
        tp_assembly_rot_speed(wd, y, wd->w) > a->neighbour_rotational_velocity)
        flags[x] |= TP_ASM_STAYS_AWAKE;
}

/* Does body b end this step moving (pass 3)? A link: if its tree stays awake. */
TP_HD int tp_assembly_ends_moving(const tp_world *wd, int b, const uint8_t *flags)
{
    if (wd->model[b].link) return wd->sleep_state[b] != TP_SLEEPING && tp_assembly_tree_stays(wd, b, flags);
    if (tp_body_is_moving_kinematic(wd, b)) return 1;
    return tp_body_in_islands(wd, b) && (flags[b] & TP_ASM_STAYS_AWAKE);
}

/* Pass 4 for body b, awake or checking at the start of the decision. */
TP_HD void tp_assembly_apply(tp_world *wd, int b, const uint8_t *flags)
{
    if (flags[b] & TP_ASM_STAYS_AWAKE) {
        if (wd->sleep_state[b] != TP_AWAKE) tp_assembly_wake_body(wd, b);
        return;
    }
    for (int k = 0; k < 3; ++k) wd->v[3 * b + k] = wd->w[3 * b + k] = 0.0f;
    wd->sleep_state[b] = (flags[b] & TP_ASM_TOUCHES_AWAKE) ? TP_CHECKING : TP_SLEEPING;
}

/* The sleep stage of the assembly policy, after the solve. v_start, w_start
 * [bodies][3]: velocities at the start of the step (a held body's are 0);
 * contacts [n]: this step's, sorted; flags [bodies]: scratch. */
TP_HD void tp_assembly_sleep_update(tp_world *wd, const tp_assembly_def *a, float dt, const float *v_start,
                                    const float *w_start, const tp_contact *contacts, int n, uint8_t *flags)
{
    for (int b = 0; b < wd->bodies; ++b) flags[b] = 0;
    for (int k = 0; k < wd->cons_count; ++k) /* seed 000's actuated joints: the stricter thresholds */
        if (tp_cons_actuated(&wd->cons[k])) {
            if (wd->cons[k].body0 >= 0) flags[wd->cons[k].body0] |= TP_ASM_ACTUATED;
            if (wd->cons[k].body1 >= 0) flags[wd->cons[k].body1] |= TP_ASM_ACTUATED;
        }
    for (int k = 0; k < wd->mover_count; ++k) /* and its actuated movers, on the bodies they connect */
        if (tp_mover_actuated(wd, &wd->movers[k], &wd->mover_state[k])) {
            int n = tp_mover_neighbour(wd, &wd->movers[k], &wd->mover_state[k]);
            flags[wd->movers[k].body0] |= TP_ASM_ACTUATED;
            if (n >= 0) flags[n] |= TP_ASM_ACTUATED;
        }
    for (int b = 0; b < wd->bodies; ++b) {
        tp_vec3 v0 = tp_v3_load(v_start + 3 * b), w0 = tp_v3_load(w_start + 3 * b);
        if (wd->model[b].link) { /* trees: below */
            if (!(wd->flags[b] & TP_FLAG_REMOVED) && wd->sleep_state[b] != TP_SLEEPING)
                tp_assembly_link_quiet(wd, b, a, dt, v0, w0, flags);
            continue;
        }
        if (!tp_body_in_islands(wd, b) || wd->sleep_state[b] == TP_SLEEPING) continue;
        int actuated = wd->model[b].actuated || (flags[b] & TP_ASM_ACTUATED);
        if (tp_assembly_body_awake(wd, b, a, dt, v0, w0, actuated)) flags[b] |= TP_ASM_STAYS_AWAKE;
    }
    for (int k = 0; k < wd->cons_count; ++k) { /* a spring whose damper carries load is not at rest */
        if (!tp_cons_spring_unsettled(wd, k, a->linear_acceleration)) continue;
        int ends[2] = {wd->cons[k].body0, wd->cons[k].body1};
        for (int e = 0; e < 2; ++e)
            if (ends[e] >= 0 && tp_body_in_islands(wd, ends[e]) && wd->sleep_state[ends[e]] == TP_AWAKE) {
                wd->quiet_timer[ends[e]] = 0.0f;
                flags[ends[e]] |= TP_ASM_STAYS_AWAKE;
            }
    }
    for (int k = 0; k < wd->mover_count; ++k) { /* pulled (reaction) by an awake body0: a force every step */
        int p = tp_mover_pulls(wd, &wd->movers[k], &wd->mover_state[k]);
        if (p >= 0 && tp_body_in_islands(wd, p) && wd->sleep_state[p] != TP_SLEEPING &&
            wd->sleep_state[wd->movers[k].body0] == TP_AWAKE)
            flags[p] |= TP_ASM_STAYS_AWAKE;
    }
    for (int b = 0; b < wd->bodies; ++b) /* a tree's quiet timer, on its root link */
        if (wd->model[b].link_root == b + 1 && !(wd->flags[b] & TP_FLAG_REMOVED) && wd->sleep_state[b] != TP_SLEEPING) {
            wd->quiet_timer[b] = (flags[b] & TP_ASM_TREE_BUSY) ? 0.0f : wd->quiet_timer[b] + dt;
            if ((flags[b] & TP_ASM_TREE_BUSY) || !(wd->quiet_timer[b] >= a->quiet_time)) flags[b] |= TP_ASM_STAYS_AWAKE;
        }
    for (int i = 0; i < n; ++i) {
        const tp_contact *c = &contacts[i];
        if (c->separation > TP_TOUCH_DISTANCE) continue;
        tp_assembly_neighbour(wd, c->body_a, c->body_b, a, flags);
        tp_assembly_neighbour(wd, c->body_b, c->body_a, a, flags);
        tp_assembly_tree_touch(wd, c->body_a, c->body_b, flags);
        tp_assembly_tree_touch(wd, c->body_b, c->body_a, flags);
    }
    for (int k = 0; k < wd->cons_count; ++k) { /* bodies sharing an enabled constraint are neighbours */
        const tp_cons_model *m = &wd->cons[k];
        if (!m->enabled || m->body0 < 0 || m->body1 < 0) continue;
        tp_assembly_neighbour(wd, m->body0, m->body1, a, flags);
        tp_assembly_neighbour(wd, m->body1, m->body0, a, flags);
    }
    for (int k = 0; k < wd->mover_count; ++k) { /* and the bodies a mover links (tp_mover_neighbour) */
        int x = wd->movers[k].body0, n = tp_mover_neighbour(wd, &wd->movers[k], &wd->mover_state[k]);
        if (n < 0) continue;
        tp_assembly_neighbour(wd, x, n, a, flags);
        tp_assembly_neighbour(wd, n, x, a, flags);
    }
    for (int b = 0; b < wd->bodies; ++b) /* a tree touching what stays awake stays awake */
        if (flags[b] & TP_ASM_TREE_TOUCHES) flags[b] |= TP_ASM_STAYS_AWAKE;
    for (int i = 0; i < n; ++i) {
        const tp_contact *c = &contacts[i];
        if (c->separation > TP_TOUCH_DISTANCE) continue;
        if (tp_assembly_ends_moving(wd, c->body_b, flags)) flags[c->body_a] |= TP_ASM_TOUCHES_AWAKE;
        if (tp_assembly_ends_moving(wd, c->body_a, flags)) flags[c->body_b] |= TP_ASM_TOUCHES_AWAKE;
    }
    for (int k = 0; k < wd->cons_count; ++k) {
        const tp_cons_model *m = &wd->cons[k];
        if (!m->enabled || m->body0 < 0 || m->body1 < 0) continue;
        if (tp_assembly_ends_moving(wd, m->body1, flags)) flags[m->body0] |= TP_ASM_TOUCHES_AWAKE;
        if (tp_assembly_ends_moving(wd, m->body0, flags)) flags[m->body1] |= TP_ASM_TOUCHES_AWAKE;
    }
    for (int k = 0; k < wd->mover_count; ++k) {
        int x = wd->movers[k].body0, n = tp_mover_neighbour(wd, &wd->movers[k], &wd->mover_state[k]);
        if (n < 0) continue;
        if (tp_assembly_ends_moving(wd, n, flags)) flags[x] |= TP_ASM_TOUCHES_AWAKE;
        if (tp_assembly_ends_moving(wd, x, flags)) flags[n] |= TP_ASM_TOUCHES_AWAKE;
    }
    for (int b = 0; b < wd->bodies; ++b)
        if (tp_body_in_islands(wd, b) && wd->sleep_state[b] != TP_SLEEPING) tp_assembly_apply(wd, b, flags);
    for (int b = 0; b < wd->bodies; ++b) { /* trees: asleep whole, or the root's timer on every link */
        int root = wd->model[b].link_root - 1;
        if (!wd->model[b].link || (wd->flags[b] & TP_FLAG_REMOVED) || wd->sleep_state[b] == TP_SLEEPING) continue;
        if (flags[root] & TP_ASM_STAYS_AWAKE) wd->quiet_timer[b] = wd->quiet_timer[root];
        else if (b == root) tp_tree_set_state(wd, b, TP_SLEEPING);
    }
}

#endif
