/* test_simd.c - the CPU's wide contact sweeps (csrc/solver_simd.c, SSE2 and
 * AVX2 lanes) give the scalar sweeps' bits: the state and every contact's
 * forces hashed after N steps with TP_SIMD_OFF, SSE2 and AVX2 on every scene of
 * scenes/ (but many_pyramids, which is 64 pyramids: slow and nothing new) and
 * tests/scenes, sleep on and off, two worlds; edge cases of the lane masks in a
 * scene made for them, compared step by step; and a proof that the wide path
 * ran (its counter of wide constraints), so the equality cannot hold vacuously. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "helpers.h"
#include "solver_simd_pack.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double seconds(void) { return (double)clock() / CLOCKS_PER_SEC; }

/* A scene file with sleep forced on (1) or off (0), as `torpor run --sleep`,
 * and warm starting off where warm is 0. */
static tp_model *load_scene_warm(const char *rel, int sleep, int warm)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TP_SOURCE_DIR, rel);
    json_error_t err;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    cr_assert(root, "%s: %s", path, err.text);
    json_t *s = json_object_get(root, "sleep");
    if (!json_is_object(s)) {
        s = json_object();
        json_object_set_new(root, "sleep", s);
    }
    json_object_set_new(s, "enabled", json_boolean(sleep));
    if (!warm) {
        json_t *solver = json_object_get(root, "solver");
        cr_assert(json_is_object(solver), "%s: no solver object", path);
        json_object_set_new(solver, "warm_starting", json_false());
    }
    char *text = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(root);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(text, path, &m), TP_OK, "%s", tp_last_error());
    free(text);
    return m;
}

static tp_model *load_scene(const char *rel, int sleep) { return load_scene_warm(rel, sleep, 1); }

static tp_batch *simd_batch(const tp_model *m, tp_simd simd, int worlds)
{
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = worlds;
    bd.threads = 1;
    bd.simd = simd;
    tp_batch *b = NULL;
    cr_assert_eq(tp_batch_create(m, &bd, &b), TP_OK, "%s", tp_last_error());
    return b;
}

static int have_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

/* The widths to compare with the scalar sweeps on this CPU. */
static int wide_modes(tp_simd *out)
{
    int n = 0;
    out[n++] = TP_SIMD_SSE2;
    if (have_avx2()) out[n++] = TP_SIMD_AVX2;
    else cr_log_warn("this CPU has no AVX2: only SSE2 compared");
    return n;
}

/* Hash after `steps` steps of each width against the scalar sweeps'; the wide
 * runs must solve some constraints in lanes. warm 0: warm starting off. */
static void compare_scene_warm(const char *rel, int steps, int worlds, int expect_lanes, int warm)
{
    tp_simd modes[2];
    int n_modes = wide_modes(modes);
    for (int sleep = 0; sleep <= 1; ++sleep) {
        tp_model *m = load_scene_warm(rel, sleep, warm);
        tp_batch *b = simd_batch(m, TP_SIMD_OFF, worlds);
        unsigned long long before = tp_simd_wide_constraints();
        batch_steps(b, steps);
        cr_assert_eq(tp_simd_wide_constraints(), before, "%s: the scalar run solved constraints in lanes", rel);
        uint64_t ref = golden_hash(b);
        tp_batch_destroy(b);
        for (int i = 0; i < n_modes; ++i) {
            b = simd_batch(m, modes[i], worlds);
            before = tp_simd_wide_constraints();
            unsigned long long shock_before = tp_simd_wide_shock_rows();
            batch_steps(b, steps);
            unsigned long long wide = tp_simd_wide_constraints() - before;
            unsigned long long shock = tp_simd_wide_shock_rows() - shock_before;
            uint64_t h = golden_hash(b);
            tp_batch_destroy(b);
            cr_expect_eq(h, ref, "%s, sleep %s, %d worlds, %d steps: %s hash %016llx, scalar %016llx", rel,
                         sleep ? "on" : "off", worlds, steps, tp_simd_name(modes[i]), (unsigned long long)h,
                         (unsigned long long)ref);
            if (expect_lanes)
                cr_expect(wide > 0, "%s, sleep %s: %s solved no constraint in lanes", rel, sleep ? "on" : "off",
                          tp_simd_name(modes[i]));
            if (expect_lanes > 1) /* wide levels in the shock pass too */
                cr_expect(shock > 0, "%s, sleep %s: %s ran no shock level in lanes", rel, sleep ? "on" : "off",
                          tp_simd_name(modes[i]));
        }
        tp_model_destroy(m);
    }
}

static void compare_scene(const char *rel, int steps, int worlds, int expect_lanes)
{
    compare_scene_warm(rel, steps, worlds, expect_lanes, 1);
}

Test(simd, scenes_dir)
{
    /* lanes 0: every contact is on an articulation link (scalar rows), or none;
     * 2: the shock pass has levels wide enough for lanes too */
    static const struct { const char *scene; int steps, lanes; } rows[] = {
        {"scenes/tower.json", 120, 1},    {"scenes/tower_push.json", 120, 1}, {"scenes/pyramid.json", 30, 2},
        {"scenes/pyramid3d.json", 3, 2},  {"scenes/card_house.json", 90, 1},  {"scenes/dominoes.json", 90, 1},
        {"scenes/heap.json", 40, 1},      {"scenes/jenga.json", 40, 1},       {"scenes/ring_tower.json", 40, 1},
        {"scenes/walker.json", 60, 0},    {"scenes/arm_tower.json", 60, 1},   {"scenes/cartpole.json", 30, 0},
        {"scenes/pendulum.json", 30, 0},  {"scenes/double_pendulum.json", 30, 0},
        /* constraints between two bodies and movers, in the colors with contacts */
        {"scenes/motor_cart.json", 60, 1}, {"scenes/crane.json", 90, 1},      {"scenes/spring_pad.json", 90, 1},
        {"scenes/rope_bridge.json", 30, 0}, {"scenes/drone.json", 30, 0},     {"scenes/turntable.json", 60, 0},
        {"tests/scenes/constraints_mix.json", 120, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        double t0 = seconds();
        compare_scene(rows[i].scene, rows[i].steps, 2, rows[i].lanes);
        cr_log_info("%s: %.2f s", rows[i].scene, seconds() - t0);
    }
}

/* Without warm starting every substep zeroes the impulses: the wide sweeps
 * must read them again rather than keep the last phase's (there is no shock
 * pass then, so nothing else makes them reread). */
Test(simd, warm_starting_off)
{
    compare_scene_warm("scenes/tower.json", 60, 2, 1, 0);
    compare_scene_warm("scenes/pyramid.json", 20, 2, 1, 0);
}

Test(simd, test_scenes)
{
    /* worlds: as many as the scene's events name */
    static const struct { const char *scene; int worlds, lanes; } rows[] = {
        {"tests/scenes/compound_pile.json", 2, 1},          {"tests/scenes/heap20.json", 2, 1},
        {"tests/scenes/good.json", 4, 0},                   {"tests/scenes/sleep/c04_tower.json", 2, 1},
        {"tests/scenes/sleep/c08_impulse.json", 4, 1},      {"tests/scenes/sleep/c02_throw.json", 2, 1},
        {"tests/scenes/sleep/c05_remove_support.json", 2, 1}, {"tests/scenes/sleep/c13_slide.json", 6, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        double t0 = seconds();
        compare_scene(rows[i].scene, 120, rows[i].worlds, rows[i].lanes);
        cr_log_info("%s: %.2f s", rows[i].scene, seconds() - t0);
    }
}

/* Lane masks: on one static ground (a body every lane of the ground color
 * reads, none writes) rest manifolds of 1 (ball), 2 (capsule on its side) and
 * 4 points (boxes) and a cylinder, so one color mixes point counts and holds
 * fewer constraints than lanes; a box on a box is alone in its color; a ball
 * of restitution 0.9 dropped from 1 m gives restitution rows (bounce speed >
 * 0); falling bodies are speculative points (separation > 0) before they
 * land. Compared with the scalar sweeps after every step. */
static const char edge_scene[] =
    "{\"format\": \"torpor-scene\", \"version\": 2, \"name\": \"simd-edges\", \"substeps\": 4,"
    " \"solver\": {\"iterations\": 8, \"mode\": \"colored\"},"
    " \"sleep\": {\"enabled\": %s},"
    " \"bodies\": ["
    "  {\"name\": \"ground\", \"shape\": \"box\", \"size\": [20, 20, 1], \"pos\": [0, 0, -0.5], \"static\": true},"
    "  {\"name\": \"ball\", \"shape\": \"ball\", \"size\": [0.5, 0.5, 0.5], \"pos\": [0, 0, 0.26]},"
    "  {\"name\": \"capsule\", \"shape\": \"capsule\", \"size\": [1.2, 0.3, 0.3], \"pos\": [2, 0, 0.16]},"
    "  {\"name\": \"box\", \"shape\": \"box\", \"size\": [0.5, 0.5, 0.5], \"pos\": [-2, 0, 0.3]},"
    "  {\"name\": \"on_box\", \"shape\": \"box\", \"size\": [0.4, 0.4, 0.4], \"pos\": [-2, 0.02, 0.8]},"
    "  {\"name\": \"cylinder\", \"shape\": \"cylinder\", \"size\": [0.4, 0.4, 0.6], \"pos\": [0, 2, 0.32]},"
    "  {\"name\": \"bouncer\", \"shape\": \"ball\", \"size\": [0.5, 0.5, 0.5], \"pos\": [0, -2, 1.25],"
    "   \"restitution\": 0.9},"
    "  {\"name\": \"tilted\", \"shape\": \"box\", \"size\": [0.5, 0.5, 0.5], \"pos\": [2, 2, 0.6],"
    "   \"quat\": [0.1, 0.2, 0, 1]}"
    " ]}";

static tp_model *edge_model(int sleep)
{
    char text[sizeof edge_scene + 16];
    snprintf(text, sizeof text, edge_scene, sleep ? "true" : "false");
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(text, "simd-edges", &m), TP_OK, "%s", tp_last_error());
    return m;
}

Test(simd, lane_masks)
{
    tp_simd modes[3] = {TP_SIMD_OFF};
    int n = 1 + wide_modes(modes + 1);
    for (int sleep = 0; sleep <= 1; ++sleep)
        for (int worlds = 1; worlds <= 3; worlds += 2) {
            tp_model *m = edge_model(sleep);
            tp_batch *b[3];
            for (int i = 0; i < n; ++i) b[i] = simd_batch(m, modes[i], worlds);
            float top_vz = 0.0f; /* the bouncer's largest upward speed after its first landing */
            unsigned long long before = tp_simd_wide_constraints();
            for (int s = 0; s < 150; ++s) {
                uint64_t h[3];
                for (int i = 0; i < n; ++i) {
                    batch_steps(b[i], 1);
                    h[i] = golden_hash(b[i]);
                }
                for (int i = 1; i < n; ++i)
                    cr_assert_eq(h[i], h[0], "sleep %d, %d worlds, step %d: %s differs from the scalar sweeps", sleep,
                                 worlds, s + 1, tp_simd_name(modes[i]));
                tp_state_view v = batch_view(b[0]);
                float vz = v.v[3 * 6 + 2];
                if (vz > top_vz) top_vz = vz;
            }
            /* a bounce: 0.9 of the 4.4 m/s impact at the first landing (well above the 1 m/s threshold) */
            cr_expect_gt(top_vz, 2.0f, "the bouncer never bounced (largest upward speed %g m/s)", (double)top_vz);
            cr_expect_gt(tp_simd_wide_constraints(), before, "no constraint was solved in lanes");
            for (int i = 0; i < n; ++i) tp_batch_destroy(b[i]);
            tp_model_destroy(m);
        }
}

/* The batch reports the width it resolved: the one asked for, and for auto
 * the widest the CPU has (or TORPOR_SIMD). */
Test(simd, resolved_width)
{
    tp_model *m = edge_model(0);
    tp_simd asked[3] = {TP_SIMD_OFF, TP_SIMD_SSE2, TP_SIMD_AVX2};
    for (int i = 0; i < (have_avx2() ? 3 : 2); ++i) {
        tp_batch *b = simd_batch(m, asked[i], 1);
        cr_expect_eq(tp_batch_simd(b), asked[i], "asked %s, got %s", tp_simd_name(asked[i]),
                     tp_simd_name(tp_batch_simd(b)));
        tp_batch_destroy(b);
    }
    unsetenv("TORPOR_SIMD");
    tp_batch *b = simd_batch(m, TP_SIMD_AUTO, 1);
    cr_expect_eq(tp_batch_simd(b), have_avx2() ? TP_SIMD_AVX2 : TP_SIMD_SSE2);
    tp_batch_destroy(b);
    setenv("TORPOR_SIMD", "sse2", 1);
    b = simd_batch(m, TP_SIMD_AUTO, 1);
    cr_expect_eq(tp_batch_simd(b), TP_SIMD_SSE2, "TORPOR_SIMD=sse2 gave %s", tp_simd_name(tp_batch_simd(b)));
    tp_batch_destroy(b);
    unsetenv("TORPOR_SIMD");
    cr_expect_str_eq(tp_simd_name(TP_SIMD_AVX2), "avx2");
    cr_expect_null(tp_simd_name((tp_simd)9));
    tp_model_destroy(m);
}

/* Asking for a width by the environment: a bad value is an error naming it. */
Test(simd, bad_environment_value)
{
    setenv("TORPOR_SIMD", "avx9", 1);
    tp_model *m = edge_model(0);
    tp_batch_def bd = tp_default_batch_def();
    tp_batch *b = NULL;
    cr_expect_eq(tp_batch_create(m, &bd, &b), TP_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(tp_last_error(), "TORPOR_SIMD") && strstr(tp_last_error(), "avx9"), "message: %s",
              tp_last_error());
    unsetenv("TORPOR_SIMD");
    bd.simd = (tp_simd)7;
    cr_expect_eq(tp_batch_create(m, &bd, &b), TP_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(tp_last_error(), "simd") && strstr(tp_last_error(), "7"), "message: %s", tp_last_error());
    if (!have_avx2()) {
        bd.simd = TP_SIMD_AVX2;
        cr_expect_eq(tp_batch_create(m, &bd, &b), TP_ERR_BACKEND);
    }
    tp_model_destroy(m);
}

/* `torpor run --simd`: each width writes the same state hashes; a bad value is refused. */
Test(simd, cli_option)
{
    char cmd[1024], dir[] = "/tmp/test_simd_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    const char *modes[] = {"off", "sse2", have_avx2() ? "avx2" : "sse2"};
    char first[256] = "";
    for (int i = 0; i < 3; ++i) {
        snprintf(cmd, sizeof cmd,
                 "%s run %s/scenes/tower.json --sleep off --steps 60 --quiet --simd %s --out %s/%s > /dev/null 2>&1 && "
                 "grep -A1 -E 'state_hash|world_hashes' %s/%s/summary.json | tr -d ' \\n'",
                 TP_CLI, TP_SOURCE_DIR, modes[i], dir, modes[i], dir, modes[i]);
        FILE *p = popen(cmd, "r");
        cr_assert_not_null(p);
        char sum[256] = "";
        cr_assert_not_null(fgets(sum, sizeof sum, p), "%s failed", cmd);
        cr_expect_eq(pclose(p), 0, "%s failed", cmd);
        if (i == 0) strcpy(first, sum);
        else cr_expect_str_eq(sum, first, "--simd %s: summary.json differs from --simd off", modes[i]);
    }
    /* summary.json names the width that ran */
    snprintf(cmd, sizeof cmd, "grep -q '\"simd\": \"%s\"' %s/%s/summary.json", modes[2], dir, modes[2]);
    cr_expect_eq(system(cmd), 0, "summary.json does not say \"simd\": \"%s\"", modes[2]);
    snprintf(cmd, sizeof cmd, "%s run %s/scenes/tower.json --simd avx3 --out %s/bad 2>&1", TP_CLI, TP_SOURCE_DIR, dir);
    FILE *p = popen(cmd, "r");
    char line[256] = "";
    cr_assert_not_null(fgets(line, sizeof line, p));
    cr_expect_neq(pclose(p), 0);
    cr_expect(strstr(line, "--simd") && strstr(line, "avx3"), "message: %s", line);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

/* The warm start is packed before the substep sets its separations
 * (tp_solver_substep), in a step's first substep from a row field that is
 * still uninitialized: its pack must not read it, nor the push impulse (which
 * its sweeps do not use). One constraint of one point, its rows poisoned with
 * NaN but for the fields tp_prepare_row sets, push_impulse too: the warm
 * start's targets and push impulse are zero, and the sweeps' refresh then
 * packs the substep's values. */
Test(simd, warm_start_pack_reads_no_stale_targets)
{
    enum { BODIES = 2, CAP = 4 };
    size_t bytes = tp_solver_scratch_bytes(BODIES, CAP);
    void *ws = malloc(bytes);
    memset(ws, 0xff, bytes); /* every float a NaN */
    tp_solver_work w = tp_solver_work_at(ws, BODIES, CAP);
    tp_contact c;
    memset(&c, 0, sizeof c);
    c.body_b = 1;
    c.normal[2] = 1.0f;
    c.friction = 0.5f;
    c.normal_impulse = 2.0f;
    w.color_start[0] = 0;
    for (int k = 1; k < TP_MAX_COLORS + 2; ++k) w.color_start[k] = 1; /* color 0: constraint 0 */
    w.order[0] = 0;
    w.cons[0] = (tp_constraint){.first = 0, .count = 1, .body_a = 0, .body_b = 1, .color = 0};
    memset(w.bodies, 0, BODIES * sizeof *w.bodies);
    for (int b = 0; b < BODIES; ++b) w.bodies[b].inv_m = w.bodies[b].simulated = 1;
    tp_contact_row *r = &w.rows[0]; /* as tp_prepare_row, but separation and push_impulse stay NaN */
    float *vecs[] = {r->ra, r->rb, r->t1, r->t2, r->wa_n, r->wb_n, r->wa_t1, r->wb_t1, r->wa_t2, r->wb_t2};
    for (int v = 0; v < 10; ++v) vecs[v][0] = vecs[v][1] = vecs[v][2] = 0.0f;
    r->normal_mass = r->tangent_mass[0] = r->tangent_mass[1] = 1.0f;
    r->bounce_speed = r->max_normal_impulse = 0.0f;
    tp_simd modes[2];
    int n = wide_modes(modes);
    for (int i = 0; i < n; ++i) {
        void *ss = malloc(tp_simd_scratch_bytes(modes[i], BODIES, CAP));
        tp_simd_ctx *C = (tp_simd_ctx *)tp_simd_bind(modes[i], ss, BODIES, CAP);
        tp_simd_pack *P = &C->pack;
        cr_assert(tp_simd_pack_phase(P, NULL, &w, &c, 0.0f, 0, 0), "%s: one constraint did not fit",
                  tp_simd_name(modes[i]));
        cr_assert_eq(P->n_groups, 1);
        int L = P->lanes;
        const float *S = P->slots + (size_t)P->groups[0].slot0 * TP_SIMD_FIELDS * (size_t)L;
        const char *name = tp_simd_name(modes[i]);
        uint32_t push_on;
        memcpy(&push_on, &S[TP_SF_PUSH_ON * L], sizeof push_on);
        cr_expect_eq(S[TP_SF_NORMAL_IMPULSE * L], 2.0f, "%s: warm start's normal impulse", name);
        cr_expect_eq(S[TP_SF_PUSH_IMPULSE * L], 0.0f, "%s: warm start packed push impulse %g", name,
                     (double)S[TP_SF_PUSH_IMPULSE * L]);
        cr_expect_eq(S[TP_SF_BIAS * L], 0.0f, "%s: warm start packed bias %g", name, (double)S[TP_SF_BIAS * L]);
        cr_expect_eq(S[TP_SF_PUSH_BIAS * L], 0.0f, "%s: warm start packed push bias %g", name,
                     (double)S[TP_SF_PUSH_BIAS * L]);
        cr_expect_eq(push_on, 0u, "%s: warm start packed push on", name);
        /* the biased sweeps at h = 1/60 s, 10 mm deep: push at 0.2 x 60 x (-0.0095) = -0.114 m/s */
        r->separation = -0.01f;
        r->push_impulse = 0.25f;
        tp_simd_refresh_groups(P, 0, P->n_groups, &w, &c, 60.0f, 1, 1);
        memcpy(&push_on, &S[TP_SF_PUSH_ON * L], sizeof push_on);
        cr_expect_eq(S[TP_SF_PUSH_IMPULSE * L], 0.25f, "%s: sweeps' push impulse", name);
        cr_expect_eq(push_on, 0xffffffffu, "%s: sweeps' push mask", name);
        cr_expect_float_eq(S[TP_SF_PUSH_BIAS * L], -0.114f, 1e-6f, "%s: sweeps' push bias %g", name,
                           (double)S[TP_SF_PUSH_BIAS * L]);
        cr_expect_eq(S[TP_SF_BIAS * L], 0.0f, "%s: sweeps' bias (penetrating: 0)", name);
        r->separation = r->push_impulse = NAN; /* poisoned again for the next width */
        free(ss);
    }
    free(ws);
}

/* Each CPU thread has its own wide-sweep scratch (csrc/batch.c, tp_simd_bind)
 * and the counters are atomic: two threads stepping 3 worlds in lanes give
 * the scalar sweeps' bits on one thread. */
Test(simd, threads)
{
    tp_model *m = load_scene("scenes/pyramid.json", 0);
    tp_simd modes[3] = {TP_SIMD_OFF};
    int n = 1 + wide_modes(modes + 1);
    uint64_t ref = 0;
    for (int i = 0; i < n; ++i) {
        tp_batch_def bd = tp_default_batch_def();
        bd.worlds = 3;
        bd.threads = i == 0 ? 1 : 2;
        bd.simd = modes[i];
        tp_batch *b = NULL;
        cr_assert_eq(tp_batch_create(m, &bd, &b), TP_OK, "%s", tp_last_error());
        unsigned long long before = tp_simd_wide_constraints();
        batch_steps(b, 30);
        uint64_t h = golden_hash(b);
        if (i == 0) ref = h;
        else {
            cr_expect_eq(h, ref, "%s on 2 threads: hash %016llx, scalar on 1 %016llx", tp_simd_name(modes[i]),
                         (unsigned long long)h, (unsigned long long)ref);
            cr_expect_gt(tp_simd_wide_constraints(), before, "%s solved no constraint in lanes", tp_simd_name(modes[i]));
        }
        tp_batch_destroy(b);
    }
    tp_model_destroy(m);
}
