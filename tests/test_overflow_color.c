/* test_overflow_color.c - the overflow color (serial tail) of the colored solver.
 *
 * With 24 colors the scenes of the suite never fill the palette, so the
 * serial tail of kernels/coloring.h (constraints that find no free color,
 * swept in key order after the colors) would go untested. This file builds
 * the kernels with 2 colors, as Box2D forces its overflow with a switch, and
 * steps worlds through kernels/step.h's stage list compiled here (the library
 * keeps its 24). */
#define TP_MAX_COLORS 2

#include "lanes.h" /* first: TP_BARRIER switches lanes (the lane coloring below) */

#include "batch.h"
#include "helpers.h"
#include "step.h"

#include <math.h>

/* One step of every world of a CPU batch through this file's 2-color kernels,
 * as csrc/step.c runs the stage list with one thread. Returns the largest
 * number of constraints any world sent to the serial tail, and in *total the
 * number of constraints of that world. */
static int step_two_colors(tp_batch *bt, int *total)
{
    tp_step_params p = tp_batch_step_params(bt);
    int tail = 0;
    for (int w = 0; w < bt->worlds; ++w) {
        tp_world_step s = tp_world_step_at(&bt->layout, w, bt->current, bt->scratch[0]);
        for (int stage = 0; stage < TP_STEP_STAGE_COUNT; ++stage) {
            if (stage > 0 && !tp_stage_runs(stage, s.rec->work)) continue;
            tp_stage_run(stage, &s, &p, 0, 1);
            if (stage != TP_STEP_CONSTRAINTS) continue;
            /* order[color_start[c] .. color_start[c + 1]) is color c; the tail is c = TP_OVERFLOW_COLOR */
            const int32_t *cs = s.solver.color_start;
            int t = cs[TP_OVERFLOW_COLOR + 1] - cs[TP_OVERFLOW_COLOR];
            if (t > tail) tail = t, *total = cs[TP_OVERFLOW_COLOR + 1];
        }
    }
    bt->current = 1 - bt->current;
    return tail;
}

/* The pyramid of scenes/pyramid.json (20 rows of 1 m cubes) with most of its
 * constraints in the serial tail still stands and sleeps: no box moves more
 * than 2 cm from where it started (noise-free material randomization only),
 * and the wall is asleep by 2 s (scenes/README.md: 1.07-1.17 s in 16 worlds).
 * A tail that were skipped or solved once would let the wall sag. */
Test(overflow_color, pyramid_stands_on_the_serial_tail, .timeout = 300)
{
    const char *backend = getenv("TORPOR_TEST_BACKEND");
    if (backend && strcmp(backend, "cuda") == 0) cr_skip_test("steps the CPU kernels only");
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(TP_SOURCE_DIR "/scenes/pyramid.json", &m), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_model_settings(m).solver.mode, TP_SOLVER_COLORED);
    tp_batch *b = make_batch(m, 1, 1);
    tp_state_view s0 = batch_view(b);
    int bodies = s0.bodies;
    float *start = malloc(3 * sizeof(float) * (size_t)bodies);
    memcpy(start, s0.pos, 3 * sizeof(float) * (size_t)bodies);
    int max_tail = 0, total_then = 0;
    for (int i = 0; i < 120; ++i) {
        int total = 0, t = step_two_colors(b, &total);
        if (t > max_tail) max_tail = t, total_then = total;
    }
    cr_assert_gt(max_tail, 0, "no constraint reached the serial tail");
    tp_state_view s = batch_view(b);
    cr_assert_eq(s.faults[0], 0);
    cr_assert_eq(s.awake_count[0], 0, "%d boxes awake at 2 s", s.awake_count[0]);
    for (int i = 1; i < bodies; ++i) {
        float dx = s.pos[3 * i] - start[3 * i], dy = s.pos[3 * i + 1] - start[3 * i + 1],
              dz = s.pos[3 * i + 2] - start[3 * i + 2];
        cr_expect(sqrtf(dx * dx + dy * dy + dz * dz) < 0.02f, "box %d moved (%g, %g, %g)", i, dx, dy, dz);
    }
    cr_log_info("serial tail: up to %d of %d constraints", max_tail, total_then);
    free(start);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The lane forms of kernels/coloring.h with this file's 2 colors: on every
 * step of the pyramid, the constraints, colors (most of them the overflow
 * color), order and color ranges that 3 and 32 lanes compute, run in
 * increasing and decreasing lane order (tests/lanes.h), equal the greedy's,
 * which the color stage just wrote. */
typedef struct lanes_color_arg {
    tp_world_step *s;
    tp_constraint *cons;
    int32_t *order, *color_start;
    uint32_t *mask;
    tp_color_lanes_scratch S;
    int n_cons;
} lanes_color_arg;

static void lanes_color(void *arg, int lane)
{
    lanes_color_arg *a = arg;
    int nth = running->n, fresh = 0;
    int n = tp_build_constraints_lanes(&a->s->wd, a->s->contacts, *a->s->contact_count, a->cons, &a->S, &fresh, lane,
                                       nth);
    TP_BARRIER(nth);
    tp_color_constraints_lanes(&a->s->wd, a->cons, n, 0, a->mask, &a->S, a->order, a->color_start, lane, nth);
    if (lane == 0) a->n_cons = n;
}

Test(overflow_color, lanes_color_as_the_greedy, .timeout = 300)
{
    const char *backend = getenv("TORPOR_TEST_BACKEND");
    if (backend && strcmp(backend, "cuda") == 0) cr_skip_test("steps the CPU kernels only");
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(TP_SOURCE_DIR "/scenes/pyramid.json", &m), TP_OK, "%s", tp_last_error());
    tp_batch *bt = make_batch(m, 1, 1);
    int cap = bt->contact_capacity, bodies = bt->bodies, slots = tp_color_slots(bodies);
    lanes_color_arg a;
    a.cons = calloc((size_t)cap, sizeof(tp_constraint));
    a.order = calloc((size_t)cap, sizeof(int32_t));
    a.color_start = calloc(TP_MAX_COLORS + 2, sizeof(int32_t));
    a.mask = calloc((size_t)bodies, sizeof(uint32_t));
    a.S.ticket = calloc((size_t)bodies, sizeof(int32_t));
    a.S.counts = calloc((size_t)slots * TP_COLOR_BINS, sizeof(int32_t));
    a.S.flags = calloc(4, sizeof(int32_t));
    a.S.slots = slots;
    lane_sched L;
    L.stacks = malloc((size_t)32 * LANE_STACK);
    cr_assert(a.cons && a.order && a.color_start && a.mask && a.S.ticket && a.S.counts && a.S.flags && L.stacks);
    tp_step_params p = tp_batch_step_params(bt);
    long tail = 0, checked = 0;
    for (int step = 0; step < 40; ++step) {
        tp_world_step s = tp_world_step_at(&bt->layout, 0, bt->current, bt->scratch[0]);
        for (int stage = 0; stage < TP_STEP_STAGE_COUNT; ++stage) {
            if (stage > 0 && !tp_stage_runs(stage, s.rec->work)) continue;
            tp_stage_run(stage, &s, &p, 0, 1);
            if (stage != TP_STEP_CONSTRAINTS) continue;
            const int32_t *cs = s.solver.color_start;
            int n_cons = cs[TP_OVERFLOW_COLOR + 1];
            tail += cs[TP_OVERFLOW_COLOR + 1] - cs[TP_OVERFLOW_COLOR];
            const int lanes[] = {3, 32};
            for (int l = 0; l < 2; ++l)
                for (int reverse = 0; reverse < 2; ++reverse) {
                    a.s = &s;
                    a.n_cons = -1;
                    lanes_run(&L, lanes[l], reverse, lanes_color, &a);
                    cr_assert_eq(a.n_cons, n_cons, "step %d, %d lanes: %d constraints, greedy %d", step, lanes[l],
                                 a.n_cons, n_cons);
                    for (int i = 0; i < n_cons; ++i) {
                        cr_assert_eq(a.cons[i].first, s.solver.cons[i].first);
                        cr_assert_eq(a.cons[i].color, s.solver.cons[i].color, "step %d, %d lanes: constraint %d", step,
                                     lanes[l], i);
                        cr_assert_eq(a.order[i], s.solver.order[i], "step %d, %d lanes: order[%d]", step, lanes[l], i);
                    }
                    for (int c = 0; c < TP_MAX_COLORS + 2; ++c) cr_assert_eq(a.color_start[c], cs[c]);
                    checked++;
                }
        }
        bt->current = 1 - bt->current;
    }
    cr_assert_gt(tail, 0, "no constraint reached the serial tail");
    cr_assert_gt(checked, 0);
    free(a.cons), free(a.order), free(a.color_start), free(a.mask), free(a.S.ticket), free(a.S.counts), free(a.S.flags);
    free(L.stacks);
    tp_batch_destroy(bt);
    tp_model_destroy(m);
}
