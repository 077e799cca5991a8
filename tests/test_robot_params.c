/* test_robot_params.c - per-world robot parameters (csrc/robot_params.c):
 * the randomize block's scales draw each world's joint damping, armature,
 * friction loss and actuator gear, kp and kv within range, anew per episode,
 * with the same bits at 1, 7 and 64 worlds; a value written for one world
 * gives that world the trajectory of a model built with that value (the
 * model's own path is the oracle); bad writes change nothing. */
#include "helpers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A cart on a slider (motor, gear 3) carrying a hinged pole (position servo,
 * kp 20, kv 2, gear 2), both joints with damping, armature and friction. The
 * numbers in `p` replace the pole joint's damping, armature, friction and
 * the servo's gear, kp, kv (NULL: the defaults above). */
static tp_model *cartpole(const char *randomize, const float *p)
{
    float d[6] = {0.4f, 0.05f, 0.1f, 2.0f, 20.0f, 2.0f};
    if (p) memcpy(d, p, sizeof d);
    char doc[4096];
    snprintf(doc, sizeof doc,
             "{\"version\": 2, \"sleep\": {\"enabled\": false}%s%s%s,\n"
             " \"bodies\": [{\"name\": \"cart\", \"shape\": \"box\", \"size\": [0.4, 0.3, 0.2], \"mass\": 1, \"pos\": [0, 0, 1]},\n"
             "  {\"name\": \"pole\", \"shape\": \"box\", \"size\": [0.05, 0.05, 1], \"mass\": 0.1, \"pos\": [0, 0, 1.6]}],\n"
             " \"joints\": [{\"name\": \"slider\", \"type\": \"prismatic\", \"child\": \"cart\", \"axis\": [1, 0, 0],"
             " \"damping\": 0.3, \"armature\": 0.02, \"friction\": 0.05},\n"
             "  {\"name\": \"hinge\", \"parent\": \"cart\", \"child\": \"pole\", \"axis\": [0, 1, 0], \"anchor\": [0, 0, -0.5],"
             " \"q0\": 0.3, \"damping\": %.9g, \"armature\": %.9g, \"friction\": %.9g}],\n"
             " \"actuators\": [{\"name\": \"push\", \"joint\": \"slider\", \"gear\": 3},\n"
             "  {\"name\": \"hold\", \"type\": \"position\", \"joint\": \"hinge\", \"gear\": %.9g, \"kp\": %.9g, \"kv\": %.9g}]}",
             randomize[0] ? ", \"randomize\": {" : "", randomize, randomize[0] ? "}" : "", (double)d[0], (double)d[1],
             (double)d[2], (double)d[3], (double)d[4], (double)d[5]);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(doc, "cartpole.json", &m), TP_OK, "%s", tp_last_error());
    return m;
}

#define RANDOMIZE                                                                                                      \
    "\"seed\": 5, \"joint_damping_scale\": [0.5, 1.5], \"joint_armature_scale\": [1, 2], "                        \
    "\"joint_friction_scale\": [0, 2], \"actuator_gear_scale\": [0.8, 1.2], \"actuator_kp_scale\": [0.5, 2], "    \
    "\"actuator_kv_scale\": [0.9, 1.1]"

/* All six parameters of worlds [0, n) of a batch of `worlds` worlds, at
 * creation and after each of two resets: out[round][param][n][2]. */
static void draws(const tp_model *m, int worlds, int n, float out[3][TP_ROBOT_PARAM_COUNT][64][2])
{
    tp_batch *b = make_batch(m, worlds, 1);
    float buf[64 * 2];
    for (int round = 0; round < 3; ++round) {
        for (int p = 0; p < TP_ROBOT_PARAM_COUNT; ++p) {
            cr_assert_eq(tp_batch_robot_params(b, (tp_robot_param)p, buf), TP_OK, "%s", tp_last_error());
            for (int w = 0; w < n; ++w) memcpy(out[round][p][w], buf + 2 * w, 2 * sizeof(float));
        }
        cr_assert_eq(tp_batch_reset_worlds(b, NULL), TP_OK, "%s", tp_last_error());
    }
    tp_batch_destroy(b);
}

Test(robot_params, draws_in_range_new_per_episode_same_at_1_7_64_worlds)
{
    tp_model *m = cartpole(RANDOMIZE, NULL);
    static float d1[3][TP_ROBOT_PARAM_COUNT][64][2], d7[3][TP_ROBOT_PARAM_COUNT][64][2], d64[3][TP_ROBOT_PARAM_COUNT][64][2];
    draws(m, 1, 1, d1);
    draws(m, 7, 7, d7);
    draws(m, 64, 64, d64);
    cr_assert(memcmp(d1[0][0][0], d64[0][0][0], sizeof(float)) == 0);
    for (int r = 0; r < 3; ++r)
        for (int p = 0; p < TP_ROBOT_PARAM_COUNT; ++p)
            for (int w = 0; w < 7; ++w) {
                cr_assert(memcmp(d7[r][p][w], d64[r][p][w], 2 * sizeof(float)) == 0, "round %d %s world %d", r,
                          tp_robot_param_name((tp_robot_param)p), w);
                if (w == 0) cr_assert(memcmp(d1[r][p][0], d64[r][p][0], 2 * sizeof(float)) == 0);
            }
    /* model values (slider, hinge) and the scale ranges of RANDOMIZE */
    const float model[TP_ROBOT_PARAM_COUNT][2] = {{0.3f, 0.4f}, {0.02f, 0.05f}, {0.05f, 0.1f},
                                                  {3.0f, 2.0f}, {0.0f, 20.0f}, {0.0f, 2.0f}};
    const float range[TP_ROBOT_PARAM_COUNT][2] = {{0.5f, 1.5f}, {1, 2}, {0, 2}, {0.8f, 1.2f}, {0.5f, 2}, {0.9f, 1.1f}};
    for (int p = 0; p < TP_ROBOT_PARAM_COUNT; ++p) {
        int differ = 0;
        for (int c = 0; c < 2; ++c) {
            float lo = model[p][c] * range[p][0], hi = model[p][c] * range[p][1];
            for (int r = 0; r < 3; ++r)
                for (int w = 0; w < 64; ++w) {
                    float v = d64[r][p][w][c];
                    cr_assert(v >= lo * (1 - 1e-6f) && v <= hi * (1 + 1e-6f), "%s[%d] world %d round %d: %g not in "
                              "[%g, %g]", tp_robot_param_name((tp_robot_param)p), c, w, r, v, lo, hi);
                }
            for (int w = 0; w < 64; ++w) differ += model[p][c] != 0.0f && d64[0][p][w][c] != d64[1][p][w][c];
        }
        int expect = (model[p][0] != 0.0f) + (model[p][1] != 0.0f);
        cr_assert_eq(differ, 64 * expect, "%s: every world draws anew at a reset (%d of %d)",
                     tp_robot_param_name((tp_robot_param)p), differ, 64 * expect);
    }
    tp_model_destroy(m);
}

/* Worlds 0 and 1 of a batch of the default model with world 1's pole joint
 * and servo given `p` by the setters: world 1 must follow the model built
 * with `p` bit for bit over 90 steps, world 0 the default model. */
static void check_setter_matches_model(const float p[6])
{
    tp_model *base = cartpole("", NULL), *other = cartpole("", p);
    tp_batch *b = make_batch(base, 2, 1), *ref = make_batch(other, 1, 1), *ref0 = make_batch(base, 1, 1);
    int32_t one = 1;
    tp_world_select sel = {&one, 1, NULL};
    for (int k = 0; k < TP_ROBOT_PARAM_COUNT; ++k) {
        float all[4]; /* [W][2]: (slider, hinge) or (push, hold) */
        cr_assert_eq(tp_batch_robot_params(b, (tp_robot_param)k, all), TP_OK);
        float vals[2] = {all[2], p[k]};
        cr_assert_eq(tp_batch_set_robot_params(b, (tp_robot_param)k, &sel, vals), TP_OK, "%s", tp_last_error());
    }
    float u[4] = {0.5f, 0.1f, 0.5f, 0.1f}, u1[2] = {0.5f, 0.1f};
    cr_assert_eq(tp_batch_set_ctrl(b, NULL, u), TP_OK);
    cr_assert_eq(tp_batch_set_ctrl(ref, NULL, u1), TP_OK);
    cr_assert_eq(tp_batch_set_ctrl(ref0, NULL, u1), TP_OK);
    for (int s = 0; s < 90; ++s) {
        batch_steps(b, 1);
        batch_steps(ref, 1);
        batch_steps(ref0, 1);
    }
    tp_joint_view v, r, r0;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK);
    cr_assert_eq(tp_batch_joints(ref, &r), TP_OK);
    cr_assert_eq(tp_batch_joints(ref0, &r0), TP_OK);
    cr_assert(memcmp(v.q + 2, r.q, 2 * sizeof(float)) == 0 && memcmp(v.qd + 2, r.qd, 2 * sizeof(float)) == 0,
              "world 1 (%g %g) follows the model with its values (%g %g)", v.q[2], v.q[3], r.q[0], r.q[1]);
    cr_assert(memcmp(v.q, r0.q, 2 * sizeof(float)) == 0 && memcmp(v.qd, r0.qd, 2 * sizeof(float)) == 0,
              "world 0 keeps the model's values");
    cr_assert(v.q[1] != v.q[3], "the parameters changed the motion");
    tp_batch_destroy(b);
    tp_batch_destroy(ref);
    tp_batch_destroy(ref0);
    tp_model_destroy(base);
    tp_model_destroy(other);
}

Test(robot_params, a_written_world_moves_as_the_model_with_those_values)
{
    const float damping[6] = {2.5f, 0.05f, 0.1f, 2.0f, 20.0f, 2.0f};
    const float armature[6] = {0.4f, 0.5f, 0.1f, 2.0f, 20.0f, 2.0f};
    const float friction[6] = {0.4f, 0.05f, 0.9f, 2.0f, 20.0f, 2.0f};
    const float gains[6] = {0.4f, 0.05f, 0.1f, -1.5f, 60.0f, 0.5f};
    check_setter_matches_model(damping);
    check_setter_matches_model(armature);
    check_setter_matches_model(friction);
    check_setter_matches_model(gains);
}

/* Each setter's refusal names the value and changes nothing. */
Test(robot_params, bad_writes_are_refused_and_change_nothing)
{
    tp_model *m = cartpole("", NULL);
    tp_batch *b = make_batch(m, 2, 1);
    float before[4], after[4];
    cr_assert_eq(tp_batch_robot_params(b, TP_ROBOT_JOINT_DAMPING, before), TP_OK);
    float bad[4] = {1.0f, 1.0f, 1.0f, -0.5f};
    cr_assert_eq(tp_batch_set_robot_params(b, TP_ROBOT_JOINT_DAMPING, NULL, bad), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "joint_damping row 1 [1] (hinge) must be >= 0"), "%s", tp_last_error());
    bad[3] = NAN;
    cr_assert_eq(tp_batch_set_robot_params(b, TP_ROBOT_JOINT_DAMPING, NULL, bad), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_robot_params(b, TP_ROBOT_JOINT_DAMPING, after), TP_OK);
    cr_assert(memcmp(before, after, sizeof before) == 0, "nothing changed");
    float kp[4] = {5.0f, 20.0f, 0.0f, 20.0f}; /* kp 5 on the motor "push" */
    cr_assert_eq(tp_batch_set_robot_params(b, TP_ROBOT_ACTUATOR_KP, NULL, kp), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "(push): a motor actuator has no kp"), "%s", tp_last_error());
    float gear[4] = {3.0f, 2.0f, 0.0f, 2.0f};
    cr_assert_eq(tp_batch_set_robot_params(b, TP_ROBOT_ACTUATOR_GEAR, NULL, gear), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "must not be 0"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_robot_params(b, (tp_robot_param)6, NULL, gear), TP_ERR_INVALID_ARGUMENT);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(robot_params, bad_scale_ranges_are_refused_at_their_key)
{
    const char *bad[] = {"{\"version\": 2, \"randomize\": {\"joint_damping_scale\": [-1, 2]}, \"bodies\": []}",
                         "{\"version\": 2, \"randomize\": {\"actuator_gear_scale\": [0, 2]}, \"bodies\": []}",
                         "{\"version\": 2, \"randomize\": {\"actuator_kp_scale\": [2, 1]}, \"bodies\": []}"};
    const char *key[] = {"randomize.joint_damping_scale[0]", "randomize.actuator_gear_scale[0]",
                         "randomize.actuator_kp_scale[1]"};
    for (int i = 0; i < 3; ++i) {
        tp_model *m = NULL;
        cr_assert_neq(tp_model_load_string(bad[i], "bad.json", &m), TP_OK);
        cr_assert(strstr(tp_last_error(), key[i]), "%s", tp_last_error());
    }
}

/* tp_batch_reset_to_joint_state: a new episode (robot parameters drawn anew),
 * then the given joint state, links placed; a bad value resets nothing. */
Test(robot_params, reset_to_joint_state_sets_q_and_qd_after_a_new_draw)
{
    tp_model *m = cartpole(RANDOMIZE ", \"joint_q_noise\": 0.1", NULL);
    tp_batch *b = make_batch(m, 3, 1);
    batch_steps(b, 10);
    float d0[6], d1[6];
    cr_assert_eq(tp_batch_robot_params(b, TP_ROBOT_JOINT_DAMPING, d0), TP_OK);
    int32_t list[2] = {2, 0};
    tp_world_select sel = {list, 2, NULL};
    float q[4] = {0.25f, -0.5f, -0.1f, 1.0f}, qd[4] = {0.0f, 2.0f, 1.0f, 0.0f};
    cr_assert_eq(tp_batch_reset_to_joint_state(b, &sel, NULL, NULL, NULL, NULL, q, qd), TP_OK, "%s", tp_last_error());
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK);
    cr_assert(v.q[4] == 0.25f && v.q[5] == -0.5f && v.qd[4] == 0.0f && v.qd[5] == 2.0f, "world 2 takes row 0");
    cr_assert(v.q[0] == -0.1f && v.q[1] == 1.0f && v.qd[0] == 1.0f && v.qd[1] == 0.0f, "world 0 takes row 1");
    uint32_t ep[3];
    cr_assert_eq(tp_batch_episodes(b, ep), TP_OK);
    cr_assert(ep[0] == 1 && ep[1] == 0 && ep[2] == 1);
    cr_assert_eq(tp_batch_robot_params(b, TP_ROBOT_JOINT_DAMPING, d1), TP_OK);
    cr_assert(d1[0] != d0[0] && d1[2] == d0[2] && d1[4] != d0[4], "a new draw in the reset worlds only");
    tp_state_view s;
    cr_assert_eq(tp_batch_state(b, &s), TP_OK);
    /* the pole's origin: the hinge at the cart's origin (x = q slider), its centre 0.5 m along the pole at 1 rad */
    float expect_x = -0.1f + 0.5f * sinf(1.0f);
    cr_assert(fabsf(s.pos[3 * 1] - expect_x) < 1e-5f, "links placed: pole x %g, expected %g", s.pos[3], expect_x);
    qd[1] = NAN;
    cr_assert_eq(tp_batch_reset_to_joint_state(b, NULL, NULL, NULL, NULL, NULL, NULL, qd), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "joint_qd row 0 [1] (hinge): must be finite"), "%s", tp_last_error());
    cr_assert_eq(tp_batch_episodes(b, ep), TP_OK);
    cr_assert(ep[0] == 1 && ep[1] == 0 && ep[2] == 1, "nothing was reset");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}
