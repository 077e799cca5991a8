/* test_joint_mirror.c - the joint and actuator arrays' calls ask the backend
 * for the copies a mirrored backend (CUDA: csrc/mirror.h) needs, checked
 * without a GPU: a CPU batch whose backend table records every pull and
 * begin_write. A read of the joint or actuator arrays pulls every world's
 * body group (their group); a write of joint arrays or controls, or an
 * impulse on a link, asks for each written world before it changes any of
 * them, and a refused write asks for none; so do the per-world robot
 * parameters' reads and writes. A reset world's joints,
 * controls, actuator forces and link scales are the fresh world's, and the
 * CUDA reset kernel's code, run on the host, draws the CPU's robot
 * randomization bit for bit. */
#include "articulation_host.h"
#include "backend.h"
#include "finish.h" /* tp_world_count */
#include "helpers.h"
#include "mirror.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define WORLDS 4
#define MAX_CALLS 16

typedef struct call {
    int write; /* 0: pull, 1: begin_write */
    int first, last, groups;
    int unchanged; /* begin_write: the batch's joint_q and joint_qd still as saved */
} call;

static call calls[MAX_CALLS];
static int ncalls;
static const tp_backend_ops *cpu_ops;
static tp_backend_ops recording;
static float saved_q[WORLDS * 8], saved_qd[WORLDS * 8], saved_ctrl[WORLDS * 8], saved_jp[WORLDS * 8 * TP_AJP_COUNT];
static tp_artic_actuator saved_act[WORLDS * 8];
static size_t q_bytes, qd_bytes, ctrl_bytes, jp_bytes, act_bytes;

/* The batch's joint_q, joint_qd, ctrl and robot parameters still as saved. */
static int joints_as_saved(tp_batch *b)
{
    return !memcmp(b->artic->q, saved_q, q_bytes) && !memcmp(b->artic->qd, saved_qd, qd_bytes) &&
           !memcmp(b->artic->ctrl, saved_ctrl, ctrl_bytes) && !memcmp(b->artic->joint_params, saved_jp, jp_bytes) &&
           !memcmp(b->artic->actuator_params, saved_act, act_bytes);
}

static void save_joints(tp_batch *b)
{
    memcpy(saved_q, b->artic->q, q_bytes);
    memcpy(saved_qd, b->artic->qd, qd_bytes);
    memcpy(saved_ctrl, b->artic->ctrl, ctrl_bytes);
    memcpy(saved_jp, b->artic->joint_params, jp_bytes);
    memcpy(saved_act, b->artic->actuator_params, act_bytes);
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
    calls[ncalls++] = (call){1, first, last, 0, joints_as_saved(b)};
    return cpu_ops->begin_write(b, first, last);
}

/* A cart on a slider (nq = nv = 1) pushed by a motor (nu = 1), without
 * gravity. */
static const char *const pushed_cart =
    "{\"version\": 2, \"gravity\": [0, 0, 0], \"bodies\": [{\"name\": \"cart\", \"shape\": \"box\", \"size\": [0.2, 0.2, 0.2],"
    " \"mass\": 2, \"pos\": [0, 0, 1]}],"
    " \"joints\": [{\"name\": \"slide\", \"type\": \"prismatic\", \"child\": \"cart\", \"axis\": [1, 0, 0]}],"
    " \"actuators\": [{\"name\": \"push\", \"type\": \"motor\", \"joint\": \"slide\", \"gear\": 4}]}";

/* Model m in WORLDS worlds, its backend table replaced by the recording one. */
static tp_batch *recorded(tp_model *m)
{
    tp_batch *b = make_batch(m, WORLDS, 1);
    cpu_ops = b->ops;
    recording = *cpu_ops;
    recording.pull = record_pull;
    recording.begin_write = record_begin_write;
    b->ops = &recording;
    q_bytes = WORLDS * (size_t)tp_model_joint_q_count(m) * sizeof(float);
    qd_bytes = WORLDS * (size_t)tp_model_joint_dof_count(m) * sizeof(float);
    ctrl_bytes = WORLDS * (size_t)tp_model_actuator_count(m) * sizeof(float);
    jp_bytes = WORLDS * (size_t)tp_model_joint_count(m) * TP_AJP_COUNT * sizeof(float);
    act_bytes = WORLDS * (size_t)tp_model_actuator_count(m) * sizeof(tp_artic_actuator);
    save_joints(b);
    return b;
}

/* The cart-pole (a slider and a hinge: nq = nv = 2), recorded. */
static tp_batch *recorded_cartpole(tp_model **m)
{
    cr_assert_eq(tp_model_load("scenes/cartpole.json", m), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_model_joint_q_count(*m), 2);
    return recorded(*m);
}

/* The pushed cart, recorded. */
static tp_batch *recorded_cart(tp_model **m)
{
    cr_assert_eq(tp_model_load_string(pushed_cart, "cart.json", m), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_model_actuator_count(*m), 1);
    return recorded(*m);
}

static void done(tp_batch *b, tp_model *m)
{
    b->ops = cpu_ops;
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(joint_mirror, a_read_pulls_the_joint_arrays_group_of_every_world)
{
    tp_model *m = NULL;
    tp_batch *b = recorded_cartpole(&m);
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK, "%s", tp_last_error());
    cr_assert_eq(ncalls, 1);
    cr_assert_eq(calls[0].write, 0);
    cr_assert_eq(calls[0].first, 0);
    cr_assert_eq(calls[0].last, WORLDS - 1);
    cr_assert(calls[0].groups & TP_MIRROR_BODIES, "the joint arrays are mirrored with the bodies' group");
    done(b, m);
}

Test(joint_mirror, a_write_asks_for_each_world_before_changing_any)
{
    tp_model *m = NULL;
    tp_batch *b = recorded_cartpole(&m);
    const int worlds[2] = {3, 1};
    const float q[4] = {0.5f, 0.25f, -0.5f, -0.25f};
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_Q, WORLD_LIST(worlds, 2), q), TP_OK, "%s", tp_last_error());
    cr_assert_eq(ncalls, 2);
    for (int i = 0; i < 2; ++i) {
        cr_assert_eq(calls[i].write, 1);
        cr_assert_eq(calls[i].first, worlds[i]);
        cr_assert_eq(calls[i].last, worlds[i]);
        cr_assert(calls[i].unchanged, "world %d asked for after a joint array had changed", worlds[i]);
    }
    cr_assert_float_eq(b->artic->q[2 * 3], 0.5f, 0.0f);
    cr_assert_float_eq(b->artic->q[2 * 1 + 1], -0.25f, 0.0f);

    const uint8_t mask[WORLDS] = {1, 0, 1, 0};
    float qd[WORLDS * 2] = {1.0f, 2.0f, 9.0f, 9.0f, 3.0f, 4.0f, 9.0f, 9.0f};
    save_joints(b);
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_QD, WORLD_MASK(mask), qd), TP_OK, "%s", tp_last_error());
    cr_assert_eq(ncalls, 2);
    cr_assert(calls[0].write && calls[0].first == 0 && calls[0].last == 0 && calls[0].unchanged);
    cr_assert(calls[1].write && calls[1].first == 2 && calls[1].last == 2 && calls[1].unchanged);
    done(b, m);
}

Test(joint_mirror, a_refused_write_asks_for_nothing)
{
    tp_model *m = NULL;
    tp_batch *b = recorded_cartpole(&m);
    const int worlds[2] = {0, 2};
    const float q[4] = {0.5f, 0.25f, NAN, 0.0f};
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_Q, WORLD_LIST(worlds, 2), q), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(ncalls, 0);
    cr_assert(joints_as_saved(b));
    done(b, m);
}

Test(joint_mirror, an_impulse_on_a_link_asks_for_its_world_first)
{
    tp_model *m = NULL;
    tp_batch *b = recorded_cartpole(&m);
    int pole = tp_model_find_body(m, "pole");
    cr_assert_geq(pole, 0);
    const float p[3] = {0.5f, 0.0f, 0.0f};
    cr_assert_eq(tp_batch_apply_impulse(b, 2, pole, p, NULL), TP_OK, "%s", tp_last_error());
    cr_assert_geq(ncalls, 1);
    cr_assert(calls[0].write && calls[0].first == 2 && calls[0].last == 2 && calls[0].unchanged);
    cr_assert(!joints_as_saved(b), "the impulse changed world 2's joint_qd");
    done(b, m);
}

/* World w's joint arrays of a and b, bit for bit. */
static int same_joints(tp_batch *a, tp_batch *b, int w)
{
    tp_joint_view x, y;
    cr_assert_eq(tp_batch_joints(a, &x), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_joints(b, &y), TP_OK, "%s", tp_last_error());
    size_t nq = (size_t)x.nq, nv = (size_t)x.nv, f = sizeof(float);
    return !memcmp(x.q + w * nq, y.q + w * nq, nq * f) && !memcmp(x.qd + w * nv, y.qd + w * nv, nv * f) &&
           !memcmp(x.f + w * nv, y.f + w * nv, nv * f) && !memcmp(x.target_q + w * nv, y.target_q + w * nv, nv * f) &&
           !memcmp(x.target_qd + w * nv, y.target_qd + w * nv, nv * f);
}

/* A reset robot world is the world the CPU creates for the same episode: its
 * joint arrays at their initial values (joint_f, written just before, zero),
 * its links where they put them (the world hash); the other worlds go on.
 * Under TORPOR_TEST_BACKEND=cuda the batch resets on the device
 * (tp_reset_kernel) and is compared with CPU batches. */
Test(joint_mirror, a_reset_robot_world_is_the_fresh_world)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load("scenes/cartpole.json", &m), TP_OK, "%s", tp_last_error());
    tp_batch *b = make_batch(m, WORLDS, 1), *fresh = NULL, *same = NULL;
    tp_batch_def cpu = tp_default_batch_def();
    cpu.worlds = WORLDS;
    cpu.backend = TP_BACKEND_CPU;
    cr_assert_eq(tp_batch_create(m, &cpu, &fresh), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_create(m, &cpu, &same), TP_OK, "%s", tp_last_error());
    const int reset[2] = {1, 3};
    cr_assert_eq(tp_batch_reset_worlds(fresh, WORLD_LIST(reset, 2)), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_step(b, 30), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_step(same, 30), TP_OK, "%s", tp_last_error());
    cr_assert(!same_joints(b, fresh, 1), "the pole did not move in 30 steps: the reset would not show");
    const float f[2] = {3.0f, -1.0f}, qd[2] = {0.5f, 2.0f};
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_F, WORLD_LIST(&reset[0], 1), f), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_joints(b, TP_JOINT_ARRAY_QD, WORLD_LIST(&reset[1], 1), qd), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_reset_worlds(b, WORLD_LIST(reset, 2)), TP_OK, "%s", tp_last_error());
    for (int w = 0; w < WORLDS; ++w) {
        tp_batch *want = w == 1 || w == 3 ? fresh : same;
        cr_assert(same_joints(b, want, w), "world %d: joint arrays differ from the %s batch's", w,
                  want == fresh ? "fresh" : "stepped");
        uint64_t got = 0, expect = 0;
        cr_assert_eq(tp_batch_world_hash(b, w, &got), TP_OK);
        cr_assert_eq(tp_batch_world_hash(want, w, &expect), TP_OK);
        cr_assert_eq(got, expect, "world %d: hash %016llx, expected %016llx", w, (unsigned long long)got,
                     (unsigned long long)expect);
    }
    tp_batch_destroy(b);
    tp_batch_destroy(fresh);
    tp_batch_destroy(same);
    tp_model_destroy(m);
}

Test(joint_mirror, a_read_of_the_actuator_arrays_pulls_their_group)
{
    tp_model *m = NULL;
    tp_batch *b = recorded_cart(&m);
    tp_actuator_view v;
    cr_assert_eq(tp_batch_actuators(b, &v), TP_OK, "%s", tp_last_error());
    cr_assert_eq(ncalls, 1);
    cr_assert(!calls[0].write && calls[0].first == 0 && calls[0].last == WORLDS - 1);
    cr_assert(calls[0].groups & TP_MIRROR_BODIES, "ctrl, actuator_f and limit_f are mirrored with the bodies' group");
    done(b, m);
}

Test(joint_mirror, a_ctrl_write_asks_for_each_world_before_changing_any)
{
    tp_model *m = NULL;
    tp_batch *b = recorded_cart(&m);
    const int32_t worlds[2] = {3, 1};
    const float u[2] = {0.5f, -0.25f};
    tp_world_select sel = {worlds, 2, NULL};
    cr_assert_eq(tp_batch_set_ctrl(b, &sel, u), TP_OK, "%s", tp_last_error());
    cr_assert_eq(ncalls, 2);
    for (int i = 0; i < 2; ++i)
        cr_assert(calls[i].write && calls[i].first == worlds[i] && calls[i].last == worlds[i] && calls[i].unchanged,
                  "world %d asked for after a control had changed", worlds[i]);
    cr_assert_float_eq(b->artic->ctrl[3], 0.5f, 0.0f);
    cr_assert_float_eq(b->artic->ctrl[1], -0.25f, 0.0f);

    save_joints(b);
    const float bad[2] = {1.0f, NAN};
    cr_assert_eq(tp_batch_set_ctrl(b, &sel, bad), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(ncalls, 0, "a refused control write asks for nothing");
    cr_assert(joints_as_saved(b));
    done(b, m);
}

/* World w's actuator arrays and link scales of a and b, bit for bit. */
static int same_actuators(tp_batch *a, tp_batch *b, int w)
{
    tp_actuator_view x, y;
    cr_assert_eq(tp_batch_actuators(a, &x), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_actuators(b, &y), TP_OK, "%s", tp_last_error());
    size_t nu = (size_t)x.nu, nv = (size_t)x.nv, J = (size_t)a->model->artic->km.joint_count, f = sizeof(float);
    return !memcmp(x.ctrl + w * nu, y.ctrl + w * nu, nu * f) && !memcmp(x.force + w * nv, y.force + w * nv, nv * f) &&
           !memcmp(x.limit_force + w * nv, y.limit_force + w * nv, nv * f) &&
           !memcmp(a->artic->link_scale + w * J, b->artic->link_scale + w * J, J * f);
}

/* A reset world's controls are 0 again, its actuator forces 0 and its link
 * mass scales 1 (written before), as in a fresh world; the others keep
 * theirs. Under TORPOR_TEST_BACKEND=cuda the reset runs on the device. */
Test(joint_mirror, a_reset_world_has_the_fresh_controls_and_link_scales)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(pushed_cart, "cart.json", &m), TP_OK, "%s", tp_last_error());
    tp_batch *b = make_batch(m, WORLDS, 1), *fresh = NULL;
    tp_batch_def cpu = tp_default_batch_def();
    cpu.worlds = WORLDS;
    cpu.backend = TP_BACKEND_CPU;
    cr_assert_eq(tp_batch_create(m, &cpu, &fresh), TP_OK, "%s", tp_last_error());
    const float u[WORLDS] = {1.0f, 0.5f, -1.0f, 2.0f}, scale[WORLDS] = {1.5f, 1.5f, 1.5f, 1.5f};
    cr_assert_eq(tp_batch_set_ctrl(b, NULL, u), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_mass_scales(b, NULL, scale), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_step(b, 5), TP_OK, "%s", tp_last_error());
    for (int w = 0; w < WORLDS; ++w) cr_assert(!same_actuators(b, fresh, w), "world %d: nothing to reset", w);
    const int reset[2] = {1, 3};
    cr_assert_eq(tp_batch_reset_worlds(b, WORLD_LIST(reset, 2)), TP_OK, "%s", tp_last_error());
    for (int w = 0; w < WORLDS; ++w)
        cr_assert_eq(same_actuators(b, fresh, w), w == 1 || w == 3, "world %d: reset %d", w, w == 1 || w == 3);
    tp_actuator_view v;
    cr_assert_eq(tp_batch_actuators(b, &v), TP_OK, "%s", tp_last_error());
    cr_assert_float_eq(v.ctrl[0], 1.0f, 0.0f, "world 0 keeps its control");
    tp_batch_destroy(b);
    tp_batch_destroy(fresh);
    tp_model_destroy(m);
}

/* World w's robot arrays and parameters filled with 7s, so that what a reset leaves unwritten shows. */
static void spoil_robot(tp_batch *b, int w)
{
    const tp_artic_model *km = &b->model->artic->km;
    size_t nq = (size_t)km->nq, nv = (size_t)km->nv, nu = (size_t)km->actuator_count, J = (size_t)km->joint_count;
    tp_artic_batch *a = b->artic;
    float *rows[] = {a->q + w * nq, a->qd + w * nv, a->f + w * nv, a->target_q + w * nv, a->target_qd + w * nv,
                     a->act_f + w * nv, a->limit_f + w * nv, a->ctrl + w * nu, a->link_scale + w * J,
                     a->link_com + 3 * w * J};
    size_t lengths[] = {nq, nv, nv, nv, nv, nv, nv, nu, J, 3 * J};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r)
        for (size_t k = 0; k < lengths[r]; ++k) rows[r][k] = 7.0f;
    for (size_t k = 0; k < J * TP_AJP_COUNT; ++k) a->joint_params[w * J * TP_AJP_COUNT + k] = 7.0f;
    memset(a->actuator_params + w * nu, 7, nu * sizeof(tp_artic_actuator));
}

/* The CUDA reset kernel (tp_reset_kernel, kernels/cuda/stages.cu) run on the
 * host, world by world, over the batch's layout and with the input
 * csrc/backend_cuda.c uploads (tp_artic_batch_initial): the per-world part,
 * the bodies (kernels/philox.h's draws, the bits of the kernel's cuRAND ones:
 * tests/test_curand.c), thread 0's tp_artic_reset_in_layout, the counts. */
static tp_status device_reset(tp_batch *b, const int *worlds, int count)
{
    tp_randomize_params r = tp_batch_randomize_params(b);
    tp_artic_initial init = tp_artic_batch_initial(b);
    const tp_layout *L = &b->layout;
    for (int i = 0; i < count; ++i) {
        int w = worlds[i];
        spoil_robot(b, w);
        tp_world_init_globals(&L->contact_count[0][w], &L->contact_count[1][w], L->gravity + 3 * w,
                              b->model->def.gravity, &L->contact_overflow[w], &L->faults[w]);
        tp_world wd = tp_layout_world(L, w);
        for (int k = 0; k < L->bodies; ++k) {
            tp_body_draws u = tp_body_draws_philox(r.seed, tp_draw_world(&r, w), (uint32_t)k, b->episode[w]);
            tp_world_init_body(&wd, k, &b->model->body_init[k], &r, &u);
        }
        tp_artic_reset_in_layout(L, &init, w, b->episode[w], &wd, tp_artic_batch_scratch(b, 0));
        tp_world_count(&wd, L->awake_count + w, L->sleeping_count + w, L->checking_count + w);
    }
    return TP_OK;
}

/* A cart-pole whose pole hinge is added before the slider (so a joint's
 * kernel index is not its index as added, the key of its draws), a motor on
 * the slider, a position and a velocity actuator on the hinge, joint noise
 * of `distribution`, link mass scales and every robot parameter scale. */
static tp_model *noisy_cartpole(const char *distribution)
{
    char doc[2048];
    snprintf(doc, sizeof doc,
             "{\"version\": 2, \"sleep\": {\"enabled\": false},"
             " \"randomize\": {\"seed\": 11, \"joint_q_noise\": 0.3, \"joint_qd_noise\": 0.5, \"joint_noise\": \"%s\","
             " \"mass_scale\": [0.5, 2], \"joint_damping_scale\": [0.5, 1.5], \"joint_armature_scale\": [1, 2],"
             " \"joint_friction_scale\": [0.5, 1], \"actuator_gear_scale\": [0.8, 1.2], \"actuator_kp_scale\": [0.5, 2],"
             " \"actuator_kv_scale\": [0.5, 2], \"link_com_offset\": [0.02, 0.01, 0.05]},"
             " \"bodies\": [{\"name\": \"ground\", \"shape\": \"box\", \"size\": [8, 4, 1], \"pos\": [0, 0, -0.5], \"static\": true},"
             " {\"name\": \"cart\", \"shape\": \"box\", \"size\": [0.4, 0.3, 0.2], \"pos\": [0, 0, 1], \"mass\": 1},"
             " {\"name\": \"pole\", \"shape\": \"box\", \"size\": [0.05, 0.05, 1], \"pos\": [0, 0, 1.6], \"mass\": 0.1}],"
             " \"joints\": [{\"name\": \"hinge\", \"type\": \"revolute\", \"parent\": \"cart\", \"child\": \"pole\","
             " \"axis\": [0, 1, 0], \"anchor\": [0, 0, -0.5], \"q0\": 0.05, \"limits\": [-0.2, 0.2], \"damping\": 0.2,"
             " \"armature\": 0.01, \"friction\": 0.05},"
             " {\"name\": \"slider\", \"type\": \"prismatic\", \"parent\": \"world\", \"child\": \"cart\", \"axis\": [1, 0, 0],"
             " \"limits\": [-2.4, 2.4], \"damping\": 0.1}],"
             " \"actuators\": [{\"name\": \"push\", \"type\": \"motor\", \"joint\": \"slider\", \"gear\": 4},"
             " {\"name\": \"hold\", \"type\": \"position\", \"joint\": \"hinge\", \"kp\": 5, \"kv\": 0.5},"
             " {\"name\": \"spin\", \"type\": \"velocity\", \"joint\": \"hinge\", \"kv\": 0.3}]}",
             distribution);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(doc, "noisy_cartpole.json", &m), TP_OK, "%s", tp_last_error());
    cr_assert_eq(m->artic->added_of[0], 1, "the slider (added second) is the tree's root");
    return m;
}

/* World w of a and world v of b: joint and actuator arrays, link scales and COM offsets,
 * the world hash and the robot parameters, bit for bit. */
static void expect_same_world(tp_batch *a, int w, tp_batch *b, int v, const char *when)
{
    const tp_artic_model *km = &a->model->artic->km;
    size_t nq = (size_t)km->nq, nv = (size_t)km->nv, nu = (size_t)km->actuator_count, J = (size_t)km->joint_count;
    const tp_artic_batch *x = a->artic, *y = b->artic;
    const float *xs[] = {x->q + w * nq, x->qd + w * nv, x->f + w * nv, x->target_q + w * nv, x->target_qd + w * nv,
                         x->act_f + w * nv, x->limit_f + w * nv, x->ctrl + w * nu, x->link_scale + w * J,
                         x->link_com + 3 * w * J};
    const float *ys[] = {y->q + v * nq, y->qd + v * nv, y->f + v * nv, y->target_q + v * nv, y->target_qd + v * nv,
                         y->act_f + v * nv, y->limit_f + v * nv, y->ctrl + v * nu, y->link_scale + v * J,
                         y->link_com + 3 * v * J};
    size_t lengths[] = {nq, nv, nv, nv, nv, nv, nv, nu, J, 3 * J};
    static const char *const names[] = {"joint_q", "joint_qd", "joint_f", "target_q", "target_qd", "actuator_f",
                                        "limit_f", "ctrl", "link_scale", "link_com"};
    for (size_t r = 0; r < sizeof xs / sizeof xs[0]; ++r)
        cr_assert(!memcmp(xs[r], ys[r], lengths[r] * sizeof(float)), "%s: %s of world %d and world %d differ", when,
                  names[r], w, v);
    uint64_t got = 0, expect = 0;
    cr_assert_eq(tp_batch_world_hash(a, w, &got), TP_OK);
    cr_assert_eq(tp_batch_world_hash(b, v, &expect), TP_OK);
    cr_assert_eq(got, expect, "%s: world %d hash %016llx, world %d %016llx", when, w, (unsigned long long)got, v,
                 (unsigned long long)expect);
    cr_assert(!memcmp(x->joint_params + w * J * TP_AJP_COUNT, y->joint_params + v * J * TP_AJP_COUNT,
                      J * TP_AJP_COUNT * sizeof(float)),
              "%s: joint_params of world %d and world %d differ", when, w, v);
    cr_assert(!memcmp(x->actuator_params + w * nu, y->actuator_params + v * nu, nu * sizeof(tp_artic_actuator)),
              "%s: actuator_params of world %d and world %d differ", when, w, v);
}

/* A CPU batch of W worlds from global world `first` whose resets run the
 * CUDA reset kernel's code on the host (device_reset), its creation's too. */
static tp_batch *device_reset_batch(tp_model *m, int worlds, int first)
{
    tp_batch_def def = tp_default_batch_def();
    def.worlds = worlds;
    def.first_world = first;
    def.total_worlds = 7;
    def.backend = TP_BACKEND_CPU;
    tp_batch *b = NULL;
    cr_assert_eq(tp_batch_create(m, &def, &b), TP_OK, "%s", tp_last_error());
    cpu_ops = b->ops;
    recording = *cpu_ops;
    recording.reset_worlds = device_reset;
    b->ops = &recording;
    int all[7] = {0, 1, 2, 3, 4, 5, 6};
    device_reset(b, all, worlds); /* what the CUDA backend's creation runs (episode 0) */
    return b;
}

/* The CUDA reset path, run on the host, draws the robot randomization (joint
 * noise, uniform and normal, link mass scales and COM offsets, the robot parameters) with
 * the bits of the CPU backend's reset: at creation and after resets of some
 * worlds of a stepped batch whose parameters were written, at 7 worlds and at
 * 1 (global world 3, a shard of the 7). */
Test(joint_mirror, the_device_reset_draws_the_cpu_robot_randomization)
{
    const char *distributions[2] = {"uniform", "normal"};
    for (int d = 0; d < 2; ++d) {
        tp_model *m = noisy_cartpole(distributions[d]);
        tp_batch_def cpu = tp_default_batch_def();
        cpu.worlds = 7;
        cpu.backend = TP_BACKEND_CPU;
        tp_batch *ref = NULL, *dev7 = device_reset_batch(m, 7, 0), *dev1 = device_reset_batch(m, 1, 3);
        cr_assert_eq(tp_batch_create(m, &cpu, &ref), TP_OK, "%s", tp_last_error());
        const float *q0 = m->artic->q0;
        const tp_artic_actuator *acts = m->artic->actuators;
        int noisy = 0;
        for (int w = 0; w < 7; ++w) {
            expect_same_world(dev7, w, ref, w, "created");
            const tp_artic_actuator *a = ref->artic->actuator_params + 3 * w;
            noisy += ref->artic->q[2 * w + 1] != q0[1] && ref->artic->link_scale[2 * w] != 1.0f &&
                     ref->artic->joint_params[6 * w + 3] != 0.2f && ref->artic->link_com[6 * w + 5] != 0.0f &&
                     a[0].gear != acts[0].gear &&
                     a[1].gain[0] != acts[1].gain[0] && a[1].bias[2] != acts[1].bias[2] && a[2].gain[0] != acts[2].gain[0];
        }
        expect_same_world(dev1, 0, ref, 3, "created, 1 world");
        cr_assert_geq(noisy, 6, "%s: the noise and scales were drawn (%d worlds of 7)", distributions[d], noisy);
        float u[7 * 3]; /* [worlds][nu], the model's 3 actuators */
        for (int k = 0; k < 7 * 3; ++k) u[k] = 0.25f * (float)(k % 7 - 3);
        tp_batch *all[3] = {ref, dev7, dev1};
        for (int i = 0; i < 3; ++i) {
            cr_assert_eq(tp_batch_set_ctrl(all[i], NULL, u + (i == 2 ? 3 * 3 : 0)), TP_OK, "%s", tp_last_error());
            cr_assert_eq(tp_batch_step(all[i], 20), TP_OK, "%s", tp_last_error());
            float kp[7 * 3] = {0};
            for (int k = 0; k < 7; ++k) kp[3 * k + 1] = 9.0f; /* the position actuator's: undone by the reset */
            cr_assert_eq(tp_batch_set_robot_params(all[i], TP_ROBOT_ACTUATOR_KP, NULL, kp), TP_OK, "%s", tp_last_error());
        }
        const int reset[3] = {1, 3, 6}, shard_reset[1] = {0};
        for (int twice = 0; twice < 2; ++twice) { /* episodes 1 and 2 */
            cr_assert_eq(tp_batch_reset_worlds(ref, WORLD_LIST(reset, 3)), TP_OK, "%s", tp_last_error());
            cr_assert_eq(tp_batch_reset_worlds(dev7, WORLD_LIST(reset, 3)), TP_OK, "%s", tp_last_error());
            cr_assert_eq(tp_batch_reset_worlds(dev1, WORLD_LIST(shard_reset, 1)), TP_OK, "%s", tp_last_error());
        }
        for (int w = 0; w < 7; ++w) expect_same_world(dev7, w, ref, w, "reset");
        expect_same_world(dev1, 0, ref, 3, "reset, 1 world");
        for (int i = 0; i < 3; ++i) {
            all[i]->ops = cpu_ops;
            tp_batch_destroy(all[i]);
        }
        tp_model_destroy(m);
    }
}

/* A read of the robot parameters pulls the group they are mirrored with; a
 * write asks for each written world before changing any, a refused one for
 * none. Under TORPOR_TEST_BACKEND=cuda the values travel to the device. */
Test(joint_mirror, robot_params_reads_pull_and_writes_ask_first)
{
    tp_model *m = NULL;
    tp_batch *b = recorded_cart(&m);
    float gear[WORLDS];
    cr_assert_eq(tp_batch_robot_params(b, TP_ROBOT_ACTUATOR_GEAR, gear), TP_OK, "%s", tp_last_error());
    cr_assert_eq(ncalls, 1);
    cr_assert(!calls[0].write && calls[0].first == 0 && calls[0].last == WORLDS - 1 && (calls[0].groups & TP_MIRROR_BODIES));
    cr_assert_float_eq(gear[2], 4.0f, 0.0f);

    save_joints(b);
    const int32_t worlds[2] = {3, 1};
    const float values[2] = {2.0f, 3.0f};
    tp_world_select sel = {worlds, 2, NULL};
    cr_assert_eq(tp_batch_set_robot_params(b, TP_ROBOT_ACTUATOR_GEAR, &sel, values), TP_OK, "%s", tp_last_error());
    cr_assert_eq(ncalls, 2);
    for (int i = 0; i < 2; ++i)
        cr_assert(calls[i].write && calls[i].first == worlds[i] && calls[i].last == worlds[i] && calls[i].unchanged,
                  "world %d asked for after a parameter had changed", worlds[i]);
    cr_assert_float_eq(b->artic->actuator_params[3].gear, 2.0f, 0.0f);
    cr_assert_float_eq(b->artic->actuator_params[1].gear, 3.0f, 0.0f);

    save_joints(b);
    const float damping[2] = {0.5f, -1.0f};
    cr_assert_eq(tp_batch_set_robot_params(b, TP_ROBOT_JOINT_DAMPING, &sel, damping), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(ncalls, 0, "a refused parameter write asks for nothing");
    cr_assert(joints_as_saved(b));
    done(b, m);
}
