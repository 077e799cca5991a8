/* sleep.h - the island sleep policy: when an island falls asleep.
 *
 * The island sleep rules (per-island quiet timers, thresholds, static support):
 *   - a body is quiet in a step when its speed is below the linear threshold
 *     and its angular measure below the angular threshold; a value exactly at
 *     a threshold counts as moving (strict <);
 *   - its quiet timer adds dt while quiet and is reset to 0 (never
 *     decremented) otherwise;
 *   - an island falls asleep when every body in it has been quiet for the
 *     quiet time, and, while gravity is non-zero and require_support is set,
 *     only if it touches static geometry;
 *   - asleep: not integrated, velocity reading zero, pose and timer frozen.
 * Two guards taken from assembly sleep: the acceleration guard (a body whose
 * velocity changed by more than accel_threshold x dt in the step is not quiet,
 * so a ball at the top of its arc stays awake) and the surface-speed angular
 * measure (|w| times the bounding-sphere radius, compared with a speed). And
 * torpor's drift rule (tp_body_quiet_run): a quiet run ends when the velocity
 * has changed by the linear threshold since it began, so a body turned around
 * by a gentle net force (a ball rolling up a slope) does not sleep at its
 * turning point.
 * A spring whose damper carries load (an overdamped spring creeping towards
 * rest) keeps its bodies from being quiet: tp_cons_spring_unsettled.
 * Awake bodies whose timer is running are reported as sleep-checking, except
 * in an island held awake by a driven tree. */
#ifndef TP_SLEEP_H
#define TP_SLEEP_H

#include "islands.h"

typedef struct tp_sleep_params {
    int enabled;
    float linear_threshold, angular_threshold, quiet_time, accel_threshold;
    int surface_speed;   /* angular measure: 0 rad/s, 1 |w| x bound radius */
    int require_support;
    float dt;
} tp_sleep_params;

/* The quiet timer after a step: +dt when quiet, reset to 0 when not. */
TP_HD float tp_quiet_timer_next(float timer, int quiet, float dt) { return quiet ? timer + dt : 0.0f; }

/* Is body b quiet this step? v_start: its velocity before the step. */
TP_HD int tp_body_quiet(const tp_world *wd, int b, const tp_sleep_params *p, tp_vec3 v_start)
{
    tp_vec3 v = tp_v3_load(wd->v + 3 * b);
    float w = tp_len(tp_v3_load(wd->w + 3 * b));
    float angular = p->surface_speed ? w * wd->model[b].bound_radius : w;
    if (!(tp_len(v) < p->linear_threshold) || !(angular < p->angular_threshold)) return 0;
    if (p->accel_threshold > 0.0f && !(tp_len(tp_sub(v, v_start)) <= p->accel_threshold * p->dt)) return 0;
    return 1;
}

/* The drift rule: a quiet run ends when the body's velocity has changed by
 * TP_DRIFT_FRACTION x the linear threshold since the run began. A body turned
 * around by a net force a changes its velocity steadily, through zero and on,
 * so it never completes a quiet run while a > drift / quiet_time; a body
 * coming to rest, or jittering on its support, changes its velocity by less.
 * Why the whole threshold (and not half): docs/sleep-policies.md. */
#define TP_DRIFT_FRACTION 1.0f

/* Update body b's quiet run: returns 1 if it is quiet and has not drifted.
 * quiet_v holds its velocity at the end of the run's first quiet step. */
TP_HD int tp_body_quiet_run(tp_world *wd, int b, const tp_sleep_params *p, tp_vec3 v_start)
{
    if (!tp_body_quiet(wd, b, p, v_start)) return 0;
    tp_vec3 v = tp_v3_load(wd->v + 3 * b);
    if (wd->quiet_timer[b] == 0.0f) { /* the run begins */
        tp_v3_store(wd->quiet_v + 3 * b, v);
        return 1;
    }
    return tp_len(tp_sub(v, tp_v3_load(wd->quiet_v + 3 * b))) < TP_DRIFT_FRACTION * p->linear_threshold;
}

TP_HD int tp_gravity_is_zero(const tp_world *wd)
{
    return wd->gravity[0] == 0.0f && wd->gravity[1] == 0.0f && wd->gravity[2] == 0.0f;
}

/* Put island `label` to sleep: frozen, velocity zero, timers kept. */
TP_HD void tp_island_sleep(tp_world *wd, int label)
{
    for (int b = 0; b < wd->bodies; ++b) {
        if (wd->island[b] != label) continue;
        wd->sleep_state[b] = TP_SLEEPING;
        for (int k = 0; k < 3; ++k) wd->v[3 * b + k] = wd->w[3 * b + k] = 0.0f;
    }
}

/* Body b's quiet timer after this step (an awake body of an island); returns
 * 1 if it keeps its island awake (not yet quiet for the quiet time). */
TP_HD int tp_body_sleep_timer(tp_world *wd, const tp_sleep_params *p, const float *v_start, int b)
{
    /* a link of a driven or sprung tree is never quiet: such trees stay awake */
    int quiet = !(wd->model[b].link_flags & TP_LINK_DRIVEN) && tp_body_quiet_run(wd, b, p, tp_v3_load(v_start + 3 * b));
    wd->quiet_timer[b] = tp_quiet_timer_next(wd->quiet_timer[b], quiet, p->dt);
    return !(wd->quiet_timer[b] >= p->quiet_time);
}

/* Spring k, if unsettled (tp_cons_spring_unsettled: its damper carries
 * load), keeps its bodies from being quiet: their timers restart. Returns
 * their island's root (a constraint joins its two ends), or -1. */
TP_HD int tp_spring_restless_root(tp_world *wd, const tp_sleep_params *p, int k)
{
    if (!tp_cons_spring_unsettled(wd, k, p->accel_threshold)) return -1;
    int root = -1, ends[2] = {wd->cons[k].body0, wd->cons[k].body1};
    for (int e = 0; e < 2; ++e) {
        int b = ends[e];
        if (b < 0 || !tp_body_in_islands(wd, b) || wd->sleep_state[b] == TP_SLEEPING) continue;
        wd->quiet_timer[b] = 0.0f;
        root = wd->island[b];
    }
    return root;
}

/* The state an awake body b reports: checking while its quiet timer runs
 * towards sleep; awake otherwise, and in an island a driven tree holds awake
 * (it cannot sleep, whatever the timer says). */
TP_HD uint8_t tp_island_sleep_state(const tp_world *wd, const uint8_t *root_flags, int b)
{
    int driven = (root_flags[wd->island[b]] & TP_ISLAND_DRIVEN) != 0;
    return wd->quiet_timer[b] > 0.0f && !driven ? TP_CHECKING : TP_AWAKE;
}

/* Timers, then the decision per island. root_flags from tp_islands_build;
 * v_start [bodies][3]: velocities at the start of the step. */
TP_HD void tp_sleep_update(tp_world *wd, const tp_sleep_params *p, const float *v_start, uint8_t *root_flags)
{
    if (!p->enabled) return;
    for (int b = 0; b < wd->bodies; ++b) {
        if (!tp_body_in_islands(wd, b) || wd->sleep_state[b] == TP_SLEEPING) continue;
        if (tp_body_sleep_timer(wd, p, v_start, b)) root_flags[wd->island[b]] |= TP_ISLAND_RESTLESS;
    }
    for (int k = 0; k < wd->cons_count; ++k) {
        int r = tp_spring_restless_root(wd, p, k);
        if (r >= 0) root_flags[r] |= TP_ISLAND_RESTLESS;
    }
    int free_fall_ok = !p->require_support || tp_gravity_is_zero(wd);
    /* One pass over the bodies, each reading its island's decision from its
     * root's flags (O(bodies), not tp_island_sleep per island: O(bodies x
     * islands)); the decision reads only root_flags, which nothing here
     * changes, so the order of the bodies does not matter. */
    for (int b = 0; b < wd->bodies; ++b) {
        int r = wd->island[b];
        if (r < 0) continue; /* not in an island (islands.h labels it -1) */
        uint8_t f = root_flags[r];
        if ((f & TP_ISLAND_HAS_AWAKE) && !(f & TP_ISLAND_RESTLESS) && ((f & TP_ISLAND_SUPPORTED) || free_fall_ok)) {
            wd->sleep_state[b] = TP_SLEEPING;
            for (int k = 0; k < 3; ++k) wd->v[3 * b + k] = wd->w[3 * b + k] = 0.0f;
        }
    }
    for (int b = 0; b < wd->bodies; ++b) {
        if (!tp_body_in_islands(wd, b) || wd->sleep_state[b] == TP_SLEEPING) continue;
        wd->sleep_state[b] = tp_island_sleep_state(wd, root_flags, b);
    }
}

/* tp_sleep_update as lane tid of nth (CUDA: a group of lanes per world),
 * the same timers, states, velocities and root flags. Three phases between
 * barriers: (1) each lane updates the timers of its bodies and marks the
 * island of a body not yet quiet for the quiet time as restless
 * (restless[root] = 1: lanes may store the same 1 to one word; an OR of
 * flags, so no order of the lanes matters); (2) each body reads its island's
 * decision from its root's flags and the mark, sleeps or becomes awake /
 * checking (the serial loops two and three, which look at body b only);
 * (3) each root's mark is folded into its flags as TP_ISLAND_RESTLESS, as
 * the serial loop leaves them. O(bodies / nth) per lane. restless: [bodies]
 * scratch (the union-find's parent array, free after the islands stage). */
TP_HD void tp_sleep_update_lanes(tp_world *wd, const tp_sleep_params *p, const float *v_start, uint8_t *root_flags,
                                 int32_t *restless, int tid, int nth)
{
    if (!p->enabled) return;
    for (int b = tid; b < wd->bodies; b += nth) restless[b] = 0;
    TP_BARRIER(nth);
    for (int b = tid; b < wd->bodies; b += nth) {
        if (!tp_body_in_islands(wd, b) || wd->sleep_state[b] == TP_SLEEPING) continue;
        if (tp_body_sleep_timer(wd, p, v_start, b)) ((volatile int32_t *)restless)[wd->island[b]] = 1;
    }
    if (wd->cons_count) { /* unsettled springs, after every timer (lane 0: they touch any lane's bodies) */
        TP_BARRIER(nth);
        for (int k = 0; k < wd->cons_count && tid == 0; ++k) {
            int r = tp_spring_restless_root(wd, p, k);
            if (r >= 0) ((volatile int32_t *)restless)[r] = 1;
        }
    }
    TP_BARRIER(nth);
    int free_fall_ok = !p->require_support || tp_gravity_is_zero(wd);
    for (int b = tid; b < wd->bodies; b += nth) {
        int r = wd->island[b];
        if (r >= 0) {
            uint8_t f = root_flags[r];
            /* restless by a timer (the mark), or already by a running drive
             * or an active mover (the islands stage's flag) */
            int restless_r = restless[r] || (f & TP_ISLAND_RESTLESS);
            if ((f & TP_ISLAND_HAS_AWAKE) && !restless_r && ((f & TP_ISLAND_SUPPORTED) || free_fall_ok)) {
                wd->sleep_state[b] = TP_SLEEPING;
                for (int k = 0; k < 3; ++k) wd->v[3 * b + k] = wd->w[3 * b + k] = 0.0f;
            }
        }
        if (!tp_body_in_islands(wd, b) || wd->sleep_state[b] == TP_SLEEPING) continue;
        wd->sleep_state[b] = tp_island_sleep_state(wd, root_flags, b);
    }
    TP_BARRIER(nth);
    for (int r = tid; r < wd->bodies; r += nth)
        if (restless[r]) root_flags[r] |= TP_ISLAND_RESTLESS;
}

#endif
