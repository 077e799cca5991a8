/* test_shock.c - support depths and the order of the shock pass
 * (kernels/shock.h), on hand-built constraints: the depths are what the
 * contact graph says (a stack counts up from the ground whatever the order of
 * its constraints), a side contact, a distant one or missing gravity gives no
 * support, and the pass visits levels from the ground up, holding the lower
 * body. C17 and C19 (tests/test_solver.c) test what the pass does. */
#include "solver.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#define MAX_BODIES 8

typedef struct shock_fixture {
    tp_world wd;
    tp_solver_body sb[MAX_BODIES];
    tp_contact contacts[MAX_BODIES];
    tp_constraint cons[MAX_BODIES];
    int32_t depth[MAX_BODIES], order[MAX_BODIES], level_start[MAX_BODIES + 2];
    int n_cons;
} shock_fixture;

/* Body 0 fixed (a ground), bodies 1 .. bodies - 1 simulated; gravity along -z
 * of magnitude g. */
static void fixture_init(shock_fixture *f, int bodies, float g)
{
    memset(f, 0, sizeof *f);
    f->wd.bodies = bodies;
    f->wd.gravity[2] = -g;
    for (int b = 1; b < bodies; ++b) f->sb[b].simulated = 1;
}

/* A one-point constraint between a and b (a < b), normal n, separation s. */
static void add_constraint(shock_fixture *f, int a, int b, float nx, float ny, float nz, float s)
{
    int i = f->n_cons++;
    tp_contact *c = &f->contacts[i];
    c->body_a = a;
    c->body_b = b;
    c->normal[0] = nx;
    c->normal[1] = ny;
    c->normal[2] = nz;
    c->separation = s;
    f->cons[i].first = i;
    f->cons[i].count = 1;
    f->cons[i].body_a = a;
    f->cons[i].body_b = b;
}

static void solve_depths(shock_fixture *f)
{
    tp_support_depth(&f->wd, f->sb, f->contacts, f->cons, f->n_cons, f->depth);
    tp_shock_order(&f->wd, f->cons, f->n_cons, f->depth, f->order, f->level_start);
}

/* A ground and a stack of four, the constraints listed top first: the depths
 * are 1 .. 4 from the bottom, the pass visits the constraints bottom first,
 * and each body-body constraint holds its lower body (the ground row is an
 * ordinary one). */
Test(shock, a_stack_counts_up_from_the_ground)
{
    shock_fixture f;
    fixture_init(&f, 5, 9.81f);
    add_constraint(&f, 3, 4, 0, 0, 1, -1e-4f);
    add_constraint(&f, 2, 3, 0, 0, 1, -1e-4f);
    add_constraint(&f, 1, 2, 0, 0, 1, 0.0f);
    add_constraint(&f, 0, 1, 0, 0, 1, -2e-4f);
    solve_depths(&f);
    for (int b = 0; b < 5; ++b) cr_expect_eq(f.depth[b], b, "body %d: depth %d, expected %d", b, f.depth[b], b);
    for (int i = 0; i < 4; ++i) {
        const tp_constraint *k = &f.cons[f.order[i]];
        cr_expect_eq(k->body_a, i, "shock order %d: constraint %d-%d, expected %d-%d", i, k->body_a, k->body_b, i,
                     i + 1);
        cr_expect_eq(tp_shock_hold(k, f.depth), i == 0 ? TP_HOLD_NONE : TP_HOLD_A, "constraint %d-%d", k->body_a,
                     k->body_b);
    }
}

/* The normal points from A to B; a body resting under-side up (B below A,
 * normal -z) is supported just the same, and its constraint holds B. */
Test(shock, the_normal_may_point_down)
{
    shock_fixture f;
    fixture_init(&f, 3, 9.81f);
    add_constraint(&f, 0, 2, 0, 0, 1, -1e-4f);  /* body 2 on the ground */
    add_constraint(&f, 1, 2, 0, 0, -1, -1e-4f); /* body 1 on body 2 */
    solve_depths(&f);
    cr_expect_eq(f.depth[2], 1);
    cr_expect_eq(f.depth[1], 2);
    cr_expect_eq(tp_shock_hold(&f.cons[1], f.depth), TP_HOLD_B);
}

/* No support: a body touching another only along a steep normal (a side
 * face), one farther than TP_SHOCK_TOUCH, and every body when there is no
 * gravity. Unsupported bodies get depth bodies + 1; a constraint between
 * two of them holds nothing. */
Test(shock, side_contacts_distant_contacts_and_no_gravity_support_nothing)
{
    shock_fixture f;
    fixture_init(&f, 4, 9.81f);
    add_constraint(&f, 0, 1, 0, 0, 1, 0.0f);                   /* on the ground */
    add_constraint(&f, 1, 2, 1, 0, 0, -1e-4f);                 /* against body 1's side */
    add_constraint(&f, 0, 3, 0, 0, 1, TP_SHOCK_TOUCH + 1e-3f); /* above the ground, apart */
    solve_depths(&f);
    cr_expect_eq(f.depth[1], 1);
    cr_expect_eq(f.depth[2], 5, "a side contact supported body 2 (depth %d)", f.depth[2]);
    cr_expect_eq(f.depth[3], 5, "a distant contact supported body 3 (depth %d)", f.depth[3]);
    /* 60 degrees from the vertical is the limit (TP_SHOCK_SUPPORT_COS). */
    fixture_init(&f, 3, 9.81f);
    add_constraint(&f, 0, 1, 0.8571673f, 0, 0.5150381f, 0.0f); /* 59 degrees: supports */
    add_constraint(&f, 0, 2, 0.8746197f, 0, 0.4848096f, 0.0f); /* 61 degrees: does not */
    solve_depths(&f);
    cr_expect_eq(f.depth[1], 1);
    cr_expect_eq(f.depth[2], 4);
    fixture_init(&f, 3, 0.0f);
    add_constraint(&f, 0, 1, 0, 0, 1, -1e-4f);
    add_constraint(&f, 1, 2, 0, 0, 1, -1e-4f);
    solve_depths(&f);
    cr_expect_eq(f.depth[1], 4, "no gravity, yet body 1 has depth %d", f.depth[1]);
    cr_expect_eq(f.depth[2], 4, "no gravity, yet body 2 has depth %d", f.depth[2]);
    cr_expect_eq(tp_shock_hold(&f.cons[1], f.depth), TP_HOLD_NONE);
}

/* A sleeping (not simulated) body is a support like the ground: depth 0, and
 * a constraint against it holds nothing (its velocity is never written). */
Test(shock, a_sleeping_body_is_a_fixed_support)
{
    shock_fixture f;
    fixture_init(&f, 3, 9.81f);
    f.sb[1].simulated = 0;
    add_constraint(&f, 1, 2, 0, 0, 1, -1e-4f);
    solve_depths(&f);
    cr_expect_eq(f.depth[1], 0);
    cr_expect_eq(f.depth[2], 1);
    cr_expect_eq(tp_shock_hold(&f.cons[0], f.depth), TP_HOLD_NONE);
}

/* Two fixed bodies in one constraint (an articulation link, which the rigid
 * solver does not simulate, resting on the ground): depth 0 on both sides.
 * The constraint takes level 1 and the order still lists every constraint
 * once (level 0 used to index level_start[-1]). */
Test(shock, a_constraint_between_fixed_bodies_is_ordered_once)
{
    shock_fixture f;
    fixture_init(&f, 4, 9.81f);
    f.sb[1].simulated = 0;                        /* body 1: a link */
    add_constraint(&f, 0, 1, 0, 0, 1, 0.0f);      /* link on the ground */
    add_constraint(&f, 1, 2, 0, 0, 1, 0.0f);      /* a cube on the link */
    add_constraint(&f, 2, 3, 0, 0, 1, 0.0f);      /* a cube on that cube */
    for (int i = 0; i < MAX_BODIES + 2; ++i) f.level_start[i] = -12345; /* as uninitialised scratch */
    solve_depths(&f);
    cr_assert_eq(f.depth[1], 0);
    cr_assert_eq(f.depth[2], 1);
    cr_assert_eq(f.depth[3], 2);
    cr_assert_eq(tp_constraint_level(&f.cons[0], f.depth), 1);
    int seen[3] = {0, 0, 0};
    for (int i = 0; i < f.n_cons; ++i) {
        cr_assert(f.order[i] >= 0 && f.order[i] < f.n_cons, "order[%d] = %d", i, f.order[i]);
        seen[f.order[i]]++;
    }
    for (int i = 0; i < f.n_cons; ++i) cr_assert_eq(seen[i], 1, "constraint %d listed %d times", i, seen[i]);
    cr_assert_eq(f.order[f.n_cons - 1], 2, "the top constraint comes last");
}

/* A level's sweeps stop once one changes no velocity of its bodies by more
 * than TP_SHOCK_TOL (kernels/shock.h). The measure: whether any velocity
 * component (v, w, push v, push w) of the bodies of the level's taking-part
 * rows changed by more than the tolerance since the note, or is NaN; the stop is
 * taken only after a backward sweep (sweeps go in forward-backward pairs, so a
 * stop leaves no bias of order) and never after the last sweep. */
Test(shock, a_level_settles_when_no_velocity_changes_past_the_tolerance)
{
    shock_fixture f;
    fixture_init(&f, 4, 9.81f);
    add_constraint(&f, 0, 1, 0, 0, 1, 0.0f); /* level 1: a cube on the ground */
    add_constraint(&f, 1, 2, 0, 0, 1, 0.0f); /* level 2: a cube on it, body 1 held */
    add_constraint(&f, 2, 3, 0, 0, 1, 0.0f); /* level 3 */
    solve_depths(&f);
    float v[3 * 4] = {0}, w[3 * 4] = {0}, push[6 * 4] = {0}, snap[12 * 4];
    int32_t carries[4] = {0};
    f.wd.v = v;
    f.wd.w = w;
    tp_solver_work sw;
    memset(&sw, 0, sizeof sw);
    sw.cons = f.cons;
    sw.shock_order = f.order;
    sw.depth = f.depth;
    sw.carries = carries;
    sw.bodies = f.sb;
    sw.push = push;
    sw.vel_note = snap;
    for (int i = 0; i < f.n_cons; ++i) {
        int hold = tp_shock_hold(&f.cons[i], f.depth);
        if (hold == TP_HOLD_A) carries[f.cons[i].body_a] = 1;
    }
    /* level 2 is shock order position 1 (one constraint) */
    tp_shock_level_moved(&f.wd, &sw, 1, 2, 1);
    cr_expect(!tp_shock_level_moved(&f.wd, &sw, 1, 2, 0), "nothing changed");
    v[3 * 3 + 0] = 1.0f;            /* body 3 is in level 3 only: ignored */
    push[6 * 2 + 5] = -0.9f * TP_SHOCK_TOL; /* body 2, the level's body: within the tolerance */
    cr_expect(!tp_shock_level_moved(&f.wd, &sw, 1, 2, 0), "body 3 ignored, body 2 within the tolerance");
    push[6 * 2 + 5] = -1.1f * TP_SHOCK_TOL; /* its push-out spin counts, by its size, either sign */
    cr_expect(tp_shock_level_moved(&f.wd, &sw, 1, 2, 0), "a push-out change past the tolerance");
    push[6 * 2 + 5] = 0.0f;
    w[3 * 2 + 1] = 5e-4f;
    cr_expect(!tp_shock_sweep_settled(&f.wd, &sw, 1, 2, 1), "5e-4 m/s is past the tolerance");
    push[6 * 2 + 5] = 0.0f;
    w[3 * 2 + 1] = 0.5f * TP_SHOCK_TOL;
    cr_expect(tp_shock_sweep_settled(&f.wd, &sw, 1, 2, 1), "a change within the tolerance settles the level");
    cr_expect(!tp_shock_sweep_settled(&f.wd, &sw, 1, 2, 0), "no stop after a forward sweep");
    cr_expect(!tp_shock_sweep_settled(&f.wd, &sw, 1, 2, TP_SHOCK_INNER - 1), "the last sweep decides nothing");
    v[3 * 2 + 2] = NAN;
    cr_expect(!tp_shock_sweep_settled(&f.wd, &sw, 1, 2, 1), "a NaN velocity never settles");
}
