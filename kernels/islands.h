/* islands.h - the islands stage: islands of touching bodies, by union-find per world.
 *
 * Bodies linked by a touching contact (separation below TP_TOUCH_DISTANCE)
 * belong to one island (and a sleeping body with an awake one about to hit it:
 * tp_contact_links); static bodies support an island without joining it
 * (so a whole pile on one ground is not one island), as in Box2D and in
 * batched GPU island sleeping. The links of an articulation are one island
 * (joined every step), which contacts join to everything the tree touches;
 * a fixed-base tree supports its island (its base is attached to the world)
 * but, unlike static geometry, joins it: a fixed-base robot with moving joints
 * joins the island of everything it touches. A sleeping body keeps its island: it is united
 * with the label it had when it fell asleep, so a sleeping island stays whole
 * although its own contacts are no longer computed.
 *
 * Union-find with union by smallest root and path halving: every root is the
 * smallest body index of its set, so the label of an island is canonical
 * (independent of the order of the unions, and so of threads and lanes), as
 * Jolt's island builder links to the lowest index. One algorithm,
 * tp_islands_build_lanes, written for a group of lanes (one lane on the CPU,
 * a group per world on CUDA); tp_islands_build is its one-lane form, which
 * the wake stage's rebuilds and the trace use. Which contacts link a sleeper
 * to an awake body, and everything else that wakes, is wake.h. */
#ifndef TP_ISLANDS_H
#define TP_ISLANDS_H

#include "constraint.h"
#include "mover.h"
#include "wake.h"

/* The root of x in a forest where other lanes may be hooking roots and
 * halving paths at the same time (volatile: every read goes to memory).
 * Path halving (each node skips to its grandparent); every write keeps parent[x] an ancestor of x
 * and parent[x] <= x, so a racing halving only shortens a path. */
TP_HD int tp_uf_find_lanes(volatile int32_t *parent, int x)
{
    for (;;) {
        int p = parent[x];
        if (p == x) return x;
        int g = parent[p];
        if (g != p) parent[x] = g;
        x = g;
    }
}

/* Unite the sets of a and b from any lane at any time: hook the larger root
 * under the smaller with a compare-and-swap that succeeds only while it is
 * still a root, else look again (the lock-free union of Anderson and Woll,
 * "Wait-free parallel algorithms for the union-find problem", STOC 1991, with
 * ECL-CC's hooking to the smaller index: Jaiganesh and Burtscher, "A
 * High-Performance Connected Components Implementation for GPUs", HPDC 2018).
 * parent[x] <= x holds throughout, so every root is the smallest index of its
 * tree, and once all unions are done every set is one tree whose root is its
 * smallest index, whatever the order of the unions. */
TP_HD void tp_uf_union_lanes(volatile int32_t *parent, int a, int b)
{
    for (;;) {
        a = tp_uf_find_lanes(parent, a);
        b = tp_uf_find_lanes(parent, b);
        if (a == b) return;
        if (a > b) {
            int t = a;
            a = b;
            b = t;
        }
        if (TP_CAS32(&parent[b], b, a) == b) return; /* b was still a root */
    }
}

/* tp_islands_build shared among the nth lanes of a group (lane tid): the
 * unions of the sleepers and of the linking contacts by all lanes at once
 * (tp_uf_union_lanes), a barrier, every body's label by a read-only walk to
 * its root, a barrier, then the flags by lane 0 (a few operations per body
 * and per contact: ORs into shared bytes that lanes would otherwise race
 * for). The labels are the CPU's (see tp_uf_union_lanes), so are the flags,
 * which depend on the labels only. With nth = 1 it is tp_islands_build. */
TP_HD void tp_islands_build_lanes(tp_world *wd, const tp_contact *contacts, int n, float horizon, int32_t *parent,
                                  uint8_t *root_flags, int tid, int nth)
{
    volatile int32_t *vp = parent;
    for (int b = tid; b < wd->bodies; b += nth) {
        vp[b] = b;
        root_flags[b] = 0;
    }
    TP_BARRIER(nth);
    for (int b = tid; b < wd->bodies; b += nth)
        if (tp_body_in_islands(wd, b) && wd->sleep_state[b] == TP_SLEEPING && wd->island[b] >= 0)
            tp_uf_union_lanes(vp, b, wd->island[b]);
    for (int b = tid; b < wd->bodies; b += nth) /* the links of a tree are one island */
        if (wd->model[b].link && tp_body_in_islands(wd, b)) tp_uf_union_lanes(vp, b, wd->model[b].link_root - 1);
    for (int i = tid; i < n; i += nth) {
        const tp_contact *c = &contacts[i];
        int da = tp_body_in_islands(wd, c->body_a), db = tp_body_in_islands(wd, c->body_b);
        if (da && db && tp_contact_links(wd, c, horizon)) tp_uf_union_lanes(vp, c->body_a, c->body_b);
    }
    for (int k = tid; k < wd->cons_count; k += nth) { /* bodies on an enabled constraint are one island */
        int a = wd->cons[k].body0, b = wd->cons[k].body1;
        if (wd->cons[k].enabled && a >= 0 && b >= 0 && tp_body_in_islands(wd, a) && tp_body_in_islands(wd, b))
            tp_uf_union_lanes(vp, a, b);
    }
    TP_BARRIER(nth);
    for (int b = tid; b < wd->bodies; b += nth) {
        int root = b;
        while (vp[root] != root) root = vp[root];
        wd->island[b] = tp_body_in_islands(wd, b) ? root : -1;
    }
    TP_BARRIER(nth);
    if (tid != 0) return;
    for (int b = 0; b < wd->bodies; ++b)
        if (tp_body_in_islands(wd, b))
            root_flags[wd->island[b]] |= wd->sleep_state[b] == TP_SLEEPING ? TP_ISLAND_HAS_SLEEPING : TP_ISLAND_HAS_AWAKE;
    for (int i = 0; i < n; ++i) {
        const tp_contact *c = &contacts[i];
        if (c->separation > TP_TOUCH_DISTANCE) continue;
        int sa = wd->model[c->body_a].type == TP_BODY_STATIC, sb = wd->model[c->body_b].type == TP_BODY_STATIC;
        if (sa && tp_body_in_islands(wd, c->body_b)) root_flags[wd->island[c->body_b]] |= TP_ISLAND_SUPPORTED;
        if (sb && tp_body_in_islands(wd, c->body_a)) root_flags[wd->island[c->body_a]] |= TP_ISLAND_SUPPORTED;
    }
    for (int b = 0; b < wd->bodies; ++b) { /* a fixed base is attached to the world: it supports */
        if ((wd->model[b].link_flags & TP_LINK_FIXED_BASE) && tp_body_in_islands(wd, b))
            root_flags[wd->island[b]] |= TP_ISLAND_SUPPORTED;
        if ((wd->model[b].link_flags & TP_LINK_DRIVEN) && tp_body_in_islands(wd, b))
            root_flags[wd->island[b]] |= TP_ISLAND_DRIVEN;
    }
    for (int k = 0; k < wd->cons_count; ++k) {
        /* held by the world or a static body: supported; on a running drive
         * (tp_cons_driving): awake, as a driven articulation */
        int a = wd->cons[k].body0, b = wd->cons[k].body1;
        if (!wd->cons[k].enabled) continue;
        int fa = a < 0 || wd->model[a].type == TP_BODY_STATIC, fb = b < 0 || wd->model[b].type == TP_BODY_STATIC;
        if (fa && b >= 0 && tp_body_in_islands(wd, b)) root_flags[wd->island[b]] |= TP_ISLAND_SUPPORTED;
        if (fb && a >= 0 && tp_body_in_islands(wd, a)) root_flags[wd->island[a]] |= TP_ISLAND_SUPPORTED;
        if (!tp_cons_driving(&wd->cons[k], &wd->cons_state[k])) continue;
        int d = a >= 0 && tp_body_in_islands(wd, a) ? a : b;
        if (d >= 0 && tp_body_in_islands(wd, d)) root_flags[wd->island[d]] |= TP_ISLAND_DRIVEN | TP_ISLAND_RESTLESS;
    }
    for (int k = 0; k < wd->mover_count; ++k) {
        /* an active mover drives its body (a mover joins no island), and
         * under reaction the body it pulls on: a sleeping one, pulled by an
         * awake body0, counts as touched by something awake (it wakes) */
        int a = wd->movers[k].body0, p = tp_mover_pulls(wd, &wd->movers[k], &wd->mover_state[k]);
        if (tp_mover_driving(wd, &wd->movers[k], &wd->mover_state[k]) && tp_body_in_islands(wd, a))
            root_flags[wd->island[a]] |= TP_ISLAND_DRIVEN | TP_ISLAND_RESTLESS;
        if (p < 0 || !tp_body_in_islands(wd, p)) continue;
        root_flags[wd->island[p]] |= TP_ISLAND_DRIVEN | TP_ISLAND_RESTLESS;
        if (tp_body_in_islands(wd, a) && wd->sleep_state[a] != TP_SLEEPING) root_flags[wd->island[p]] |= TP_ISLAND_HAS_AWAKE;
    }
    for (int i = 0; i < n; ++i) tp_kinematic_wake_flag(wd, &contacts[i], horizon, root_flags);
}

/* Build the islands of one world from its sorted contacts: writes the label of
 * every dynamic body into wd->island (-1 for others) and, per root, the flags
 * HAS_AWAKE, HAS_SLEEPING and SUPPORTED into root_flags [bodies].
 * horizon: how far ahead an awake body's reach towards a sleeper counts
 * (tp_link_horizon, s). parent: [bodies] scratch. One lane of
 * tp_islands_build_lanes: the one algorithm, so the wake stage's rebuilds, the
 * trace and the islands stage cannot drift apart. */
TP_HD void tp_islands_build(tp_world *wd, const tp_contact *contacts, int n, float horizon, int32_t *parent,
                            uint8_t *root_flags)
{
    tp_islands_build_lanes(wd, contacts, n, horizon, parent, root_flags, 0, 1);
}

#endif
