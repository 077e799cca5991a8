/* test_keyframes.c - keyframes through the C API (include/torpor_keyframes.h):
 * kept by the model with full arrays (the initial state and controls 0 where
 * none were given, quaternions normalized); refused values name the keyframe
 * and field and leave the builder as it was; a reset to a keyframe starts the
 * joints and controls there, an unknown one resets nothing. MuJoCo's
 * mj_resetDataKeyframe, the noise around a keyframe and the world-count
 * invariance are checked in python/tests/test_keyframes.py. */
#include "helpers.h"

#include <math.h>
#include <string.h>

/* A free box with a pole on a revolute joint (nq 8, nv 7) and a motor on the pole. */
static tp_builder *robot(tp_model_def *md)
{
    tp_builder *b = builder_begin(md);
    tp_body_def bd = tp_default_body_def();
    bd.pos[2] = 1.0f;
    int base = builder_add(b, &bd);
    bd.pos[2] = 1.6f;
    bd.size[2] = 1.0f;
    int pole = builder_add(b, &bd);
    tp_joint_def jd = tp_default_joint_def();
    jd.type = TP_JOINT_FREE;
    jd.child = base;
    cr_assert_eq(tp_builder_add_joint(b, &jd, NULL), TP_OK, "%s", tp_last_error());
    jd = tp_default_joint_def();
    jd.parent = base;
    jd.child = pole;
    jd.axis[0] = 1.0f, jd.axis[2] = 0.0f;
    jd.anchor[2] = -0.5f;
    jd.q0 = 0.25f;
    cr_assert_eq(tp_builder_add_joint(b, &jd, NULL), TP_OK, "%s", tp_last_error());
    tp_actuator_def ad = tp_default_actuator_def();
    ad.joint = 1;
    cr_assert_eq(tp_builder_add_actuator(b, &ad, NULL), TP_OK, "%s", tp_last_error());
    return b;
}

static const float key_q[8] = {0.5f, -0.5f, 2.0f, 0.0f, 0.0f, 2.0f, 0.0f, -0.75f}; /* quaternion not unit */
static const float key_qd[7] = {0.1f, 0.2f, 0.3f, 0.0f, 0.0f, 1.0f, -2.0f};
static const float key_ctrl[1] = {0.5f};

Test(keyframes, kept_with_full_arrays_and_found_by_name)
{
    tp_model_def md = tp_default_model_def();
    tp_builder *b = robot(&md);
    char name[8] = "up";
    tp_keyframe_def k = tp_default_keyframe_def();
    k.name = name;
    k.q = key_q, k.nq = 8;
    k.qd = key_qd, k.nv = 7;
    k.ctrl = key_ctrl, k.nu = 1;
    int index = -1;
    cr_assert_eq(tp_builder_add_keyframe(b, &k, &index), TP_OK, "%s", tp_last_error());
    cr_assert_eq(index, 0);
    strcpy(name, "xx"); /* the builder keeps its own copy */
    tp_keyframe_def bare = tp_default_keyframe_def();
    bare.name = "bare";
    cr_assert_eq(tp_builder_add_keyframe(b, &bare, &index), TP_OK, "%s", tp_last_error());
    tp_model *m = builder_finish(b);
    cr_assert_eq(tp_model_keyframe_count(m), 2);
    cr_assert_eq(tp_model_find_keyframe(m, "up"), 0);
    cr_assert_eq(tp_model_find_keyframe(m, "bare"), 1);
    cr_assert_eq(tp_model_find_keyframe(m, "xx"), -1);
    tp_keyframe_def out;
    cr_assert_eq(tp_model_keyframe(m, 0, &out), TP_OK);
    cr_assert(out.nq == 8 && out.nv == 7 && out.nu == 1);
    cr_assert(out.q[0] == 0.5f && out.q[5] == 1.0f && out.q[7] == -0.75f, "the quaternion normalized");
    cr_assert(out.qd[6] == -2.0f && out.ctrl[0] == 0.5f);
    cr_assert_eq(tp_model_keyframe(m, 1, &out), TP_OK);
    cr_assert(out.q[2] == 1.0f && out.q[6] == 1.0f && out.q[7] == 0.25f, "no q: the initial state (body pose, q0)");
    cr_assert(out.qd[0] == 0.0f && out.ctrl[0] == 0.0f, "no qd: qd0; no ctrl: 0");
    cr_assert_eq(tp_model_keyframe(m, 2, &out), TP_ERR_INVALID_ARGUMENT);
    tp_model_destroy(m);
}

Test(keyframes, refused_values_name_the_keyframe_and_field)
{
    tp_model_def md = tp_default_model_def();
    tp_builder *b = robot(&md);
    tp_keyframe_def k = tp_default_keyframe_def();
    cr_assert_eq(tp_builder_add_keyframe(b, &k, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "keyframe: name:"), "%s", tp_last_error());
    k.name = "a";
    k.q = key_q, k.nq = 7;
    cr_assert_eq(tp_builder_add_keyframe(b, &k, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "keyframe \"a\": q: has 7 values; the joints have nq = 8"), "%s", tp_last_error());
    float bad[7];
    memcpy(bad, key_qd, sizeof bad);
    bad[3] = NAN;
    k.nq = 8;
    k.qd = bad, k.nv = 7;
    cr_assert_eq(tp_builder_add_keyframe(b, &k, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "keyframe \"a\": qd: [3] must be finite"), "%s", tp_last_error());
    k.qd = NULL, k.nv = 7;
    cr_assert_eq(tp_builder_add_keyframe(b, &k, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "keyframe \"a\": qd: NULL with 7 values"), "%s", tp_last_error());
    k.nv = 0;
    k.ctrl = key_ctrl, k.nu = 2;
    cr_assert_eq(tp_builder_add_keyframe(b, &k, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "keyframe \"a\": ctrl: has 2 values; the actuators number 1"), "%s", tp_last_error());
    k.nu = 1;
    cr_assert_eq(tp_builder_add_keyframe(b, &k, NULL), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_builder_add_keyframe(b, &k, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "keyframe \"a\": name: already the name of keyframe 0"), "%s", tp_last_error());
    tp_model *m = builder_finish(b);
    cr_assert_eq(tp_model_keyframe_count(m), 1); /* the refused ones were not added */
    tp_model_destroy(m);
}

Test(keyframes, finish_checks_the_compiled_joints)
{
    /* a zero free-joint quaternion */
    tp_model_def md = tp_default_model_def();
    tp_builder *b = robot(&md);
    float q[8];
    memcpy(q, key_q, sizeof q);
    q[3] = q[4] = q[5] = q[6] = 0.0f;
    tp_keyframe_def k = tp_default_keyframe_def();
    k.name = "flat";
    k.q = q, k.nq = 8;
    cr_assert_eq(tp_builder_add_keyframe(b, &k, NULL), TP_OK, "%s", tp_last_error());
    tp_model *m = NULL;
    cr_assert_eq(tp_builder_finish(b, &m), TP_ERR_INVALID_ARGUMENT);
    cr_assert(m == NULL);
    cr_assert(strstr(tp_last_error(), "keyframe \"flat\": q: the quaternion at [3, 7) (joint \"joint0\") is zero"), "%s",
              tp_last_error());
    tp_builder_destroy(b);
    /* a joint added after the keyframe */
    b = robot(&md);
    k.q = key_q;
    cr_assert_eq(tp_builder_add_keyframe(b, &k, NULL), TP_OK, "%s", tp_last_error());
    tp_body_def bd = tp_default_body_def();
    int extra = builder_add(b, &bd);
    tp_joint_def jd = tp_default_joint_def();
    jd.child = extra;
    cr_assert_eq(tp_builder_add_joint(b, &jd, NULL), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_builder_finish(b, &m), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "keyframe \"flat\": q: has 8 values; the joints have nq = 9"), "%s", tp_last_error());
    tp_builder_destroy(b);
    /* randomize.keyframe naming none */
    md.randomize.keyframe = "nowhere";
    b = robot(&md);
    cr_assert_eq(tp_builder_finish(b, &m), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "randomize.keyframe: no keyframe is called \"nowhere\""), "%s", tp_last_error());
    tp_builder_destroy(b);
}

Test(keyframes, reset_starts_the_joints_and_controls_there)
{
    tp_model_def md = tp_default_model_def();
    tp_builder *b = robot(&md);
    tp_keyframe_def k = tp_default_keyframe_def();
    k.name = "up";
    k.q = key_q, k.nq = 8;
    k.qd = key_qd, k.nv = 7;
    k.ctrl = key_ctrl, k.nu = 1;
    cr_assert_eq(tp_builder_add_keyframe(b, &k, NULL), TP_OK, "%s", tp_last_error());
    tp_model *m = builder_finish(b);
    tp_batch *batch = make_batch(m, 3, 1);
    int32_t one[1] = {1};
    tp_world_select s = tp_world_list(one, 1);
    uint32_t before[3], after[3];
    tp_batch_episodes(batch, before);
    cr_assert_eq(tp_batch_reset_to_keyframe(batch, &s, 1), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "no keyframe 1 (model"), "%s", tp_last_error());
    tp_batch_episodes(batch, after);
    cr_assert(memcmp(before, after, sizeof before) == 0, "nothing reset");
    cr_assert_eq(tp_batch_reset_to_keyframe(batch, &s, 0), TP_OK, "%s", tp_last_error());
    tp_joint_view jv;
    tp_actuator_view av;
    cr_assert_eq(tp_batch_joints(batch, &jv), TP_OK);
    cr_assert_eq(tp_batch_actuators(batch, &av), TP_OK);
    tp_keyframe_def out;
    tp_model_keyframe(m, 0, &out);
    cr_assert(memcmp(jv.q + 8, out.q, 8 * sizeof(float)) == 0 && memcmp(jv.qd + 7, out.qd, 7 * sizeof(float)) == 0);
    cr_assert(jv.q[2] == 1.0f && jv.q[7] == 0.25f, "world 0 still at the initial state");
    cr_assert(av.ctrl[1] == 0.5f && av.ctrl[0] == 0.0f);
    tp_state_view sv;
    cr_assert_eq(tp_batch_state(batch, &sv), TP_OK);
    cr_assert(sv.pos[3 * 2 + 0] == 0.5f && sv.pos[3 * 2 + 2] == 2.0f, "the link placed where the joint puts it");
    cr_assert_eq(tp_batch_step(batch, 2), TP_OK);
    cr_assert_eq(tp_batch_actuators(batch, &av), TP_OK);
    cr_assert(av.ctrl[1] == 0.5f, "the keyframe's ctrl held through steps");
    tp_batch_destroy(batch);
    tp_model_destroy(m);
}
