/* test_batch.c - batch creation, API writes, validation, reset and hashing. */
#include "helpers.h"

#include "batch.h"

#include <math.h>

static uint64_t state_hash(tp_batch *b)
{
    uint64_t h = 0;
    cr_assert_eq(tp_batch_state_hash(b, &h), TP_OK);
    return h;
}

Test(batch, hash_is_repeatable_and_sees_one_ulp)
{
    tp_model *m = make_falling_model(3, 5.0f, NULL);
    tp_batch *a = make_batch(m, 4, 1), *b = make_batch(m, 4, 2);
    tp_batch_step(a, 30);
    tp_batch_step(b, 30);
    cr_assert_eq(state_hash(a), state_hash(b), "same input, same hash");
    /* move one body of one world by one ulp */
    tp_state_view s;
    tp_batch_state(b, &s);
    size_t k = 2 * 3 + 1;
    float pos[3] = {s.pos[3 * k], s.pos[3 * k + 1], nextafterf(s.pos[3 * k + 2], INFINITY)};
    float quat[4];
    memcpy(quat, s.quat + 4 * k, sizeof quat);
    uint64_t before = state_hash(b), w2_before = 0, w2_after = 0, w0_before = 0, w0_after = 0;
    tp_batch_world_hash(b, 2, &w2_before);
    tp_batch_world_hash(b, 0, &w0_before);
    cr_assert_eq(tp_batch_set_pose(b, 2, 1, pos, quat), TP_OK, "%s", tp_last_error());
    tp_batch_world_hash(b, 2, &w2_after);
    tp_batch_world_hash(b, 0, &w0_after);
    cr_assert_neq(state_hash(b), before);
    cr_assert_neq(w2_before, w2_after);
    cr_assert_eq(w0_before, w0_after, "other worlds' hashes do not change");
    tp_batch_destroy(a);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* C12: bad numbers are refused, name the value, and change nothing. */
Test(batch, non_finite_writes_are_refused_and_change_nothing)
{
    tp_model *m = make_falling_model(1, 5.0f, NULL);
    tp_batch *b = make_batch(m, 2, 1);
    tp_batch_step(b, 5);
    uint64_t before = state_hash(b);
    const float nan3[3] = {0.0f, NAN, 0.0f}, inf3[3] = {INFINITY, 0, 0}, ok3[3] = {0, 0, 1};
    const float q[4] = {0, 0, 0, 1}, qnan[4] = {0, 0, NAN, 1};
    cr_assert_eq(tp_batch_set_velocity(b, 0, 0, nan3, ok3), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "v[1]") && strstr(tp_last_error(), "nan"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_velocity(b, 0, 0, ok3, inf3), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "w[0]"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_apply_force(b, 0, 0, inf3, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "force[0]"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_apply_force(b, 0, 0, ok3, nan3), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "point[1]"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_apply_impulse(b, 1, 0, nan3, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_apply_angular_impulse(b, 1, 0, inf3), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_apply_torque(b, 1, 0, nan3), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_set_pose(b, 0, 0, nan3, q), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "pos[1]"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_pose(b, 0, 0, ok3, qnan), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "quat[2]"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_gravity(b, 0, nan3), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "gravity[1]"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_gravity(b, -1, ok3), TP_ERR_INVALID_ARGUMENT, "one world, no -1 for all");
    cr_assert(strstr(tp_last_error(), "tp_batch_set_gravity: world -1 out of range"), "%s", tp_last_error());
    const float huge_g[3] = {0, 0, -600};
    cr_assert_eq(tp_batch_set_gravity(b, 0, huge_g), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "[-500, 500]"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_velocity(b, 2, 0, ok3, ok3), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "world 2"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_velocity(b, 0, 7, ok3, ok3), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "body 7"), "%s", tp_last_error());
    cr_assert_eq(state_hash(b), before, "a refused write changed the state");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* C12, second half: a world that becomes non-finite is flagged alone. We poison
 * world 1 through the internals (the API refuses non-finite writes). */
Test(batch, non_finite_world_is_flagged_and_others_continue)
{
    tp_model *m = make_falling_model(1, 5.0f, NULL);
    tp_batch *b = make_batch(m, 3, 2), *ref = make_batch(m, 3, 1);
    cr_assert_eq(tp_batch_begin_write(b, 1, 1), TP_OK); /* (so that on CUDA the poke reaches the device) */
    b->v[3 * 1 + 2] = INFINITY;
    tp_batch_step(b, 10);
    tp_batch_step(ref, 10);
    tp_state_view s;
    tp_batch_state(b, &s);
    cr_assert_eq(s.faults[1], 1);
    cr_assert_eq(s.faults[0], 0);
    cr_assert_eq(s.faults[2], 0);
    for (int w = 0; w < 3; w += 2) {
        uint64_t hw = 0, hr = 0;
        tp_batch_world_hash(b, w, &hw);
        tp_batch_world_hash(ref, w, &hr);
        cr_assert_eq(hw, hr, "world %d changed because world 1 faulted", w);
    }
    int one = 1;
    cr_assert_eq(tp_batch_reset_worlds(b, WORLD_LIST(&one, 1)), TP_OK);
    tp_batch_state(b, &s);
    cr_assert_eq(s.faults[1], 0, "reset clears the fault");
    cr_assert_float_eq(s.pos[3 * 1 + 2], 5.0f, 0.0f);
    tp_batch_destroy(b);
    tp_batch_destroy(ref);
    tp_model_destroy(m);
}

/* C11: a world's trajectory does not depend on the world count or on pushes elsewhere. */
Test(batch, worlds_are_independent)
{
    tp_model *m = make_falling_model(2, 5.0f, NULL);
    tp_batch *one = make_batch(m, 1, 1), *many = make_batch(m, 64, 2);
    const float push[3] = {3.0f, 0.0f, 1.0f};
    cr_assert_eq(tp_batch_apply_impulse(many, 1, 0, push, NULL), TP_OK);
    tp_batch_step(one, 40);
    tp_batch_step(many, 40);
    uint64_t h1 = 0, h64 = 0, h_pushed = 0;
    tp_batch_world_hash(one, 0, &h1);
    tp_batch_world_hash(many, 0, &h64);
    tp_batch_world_hash(many, 1, &h_pushed);
    cr_assert_eq(h1, h64);
    cr_assert_neq(h64, h_pushed);
    tp_batch_destroy(one);
    tp_batch_destroy(many);
    tp_model_destroy(m);
}

Test(batch, impulse_changes_velocity_by_impulse_over_mass)
{
    const float g0[3] = {0, 0, 0};
    tp_model *m = make_falling_model(1, 0.0f, g0);
    tp_batch *b = make_batch(m, 1, 1);
    const float j[3] = {1.0f, 0.0f, 0.0f}, zero[3] = {0, 0, 0};
    cr_assert_eq(tp_batch_apply_impulse(b, 0, 0, zero, NULL), TP_OK);
    cr_assert_eq(tp_batch_apply_impulse(b, 0, 0, j, NULL), TP_OK);
    tp_state_view s;
    tp_batch_state(b, &s);
    cr_assert_float_eq(s.v[0], 1.0f, 1e-6f, "1 N s on 1 kg: %g", s.v[0]);
    /* an off-centre impulse on a unit cube spins it: w = I^-1 (r x J), I = m/6 */
    const float at[3] = {0.0f, 0.5f, 0.0f};
    cr_assert_eq(tp_batch_apply_impulse(b, 0, 0, j, at), TP_OK);
    tp_batch_state(b, &s);
    cr_assert_float_eq(s.w[2], -3.0f, 1e-5f, "wz %g", s.w[2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* C13: resetting one world leaves the others alone. */
Test(batch, reset_one_world)
{
    const float g0[3] = {0, 0, 0};
    tp_model *m = make_falling_model(1, 0.0f, g0);
    tp_batch *b = make_batch(m, 16, 2);
    const float v[3] = {1.0f, 0, 0}, w0[3] = {0, 0, 0};
    for (int w = 0; w < 16; ++w) tp_batch_set_velocity(b, w, 0, v, w0);
    tp_batch_step(b, 50);
    int five = 5;
    cr_assert_eq(tp_batch_reset_worlds(b, WORLD_LIST(&five, 1)), TP_OK);
    tp_state_view s;
    tp_batch_state(b, &s);
    cr_assert_eq(s.pos[3 * 5], 0.0f);
    cr_assert_eq(s.v[3 * 5], 0.0f);
    tp_batch_step(b, 10);
    tp_batch_state(b, &s);
    double t = 60.0 / 60.0;
    for (int w = 0; w < 16; ++w) {
        if (w == 5) continue;
        cr_assert(fabs(s.pos[3 * w] - t) < 1e-4, "world %d x = %g, expected %g", w, s.pos[3 * w], t);
    }
    cr_assert_eq(s.pos[3 * 5], 0.0f, "world 5 was reset to rest");
    int bad = 16;
    cr_assert_eq(tp_batch_reset_worlds(b, WORLD_LIST(&bad, 1)), TP_ERR_INVALID_ARGUMENT);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A reset world is bit for bit the world the CPU makes for the same episode
 * (a fresh batch whose worlds were reset once), on a scene that randomizes
 * pose, yaw, mass and friction, after its gravity was changed, a body removed
 * and a body put to sleep; a world may be listed twice (one new episode); the
 * other worlds go on as if nothing happened. Under TORPOR_TEST_BACKEND=cuda the batch
 * resets on the device with cuRAND and is compared with a CPU batch. */
Test(batch, reset_world_is_the_fresh_world)
{
    const char *scene = "{\"name\": \"rand\", \"randomize\": {\"seed\": 3, \"pos_noise\": 0.05, \"yaw_noise_deg\": 20,"
                        " \"mass_scale\": [0.8, 1.25], \"friction_range\": [0.3, 0.8]},"
                        " \"bodies\": [{\"shape\": \"box\", \"size\": [4, 4, 0.2], \"pos\": [0, 0, -0.1], \"static\": true},"
                        " {\"shape\": \"box\", \"size\": [0.2, 0.3, 0.4], \"pos\": [0, 0, 0.5], \"vel\": [0.3, 0, 0]},"
                        " {\"shape\": \"capsule\", \"size\": [0.2, 0.2, 0.5], \"pos\": [0.6, 0, 0.6]}]}";
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(scene, "rand", &m), TP_OK, "%s", tp_last_error());
    tp_batch *b = make_batch(m, 8, 2), *same = make_batch(m, 8, 2), *fresh = NULL;
    tp_batch_def cpu = tp_default_batch_def();
    cpu.worlds = 8;
    cpu.backend = TP_BACKEND_CPU;
    cr_assert_eq(tp_batch_create(m, &cpu, &fresh), TP_OK, "%s", tp_last_error());
    const int episode1[2] = {2, 5};
    cr_assert_eq(tp_batch_reset_worlds(fresh, WORLD_LIST(episode1, 2)), TP_OK, "%s", tp_last_error());
    tp_batch_step(b, 40);
    tp_batch_step(same, 40);
    const float moon[3] = {0.0f, 0.0f, -1.62f};
    cr_assert_eq(tp_batch_set_gravity(b, 5, moon), TP_OK);
    cr_assert_eq(tp_batch_remove_body(b, 5, 2), TP_OK);
    cr_assert_eq(tp_batch_sleep(b, 5, 1), TP_OK);
    const int worlds[3] = {5, 2, 5};
    cr_assert_eq(tp_batch_reset_worlds(b, WORLD_LIST(worlds, 3)), TP_ERR_INVALID_ARGUMENT, "a world listed twice");
    cr_assert(strstr(tp_last_error(), "tp_batch_reset_worlds: select.indices[2] = 5 names world 5 a second time"), "%s",
              tp_last_error());
    cr_assert_eq(tp_batch_reset_worlds(b, WORLD_LIST(worlds, 2)), TP_OK, "%s", tp_last_error());
    uint32_t episodes[8];
    cr_assert_eq(tp_batch_episodes(b, episodes), TP_OK);
    for (int w = 0; w < 8; ++w)
        cr_assert_eq(episodes[w], w == 2 || w == 5 ? 1u : 0u, "world %d is in episode %u", w, episodes[w]);
    float g[3], g0[3];
    cr_assert_eq(tp_batch_gravity(b, 5, g), TP_OK);
    cr_assert_eq(tp_batch_gravity(fresh, 5, g0), TP_OK);
    cr_assert(g[0] == g0[0] && g[1] == g0[1] && g[2] == g0[2], "the reset did not restore gravity: %g", g[2]);
    int n = -1;
    cr_assert_eq(tp_batch_contacts(b, 5, NULL, 0, &n), TP_OK);
    cr_assert_eq(n, 0, "a reset world has no contacts to warm start from");
    for (int w = 0; w < 8; ++w) {
        uint64_t got = 0, want = 0;
        tp_batch_world_hash(b, w, &got);
        tp_batch_world_hash(w == 2 || w == 5 ? fresh : same, w, &want);
        cr_assert_eq(got, want, "world %d: hash %016llx, expected %016llx", w, (unsigned long long)got,
                     (unsigned long long)want);
    }
    uint64_t moved = 0, start = 0;
    tp_batch_world_hash(same, 2, &moved);
    tp_batch_world_hash(fresh, 2, &start);
    cr_assert_neq(moved, start, "world 2 did not change in 40 steps: the reset would not show");
    tp_batch *created = make_batch(m, 8, 2);
    tp_batch_world_hash(created, 5, &start);
    tp_batch_world_hash(fresh, 5, &moved);
    cr_assert_neq(moved, start, "episode 1 of world 5 drew the same state as episode 0");
    tp_batch_destroy(created);
    tp_state_view s, f;
    tp_batch_state(b, &s);
    tp_batch_state(fresh, &f);
    size_t B = (size_t)s.bodies;
    cr_assert_eq(s.awake_count[5], f.awake_count[5]);
    cr_assert_eq(s.sleeping_count[5], 0);
    cr_assert_eq(s.faults[5], 0);
    for (size_t i = 0; i < B; ++i) {
        cr_assert_eq(s.removed[5 * B + i], 0, "body %zu is still removed", i);
        cr_assert_eq(s.island[5 * B + i], -1, "body %zu keeps an island label", i);
        cr_assert_eq(s.body_awake[5 * B + i], f.body_awake[5 * B + i]);
    }
    tp_batch_step(b, 10);
    tp_batch_step(fresh, 10);
    uint64_t a = 0, c = 0;
    tp_batch_world_hash(b, 5, &a);
    tp_batch_world_hash(fresh, 5, &c);
    cr_assert_eq(a, c, "after the reset world 5 steps like a fresh world 5 (mass, friction, contacts restored)");
    tp_batch_destroy(b);
    tp_batch_destroy(same);
    tp_batch_destroy(fresh);
    tp_model_destroy(m);
}

/* tp_batch_counts gives the counters and nothing else, and the counters agree
 * with the per-body sleep states of tp_batch_state (counted here, not read back)
 * through landing, sleep, a wake and a reset. */
Test(batch, counts_are_the_states_counters)
{
    /* three cubes on a ground, so that they land and sleep */
    tp_model_def md = tp_default_model_def();
    tp_builder *bl = builder_begin(&md);
    tp_body_def ground = tp_default_body_def();
    ground.type = TP_BODY_STATIC;
    ground.size[0] = ground.size[1] = 40.0f;
    ground.pos[2] = -0.5f;
    builder_add(bl, &ground);
    for (int i = 0; i < 3; ++i) {
        tp_body_def bd = tp_default_body_def();
        bd.pos[0] = 3.0f * (float)i;
        bd.pos[2] = 0.5f + 0.5f * (float)i; /* lands at different times */
        builder_add(bl, &bd);
    }
    tp_model *m = builder_finish(bl);
    tp_batch *b = make_batch(m, 4, 1);
    const int w0[1] = {0};
    int saw_sleeping = 0, saw_checking = 0, saw_awake = 0;
    for (int round = 0; round < 12; ++round) {
        tp_batch_step(b, 10);
        if (round == 6) cr_assert_eq(tp_batch_wake(b, 1, 2), TP_OK); /* worlds differ */
        if (round == 8) cr_assert_eq(tp_batch_reset_worlds(b, WORLD_LIST(w0, 1)), TP_OK);
        tp_state_view c, s;
        cr_assert_eq(tp_batch_counts(b, &c), TP_OK, "%s", tp_last_error());
        cr_assert_eq(c.worlds, 4);
        cr_assert(c.pos == NULL && c.quat == NULL && c.v == NULL && c.w == NULL && c.sleep_state == NULL &&
                      c.quiet_timer == NULL && c.removed == NULL && c.contact_f == NULL && c.island == NULL,
                  "only the counters are set");
        /* copy the counters: on the CPU both views may share memory */
        int32_t awake[4], sleeping[4], checking[4];
        uint8_t body_awake[16];
        memcpy(awake, c.awake_count, sizeof awake);
        memcpy(sleeping, c.sleeping_count, sizeof sleeping);
        memcpy(checking, c.checking_count, sizeof checking);
        memcpy(body_awake, c.body_awake, sizeof body_awake);
        cr_assert_eq(tp_batch_state(b, &s), TP_OK);
        cr_assert_eq(c.bodies, s.bodies);
        /* the counters again, from the per-body sleep states and body types */
        for (int w = 0; w < 4; ++w) {
            int na = 0, ns = 0, nc = 0;
            for (int i = 1; i < 4; ++i) { /* body 0 is the static ground */
                uint8_t st = s.sleep_state[w * 4 + i];
                na += st != TP_SLEEPING;
                ns += st == TP_SLEEPING;
                nc += st == TP_CHECKING;
                cr_assert_eq(body_awake[w * 4 + i], st != TP_SLEEPING, "world %d body %d", w, i);
            }
            cr_assert_eq(body_awake[w * 4], 0, "a static body is never awake");
            cr_assert_eq(awake[w], na, "world %d awake %d, sleep states say %d", w, awake[w], na);
            cr_assert_eq(sleeping[w], ns, "world %d sleeping %d, sleep states say %d", w, sleeping[w], ns);
            cr_assert_eq(checking[w], nc, "world %d checking %d, sleep states say %d", w, checking[w], nc);
            cr_assert_eq(c.faults[w], 0);
            cr_assert_eq(c.contact_overflow[w], 0);
            saw_sleeping |= ns > 0;
            saw_checking |= nc > 0;
            saw_awake |= na - nc > 0;
        }
    }
    cr_assert(saw_sleeping && saw_checking && saw_awake, "the steps show every sleep state (%d %d %d)", saw_sleeping,
              saw_checking, saw_awake);
    tp_state_view c;
    cr_assert_eq(tp_batch_counts(NULL, &c), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_counts(b, NULL), TP_ERR_INVALID_ARGUMENT);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Device memory is reported for a CUDA batch only, and holds at least its
 * contact buffers; the CPU backend has none. */
Test(batch, device_memory_only_on_cuda)
{
    tp_model *m = make_falling_model(3, 0.5f, NULL);
    tp_batch *b = make_batch(m, 4, 1);
    size_t device = tp_batch_device_memory_bytes(b);
    if (tp_batch_backend(b) == TP_BACKEND_CUDA)
        cr_assert_geq(device, tp_batch_contact_memory_bytes(b), "%zu device bytes per world", device);
    else
        cr_assert_eq(device, 0, "a CPU batch reports %zu device bytes", device);
    cr_assert_eq(tp_batch_device_memory_bytes(NULL), 0);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A reset event without a world list resets every world at once (on CUDA one
 * launch, reading nothing back): one step after it, each world is the fresh
 * world of episode 1 after one step, with the gravity the earlier event changed
 * restored. */
Test(batch, reset_event_resets_every_world)
{
    const char *scene = "{\"name\": \"ev\", \"randomize\": {\"seed\": 5, \"pos_noise\": 0.05, \"yaw_noise_deg\": 10},"
                        " \"bodies\": [{\"name\": \"ground\", \"shape\": \"box\", \"size\": [4, 4, 0.2], \"pos\": [0, 0, -0.1],"
                        " \"static\": true}, {\"name\": \"cube\", \"shape\": \"box\", \"size\": [0.2, 0.2, 0.2], \"pos\": [0, 0, 0.5]}],"
                        " \"events\": [{\"time\": 0.25, \"action\": \"gravity\", \"value\": [0, 0, -1]},"
                        " {\"time\": 0.5, \"action\": \"reset\"}]}";
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(scene, "ev", &m), TP_OK, "%s", tp_last_error());
    tp_batch *b = make_batch(m, 6, 2), *fresh = make_batch(m, 6, 2);
    int before_reset = (int)ceil(0.5 / (double)tp_model_settings(m).dt - 1e-6); /* the event's step */
    cr_assert_eq(tp_batch_step(b, before_reset), TP_OK, "%s", tp_last_error());
    float g[3];
    cr_assert_eq(tp_batch_gravity(b, 3, g), TP_OK);
    cr_assert_eq(g[2], -1.0f, "the gravity event did not fire");
    cr_assert_eq(tp_batch_step(b, 1), TP_OK, "%s", tp_last_error()); /* the reset, then one step */
    const int all[6] = {0, 1, 2, 3, 4, 5};
    cr_assert_eq(tp_batch_reset_worlds(fresh, WORLD_LIST(all, 6)), TP_OK); /* episode 1, as the event made it */
    cr_assert_eq(tp_batch_step(fresh, 1), TP_OK);
    for (int w = 0; w < 6; ++w) {
        uint64_t got = 0, want = 0;
        tp_batch_world_hash(b, w, &got);
        tp_batch_world_hash(fresh, w, &want);
        cr_assert_eq(got, want, "world %d is not the fresh world one step after the reset", w);
        cr_assert_eq(tp_batch_gravity(b, w, g), TP_OK);
        cr_assert_eq(g[2], tp_model_settings(m).gravity[2], "world %d keeps the event's gravity", w);
    }
    tp_batch_destroy(b);
    tp_batch_destroy(fresh);
    tp_model_destroy(m);
}

/* A removed body takes no more writes (the state stays as it was), removing it
 * again does nothing, and an event aimed at it is skipped, not an error. */
Test(batch, a_removed_body_refuses_writes)
{
    tp_model *m = make_falling_model(2, 0.5f, NULL);
    tp_batch *b = make_batch(m, 2, 1);
    cr_assert_eq(tp_batch_remove_body(b, 1, 0), TP_OK);
    uint64_t before = state_hash(b);
    const float f[3] = {1.0f, 0.0f, 0.0f}, pos[3] = {0, 0, 1}, quat[4] = {0, 0, 0, 1};
    cr_assert_eq(tp_batch_apply_force(b, 1, 0, f, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "tp_batch_apply_force: body 0 (") && strstr(tp_last_error(), "was removed from world 1"),
              "%s", tp_last_error());
    cr_assert_eq(tp_batch_apply_impulse(b, 1, 0, f, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_apply_torque(b, 1, 0, f), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_apply_angular_impulse(b, 1, 0, f), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_set_pose(b, 1, 0, pos, quat), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_set_velocity(b, 1, 0, f, f), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_wake(b, 1, 0), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_sleep(b, 1, 0), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_remove_body(b, 1, 0), TP_OK, "removing twice does nothing");
    cr_assert_eq(state_hash(b), before, "a refused write changed the state");
    cr_assert_eq(tp_batch_apply_force(b, 0, 0, f, NULL), TP_OK, "the body is still there in world 0");
    tp_batch_destroy(b);
    tp_model_destroy(m);

    const char *scene = "{\"name\": \"rm\", \"bodies\": [{\"name\": \"cube\", \"shape\": \"box\", \"size\": [1, 1, 1]}],"
                        " \"events\": [{\"time\": 0.1, \"action\": \"remove\", \"body\": \"cube\"},"
                        " {\"time\": 0.2, \"action\": \"impulse\", \"body\": \"cube\", \"value\": [1, 0, 0]}]}";
    cr_assert_eq(tp_model_load_string(scene, "rm", &m), TP_OK, "%s", tp_last_error());
    b = make_batch(m, 1, 1);
    cr_assert_eq(tp_batch_step(b, 30), TP_OK, "an event on a removed body stopped the run: %s", tp_last_error());
    tp_state_view v;
    cr_assert_eq(tp_batch_state(b, &v), TP_OK);
    cr_assert(v.removed[0] && v.v[0] == 0.0f, "the impulse reached the removed body: v = %g", v.v[0]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Counts and capacities that are wrong are named in the message. */
Test(batch, bad_counts_are_named)
{
    tp_model *m = make_falling_model(1, 0.5f, NULL);
    tp_batch *b = make_batch(m, 2, 1);
    int one = 1, n = 0;
    cr_assert_eq(tp_batch_reset_worlds(b, WORLD_LIST(&one, -1)), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "tp_batch_reset_worlds: select.count must be >= 0, got -1"), "%s", tp_last_error());
    tp_world_select none = tp_world_list(NULL, 0);
    cr_assert_eq(tp_batch_reset_worlds(b, &none), TP_OK, "%s", tp_last_error());
    uint32_t episodes[2];
    cr_assert_eq(tp_batch_episodes(b, episodes), TP_OK);
    cr_assert(episodes[0] == 0 && episodes[1] == 0, "an empty list resets nothing: episodes %u %u", episodes[0],
              episodes[1]);
    uint8_t mask[2] = {1, 1};
    tp_world_select both = {&one, 1, mask};
    cr_assert_eq(tp_batch_reset_worlds(b, &both), TP_ERR_INVALID_ARGUMENT, "a list and a mask at once");
    cr_assert(strstr(tp_last_error(), "tp_batch_reset_worlds: select gives both indices and mask"), "%s",
              tp_last_error());
    tp_contact_info ci;
    cr_assert_eq(tp_batch_contacts(b, 0, &ci, -1, &n), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "capacity must be >= 0, got -1"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_contacts(b, 0, NULL, 4, &n), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "out is NULL but capacity is 4"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_contacts(b, 0, NULL, 0, &n), TP_OK, "capacity 0 only counts");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(batch, bad_batch_definitions)
{
    tp_model *m = make_falling_model(1, 0.0f, NULL);
    tp_batch_def d = tp_default_batch_def();
    tp_batch *b = NULL;
    d.worlds = 0;
    cr_assert_eq(tp_batch_create(m, &d, &b), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "worlds"), "%s", tp_last_error());
    d.worlds = 1;
    d.backend = TP_BACKEND_CUDA;
    if (tp_cuda_device_count() == 0) {
        cr_assert_eq(tp_batch_create(m, &d, &b), TP_ERR_BACKEND);
        cr_assert(strstr(tp_last_error(), "cuda"), "%s", tp_last_error());
        cr_assert_null(b);
    }
    tp_model_destroy(m);
}

Test(batch, cuda_backend_is_compiled_when_nvcc_was_found)
{
#ifdef TP_EXPECT_CUDA
    cr_assert_eq(tp_cuda_built(), 1, "nvcc was found at configure time, but the CUDA backend is not linked in");
#else
    cr_assert_eq(tp_cuda_built(), 0);
#endif
}

/* Scripted events fire before the first step that starts at or after their time. */
Test(batch, events_fire_at_their_step)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = 0.0f;
    md.dt = 0.25f;
    tp_builder *bl = NULL;
    tp_builder_create(&md, &bl);
    tp_body_def bd = tp_default_body_def();
    bd.mass = 2.0f;
    tp_builder_add_body(bl, &bd, NULL);
    tp_event_def e = tp_default_event_def();
    e.time = 0.5;
    e.action = TP_EVENT_IMPULSE;
    e.body = 0;
    e.value[0] = 2.0f;
    int worlds[1] = {1};
    e.worlds = worlds;
    e.world_count = 1;
    cr_assert_eq(tp_builder_add_event(bl, &e), TP_OK, "%s", tp_last_error());
    tp_model *m = NULL;
    cr_assert_eq(tp_builder_finish(bl, &m), TP_OK);
    tp_builder_destroy(bl);
    tp_batch *b = make_batch(m, 2, 1);
    tp_state_view s;
    tp_batch_step(b, 2); /* steps 0 and 1 start at 0 and 0.25 s */
    tp_batch_state(b, &s);
    cr_assert_eq(s.v[3], 0.0f, "not yet");
    tp_batch_step(b, 1); /* step 2 starts at 0.5 s: the impulse comes first */
    tp_batch_state(b, &s);
    cr_assert_float_eq(s.v[3], 1.0f, 1e-6f, "2 N s on 2 kg in world 1: %g", s.v[3]);
    cr_assert_eq(s.v[0], 0.0f, "world 0 is not listed");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The stage profiler runs the same calls in the same order: same bits, and
 * every stage group that did work took time. */
Test(batch, stage_profile_changes_nothing)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load("tests/scenes/heap20.json", &m), TP_OK, "%s", tp_last_error());
    tp_batch_def d = tp_default_batch_def();
    d.worlds = 3;
    d.threads = 2;
    tp_batch *plain = NULL, *timed = NULL;
    cr_assert_eq(tp_batch_create(m, &d, &plain), TP_OK, "%s", tp_last_error());
    d.profile_stages = 1;
    cr_assert_eq(tp_batch_create(m, &d, &timed), TP_OK, "%s", tp_last_error());
    tp_batch_step(plain, 40);
    tp_batch_step(timed, 40);
    cr_assert_eq(state_hash(plain), state_hash(timed));
    double t[TP_STAGE_COUNT], none[TP_STAGE_COUNT];
    cr_assert_eq(tp_batch_stage_seconds(timed, t), TP_OK);
    cr_assert_eq(tp_batch_stage_seconds(plain, none), TP_OK);
    for (int k = 0; k < TP_STAGE_COUNT; ++k) {
        cr_assert(t[k] > 0.0, "stage %s took no time", tp_stage_name((tp_stage)k));
        cr_assert_eq(none[k], 0.0, "a batch without profiling reports %s time", tp_stage_name((tp_stage)k));
    }
    tp_batch_destroy(plain);
    tp_batch_destroy(timed);
    tp_model_destroy(m);
}

/* A scripted event that reads a faulted world's (non-finite) state must not
 * stop the batch: the faulted world is skipped, the others go on. */
Test(batch, events_skip_faulted_worlds)
{
    tp_model_def md = tp_default_model_def();
    tp_builder *bl = NULL;
    cr_assert_eq(tp_builder_create(&md, &bl), TP_OK);
    tp_body_def bd = tp_default_body_def();
    bd.mass = 0.001f;
    bd.pos[2] = 5.0f;
    bd.size[0] = bd.size[1] = bd.size[2] = 0.1f;
    cr_assert_eq(tp_builder_add_body(bl, &bd, NULL), TP_OK);
    tp_event_def e = tp_default_event_def();
    e.time = 0.5;
    e.action = TP_EVENT_SET_ANGULAR_VELOCITY;
    e.body = 0;
    e.value[2] = 1.0f;
    cr_assert_eq(tp_builder_add_event(bl, &e), TP_OK, "%s", tp_last_error());
    tp_model *m = NULL;
    cr_assert_eq(tp_builder_finish(bl, &m), TP_OK);
    tp_builder_destroy(bl);
    tp_batch *b = make_batch(m, 2, 1);
    const float f[3] = {0, 0, 3e38f};
    cr_assert_eq(tp_batch_apply_force(b, 0, 0, f, NULL), TP_OK); /* world 0 overflows to infinity */
    for (int i = 0; i < 60; ++i) cr_assert_eq(tp_batch_step(b, 1), TP_OK, "step %d: %s", i, tp_last_error());
    tp_state_view s;
    tp_batch_state(b, &s);
    cr_assert_eq(s.faults[0], 1);
    cr_assert_eq(s.faults[1], 0);
    cr_assert_float_eq(s.w[3 * 1 + 2], 1.0f, 1e-6f, "world 1 got its event");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* C20 through the API: tp_batch_set_pose normalizes [3e38, 3e38, 0, 0] to
 * [0.7071, 0.7071, 0, 0] and [1e-20, 0, 0, 0] to [1, 0, 0, 0] (never zero, never
 * the identity), and refuses all zeros; the builder refuses a mass, size or dt
 * past the bounds, naming the field. */
Test(batch, set_pose_normalizes_huge_and_tiny_quaternions)
{
    tp_model *m = make_falling_model(1, 0.0f, NULL);
    tp_batch *b = make_batch(m, 1, 1);
    const float p[3] = {0, 0, 0}, huge[4] = {3e38f, 3e38f, 0, 0}, tiny[4] = {1e-20f, 0, 0, 0}, zero[4] = {0, 0, 0, 0};
    cr_assert_eq(tp_batch_set_pose(b, 0, 0, p, huge), TP_OK, "%s", tp_last_error());
    tp_state_view s = batch_view(b);
    cr_assert(s.quat[0] == 0.70710677f && s.quat[1] == 0.70710677f && s.quat[2] == 0.0f && s.quat[3] == 0.0f,
              "[3e38, 3e38, 0, 0] became [%g, %g, %g, %g]", s.quat[0], s.quat[1], s.quat[2], s.quat[3]);
    cr_assert_eq(tp_batch_set_pose(b, 0, 0, p, tiny), TP_OK, "%s", tp_last_error());
    s = batch_view(b);
    cr_assert(s.quat[0] == 1.0f && s.quat[1] == 0.0f && s.quat[2] == 0.0f && s.quat[3] == 0.0f,
              "[1e-20, 0, 0, 0] became [%g, %g, %g, %g]", s.quat[0], s.quat[1], s.quat[2], s.quat[3]);
    cr_assert_eq(tp_batch_set_pose(b, 0, 0, p, zero), TP_ERR_INVALID_ARGUMENT);
    s = batch_view(b);
    cr_assert_eq(s.quat[0], 1.0f, "a refused write changed the pose");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(batch, builder_refuses_values_past_the_bounds)
{
    tp_model_def md = tp_default_model_def();
    md.dt = 3e38f;
    tp_builder *bl = (tp_builder *)&md;
    cr_assert_eq(tp_builder_create(&md, &bl), TP_ERR_INVALID_ARGUMENT);
    cr_assert_null(bl, "*out is NULL on failure");
    cr_assert(strstr(tp_last_error(), "dt: must be within"), "%s", tp_last_error());
    md = tp_default_model_def();
    bl = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    bd.mass = 1e-45f;
    cr_assert_eq(tp_builder_add_body(bl, &bd, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "mass: must be within"), "%s", tp_last_error());
    bd = tp_default_body_def();
    bd.size[0] = 1e-40f;
    bd.mass = 1.0f;
    cr_assert_eq(tp_builder_add_body(bl, &bd, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "size[0]: must be within"), "%s", tp_last_error());
    tp_builder_destroy(bl);
}
