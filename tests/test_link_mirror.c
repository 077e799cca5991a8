/* test_link_mirror.c - the constraint and mover calls ask the backend for the
 * copies a mirrored backend (CUDA: csrc/mirror.h) needs, checked without a
 * GPU: a CPU batch whose backend table records every pull and begin_write.
 * The read-outs pull every world's constraints group (tp_batch_movers the
 * bodies' too: `active` reads their flags); a per-world write or a
 * constraint event asks for each written world before it changes any, and a
 * refused write asks for none. A reset world's constraint table, constraint
 * state and mover state are the model's (what the CUDA reset kernel copies,
 * through the same functions). */
#include "backend.h"
#include "batch.h"
#include "constraint_host.h"
#include "helpers.h"
#include "mirror.h"
#include "model.h"
#include "mover_host.h"

#include <string.h>

#define WORLDS 4
#define MAX_CALLS 16

typedef struct call {
    int write; /* 0: pull, 1: begin_write */
    int first, last, groups;
    int unchanged; /* begin_write: the worlds' constraint tables and mover state still as saved */
} call;

static call calls[MAX_CALLS];
static int ncalls;
static const tp_backend_ops *cpu_ops;
static tp_backend_ops recording;
static char saved[1 << 16];
static size_t table_bytes, mover_bytes;

/* Worlds [first, last]'s constraint tables and mover state as saved. */
static int links_as_saved(tp_batch *b, int first, int last)
{
    size_t t = table_bytes / WORLDS, s = mover_bytes / WORLDS, n = (size_t)(last - first + 1);
    return !memcmp(saved + (size_t)first * t, (char *)b->cons_table + (size_t)first * t, n * t) &&
           !memcmp(saved + table_bytes + (size_t)first * s, (char *)b->mover_state + (size_t)first * s, n * s);
}

static void save_links(tp_batch *b)
{
    memcpy(saved, b->cons_table, table_bytes);
    memcpy(saved + table_bytes, b->mover_state, mover_bytes);
    ncalls = 0;
}

static tp_status record_pull(tp_batch *b, int first, int last, int groups)
{
    cr_assert_lt(ncalls, MAX_CALLS);
    calls[ncalls++] = (call){0, first, last, groups, 0};
    return cpu_ops->pull(b, first, last, groups);
}

static tp_status record_begin_write(tp_batch *b, int first, int last)
{
    cr_assert_lt(ncalls, MAX_CALLS);
    calls[ncalls++] = (call){1, first, last, 0, links_as_saved(b, first, last)};
    return cpu_ops->begin_write(b, first, last);
}

/* A rope from the world to a ball, a servo hinge between two boxes, the
 * hinge's target raised at 0.1 s by an event in every world; a mover pushing
 * the ball. */
static const char *const scene =
    "{\"version\": 2, \"dt\": 0.0166666667, \"bodies\": ["
    " {\"name\": \"ball\", \"shape\": \"ball\", \"size\": [0.2, 0.2, 0.2], \"mass\": 1, \"pos\": [0, 0, 1]},"
    " {\"name\": \"a\", \"shape\": \"box\", \"size\": [0.2, 0.2, 0.2], \"mass\": 1, \"pos\": [2, 0, 1]},"
    " {\"name\": \"b\", \"shape\": \"box\", \"size\": [0.2, 0.2, 0.2], \"mass\": 1, \"pos\": [2.4, 0, 1]}],"
    " \"constraints\": [{\"name\": \"rope\", \"type\": \"rope\", \"body1\": \"ball\", \"pos0\": [0, 0, 2], \"length\": 1.5},"
    " {\"name\": \"hinge\", \"type\": \"hinge\", \"body0\": \"a\", \"body1\": \"b\", \"pos0\": [0.2, 0, 0],"
    " \"pos1\": [-0.2, 0, 0], \"actuator\": \"servo\", \"max_force\": 10, \"speed\": 1}],"
    " \"movers\": [{\"name\": \"push\", \"type\": \"vector_force\", \"body0\": \"ball\", \"target\": [1, 0, 0]}],"
    " \"events\": [{\"time\": 0.1, \"action\": \"constraint\", \"constraint\": \"hinge\", \"param\": \"target\", \"to\": 0.5}]}";

static tp_batch *recorded(tp_model **m)
{
    cr_assert_eq(tp_model_load_string(scene, "links.json", m), TP_OK, "%s", tp_last_error());
    tp_batch *b = make_batch(*m, WORLDS, 1);
    cpu_ops = b->ops;
    recording = *cpu_ops;
    recording.pull = record_pull;
    recording.begin_write = record_begin_write;
    b->ops = &recording;
    table_bytes = WORLDS * 2 * sizeof(tp_cons_model);
    mover_bytes = WORLDS * 1 * sizeof(tp_mover_state);
    cr_assert_leq(table_bytes + mover_bytes, sizeof saved);
    save_links(b);
    return b;
}

static void done(tp_batch *b, tp_model *m)
{
    b->ops = cpu_ops;
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* One pull of every world, of (at least) `groups`. */
static void expect_one_pull(int groups, const char *what)
{
    cr_assert_eq(ncalls, 1, "%s: %d calls", what, ncalls);
    cr_assert_eq(calls[0].write, 0, "%s", what);
    cr_assert(calls[0].first == 0 && calls[0].last == WORLDS - 1, "%s: worlds %d-%d", what, calls[0].first,
              calls[0].last);
    cr_assert_eq(calls[0].groups & groups, groups, "%s: groups %d, not %d", what, calls[0].groups, groups);
    ncalls = 0;
}

Test(link_mirror, read_outs_pull_the_constraints_group_of_every_world)
{
    tp_model *m = NULL;
    tp_batch *b = recorded(&m);
    float value[WORLDS * 2], force[WORLDS * 2], impulse[WORLDS * 2 * 3], targets[WORLDS * 4], mf[WORLDS];
    uint8_t active[WORLDS];
    cr_assert_eq(tp_batch_constraints(b, value, force), TP_OK, "%s", tp_last_error());
    expect_one_pull(TP_MIRROR_CONSTRAINTS, "tp_batch_constraints");
    cr_assert_eq(tp_batch_constraint_params(b, TP_CONS_LENGTH, value), TP_OK, "%s", tp_last_error());
    expect_one_pull(TP_MIRROR_CONSTRAINTS, "tp_batch_constraint_params");
    cr_assert_eq(tp_batch_constraint_impulses(b, impulse), TP_OK, "%s", tp_last_error());
    expect_one_pull(TP_MIRROR_CONSTRAINTS, "tp_batch_constraint_impulses");
    cr_assert_eq(tp_batch_movers(b, targets, active, mf), TP_OK, "%s", tp_last_error());
    expect_one_pull(TP_MIRROR_CONSTRAINTS | TP_MIRROR_BODIES, "tp_batch_movers");
    done(b, m);
}

/* Each written world asked for (begin_write: pulled, then pushed before the
 * next step) while the tables are still as they were. */
static void expect_writes_first(const int *worlds, int n, const char *what)
{
    cr_assert_geq(ncalls, n, "%s: %d calls for %d worlds", what, ncalls, n);
    for (int i = 0; i < n; ++i) {
        int asked = 0;
        for (int c = 0; c < ncalls; ++c)
            if (calls[c].write && calls[c].first <= worlds[i] && worlds[i] <= calls[c].last) {
                asked = 1;
                cr_assert(calls[c].unchanged, "%s: world %d asked for after a table changed", what, worlds[i]);
            }
        cr_assert(asked, "%s: world %d never asked for", what, worlds[i]);
    }
}

Test(link_mirror, writes_ask_for_each_world_before_changing_any)
{
    tp_model *m = NULL;
    tp_batch *b = recorded(&m);
    const int32_t worlds[2] = {3, 1};
    const int wl[2] = {3, 1};
    float params[2 * 2];
    for (int r = 0; r < 2; ++r) /* the rope's length; a hinge has none: its present value */
        params[2 * r] = 1.0f + (float)r, params[2 * r + 1] = b->cons_table[1].length;
    save_links(b);
    cr_assert_eq(tp_batch_set_constraint_params(b, TP_CONS_LENGTH, WORLD_LIST(worlds, 2), params), TP_OK, "%s",
                 tp_last_error());
    expect_writes_first(wl, 2, "tp_batch_set_constraint_params");
    cr_assert_eq(b->cons_table[3 * 2].length, 1.0f, "the write did not happen");
    save_links(b);
    const float t[2 * 4] = {0, 2, 0, 0, 0, 3, 0, 0};
    cr_assert_eq(tp_batch_set_mover_targets(b, WORLD_LIST(worlds, 2), t, NULL), TP_OK, "%s", tp_last_error());
    expect_writes_first(wl, 2, "tp_batch_set_mover_targets");
    save_links(b);
    const uint8_t off[2] = {0, 0};
    cr_assert_eq(tp_batch_set_mover_enabled(b, WORLD_LIST(worlds, 2), off, NULL), TP_OK, "%s", tp_last_error());
    expect_writes_first(wl, 2, "tp_batch_set_mover_enabled");
    cr_assert_eq(b->mover_state[1].enabled, 0);
    /* refused (a negative length): nothing asked for, nothing changed */
    save_links(b);
    params[0] = -1.0f;
    cr_assert_neq(tp_batch_set_constraint_params(b, TP_CONS_LENGTH, WORLD_LIST(worlds, 2), params), TP_OK);
    cr_assert_eq(ncalls, 0, "a refused write asked for %d copies", ncalls);
    cr_assert(links_as_saved(b, 0, WORLDS - 1));
    done(b, m);
}

/* The event at 0.1 s (before step 6) writes the hinge's target in every
 * world: each world asked for before its table changes. */
Test(link_mirror, a_constraint_event_asks_for_its_world_first)
{
    tp_model *m = NULL;
    tp_batch *b = recorded(&m);
    cr_assert_eq(tp_batch_step(b, 6), TP_OK, "%s", tp_last_error());
    for (int w = 0; w < WORLDS; ++w) cr_assert_eq(b->cons_table[2 * w + 1].target, 0.0f, "world %d", w);
    save_links(b);
    cr_assert_eq(tp_batch_step(b, 1), TP_OK, "%s", tp_last_error());
    const int all[WORLDS] = {0, 1, 2, 3};
    expect_writes_first(all, WORLDS, "the constraint event");
    for (int w = 0; w < WORLDS; ++w) cr_assert_eq(b->cons_table[2 * w + 1].target, 0.5f, "world %d", w);
    done(b, m);
}

/* A reset world's constraint table is the model's (its writes and the
 * event's target undone), its constraint state zero, its mover state the
 * model's initial one; the other worlds keep theirs. */
Test(link_mirror, a_reset_world_gets_the_models_tables)
{
    tp_model *m = NULL;
    tp_batch *b = recorded(&m);
    const int32_t w2 = 2;
    const float len = 1.2f;
    const float row[2] = {len, b->cons_table[1].length};
    cr_assert_eq(tp_batch_set_constraint_params(b, TP_CONS_LENGTH, WORLD_LIST(&w2, 1), row), TP_OK, "%s", tp_last_error());
    const uint8_t off = 0;
    cr_assert_eq(tp_batch_set_mover_enabled(b, WORLD_LIST(&w2, 1), &off, NULL), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_step(b, 30), TP_OK, "%s", tp_last_error());
    cr_assert_neq(b->cons_state[2 * 2].force, 0.0f, "the rope never pulled");
    cr_assert_eq(tp_batch_reset_worlds(b, WORLD_LIST(&w2, 1)), TP_OK, "%s", tp_last_error());
    const tp_cons_model *table = m->cons->table;
    cr_assert(!memcmp(b->cons_table + 2 * 2, table, 2 * sizeof(tp_cons_model)), "world 2's table is not the model's");
    static const tp_cons_state zero[2];
    cr_assert(!memcmp(b->cons_state + 2 * 2, zero, sizeof zero), "world 2's constraint state is not zero");
    cr_assert(!memcmp(b->mover_state + 2, m->movers->initial, sizeof(tp_mover_state)), "world 2's mover state");
    cr_assert_eq(b->mover_state[2].enabled, 1);
    cr_assert_eq(b->cons_table[2 * 3 + 1].target, 0.5f, "world 3 lost the event's target");
    done(b, m);
}

/* The CUDA backend takes models with constraints and movers. Where a device
 * is present, a crane (rope winch, weld, events) and a turntable (two
 * movers) in 3 worlds step to the CPU's bits, read-outs included; without
 * one (this build or this machine) creation fails for that reason alone,
 * naming the device, not the constraints or movers (they were refused before). */
Test(link_mirror, cuda_backend_takes_constraints_and_movers)
{
    const char *scenes[] = {"scenes/crane.json", "scenes/turntable.json"};
    for (int i = 0; i < 2; ++i) {
        tp_model *m = NULL;
        cr_assert_eq(tp_model_load(scenes[i], &m), TP_OK, "%s", tp_last_error());
        tp_batch_def bd = tp_default_batch_def();
        bd.worlds = 3;
        bd.backend = TP_BACKEND_CUDA;
        tp_batch *gpu = NULL;
        tp_status st = tp_batch_create(m, &bd, &gpu);
        if (st != TP_OK) {
            const char *why = tp_last_error();
            cr_assert_eq(st, TP_ERR_BACKEND, "%s: %s", scenes[i], why);
            cr_assert(strstr(why, "CUDA") && !strstr(why, "constraint") && !strstr(why, "mover"), "%s: %s", scenes[i], why);
            cr_assert_null(gpu);
            tp_model_destroy(m);
            continue;
        }
        bd.backend = TP_BACKEND_CPU;
        tp_batch *cpu = NULL;
        cr_assert_eq(tp_batch_create(m, &bd, &cpu), TP_OK, "%s", tp_last_error());
        cr_assert_eq(tp_batch_step(gpu, 120), TP_OK, "%s", tp_last_error());
        cr_assert_eq(tp_batch_step(cpu, 120), TP_OK, "%s", tp_last_error());
        for (int w = 0; w < 3; ++w) {
            uint64_t hg = 0, hc = 0;
            cr_assert_eq(tp_batch_world_hash(gpu, w, &hg), TP_OK);
            cr_assert_eq(tp_batch_world_hash(cpu, w, &hc), TP_OK);
            cr_expect_eq(hg, hc, "%s world %d", scenes[i], w);
        }
        int C = tp_model_constraint_count(m), M = tp_model_mover_count(m);
        float vg[3 * 8], vc[3 * 8], fg[3 * 8], fc[3 * 8];
        cr_assert(C <= 8 && M <= 8);
        if (C) {
            cr_assert_eq(tp_batch_constraints(gpu, vg, fg), TP_OK);
            cr_assert_eq(tp_batch_constraints(cpu, vc, fc), TP_OK);
            cr_expect(!memcmp(vg, vc, 3 * (size_t)C * sizeof(float)) && !memcmp(fg, fc, 3 * (size_t)C * sizeof(float)),
                      "%s: constraint read-outs", scenes[i]);
        }
        if (M) {
            cr_assert_eq(tp_batch_movers(gpu, NULL, NULL, fg), TP_OK);
            cr_assert_eq(tp_batch_movers(cpu, NULL, NULL, fc), TP_OK);
            cr_expect(!memcmp(fg, fc, 3 * (size_t)M * sizeof(float)), "%s: mover forces", scenes[i]);
        }
        tp_batch_destroy(gpu);
        tp_batch_destroy(cpu);
        tp_model_destroy(m);
    }
}
