/* solver_simd_pack.c - the layout of a step's constraints in the wide sweeps'
 * lanes (csrc/solver_simd.c drives the passes over it): the packing of each
 * color's constraints into groups of `lanes` in a structure-of-arrays layout
 * (Box2D v3's contact_solver.c does the same in 2-D), the refresh of the
 * fields that change between phases, the write-back of the impulses, and the
 * shock pass's layout in waves. docs/solver.md, "Wide sweeps on the CPU". */
#include "solver_simd_pack.h"

#include <string.h>

/* ---------------------------------------------------------------- packing */

static void put3(float *slot, int field, int lanes, int l, const float *x)
{
    slot[field * lanes + l] = x[0];
    slot[(field + 1) * lanes + l] = x[1];
    slot[(field + 2) * lanes + l] = x[2];
}

/* The fields of point i that change between the phases of a step: the
 * velocity target and the split impulse's (the row law's, kernels/row_law.h) and the accumulated impulses. The warm start
 * (sweep 0) reads only the impulses, and runs before this substep's
 * separations are set (tp_solver_substep): its targets are zero, never
 * computed from stale or (in a step's first substep) uninitialized row
 * fields; the sweeps' refresh then fills them. */
static void pack_point_phase(float *S, int lanes, int l, const tp_contact *c, const tp_contact_row *r, float inv_h,
                             int use_bias, int sweep)
{
    union { uint32_t u; float f; } ones = {0xffffffffu}, none = {0u};
    float bias = 0.0f, push_bias = 0.0f, push_impulse = 0.0f;
    int push_on = 0;
    if (sweep) {
        float s = r->separation;
        bias = tp_row_target(s, inv_h, r->bounce_speed);
        push_on = tp_row_pushes(use_bias, s);
        if (push_on) push_bias = tp_row_push_target(s, inv_h);
        push_impulse = r->push_impulse;
    }
    S[TP_SF_BIAS * lanes + l] = bias;
    S[TP_SF_PUSH_BIAS * lanes + l] = push_bias;
    S[TP_SF_PUSH_ON * lanes + l] = push_on ? ones.f : none.f;
    S[TP_SF_NORMAL_IMPULSE * lanes + l] = c->normal_impulse;
    S[TP_SF_TANGENT_IMPULSE1 * lanes + l] = c->tangent_impulse[0];
    S[TP_SF_TANGENT_IMPULSE2 * lanes + l] = c->tangent_impulse[1];
    S[TP_SF_PUSH_IMPULSE * lanes + l] = push_impulse;
    S[TP_SF_MAX_NORMAL_IMPULSE * lanes + l] = r->max_normal_impulse;
}

/* Point i into lane l of a slot: the fields fixed for the step, then the
 * phase's. */
static void pack_point(float *S, int lanes, int l, const tp_contact *c, const tp_contact_row *r, float inv_h,
                       int use_bias, int sweep)
{
    union { uint32_t u; float f; } ones = {0xffffffffu};
    put3(S, TP_SF_N, lanes, l, c->normal);
    put3(S, TP_SF_RA, lanes, l, r->ra);
    put3(S, TP_SF_RB, lanes, l, r->rb);
    put3(S, TP_SF_T1, lanes, l, r->t1);
    put3(S, TP_SF_T2, lanes, l, r->t2);
    put3(S, TP_SF_WA_N, lanes, l, r->wa_n);
    put3(S, TP_SF_WB_N, lanes, l, r->wb_n);
    put3(S, TP_SF_WA_T1, lanes, l, r->wa_t1);
    put3(S, TP_SF_WB_T1, lanes, l, r->wb_t1);
    put3(S, TP_SF_WA_T2, lanes, l, r->wa_t2);
    put3(S, TP_SF_WB_T2, lanes, l, r->wb_t2);
    S[TP_SF_NORMAL_MASS * lanes + l] = r->normal_mass;
    S[TP_SF_TANGENT_MASS1 * lanes + l] = r->tangent_mass[0];
    S[TP_SF_TANGENT_MASS2 * lanes + l] = r->tangent_mass[1];
    S[TP_SF_FRICTION * lanes + l] = c->friction;
    S[TP_SF_VALID * lanes + l] = ones.f;
    S[TP_SF_SLIP1 * lanes + l] = 0.0f; /* the shock pass sets its targets after */
    S[TP_SF_SLIP2 * lanes + l] = 0.0f;
    pack_point_phase(S, lanes, l, c, r, inv_h, use_bias, sweep);
}

/* The refresh and the write-back ask for the lines of the group they will
 * reach TP_PREFETCH_AHEAD groups later: its points' phase fields in the rows,
 * their impulses in the contacts, and (the refresh) the phase's fields in the
 * slots, which it writes. The lanes' points lie far apart in the rows and
 * contacts, and without this both passes wait on memory (docs/solver.md,
 * "Wide sweeps on the CPU"). */
#define TP_PREFETCH_AHEAD 2 /* groups */
#if defined(__GNUC__) /* the second argument must be a constant */
#define TP_PREFETCH_READ(p) __builtin_prefetch((p), 0)
#define TP_PREFETCH_WRITE(p) __builtin_prefetch((p), 1)
#else
#define TP_PREFETCH_READ(p) ((void)(p))
#define TP_PREFETCH_WRITE(p) ((void)(p))
#endif

static void prefetch_group(const tp_simd_pack *P, int g, int g1, const tp_solver_work *w, const tp_contact *contacts,
                           int refresh)
{
    if (g >= g1) return;
    const tp_simd_group *G = &P->groups[g];
    for (int l = 0; l < G->used; ++l)
        for (int q = 0; q < G->count[l]; ++q) {
            int i = G->first[l] + q;
            if (refresh) {
                TP_PREFETCH_READ(&w->rows[i].separation);
                TP_PREFETCH_READ(&contacts[i].normal_impulse);
            } else {
                TP_PREFETCH_WRITE(&w->rows[i].push_impulse);
                TP_PREFETCH_WRITE(&contacts[i].normal_impulse);
            }
        }
    if (!refresh) return;
    size_t slot_floats = (size_t)TP_SIMD_FIELDS * (size_t)P->lanes;
    /* the fields BIAS .. MAX_NORMAL_IMPULSE: every other block of `lanes`
     * floats, which at 8 lanes (32 bytes) touches each line they span */
    for (int q = 0; q < G->slots; ++q)
        for (int f = TP_SF_BIAS; f <= TP_SF_MAX_NORMAL_IMPULSE; f += 2)
            TP_PREFETCH_WRITE(P->slots + (size_t)(G->slot0 + q) * slot_floats + (size_t)f * (size_t)P->lanes);
}

/* A later phase of the same step: the groups and the fixed fields stand,
 * only the phase's fields of groups [g0, g1) are read again. */
void tp_simd_refresh_groups(tp_simd_pack *P, int g0, int g1, const tp_solver_work *w, const tp_contact *contacts,
                            float inv_h, int use_bias, int sweep)
{
    int L = P->lanes;
    size_t slot_floats = (size_t)TP_SIMD_FIELDS * (size_t)L;
    for (int g = g0; g < g1; ++g) {
        prefetch_group(P, g + TP_PREFETCH_AHEAD, g1, w, contacts, 1);
        const tp_simd_group *G = &P->groups[g];
        float *S0 = P->slots + (size_t)G->slot0 * slot_floats;
        for (int l = 0; l < G->used; ++l)
            for (int q = 0; q < G->count[l]; ++q) {
                int i = G->first[l] + q;
                pack_point_phase(S0 + (size_t)q * slot_floats, L, l, &contacts[i], &w->rows[i], inv_h, use_bias,
                                 sweep);
            }
    }
}

/* Close group G: its slots, one per point of its largest constraint; empty
 * lanes of a slot stay zero with their masks clear. 0 if the slots do not fit. */
static int pack_group(tp_simd_pack *P, tp_simd_group *G, int *slot_used, const tp_solver_work *w,
                      const tp_contact *contacts, float inv_h, int use_bias, int sweep)
{
    int L = P->lanes, slots = 0;
    for (int l = 0; l < G->used; ++l) slots = G->count[l] > slots ? G->count[l] : slots;
    if (*slot_used + slots > P->slot_cap) return 0;
    G->slot0 = *slot_used;
    G->slots = slots;
    *slot_used += slots;
    size_t slot_floats = (size_t)TP_SIMD_FIELDS * (size_t)L;
    float *S0 = P->slots + (size_t)G->slot0 * slot_floats;
    memset(S0, 0, (size_t)slots * slot_floats * sizeof(float)); /* empty cells: zeros, masks clear */
    for (int l = 0; l < G->used; ++l)
        for (int q = 0; q < G->count[l]; ++q) {
            int i = G->first[l] + q;
            pack_point(S0 + (size_t)q * slot_floats, L, l, &contacts[i], &w->rows[i], inv_h, use_bias, sweep);
        }
    return 1;
}

/* A new group whose unused lanes name k's bodies with every mask clear. */
static tp_simd_group *group_open(tp_simd_group *G, const tp_constraint *k)
{
    memset(G, 0, sizeof *G);
    for (int l = 0; l < TP_SIMD_MAX_LANES; ++l) {
        G->a[l] = k->body_a;
        G->b[l] = k->body_b;
    }
    return G;
}

/* Constraint k into G's next lane; `hold` (the shock pass) names the body it
 * must not write, as tp_apply_impulse_held. */
static void group_add(tp_simd_group *G, const tp_constraint *k, const tp_solver_body *sb, int hold)
{
    int l = G->used++;
    const tp_solver_body *A = &sb[k->body_a], *B = &sb[k->body_b];
    G->a[l] = k->body_a;
    G->b[l] = k->body_b;
    G->sim_a[l] = A->simulated && hold != TP_HOLD_A ? 0xffffffffu : 0u;
    G->sim_b[l] = B->simulated && hold != TP_HOLD_B ? 0xffffffffu : 0u;
    G->inv_m_a[l] = A->inv_m;
    G->inv_m_b[l] = B->inv_m;
    G->first[l] = k->first;
    G->count[l] = k->count;
}

/* Pack every color's constraints; 0 if they do not fit (the phase then runs
 * the scalar sweeps, which give the same bits). */
int tp_simd_pack_phase(tp_simd_pack *P, const tp_world *wd, const tp_solver_work *w, const tp_contact *contacts,
                       float inv_h, int use_bias, int sweep)
{
    int L = P->lanes, groups = 0, slot_used = 0, n_scalar = 0;
    P->wide = 0;
    for (int c = 0; c < TP_MAX_COLORS; ++c) {
        P->color_group[c] = groups;
        P->color_scalar[c] = n_scalar;
        tp_simd_group *G = NULL;
        for (int i = w->color_start[c]; i < w->color_start[c + 1]; ++i) {
            const tp_constraint *k = &w->cons[w->order[i]];
            if ((w->artic && tp_artic_pair(wd, k->body_a, k->body_b)) || k->count > TP_SIMD_MAX_POINTS) {
                P->scalar[n_scalar++] = i;
                continue;
            }
            if (!G) {
                if (groups == P->group_cap) return 0;
                G = group_open(&P->groups[groups++], k);
            }
            group_add(G, k, w->bodies, TP_HOLD_NONE);
            if (G->used == L) {
                if (!pack_group(P, G, &slot_used, w, contacts, inv_h, use_bias, sweep)) return 0;
                G = NULL;
            }
        }
        if (G && !pack_group(P, G, &slot_used, w, contacts, inv_h, use_bias, sweep)) return 0;
    }
    P->color_group[TP_MAX_COLORS] = groups;
    P->color_scalar[TP_MAX_COLORS] = n_scalar;
    P->first_color = 0;
    while (P->first_color < TP_MAX_COLORS && P->color_group[P->first_color + 1] == 0 &&
           P->color_scalar[P->first_color + 1] == 0)
        P->first_color++;
    P->n_groups = groups;
    for (int g = 0; g < groups; ++g) P->wide += P->groups[g].used;
    return 1;
}

/* The impulses the sweeps changed in groups [g0, g1), back to the contacts and rows. */
void tp_simd_unpack_groups(const tp_simd_pack *P, int g0, int g1, tp_solver_work *w, tp_contact *contacts)
{
    int L = P->lanes;
    size_t slot_floats = (size_t)TP_SIMD_FIELDS * (size_t)L;
    for (int g = g0; g < g1; ++g) {
        prefetch_group(P, g + TP_PREFETCH_AHEAD, g1, w, contacts, 0);
        const tp_simd_group *G = &P->groups[g];
        const float *S0 = P->slots + (size_t)G->slot0 * slot_floats;
        for (int l = 0; l < G->used; ++l)
            for (int q = 0; q < G->count[l]; ++q) {
                const float *S = S0 + (size_t)q * slot_floats;
                int i = G->first[l] + q;
                contacts[i].normal_impulse = S[TP_SF_NORMAL_IMPULSE * L + l];
                contacts[i].tangent_impulse[0] = S[TP_SF_TANGENT_IMPULSE1 * L + l];
                contacts[i].tangent_impulse[1] = S[TP_SF_TANGENT_IMPULSE2 * L + l];
                w->rows[i].push_impulse = S[TP_SF_PUSH_IMPULSE * L + l];
                w->rows[i].max_normal_impulse = S[TP_SF_MAX_NORMAL_IMPULSE * L + l];
            }
    }
}

/* ---------------------------------------------------------------- the shock pass's waves */

/* The constraint in lane l of group G: its bodies and points (color unset). */
static tp_constraint lane_constraint(const tp_simd_group *G, int l)
{
    tp_constraint k;
    memset(&k, 0, sizeof k);
    k.body_a = G->a[l];
    k.body_b = G->b[l];
    k.first = G->first[l];
    k.count = G->count[l];
    return k;
}

/* The shock pass writes, in a level, only the bodies of that level's depth
 * (kernels/shock.h: a participating row holds its support, or stands on a
 * fixed body), and every row writes exactly one body. Rows that write
 * different bodies therefore commute, and the bits of a level's sweep depend
 * only on the order of the rows of each written body. A level is cut into
 * waves: a body with m rows (of M at most) has them in waves M - m .. M - 1,
 * in level order; a forward sweep runs the waves 0 .. M-1, a reverse sweep
 * M-1 .. 0 (each body's rows then in reverse order, as the scalar pass). The
 * rows of a wave write distinct bodies, so they go in lanes. */

/* The body constraint k writes in the shock pass. */
static int shock_writes(const tp_constraint *k, const int32_t *depth, int hold)
{
    if (hold == TP_HOLD_A) return k->body_b;
    if (hold == TP_HOLD_B) return k->body_a;
    return depth[k->body_a] == 0 ? k->body_b : k->body_a;
}

/* Lay out a level's rows [begin, end) of the shock order in waves and groups,
 * appended to the shock pack, with the held rows' masses (the moving body's
 * alone, from tp_shock_held_masses, as the scalar rows take them); the
 * wave starts go to wave_group[*wg ..]. Returns M, or 0 (the pack unchanged)
 * where the level runs the scalar code: no rows, a row of more than 4 points,
 * waves that would be mostly empty lanes, or no room left. */
static int shock_layout_level(tp_simd_ctx *C, const tp_world *wd, const tp_solver_work *w, const tp_contact *contacts,
                              int begin, int end, int *wg)
{
    tp_simd_pack *P = &C->shock;
    int np = 0, M = 0, L = P->lanes;
    for (int i = begin; i < end; ++i) {
        const tp_constraint *k = &w->cons[w->shock_order[i]];
        if (!tp_shock_takes_part(k, w->depth, w->carries) || tp_shock_skips(wd, w, k)) continue;
        if (k->count > TP_SIMD_MAX_POINTS) return 0;
        C->part[np] = i;
        C->writes[np++] = shock_writes(k, w->depth, tp_shock_hold(k, w->depth));
    }
    if (np == 0) return 0;
    for (int p = 0; p < np; ++p) C->body_count[C->writes[p]] = 0;
    for (int p = 0; p < np; ++p) {
        int m = ++C->body_count[C->writes[p]];
        M = m > M ? m : M;
    }
    /* A level of fewer than half a vector of rows per wave (a tower: one or
     * two) is cheaper in scalar code, which gives the same bits. */
    if (2 * np < M * L) return 0;
    for (int p = 0; p < np; ++p) C->wave[p] = M - C->body_count[C->writes[p]]--;
    /* counting sort by wave, stable (level order within a wave) */
    int32_t *start = C->wave_group + *wg;
    for (int j = 0; j <= M; ++j) start[j] = 0;
    for (int p = 0; p < np; ++p) start[C->wave[p] + 1]++;
    for (int j = 0; j < M; ++j) start[j + 1] += start[j];
    for (int p = 0; p < np; ++p) C->sorted[start[C->wave[p]]++] = p;
    /* start[j] is now the end of wave j; then each wave's first group */
    int groups = P->n_groups, slot_used = P->slot_used, from = 0;
    for (int j = 0; j < M; ++j) {
        int to = start[j];
        start[j] = groups;
        tp_simd_group *G = NULL;
        for (int q = from; q < to; ++q) {
            int i = C->part[C->sorted[q]];
            const tp_constraint *k = &w->cons[w->shock_order[i]];
            if (!G) {
                if (groups == P->group_cap) return 0;
                G = group_open(&P->groups[groups++], k);
            }
            group_add(G, k, w->bodies, tp_shock_hold(k, w->depth));
            if (G->used == L || q == to - 1) {
                if (!pack_group(P, G, &slot_used, w, contacts, 0.0f, 0, 0)) return 0;
                G = NULL;
            }
        }
        from = to;
    }
    start[M] = groups;
    size_t slot_floats = (size_t)TP_SIMD_FIELDS * (size_t)L;
    for (int g = P->n_groups; g < groups; ++g) {
        const tp_simd_group *G = &P->groups[g];
        float *S0 = P->slots + (size_t)G->slot0 * slot_floats;
        for (int l = 0; l < G->used; ++l) {
            tp_constraint k = lane_constraint(G, l);
            int hold = tp_shock_hold(&k, w->depth);
            if (hold == TP_HOLD_NONE) continue;
            for (int q = 0; q < G->count[l]; ++q) {
                float *S = S0 + (size_t)q * slot_floats;
                const float *mass = w->shock_points[G->first[l] + q].held.mass;
                S[TP_SF_NORMAL_MASS * L + l] = mass[0];
                S[TP_SF_TANGENT_MASS1 * L + l] = mass[1];
                S[TP_SF_TANGENT_MASS2 * L + l] = mass[2];
            }
        }
    }
    P->n_groups = groups;
    P->slot_used = slot_used;
    *wg += M + 1;
    return M;
}

/* The shock pass's layout for the step: every level, in shock order. */
void tp_simd_shock_layout(tp_simd_ctx *C, const tp_world *wd, const tp_solver_work *w, const tp_contact *contacts)
{
    C->shock.n_groups = 0;
    C->shock.slot_used = 0;
    int n_cons = w->color_start[TP_OVERFLOW_COLOR + 1], wg = 0, li = 0;
    for (int begin = 0, end = 0; begin < n_cons; begin = end, ++li) {
        int level = tp_constraint_level(&w->cons[w->shock_order[begin]], w->depth);
        end = begin + 1;
        while (end < n_cons && tp_constraint_level(&w->cons[w->shock_order[end]], w->depth) == level) ++end;
        C->level_wave0[li] = wg;
        C->level_waves[li] = shock_layout_level(C, wd, w, contacts, begin, end, &wg);
    }
}

/* A level's phase fields and friction targets (tp_shock_constraint: no slip,
 * or the slip the sweeps left, just noted in shock_points) for this substep. */
void tp_simd_shock_refresh(tp_simd_ctx *C, int g0, int g1, const tp_solver_work *w, const tp_contact *contacts,
                           float inv_h, int use_bias)
{
    tp_simd_pack *P = &C->shock;
    tp_simd_refresh_groups(P, g0, g1, w, contacts, inv_h, use_bias, 1);
    int L = P->lanes;
    size_t slot_floats = (size_t)TP_SIMD_FIELDS * (size_t)L;
    for (int g = g0; g < g1; ++g) {
        const tp_simd_group *G = &P->groups[g];
        float *S0 = P->slots + (size_t)G->slot0 * slot_floats;
        for (int l = 0; l < G->used; ++l) {
            tp_constraint k = lane_constraint(G, l);
            int no_slip = tp_shock_no_slip(&k, w->bodies, tp_shock_hold(&k, w->depth));
            for (int q = 0; q < k.count; ++q) {
                int i = k.first + q;
                const tp_shock_point *s = &w->shock_points[i];
                S0[(size_t)q * slot_floats + TP_SF_SLIP1 * L + l] = no_slip ? 0.0f : s->slip[0];
                S0[(size_t)q * slot_floats + TP_SF_SLIP2 * L + l] = no_slip ? 0.0f : s->slip[1];
            }
        }
    }
}
