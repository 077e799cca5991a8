/* test_converge.c - the sweeps stop once converged (kernels/sweeps.h,
 * TP_SWEEP_TOL): the check comes only after backward sweeps and never after
 * the last, not with articulations; it sees each thread's share of the
 * bodies; and on hand-built one-point contacts a warm-started stack stops
 * after the first forward-backward pair while the same stack cold, or a heavy
 * box landing on a light one (which Gauss-Seidel corrects by about
 * m_light / m_heavy per sweep), runs them all.
 * After sweeps that stopped early the shock pass is skipped, but where a
 * heavy body stands on a light support; in a settling world it runs in a
 * step's first substep only (tp_solver_shock_mode).
 * The CPU's lanes take the same decisions (test_simd: the widths agree bit for
 * bit on every scene). */
#include "solver.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { BODIES = 3, CAP = 4 };

typedef struct stack3 {
    void *scratch;
    tp_solver_work w;
    tp_world wd;
    tp_contact c[2];
    float v[3 * BODIES], om[3 * BODIES];
} stack3;

/* Body 0 fixed (the ground), bodies 1 and 2 stacked on it with inverse
 * masses inv1 and inv2: one point each between 0-1 and 1-2, normal +z, no
 * lever arms (so no rotation), no friction, touching (separation 0). The two
 * constraints share body 1, so they take colors 0 and 1. */
static void stack3_init(stack3 *s, float inv1, float inv2)
{
    memset(s, 0, sizeof *s);
    size_t bytes = tp_solver_scratch_bytes(BODIES, CAP);
    s->scratch = malloc(bytes);
    cr_assert_not_null(s->scratch);
    memset(s->scratch, 0, bytes);
    s->w = tp_solver_work_at(s->scratch, BODIES, CAP);
    s->wd.bodies = BODIES;
    s->wd.v = s->v;
    s->wd.w = s->om;
    float inv[BODIES] = {0.0f, inv1, inv2};
    for (int b = 0; b < BODIES; ++b) {
        s->w.bodies[b].inv_m = inv[b];
        s->w.bodies[b].simulated = b > 0;
    }
    for (int k = 0; k < 2; ++k) {
        s->c[k].body_a = k;
        s->c[k].body_b = k + 1;
        s->c[k].normal[2] = 1.0f;
        s->w.cons[k] = (tp_constraint){.first = k, .count = 1, .body_a = k, .body_b = k + 1, .color = k};
        s->w.order[k] = k;
        s->w.rows[k].normal_mass = 1.0f / (inv[k] + inv[k + 1]);
    }
    s->w.color_start[0] = 0;
    s->w.color_start[1] = 1;
    for (int c = 2; c < TP_MAX_COLORS + 2; ++c) s->w.color_start[c] = 2;
}

/* Sweep `it` of `count` is checked after backward sweeps only, never after
 * the last, with articulations as without. */
Test(converge, checked_after_backward_sweeps_but_the_last)
{
    tp_solver_work w;
    memset(&w, 0, sizeof w);
    int expect8[8] = {0, 1, 0, 1, 0, 1, 0, 0};
    for (int it = 0; it < 8; ++it) cr_expect_eq(tp_sweep_checked(&w, it, 8), expect8[it], "sweep %d of 8", it);
    cr_expect(!tp_sweep_checked(&w, 1, 2), "a phase of 2 sweeps runs both");
    cr_expect(tp_sweep_checked(&w, 1, 4));
    w.artic = (struct tp_artic_solve *)&w; /* any non-NULL articulation set */
    cr_expect(tp_sweep_checked(&w, 1, 8), "with articulations the same checks");
}

/* The trees' dofs count as the bodies do: joint velocities and pseudo
 * velocities noted, each lane its dofs tid, tid + nth, ...; a change past
 * TP_SWEEP_TOL of either, or a NaN, is a move; one within it is none. */
Test(converge, tree_dofs_count_as_moves)
{
    tp_artic_model m;
    memset(&m, 0, sizeof m);
    m.nv = 3;
    float qd[3] = {0.5f, -1.0f, 2.0f}, push[3] = {0.0f, 0.0f, 0.0f}, note[6];
    tp_artic_solve A;
    memset(&A, 0, sizeof A);
    A.m = &m;
    A.s.qd = qd;
    A.x.push_qd = push;
    A.x.qd_note = note;
    for (int tid = 0; tid < 2; ++tid) cr_expect_eq(tp_artic_note(&A, 1, tid, 2), 0);
    qd[1] += 0.5f * TP_SWEEP_TOL;
    push[2] = -0.5f * TP_SWEEP_TOL;
    cr_expect(!tp_artic_note(&A, 0, 0, 1), "changes within the tolerance");
    qd[1] += 2.0f * TP_SWEEP_TOL;
    cr_expect(tp_artic_note(&A, 0, 1, 2), "lane 1 sees dof 1");
    cr_expect(!tp_artic_note(&A, 0, 0, 2), "lane 0 does not");
    qd[1] = -1.0f;
    push[0] = 3.0f * TP_SWEEP_TOL;
    cr_expect(tp_artic_note(&A, 0, 0, 2), "the pseudo velocity counts");
    push[0] = 0.0f;
    qd[2] = NAN;
    cr_expect(tp_artic_note(&A, 0, 0, 1), "a NaN is a move");
}

/* tp_sweeps_moved looks at the simulated bodies tid, tid + nth, ... only:
 * with two threads, a change of body 2 is thread 0's, body 1's thread 1's;
 * the fixed ground is nobody's; a change within TP_SWEEP_TOL is no move; a
 * NaN is one. */
Test(converge, each_thread_checks_its_bodies)
{
    stack3 s;
    stack3_init(&s, 1.0f, 1.0f);
    for (int tid = 0; tid < 2; ++tid) cr_expect_eq(tp_sweeps_moved(&s.wd, &s.w, 1, tid, 2), 0);
    s.v[3 * 2 + 2] = 3.0f * TP_SWEEP_TOL;
    cr_expect(tp_sweeps_moved(&s.wd, &s.w, 0, 0, 2), "thread 0 sees body 2");
    cr_expect(!tp_sweeps_moved(&s.wd, &s.w, 0, 1, 2), "thread 1 does not");
    s.v[3 * 2 + 2] = 0.5f * TP_SWEEP_TOL;
    s.w.push[6 * 1 + 4] = -0.5f * TP_SWEEP_TOL;
    cr_expect(!tp_sweeps_moved(&s.wd, &s.w, 0, 0, 1), "changes within the tolerance");
    s.w.push[6 * 1 + 4] = -2.0f * TP_SWEEP_TOL;
    cr_expect(tp_sweeps_moved(&s.wd, &s.w, 0, 1, 2), "the push-out's pseudo velocity counts");
    s.w.push[6 * 1 + 4] = 0.0f;
    s.v[0] = 1.0f; /* the ground's velocity is never written; nobody looks at it */
    cr_expect(!tp_sweeps_moved(&s.wd, &s.w, 0, 0, 1), "a fixed body is not checked");
    s.om[3 * 1 + 0] = NAN;
    cr_expect(tp_sweeps_moved(&s.wd, &s.w, 0, 0, 1), "a NaN angular velocity is a move");
    free(s.scratch);
}

/* Two 1 kg boxes on the ground after a substep's gravity (both falling at
 * g h, h = 1/240 s). Warm started with the impulses their contacts carry
 * (2 m g h under the lower box, m g h between them) they are at rest before
 * the sweeps, which then change nothing: the phase of 8 stops after 2. Cold,
 * Gauss-Seidel on this chain halves the error per sweep (the upper contact
 * shares each correction between two equal masses), so every pair still
 * moves a box by far more than TP_SWEEP_TOL: all 8 run, and the boxes are
 * still short of rest. */
Test(converge, a_warm_started_stack_stops_early_a_cold_one_does_not)
{
    const float gh = 9.81f / 240.0f;
    for (int warm = 1; warm >= 0; --warm) {
        stack3 s;
        stack3_init(&s, 1.0f, 1.0f);
        s.v[3 * 1 + 2] = s.v[3 * 2 + 2] = -gh;
        if (warm) {
            s.c[0].normal_impulse = 2.0f * gh;
            s.c[1].normal_impulse = gh;
            tp_solver_warm_start(&s.wd, &s.w, s.c, 0, 1);
            cr_assert_eq(s.v[3 * 1 + 2], 0.0f, "the warm start leaves the lower box at %g m/s", (double)s.v[5]);
            cr_assert_eq(s.v[3 * 2 + 2], 0.0f, "the warm start leaves the upper box at %g m/s", (double)s.v[8]);
        }
        int done = tp_solver_sweeps(&s.wd, &s.w, s.c, 240.0f, 1, 8, 0, 1);
        if (warm) {
            cr_expect_eq(done, 2, "warm started: %d sweeps", done);
        } else {
            cr_expect_eq(done, 8, "cold: %d sweeps", done);
            cr_expect_lt(s.v[3 * 2 + 2], -1e-4f, "cold: the upper box at %g m/s after 8 sweeps", (double)s.v[8]);
        }
        free(s.scratch);
    }
}

/* A 1000 kg box landing at 1 m/s on a 1 kg box on the ground: each sweep
 * passes about 1/1000 of the heavy box's speed on to the ground, so the light
 * box keeps being pushed by ~1 m/s per sweep and no pair converges: all 8
 * run, and the heavy box still falls. */
Test(converge, a_heavy_box_landing_on_a_light_one_runs_every_sweep)
{
    stack3 s;
    stack3_init(&s, 1.0f, 1e-3f);
    s.v[3 * 2 + 2] = -1.0f;
    int done = tp_solver_sweeps(&s.wd, &s.w, s.c, 240.0f, 1, 8, 0, 1);
    cr_expect_eq(done, 8, "the heavy box's landing stopped after %d sweeps", done);
    cr_expect_lt(s.v[3 * 2 + 2], -0.9f, "the heavy box still falls at %g m/s after 8 sweeps", (double)s.v[3 * 2 + 2]);
    cr_expect_gt(s.c[0].normal_impulse, 0.0f, "the ground pushed");
    free(s.scratch);
}

/* The shock pass follows only biased sweeps that ran all of their phase's
 * sweeps, or every substep's where a heavy body stands on a light support
 * (tp_solver_biased_phase, tp_shock_heavy_support). The stack3 boxes with
 * their support depths and held masses prepared, gravity -z; the shock
 * pass's records of the points poisoned, so a pass that ran shows. */
static void stack3_shock(stack3 *s)
{
    s->wd.gravity[2] = -9.81f;
    tp_shock_prepare(&s->wd, s->c, s->w.cons, 2, &s->w);
    tp_shock_held_masses(&s->wd, &s->w, s->c, 2, 0, 1);
    for (int i = 0; i < 2; ++i) s->w.shock_points[i].impulse[0] = NAN;
}

static int stack3_shock_ran(const stack3 *s) { return !isnan(s->w.shock_points[1].impulse[0]); }

/* Two 1 kg boxes: warm started at rest the sweeps stop after 2 and the pass
 * is skipped; cold, in a first substep's phase of 64 sweeps (iterations 8 x
 * TP_COLD_SWEEP_FACTOR), they converge after more than 8 but fewer than 64,
 * and the pass is skipped too (the phase's count, not `iterations`, decides). */
Test(converge, no_shock_pass_after_sweeps_that_stopped_early)
{
    const float gh = 9.81f / 240.0f;
    tp_solver_params p = {.dt = 1.0f / 60.0f, .substeps = 4, .iterations = 8, .warm_starting = 1};
    stack3 s;
    stack3_init(&s, 1.0f, 1.0f);
    stack3_shock(&s);
    cr_assert_eq(s.w.depth[1], 1);
    cr_assert_eq(s.w.depth[2], 2, "the upper box is held on the lower one");
    cr_assert(!tp_shock_heavy_support(&s.wd, &s.w, 2), "equal masses are no heavy load");
    s.v[3 * 1 + 2] = s.v[3 * 2 + 2] = -gh;
    s.c[0].normal_impulse = 2.0f * gh;
    s.c[1].normal_impulse = gh;
    tp_solver_warm_start(&s.wd, &s.w, s.c, 0, 1);
    cr_expect_eq(tp_solver_biased_phase(&s.wd, &s.w, s.c, &p, 240.0f, 8, TP_SHOCK_IF_UNCONVERGED, 0, 1), 0, "at rest: no shock pass");
    cr_expect(!stack3_shock_ran(&s), "at rest: the shock records were written");
    free(s.scratch);

    const int cold = 8 * TP_COLD_SWEEP_FACTOR;
    stack3_init(&s, 1.0f, 1.0f);
    s.v[3 * 1 + 2] = s.v[3 * 2 + 2] = -gh;
    int done = tp_solver_sweeps(&s.wd, &s.w, s.c, 240.0f, 1, cold, 0, 1);
    cr_assert(done > 8 && done < cold, "the cold stack converged after %d sweeps", done);
    free(s.scratch);
    stack3_init(&s, 1.0f, 1.0f);
    stack3_shock(&s);
    s.v[3 * 1 + 2] = s.v[3 * 2 + 2] = -gh;
    cr_expect_eq(tp_solver_biased_phase(&s.wd, &s.w, s.c, &p, 240.0f, cold, TP_SHOCK_IF_UNCONVERGED, 0, 1), 0, "cold: no shock pass");
    cr_expect(!stack3_shock_ran(&s), "cold: the shock records were written");
    free(s.scratch);
}

/* A 1000 kg box landing at 1 m/s on a 1 kg box runs all 8 sweeps, then the
 * pass, which holds the light box and stops the heavy one on it (the sweeps
 * alone leave it falling at 0.9 m/s, above). Without warm starting there is
 * no pass. */
Test(converge, a_shock_pass_after_sweeps_that_ran_to_the_end)
{
    tp_solver_params p = {.dt = 1.0f / 60.0f, .substeps = 4, .iterations = 8, .warm_starting = 1};
    for (int warm = 1; warm >= 0; --warm) {
        p.warm_starting = warm;
        stack3 s;
        stack3_init(&s, 1.0f, 1e-3f);
        stack3_shock(&s);
        s.v[3 * 2 + 2] = -1.0f;
        cr_expect_eq(tp_solver_biased_phase(&s.wd, &s.w, s.c, &p, 240.0f, 8, TP_SHOCK_IF_UNCONVERGED, 0, 1), warm, "warm starting %d", warm);
        cr_expect_eq(stack3_shock_ran(&s), warm, "warm starting %d: the held row's record", warm);
        if (warm) {
            float closing = s.v[3 * 2 + 2] - s.v[3 * 1 + 2];
            cr_expect_geq(closing, -TP_SHOCK_TOL, "the heavy box still closes in at %g m/s", (double)closing);
        }
        free(s.scratch);
    }
}

/* A 1000 kg box resting on a 1 kg box, warm started 15 % short of the
 * weights (the warm start learns a heavy load over seconds, kernels/shock.h):
 * the sweeps stop after 2, since Gauss-Seidel moves the pair by about a
 * thousandth of its error per sweep, yet both boxes still sink at mm/s. So
 * with a heavy body on a light support the pass follows converged sweeps too,
 * and stops them. */
Test(converge, a_heavy_load_gets_the_shock_pass_after_converged_sweeps)
{
    const float gh = 9.81f / 240.0f;
    tp_solver_params p = {.dt = 1.0f / 60.0f, .substeps = 4, .iterations = 8, .warm_starting = 1};
    for (int heavy = 0; heavy <= 1; ++heavy) {
        stack3 s;
        stack3_init(&s, 1.0f, 1e-3f);
        stack3_shock(&s);
        cr_assert(tp_shock_heavy_support(&s.wd, &s.w, 2), "1000 kg on 1 kg is a heavy load");
        s.v[3 * 1 + 2] = s.v[3 * 2 + 2] = -gh;
        s.c[0].normal_impulse = 0.85f * 1001.0f * gh;
        s.c[1].normal_impulse = 0.85f * 1000.0f * gh;
        tp_solver_warm_start(&s.wd, &s.w, s.c, 0, 1);
        cr_expect_eq(tp_solver_biased_phase(&s.wd, &s.w, s.c, &p, 240.0f, 8, heavy ? TP_SHOCK_ALWAYS : TP_SHOCK_IF_UNCONVERGED, 0, 1), heavy, "heavy %d", heavy);
        float sink = s.v[3 * 2 + 2];
        if (heavy) cr_expect_geq(sink, -TP_SHOCK_TOL, "with the pass the heavy box sinks at %g m/s", (double)sink);
        else cr_expect_lt(sink, -1e-3f, "the converged sweeps alone leave it at %g m/s", (double)sink);
        free(s.scratch);
    }
}

/* Which substeps may run the pass (tp_solver_shock_mode): all of a step with a
 * heavy load, whatever the sweeps did; all of a moving world's, after
 * unconverged sweeps; only the first of a settling world's. And in the skipped
 * substeps the pass does not run even after unconverged sweeps: the landing
 * heavy box of the test above is left falling. */
Test(converge, a_settling_world_gets_the_shock_pass_once_a_step)
{
    for (int s = 0; s < 4; ++s) {
        cr_expect_eq(tp_solver_shock_mode(s, 1, 0), TP_SHOCK_ALWAYS, "heavy, substep %d", s);
        cr_expect_eq(tp_solver_shock_mode(s, 1, 1), TP_SHOCK_ALWAYS, "heavy and moving, substep %d", s);
        cr_expect_eq(tp_solver_shock_mode(s, 0, 1), TP_SHOCK_IF_UNCONVERGED, "moving, substep %d", s);
        cr_expect_eq(tp_solver_shock_mode(s, 0, 0), s == 0 ? TP_SHOCK_IF_UNCONVERGED : TP_SHOCK_SKIP,
                     "settling, substep %d", s);
    }
    tp_solver_params p = {.dt = 1.0f / 60.0f, .substeps = 4, .iterations = 8, .warm_starting = 1};
    stack3 s;
    stack3_init(&s, 1.0f, 1e-3f);
    stack3_shock(&s);
    s.v[3 * 2 + 2] = -1.0f;
    cr_expect_eq(tp_solver_biased_phase(&s.wd, &s.w, s.c, &p, 240.0f, 8, TP_SHOCK_SKIP, 0, 1), 0);
    cr_expect(!stack3_shock_ran(&s), "skipped: the shock records were written");
    cr_expect_lt(s.v[3 * 2 + 2], -0.5f, "without the pass the heavy box still falls at %g m/s", (double)s.v[3 * 2 + 2]);
    free(s.scratch);
}

/* A world moves (tp_solver_world_moving) when a simulated body's velocity or
 * angular velocity has a component beyond TP_SHOCK_MOVING_SPEED either way, or
 * a NaN; a fixed body's speed does not count. */
Test(converge, a_world_moves_past_a_millimetre_per_second)
{
    const float lim = TP_SHOCK_MOVING_SPEED;
    stack3 s;
    stack3_init(&s, 1.0f, 1.0f);
    cr_expect(!tp_solver_world_moving(&s.wd, &s.w), "at rest");
    s.v[0] = 1.0f; /* body 0 is fixed */
    cr_expect(!tp_solver_world_moving(&s.wd, &s.w), "a fixed body's speed counts");
    const float probes[] = {0.5f * lim, -0.5f * lim, 2.0f * lim, -2.0f * lim, NAN};
    for (int k = 0; k < 5; ++k)
        for (int c = 0; c < 3; ++c)
            for (int ang = 0; ang <= 1; ++ang) {
                float *x = ang ? &s.om[3 * 2 + c] : &s.v[3 * 2 + c];
                *x = probes[k];
                int want = k >= 2;
                cr_expect_eq(tp_solver_world_moving(&s.wd, &s.w), want, "%s[%d] = %g", ang ? "w" : "v", c,
                             (double)probes[k]);
                *x = 0.0f;
            }
    free(s.scratch);
}
