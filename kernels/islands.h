/* islands.h - stage 5: islands of touching bodies, by union-find per world.
 *
 * Bodies linked by a touching contact (separation below TP_TOUCH_DISTANCE)
 * belong to one island (and a sleeping body with an awake one about to hit it:
 * tp_contact_links); static bodies support an island without joining it
 * (so a whole pile on one ground is not one island), as in Box2D and in
 * 002_a9dafb58cea291df.txt. A sleeping body keeps its island: it is united
 * with the label it had when it fell asleep, so a sleeping island stays whole
 * although its own contacts are no longer computed.
 *
 * Union-find with union by smallest root and path halving: every root is the
 * smallest body index of its set, so the label of an island is canonical
 * (independent of the order of the unions, and so of threads), as Jolt's
 * island builder links to the lowest index. The CPU and CUDA backends run this
 * same code, so their labels agree by construction. */
#ifndef TP_ISLANDS_H
#define TP_ISLANDS_H

#include "contact.h"
#include "tp_world.h"

/* A contact point links (and supports) only when the surfaces are this close (m). */
#define TP_TOUCH_DISTANCE 0.005f

/* Island flags, kept per root in the scratch array root_flags. */
enum { TP_ISLAND_HAS_AWAKE = 1, TP_ISLAND_HAS_SLEEPING = 2, TP_ISLAND_SUPPORTED = 4, TP_ISLAND_RESTLESS = 8 };

TP_HD int tp_uf_find(int32_t *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]]; /* path halving */
        x = parent[x];
    }
    return x;
}

/* Unite the sets of a and b under the smaller root. */
TP_HD void tp_uf_union(int32_t *parent, int a, int b)
{
    a = tp_uf_find(parent, a);
    b = tp_uf_find(parent, b);
    if (a < b) parent[b] = a;
    else if (b < a) parent[a] = b;
}

/* A body that can belong to an island: dynamic and present. */
TP_HD int tp_body_in_islands(const tp_world *wd, int b)
{
    return wd->model[b].type == TP_BODY_DYNAMIC && !(wd->flags[b] & TP_FLAG_REMOVED);
}

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

/* Does contact point c link its two (island) bodies? When they touch; and also
 * when one of them sleeps, the other is awake, and the awake one can close the
 * gap within this step (tp_closing_reach). The solver acts on such a
 * speculative point, and a sleeping body enters its rows with infinite mass:
 * left asleep, it would stop the awake body like a wall and swallow the impact
 * (a 2 m/s cube hitting a sleeping one on frictionless ground ended with both at
 * rest when the gap at the start of the step was 5 mm..2 cm). Linking them wakes
 * the sleeper's island before the solve. A body passing by, or resting beside a
 * sleeper, does not close the gap and wakes nothing. */
TP_HD int tp_contact_links(const tp_world *wd, const tp_contact *c, float dt)
{
    if (c->separation <= TP_TOUCH_DISTANCE) return 1;
    int sa = wd->sleep_state[c->body_a] == TP_SLEEPING, sb = wd->sleep_state[c->body_b] == TP_SLEEPING;
    if (sa == sb) return 0;
    tp_vec3 n = tp_v3_load(c->normal);
    float reach = sa ? tp_closing_reach(wd, c->body_b, n, -1.0f, dt) : tp_closing_reach(wd, c->body_a, n, 1.0f, dt);
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

/* Build the islands of one world from its sorted contacts: writes the label of
 * every dynamic body into wd->island (-1 for others) and, per root, the flags
 * HAS_AWAKE, HAS_SLEEPING and SUPPORTED into root_flags [bodies].
 * dt: the step (for tp_contact_links). parent: [bodies] scratch. */
TP_HD void tp_islands_build(tp_world *wd, const tp_contact *contacts, int n, float dt, int32_t *parent,
                            uint8_t *root_flags)
{
    for (int b = 0; b < wd->bodies; ++b) {
        parent[b] = b;
        root_flags[b] = 0;
    }
    for (int b = 0; b < wd->bodies; ++b)
        if (tp_body_in_islands(wd, b) && wd->sleep_state[b] == TP_SLEEPING && wd->island[b] >= 0)
            tp_uf_union(parent, b, wd->island[b]);
    for (int i = 0; i < n; ++i) {
        const tp_contact *c = &contacts[i];
        int da = tp_body_in_islands(wd, c->body_a), db = tp_body_in_islands(wd, c->body_b);
        if (da && db && tp_contact_links(wd, c, dt)) tp_uf_union(parent, c->body_a, c->body_b);
    }
    for (int b = 0; b < wd->bodies; ++b) {
        if (!tp_body_in_islands(wd, b)) {
            wd->island[b] = -1;
            continue;
        }
        int root = tp_uf_find(parent, b);
        wd->island[b] = root;
        root_flags[root] |= wd->sleep_state[b] == TP_SLEEPING ? TP_ISLAND_HAS_SLEEPING : TP_ISLAND_HAS_AWAKE;
    }
    for (int i = 0; i < n; ++i) {
        const tp_contact *c = &contacts[i];
        if (c->separation > TP_TOUCH_DISTANCE) continue;
        int sa = wd->model[c->body_a].type == TP_BODY_STATIC, sb = wd->model[c->body_b].type == TP_BODY_STATIC;
        if (sa && tp_body_in_islands(wd, c->body_b)) root_flags[wd->island[c->body_b]] |= TP_ISLAND_SUPPORTED;
        if (sb && tp_body_in_islands(wd, c->body_a)) root_flags[wd->island[c->body_a]] |= TP_ISLAND_SUPPORTED;
    }
    for (int i = 0; i < n; ++i) tp_kinematic_wake_flag(wd, &contacts[i], dt, root_flags);
}

/* Wake every body of island `label`: awake, quiet timer reset (the rule of
 * 003_e1becc139ac8feb4.txt: waking resets the timers of the whole island). */
TP_HD void tp_island_wake(tp_world *wd, int label)
{
    for (int b = 0; b < wd->bodies; ++b) {
        if (wd->island[b] != label) continue;
        wd->sleep_state[b] = TP_AWAKE;
        wd->quiet_timer[b] = 0.0f;
    }
}

/* Stage 6, contact wakes: an island that now holds both awake and sleeping
 * bodies was touched by something awake, so all of it wakes. */
TP_HD void tp_islands_wake_touched(tp_world *wd, uint8_t *root_flags)
{
    for (int r = 0; r < wd->bodies; ++r) {
        uint8_t f = root_flags[r];
        if ((f & TP_ISLAND_HAS_AWAKE) && (f & TP_ISLAND_HAS_SLEEPING)) {
            tp_island_wake(wd, r);
            root_flags[r] = (uint8_t)(f & ~TP_ISLAND_HAS_SLEEPING);
        }
    }
}

#endif
