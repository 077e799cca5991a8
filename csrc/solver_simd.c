/* solver_simd.c - the CPU's wide contact sweeps: which width runs, the
 * per-thread scratch, and the hooks through which the passes of
 * kernels/sweeps.h run the lane code
 * (csrc/solver_simd_wide.h) over the layout of csrc/solver_simd_pack.c.
 * docs/solver.md, "Wide sweeps on the CPU", gives the design and the argument
 * that the bits are the scalar sweeps'.
 *
 * Once per step the constraints of each color are packed into groups of
 * `lanes` (in key order: group g of a color holds its constraints g lanes ..
 * g lanes + lanes - 1). The passes and their loops are kernels/sweeps.h's
 * (tp_solver_pass hands the colors of each pass to simd_colors). Each phase of sweeps (the
 * `count` sweeps of one tp_solver_sweeps call) reads again the fields that change between phases,
 * sweeps the groups, and writes the impulses back to the contacts and rows,
 * which the shock pass, restitution and the forces read; the warm start reads
 * the impulses again only where something else changed them since
 * (warm_start_ready). The shock pass
 * has its own layout, in waves. Constraints on articulation links and those
 * with more than 4 points stay scalar (solved before the color's groups: the
 * order within a color does not change the bits), as do the overflow color
 * and the articulations' joint rows. */
#include "solver_simd_pack.h"

#include "error.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_ullong simd_wide_total, simd_wide_shock;

unsigned long long tp_simd_wide_constraints(void) { return atomic_load(&simd_wide_total); }
unsigned long long tp_simd_wide_shock_rows(void) { return atomic_load(&simd_wide_shock); }

/* ---------------------------------------------------------------- choosing the width */

const char *tp_simd_name(tp_simd s)
{
    switch (s) {
    case TP_SIMD_OFF: return "off";
    case TP_SIMD_SSE2: return "sse2";
    case TP_SIMD_AVX2: return "avx2";
    case TP_SIMD_AUTO: return "auto";
    default: return NULL;
    }
}

static int cpu_has(tp_simd s)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (s == TP_SIMD_SSE2) return __builtin_cpu_supports("sse2");
    if (s == TP_SIMD_AVX2) return __builtin_cpu_supports("avx2");
#endif
    return s == TP_SIMD_OFF;
}

tp_status tp_simd_resolve(tp_simd requested, tp_simd *out)
{
    const char *from = "batch definition: simd";
    if ((unsigned)requested > TP_SIMD_AVX2)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: unknown value %d (auto, off, sse2, avx2)", from, (int)requested);
    if (requested == TP_SIMD_AUTO) {
        const char *env = getenv("TORPOR_SIMD");
        from = "environment variable TORPOR_SIMD";
        if (env && *env) {
            if (!strcmp(env, "off")) requested = TP_SIMD_OFF;
            else if (!strcmp(env, "sse2")) requested = TP_SIMD_SSE2;
            else if (!strcmp(env, "avx2")) requested = TP_SIMD_AVX2;
            else if (strcmp(env, "auto"))
                return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: unknown value \"%s\" (auto, off, sse2, avx2)", from, env);
        }
    }
    if (requested == TP_SIMD_AUTO) {
        *out = cpu_has(TP_SIMD_AVX2) ? TP_SIMD_AVX2 : cpu_has(TP_SIMD_SSE2) ? TP_SIMD_SSE2 : TP_SIMD_OFF;
        return TP_OK;
    }
    if (!cpu_has(requested))
        return tp_fail(TP_ERR_BACKEND, "%s: %s asked for, but this CPU does not have %s", from, tp_simd_name(requested),
                       tp_simd_name(requested));
    *out = requested;
    return TP_OK;
}

static const tp_simd_kernels *kernels_of(tp_simd kind)
{
#if defined(__x86_64__) || defined(__i386__)
    return kind == TP_SIMD_AVX2 ? &tp_simd_kernels_avx2 : kind == TP_SIMD_SSE2 ? &tp_simd_kernels_sse2 : NULL;
#else
    (void)kind; /* no lane code off x86: cpu_has resolves every width to off */
    return NULL;
#endif
}

/* ---------------------------------------------------------------- scratch */

static size_t align64(size_t n) { return (n + 63u) & ~(size_t)63u; }

/* Groups: full ones hold `lanes` constraints, and each color ends at most one
 * partial group. Slots: a group has as many as its largest constraint has
 * points (at most 4); a full group of P points (P >= lanes, one or more per
 * lane) has at most min(4, P - lanes + 1) slots, at most 4 / (lanes + 3) of
 * its points, and each partial group at most 4. The shock pass's waves can
 * end more partial groups than that; a level that does not fit runs scalar. */
static void caps(int lanes, int capacity, int *groups, int *slots)
{
    *groups = capacity / lanes + TP_MAX_COLORS + 1;
    *slots = 4 * capacity / (lanes + 3) + 4 * (TP_MAX_COLORS + 2);
}

static size_t pack_bytes(int lanes, int capacity)
{
    int g, s;
    caps(lanes, capacity, &g, &s);
    return align64((size_t)g * sizeof(tp_simd_group)) +
           align64((size_t)s * TP_SIMD_FIELDS * (size_t)lanes * sizeof(float));
}

size_t tp_simd_scratch_bytes(tp_simd kind, int bodies, int capacity)
{
    const tp_simd_kernels *k = kernels_of(kind);
    if (!k) return 0;
    return align64(sizeof(tp_simd_ctx)) + 2 * pack_bytes(k->lanes, capacity) +
           7 * align64((size_t)capacity * sizeof(int32_t)) + align64((2 * (size_t)capacity + 2) * sizeof(int32_t)) +
           align64((size_t)bodies * sizeof(int32_t));
}

/* A pack's groups and slots at p; returns the end. */
static char *pack_at(tp_simd_pack *P, int lanes, int capacity, char *p)
{
    P->lanes = lanes;
    caps(lanes, capacity, &P->group_cap, &P->slot_cap);
    P->n_groups = 0;
    P->groups = (tp_simd_group *)p;
    p += align64((size_t)P->group_cap * sizeof(tp_simd_group));
    P->slots = (float *)p;
    return p + align64((size_t)P->slot_cap * TP_SIMD_FIELDS * (size_t)lanes * sizeof(float));
}

static int simd_begin(tp_solver_simd *self, const tp_world *wd, const tp_solver_work *w, const tp_contact *contacts,
                      float inv_h, int use_bias, int sweep);
static void simd_colors(tp_solver_simd *self, int pass, tp_world *wd, tp_solver_work *w, tp_contact *contacts,
                        const tp_pass_args *a);
static void simd_end(tp_solver_simd *self, tp_solver_work *w, tp_contact *contacts, int sweep, int passes);
static void simd_shock(tp_solver_simd *self, tp_world *wd, tp_solver_work *w, tp_contact *contacts, float inv_h,
                       int use_bias);

tp_solver_simd *tp_simd_bind(tp_simd kind, void *scratch, int bodies, int capacity)
{
    const tp_simd_kernels *k = kernels_of(kind);
    if (!k) return NULL;
    char *p = (char *)scratch;
    tp_simd_ctx *c = (tp_simd_ctx *)p;
    p += align64(sizeof(tp_simd_ctx));
    c->hooks.begin = simd_begin;
    c->hooks.colors = simd_colors;
    c->hooks.end = simd_end;
    c->hooks.wide = 0;
    c->hooks.rows_changed = 1;
    c->hooks.impulses_changed = 1;
    c->impulses_packed = 0;
    c->fits = 0;
    c->k = k;
    c->hooks.shock = simd_shock;
    p = pack_at(&c->pack, k->lanes, capacity, p);
    p = pack_at(&c->shock, k->lanes, capacity, p);
    int32_t **ints[7] = {&c->pack.scalar, &c->part, &c->writes, &c->wave, &c->sorted, &c->level_waves,
                         &c->level_wave0};
    for (int i = 0; i < 7; ++i) {
        *ints[i] = (int32_t *)p;
        p += align64((size_t)capacity * sizeof(int32_t));
    }
    c->shock.scalar = NULL;
    c->shock_stale = 1;
    c->wave_group = (int32_t *)p;
    p += align64((2 * (size_t)capacity + 2) * sizeof(int32_t));
    c->body_count = (int32_t *)p;
    (void)bodies;
    return &c->hooks;
}

/* ---------------------------------------------------------------- the passes */

/* Pack a phase (sweep 1: sweeps, 0: the warm start): everything after the
 * rows were prepared, else the phase's fields only. 0: the constraints do not
 * fit (scalar sweeps this step). */
static int pack(tp_simd_ctx *C, const tp_world *wd, const tp_solver_work *w, const tp_contact *contacts, float inv_h,
                int use_bias, int sweep)
{
    if (C->hooks.rows_changed) {
        C->hooks.rows_changed = 0;
        C->shock_stale = 1;
        C->fits = tp_simd_pack_phase(&C->pack, wd, w, contacts, inv_h, use_bias, sweep);
    } else if (C->fits) {
        tp_simd_refresh_groups(&C->pack, 0, C->pack.n_groups, w, contacts, inv_h, use_bias, sweep);
    }
    C->hooks.impulses_changed = 0;
    C->impulses_packed = C->fits;
    return C->fits;
}

/* 1 if the warm start can run on the slots as they are: it reads only the
 * impulses (and the fields fixed for the step), and since the last sweeps
 * wrote them back nothing changed them: no new rows, no shock pass, no
 * bounce zeroed at a substep's end. This saves a third of the refreshes. */
static int warm_start_ready(const tp_simd_ctx *C)
{
    return C->fits && C->impulses_packed && !C->hooks.rows_changed && !C->hooks.impulses_changed;
}

/* A phase begins (tp_solver_wide_begin): its fields into the lanes; 0 if
 * they do not fit. */
static int simd_begin(tp_solver_simd *self, const tp_world *wd, const tp_solver_work *w, const tp_contact *contacts,
                      float inv_h, int use_bias, int sweep)
{
    tp_simd_ctx *C = (tp_simd_ctx *)self;
    if (!sweep && warm_start_ready(C)) return 1;
    return pack(C, wd, w, contacts, inv_h, use_bias, sweep);
}

/* The colors of a pass (tp_solver_wide_colors), each: its scalar constraints
 * (the order within a color does not change the bits), then its groups, then
 * its constraints between two bodies and movers (scalar, kernels/constraint_colors.h). */
static void simd_colors(tp_solver_simd *self, int pass, tp_world *wd, tp_solver_work *w, tp_contact *contacts,
                        const tp_pass_args *a)
{
    tp_simd_ctx *C = (tp_simd_ctx *)self;
    const tp_simd_pack *P = &C->pack;
    int scalar_end = P->color_scalar[TP_MAX_COLORS], group_end = P->color_group[TP_MAX_COLORS];
    int more = pass == TP_PASS_SWEEP && (wd->cons_count || wd->mover_count);
    /* without constraint colors to look at, the colors before the first packed one hold nothing
       (contacts against static bodies take the highest free colors) */
    for (int c = more ? 0 : P->first_color;
         c < TP_MAX_COLORS && (more || P->color_scalar[c] < scalar_end || P->color_group[c] < group_end); ++c) {
        for (int j = P->color_scalar[c]; j < P->color_scalar[c + 1]; ++j)
            tp_solver_sweep_range(pass, wd, w, contacts, P->scalar[j], P->scalar[j] + 1, a, 0, 1);
        int g0 = P->color_group[c], g1 = P->color_group[c + 1];
        if (g0 < g1 && pass == TP_PASS_WARM_START) C->k->warm_start(P, g0, g1, wd->v, wd->w);
        else if (g0 < g1) C->k->sweep(P, g0, g1, wd->v, wd->w, w->push, a->use_bias, a->reverse);
        tp_solver_cons_color(pass, wd, w, c, a, 0, 1);
    }
}

/* A phase ends (tp_solver_wide_end): the sweeps' impulses back to the
 * contacts; the constraints counted. */
static void simd_end(tp_solver_simd *self, tp_solver_work *w, tp_contact *contacts, int sweep, int passes)
{
    tp_simd_ctx *C = (tp_simd_ctx *)self;
    if (sweep) {
        tp_simd_unpack_groups(&C->pack, 0, C->pack.n_groups, w, contacts);
        C->impulses_packed = 1; /* the contacts now hold the slots' impulses */
    }
    if (passes > 0) atomic_fetch_add(&simd_wide_total, (unsigned long long)C->pack.wide * (unsigned long long)passes);
}

/* ---------------------------------------------------------------- the shock pass */

/* tp_solver_shock_pass with each level's sweeps in lanes. */
static void simd_shock(tp_solver_simd *self, tp_world *wd, tp_solver_work *w, tp_contact *contacts, float inv_h,
                       int use_bias)
{
    tp_simd_ctx *C = (tp_simd_ctx *)self;
    C->impulses_packed = 0; /* the pass writes the contacts' impulses */
    if (C->shock_stale) {
        C->shock_stale = 0;
        tp_simd_shock_layout(C, wd, w, contacts);
    }
    const tp_simd_pack *P = &C->shock;
    unsigned long long wide = 0;
    int n_cons = w->color_start[TP_OVERFLOW_COLOR + 1];
    for (int begin = 0, end = 0, li = 0; begin < n_cons; begin = end, ++li) {
        end = tp_shock_level_end(w, begin, n_cons);
        tp_shock_level_save(wd, w, contacts, begin, end);
        int waves = C->level_waves[li];
        if (waves > 0) {
            const int32_t *wave_group = C->wave_group + C->level_wave0[li];
            int g0 = wave_group[0], g1 = wave_group[waves];
            tp_simd_shock_refresh(C, g0, g1, w, contacts, inv_h, use_bias);
            int sweeps = 0;
            while (sweeps < TP_SHOCK_INNER) {
                int it = sweeps++, rev = it & 1;
                tp_shock_sweep_begin(wd, w, begin, end, it);
                for (int jj = 0; jj < waves; ++jj) {
                    int j = rev ? waves - 1 - jj : jj;
                    C->k->sweep(P, wave_group[j], wave_group[j + 1], wd->v, wd->w, w->push, use_bias, rev);
                }
                if (tp_shock_sweep_settled(wd, w, begin, end, it)) break;
            }
            tp_simd_unpack_groups(P, g0, g1, w, contacts);
            for (int g = g0; g < g1; ++g) wide += (unsigned long long)P->groups[g].used * (unsigned long long)sweeps;
        } else {
            tp_shock_level_sweeps(wd, w, contacts, begin, end, inv_h, use_bias);
        }
        tp_shock_level_restore(wd, w, contacts, begin, end);
    }
    if (wide) {
        atomic_fetch_add(&simd_wide_total, wide);
        atomic_fetch_add(&simd_wide_shock, wide);
    }
}
