/* test_robot_randomize.c - per-world robot randomization: a link's mass scale
 * reaches its tree's dynamics (scale 2 halves a pendulum's response to an
 * impulse and to a torque), randomize.mass_scale draws it per world, and the
 * joint-state noise of each reset is in range, differs per episode, has the
 * asked spread, and has the same bits at 1, 7 and 64 worlds. */
#include "helpers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A 1 x 0.1 x 0.1 m rod of 1 kg hinged about x at its top end (z = 2), zero
 * gravity unless `g`; `randomize` is the scene's randomize block (or ""). */
static tp_model *pendulum(const char *randomize, int limits)
{
    char doc[2048];
    snprintf(doc, sizeof doc,
             "{\"version\": 2, \"gravity\": [0, 0, 0], \"sleep\": {\"enabled\": false}%s%s%s,\n"
             " \"bodies\": [{\"name\": \"rod\", \"shape\": \"box\", \"size\": [0.1, 0.1, 1], \"mass\": 1, \"pos\": [0, 0, 1.5]}],\n"
             " \"joints\": [{\"name\": \"pivot\", \"child\": \"rod\", \"axis\": [1, 0, 0], \"anchor\": [0, 0, 0.5],"
             " \"q0\": 0.2, \"qd0\": -1%s}]}",
             randomize[0] ? ", \"randomize\": {" : "", randomize, randomize[0] ? "}" : "",
             limits ? ", \"limits\": [-0.1, 0.3]" : "");
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(doc, "pendulum.json", &m), TP_OK, "%s", tp_last_error());
    return m;
}

static tp_joint_view joints(tp_batch *b)
{
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK, "%s", tp_last_error());
    return v;
}

/* p = 0.5 N s along y at the COM of the rod at q = 0.2 rad: angular impulse
 * about the hinge 0.5 m cos(0.2) p, so qd = 0.25 cos(0.2) / I_hinge; with the
 * link's mass and inertia doubled I_hinge doubles, so qd halves. */
Test(robot_randomize, link_mass_scale_2_halves_the_response_to_an_impulse)
{
    tp_model *m = pendulum("", 0);
    tp_batch *b = make_batch(m, 2, 1);
    float scales[2] = {1.0f, 2.0f};
    cr_assert_eq(tp_batch_set_mass_scales(b, NULL, scales), TP_OK, "%s", tp_last_error());
    float zero[2] = {0.0f, 0.0f};
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_QD, WORLD_MASK((const uint8_t *)"\1\1"), zero), TP_OK, "%s",
                 tp_last_error());
    for (int w = 0; w < 2; ++w) {
        float p[3] = {0.0f, 0.5f, 0.0f}; /* 0.5 N s along y at the COM */
        cr_assert_eq(tp_batch_apply_impulse(b, w, 0, p, NULL), TP_OK, "%s", tp_last_error());
    }
    tp_joint_view v = joints(b);
    double i_hinge = (0.01 + 1.0) / 12.0 + 0.25;
    double expect = 0.5 * 0.5 * cos(0.2) / i_hinge; /* p at the COM, 0.5 m from the hinge, rod at 0.2 rad */
    cr_assert(fabs(v.qd[0] - expect) < 1e-4 * expect, "scale 1: qd %.7f, expected %.7f", v.qd[0], expect);
    cr_assert(fabs(v.qd[1] - 0.5 * v.qd[0]) < 1e-6 * fabs(v.qd[0]), "scale 2: qd %.7f, half of %.7f", v.qd[1], v.qd[0]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(robot_randomize, randomize_mass_scale_reaches_links)
{
    tp_model *m = pendulum("\"mass_scale\": [0.5, 2], \"seed\": 7", 0);
    tp_batch *b = make_batch(m, 8, 1);
    float f[8];
    for (int w = 0; w < 8; ++w) f[w] = 1.0f; /* 1 N m about the hinge for one step, from rest */
    float zero[8] = {0};
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_QD, WORLD_MASK((const uint8_t *)"\1\1\1\1\1\1\1\1"), zero), TP_OK);
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_F, WORLD_MASK((const uint8_t *)"\1\1\1\1\1\1\1\1"), f), TP_OK);
    batch_steps(b, 1);
    tp_joint_view v = joints(b);
    double i_hinge = (0.01 + 1.0) / 12.0 + 0.25, lo = 1.0 / (2.0 * i_hinge) / 60.0, hi = 1.0 / (0.5 * i_hinge) / 60.0;
    int distinct = 0;
    for (int w = 0; w < 8; ++w) {
        cr_assert(v.qd[w] >= lo * 0.999 && v.qd[w] <= hi * 1.001, "world %d: qd %g outside [%g, %g]", w, v.qd[w], lo, hi);
        distinct += w > 0 && v.qd[w] != v.qd[0];
    }
    cr_assert(distinct >= 6, "the worlds drew different scales");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Joint q of worlds [0, n) of a fresh batch of `worlds` worlds, then after a reset of all. */
static void noise_draws(const tp_model *m, int worlds, float *q, float *qd, int n)
{
    tp_batch *b = make_batch(m, worlds, 1);
    for (int round = 0; round < 2; ++round) {
        tp_joint_view v = joints(b);
        for (int w = 0; w < n; ++w) {
            q[round * n + w] = v.q[w];
            qd[round * n + w] = v.qd[w];
        }
        cr_assert_eq(tp_batch_reset_worlds(b, NULL), TP_OK, "%s", tp_last_error());
    }
    tp_batch_destroy(b);
}

Test(robot_randomize, uniform_joint_noise_in_range_new_per_episode_same_at_any_world_count)
{
    tp_model *m = pendulum("\"joint_q_noise\": 0.3, \"joint_qd_noise\": 0.5", 1);
    float q1[2], qd1[2], q7[14], qd7[14], q64[128], qd64[128];
    noise_draws(m, 1, q1, qd1, 1);
    noise_draws(m, 7, q7, qd7, 7);
    noise_draws(m, 64, q64, qd64, 64);
    for (int round = 0; round < 2; ++round) {
        cr_assert(q1[round] == q7[round * 7] && q1[round] == q64[round * 64], "world 0 the same at 1, 7, 64 worlds");
        cr_assert(qd1[round] == qd7[round * 7] && qd1[round] == qd64[round * 64]);
        for (int w = 0; w < 7; ++w)
            cr_assert(q7[round * 7 + w] == q64[round * 64 + w] && qd7[round * 7 + w] == qd64[round * 64 + w],
                      "world %d, episode %d", w, round);
    }
    int at_limit = 0;
    for (int k = 0; k < 128; ++k) {
        /* q0 = 0.2 +- 0.3, clamped to the limits [-0.1, 0.3]; qd0 = -1 +- 0.5 */
        cr_assert(q64[k] >= -0.1f && q64[k] <= 0.3f, "q %g", q64[k]);
        cr_assert(qd64[k] >= -1.5f && qd64[k] <= -0.5f, "qd %g", qd64[k]);
        at_limit += q64[k] == 0.3f;
    }
    cr_assert(at_limit > 10 && at_limit < 60, "about a third clamped at the upper limit: %d of 128", at_limit);
    int differ = 0;
    for (int w = 0; w < 64; ++w) differ += qd64[w] != qd64[64 + w];
    cr_assert_eq(differ, 64, "a reset draws anew in every world");
    tp_model_destroy(m);
}

/* Normal noise: over 4096 worlds the sample mean is q0 within 4 standard
 * errors and the standard deviation is sigma within 5 %. */
Test(robot_randomize, normal_joint_noise_has_the_asked_spread)
{
    tp_model *m = pendulum("\"joint_q_noise\": 0.25, \"joint_noise\": \"normal\"", 0);
    tp_batch *b = make_batch(m, 4096, 1);
    tp_joint_view v = joints(b);
    double sum = 0.0, sum2 = 0.0;
    for (int w = 0; w < 4096; ++w) sum += v.q[w] - 0.2;
    double mean = sum / 4096;
    for (int w = 0; w < 4096; ++w) sum2 += (v.q[w] - 0.2 - mean) * (v.q[w] - 0.2 - mean);
    double sd = sqrt(sum2 / 4095);
    cr_assert(fabs(mean) < 4 * 0.25 / 64.0, "mean offset %g", mean);
    cr_assert(fabs(sd - 0.25) < 0.05 * 0.25, "sd %g, asked 0.25", sd);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(robot_randomize, bad_noise_is_refused_at_its_key)
{
    const char *bad[] = {"\"joint_q_noise\": -1", "\"joint_noise\": \"gauss\""};
    const char *key[] = {"randomize.joint_q_noise", "randomize.joint_noise"};
    for (int k = 0; k < 2; ++k) {
        char doc[512];
        snprintf(doc, sizeof doc,
                 "{\"version\": 2, \"randomize\": {%s}, \"bodies\": [{\"name\": \"a\", \"shape\": \"box\"}]}", bad[k]);
        tp_model *m = NULL;
        cr_assert_neq(tp_model_load_string(doc, "r.json", &m), TP_OK);
        cr_assert(strstr(tp_last_error(), key[k]), "%s", tp_last_error());
    }
}

/* A shard (tp_batch_def.first_world) draws a robot's joint noise and link mass
 * scales on the global world index: worlds [3, 7) of an 8-world run hold the
 * bits of worlds 3-6 of one batch, at creation and after a reset. */
Test(robot_randomize, a_shard_draws_as_the_same_worlds_of_one_batch)
{
    tp_model *m = pendulum("\"joint_q_noise\": 0.05, \"joint_qd_noise\": 0.2, \"mass_scale\": [0.5, 2], \"seed\": 3", 0);
    tp_batch *whole = make_batch(m, 8, 1), *shard = NULL;
    tp_batch_def d = tp_default_batch_def();
    d.worlds = 4;
    d.first_world = 3;
    d.total_worlds = 8;
    d.threads = 1;
    cr_assert_eq(tp_batch_create(m, &d, &shard), TP_OK, "%s", tp_last_error());
    for (int round = 0; round < 2; ++round) {
        batch_steps(whole, 20);
        batch_steps(shard, 20);
        tp_joint_view a = joints(whole), b = joints(shard);
        for (int w = 0; w < 4; ++w)
            cr_assert(a.q[3 + w] == b.q[w] && a.qd[3 + w] == b.qd[w], "round %d, world %d: q %.9g / %.9g, qd %.9g / %.9g",
                      round, 3 + w, a.q[3 + w], b.q[w], a.qd[3 + w], b.qd[w]);
        const int global[4] = {3, 4, 5, 6}, local[4] = {0, 1, 2, 3};
        cr_assert_eq(tp_batch_reset_worlds(whole, WORLD_LIST(global, 4)), TP_OK, "%s", tp_last_error());
        cr_assert_eq(tp_batch_reset_worlds(shard, WORLD_LIST(local, 4)), TP_OK, "%s", tp_last_error());
    }
    tp_batch_destroy(shard);
    tp_batch_destroy(whole);
    tp_model_destroy(m);
}
