/* test_joint_arrays.c - tp_batch_set_joint_arrays, the all-or-nothing write of
 * several joint arrays: a refused call leaves the values, the sleep states,
 * the quiet timers and the state hash byte-identical (a valid array given
 * beside a refused one is not written and wakes nothing); an accepted call
 * writes every array given and wakes and moves each world once. */
#include "helpers.h"

#include <math.h>

/* A 1 kg rod of 0.1 x 0.1 x 1 m hanging from a hinge about x at height 2 m,
 * zero gravity, sleep on (two dofs: the hinge and nothing else). */
static tp_model *pendulum(void)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = 0.0f;
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    bd.name = "rod";
    bd.size[0] = bd.size[1] = 0.1f;
    bd.mass = 1.0f;
    bd.pos[2] = 1.5f;
    int rod = builder_add(b, &bd);
    tp_joint_def j = tp_default_joint_def();
    j.name = "pivot";
    j.type = TP_JOINT_REVOLUTE;
    j.parent = -1;
    j.child = rod;
    j.axis[0] = 1.0f;
    j.axis[2] = 0.0f;
    j.anchor[2] = 0.5f;
    cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    return builder_finish(b);
}

/* Everything a refused write must leave alone: the state hash, the sleep
 * states and timers (copied) and the joint arrays. */
typedef struct snapshot {
    uint64_t hash;
    uint8_t sleep_state[2], body_awake[2];
    float quiet_timer[2], q[2], qd[2], target_q[2];
} snapshot;

static snapshot take(tp_batch *b)
{
    snapshot s;
    memset(&s, 0, sizeof s);
    cr_assert_eq(tp_batch_state_hash(b, &s.hash), TP_OK);
    tp_state_view v = batch_view(b);
    tp_joint_view j;
    cr_assert_eq(tp_batch_joints(b, &j), TP_OK);
    for (int w = 0; w < 2; ++w) {
        s.sleep_state[w] = v.sleep_state[w];
        s.body_awake[w] = v.body_awake[w];
        s.quiet_timer[w] = v.quiet_timer[w];
        s.q[w] = j.q[w];
        s.qd[w] = j.qd[w];
        s.target_q[w] = j.target_q[w];
    }
    return s;
}

Test(joint_arrays, a_refused_write_changes_nothing_not_even_sleep)
{
    tp_model *m = pendulum();
    tp_batch *b = make_batch(m, 2, 1);
    batch_steps(b, 5);
    cr_assert_eq(tp_batch_sleep(b, 0, 0), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_sleep(b, 1, 0), TP_OK, "%s", tp_last_error());
    snapshot before = take(b);
    cr_assert_eq(before.sleep_state[0], TP_SLEEPING);
    /* a valid target_q beside a non-finite qd: refused whole */
    float target_q[2] = {0.7f, 0.2f}, qd[2] = {0.0f, NAN};
    const float *arrays[TP_JOINT_ARRAY_COUNT] = {NULL};
    arrays[TP_JOINT_ARRAY_TARGET_Q] = target_q;
    arrays[TP_JOINT_ARRAY_QD] = qd;
    uint8_t mask[2] = {1, 1};
    cr_assert_eq(tp_batch_set_joint_arrays(b, WORLD_MASK(mask), arrays), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "tp_batch_set_joint_arrays: joint_qd row 1 [0] (pivot): must be finite"), "%s",
              tp_last_error());
    /* a valid q beside a target_q past TP_MAX_JOINT_Q, by a world list */
    float q[1] = {0.3f}, far[1] = {2.0f * TP_MAX_JOINT_Q};
    const float *arrays2[TP_JOINT_ARRAY_COUNT] = {q, NULL, NULL, far, NULL};
    int worlds[1] = {1};
    cr_assert_eq(tp_batch_set_joint_arrays(b, WORLD_LIST(worlds, 1), arrays2), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_set_joint_arrays(b, WORLD_LIST(worlds, 1), NULL), TP_ERR_INVALID_ARGUMENT);
    snapshot after = take(b);
    cr_assert(memcmp(&before, &after, sizeof before) == 0,
              "a refused write changed the batch: hash %016llx -> %016llx, sleep %d %d -> %d %d",
              (unsigned long long)before.hash, (unsigned long long)after.hash, before.sleep_state[0],
              before.sleep_state[1], after.sleep_state[0], after.sleep_state[1]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(joint_arrays, an_accepted_write_sets_every_array_and_wakes_once)
{
    tp_model *m = pendulum();
    tp_batch *b = make_batch(m, 2, 1);
    cr_assert_eq(tp_batch_sleep(b, 0, 0), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_sleep(b, 1, 0), TP_OK, "%s", tp_last_error());
    float q[1] = {0.5f}, qd[1] = {1.25f}, target_q[1] = {-0.25f};
    const float *arrays[TP_JOINT_ARRAY_COUNT] = {q, qd, NULL, target_q, NULL};
    int worlds[1] = {1};
    cr_assert_eq(tp_batch_set_joint_arrays(b, WORLD_LIST(worlds, 1), arrays), TP_OK, "%s", tp_last_error());
    tp_joint_view j;
    cr_assert_eq(tp_batch_joints(b, &j), TP_OK);
    cr_assert(j.q[1] == 0.5f && j.qd[1] == 1.25f && j.target_q[1] == -0.25f);
    cr_assert(j.q[0] == 0.0f && j.qd[0] == 0.0f && j.target_q[0] == 0.0f, "world 0 was not listed");
    tp_state_view v = batch_view(b);
    cr_assert_eq(v.sleep_state[1], TP_AWAKE, "the write did not wake world 1's tree");
    cr_assert_eq(v.sleep_state[0], TP_SLEEPING, "world 0 was woken");
    /* the link moved with q: the rod's centre 0.5 m below the hinge at 2 m, turned 0.5 rad about x */
    cr_assert(fabsf(v.pos[3 + 1] - 0.5f * sinf(0.5f)) < 1e-5f && fabsf(v.pos[3 + 2] - (2.0f - 0.5f * cosf(0.5f))) < 1e-5f,
              "link at (%g, %g), expected (%g, %g)", v.pos[4], v.pos[5], 0.5f * sinf(0.5f), 2.0f - 0.5f * cosf(0.5f));
    /* its centre moves at qd x 0.5 m */
    float speed = sqrtf(v.v[3 + 1] * v.v[3 + 1] + v.v[3 + 2] * v.v[3 + 2]);
    cr_assert(fabsf(speed - 1.25f * 0.5f) < 1e-5f, "link speed %g, expected %g", speed, 1.25f * 0.5f);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The joint writes take the one selection form: NULL writes every world, and
 * a bad selection (an index out of range or repeated, a list beside a mask) is
 * refused naming the call and the value, before anything changes. */
Test(joint_arrays, every_selection_form_and_its_refusals)
{
    tp_model *m = pendulum();
    tp_batch *b = make_batch(m, 2, 1);
    cr_assert_eq(tp_batch_sleep(b, 0, 0), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_sleep(b, 1, 0), TP_OK, "%s", tp_last_error());
    snapshot before = take(b);
    float q2[2] = {0.1f, 0.2f};
    int32_t out_of_range[1] = {2}, twice[2] = {1, 1};
    uint8_t mask[2] = {1, 0};
    tp_world_select both = {twice, 1, mask};
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_Q, WORLD_LIST(out_of_range, 1), q2), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "tp_batch_set_joints: select.indices[0] = 2 out of range [0, 2)"), "%s",
              tp_last_error());
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_Q, WORLD_LIST(twice, 2), q2), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "tp_batch_set_joints: select.indices[1] = 1 names world 1 a second time"), "%s",
              tp_last_error());
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_Q, &both, q2), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "tp_batch_set_joints: select gives both indices and mask"), "%s",
              tp_last_error());
    snapshot after = take(b);
    cr_assert(memcmp(&before, &after, sizeof before) == 0, "a refused selection changed the batch");
    /* NULL: every world, row w for world w */
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_Q, NULL, q2), TP_OK, "%s", tp_last_error());
    tp_joint_view j;
    cr_assert_eq(tp_batch_joints(b, &j), TP_OK);
    cr_assert(j.q[0] == 0.1f && j.q[1] == 0.2f, "q %g %g", j.q[0], j.q[1]);
    /* a mask: world 0's row only; an empty list: nothing */
    float q3[2] = {0.3f, 9.0f};
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_Q, WORLD_MASK(mask), q3), TP_OK, "%s", tp_last_error());
    tp_world_select none = tp_world_list(NULL, 0);
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_Q, &none, NULL), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_joints(b, &j), TP_OK);
    cr_assert(j.q[0] == 0.3f && j.q[1] == 0.2f, "q %g %g", j.q[0], j.q[1]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}
