/* test_actuators.c - actuators and their held controls, against closed forms:
 * a motor on a free slider accelerates at gear u / m; a position servo's step
 * response has the time constant of m x'' + kv x' + kp x = kp u; ctrl_range
 * and force_range clamp; a held control over step(4) equals four step(1) bit
 * for bit; a stiff servo stays stable; bad input is refused with nothing
 * changed; an actuated tree stays awake under the island policy. */
#include "helpers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DT (1.0 / 60.0)

/* A box of mass `mass` on a prismatic joint along x from the world, zero gravity. */
static tp_model *slider_model(float mass, const tp_actuator_def *act)
{
    tp_model_def md = tp_default_model_def();
    md.gravity[2] = 0.0f;
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    bd.name = "cart";
    bd.size[0] = bd.size[1] = bd.size[2] = 0.2f;
    bd.mass = mass;
    bd.pos[2] = 1.0f;
    int cart = builder_add(b, &bd);
    tp_joint_def j = tp_default_joint_def();
    j.name = "slide";
    j.type = TP_JOINT_PRISMATIC;
    j.child = cart;
    j.axis[0] = 1.0f;
    j.axis[2] = 0.0f;
    cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    if (act) cr_assert_eq(tp_builder_add_actuator(b, act, NULL), TP_OK, "%s", tp_last_error());
    return builder_finish(b);
}

static tp_actuator_def motor(float gear)
{
    tp_actuator_def a = tp_default_actuator_def();
    a.name = "push";
    a.joint = 0;
    a.gear = gear;
    return a;
}

static tp_actuator_def servo(float kp, float kv)
{
    tp_actuator_def a = tp_default_actuator_def();
    a.type = TP_ACTUATOR_POSITION;
    a.joint = 0;
    a.kp = kp;
    a.kv = kv;
    return a;
}

static void set_ctrl_all(tp_batch *b, float u)
{
    int W = tp_batch_worlds(b);
    float rows[64];
    for (int w = 0; w < W; ++w) rows[w] = u;
    cr_assert_eq(tp_batch_set_ctrl(b, NULL, rows), TP_OK, "%s", tp_last_error());
}

static float qd_of(tp_batch *b, int w)
{
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK, "%s", tp_last_error());
    return v.qd[(size_t)w * (size_t)v.nv];
}

static float q_of(tp_batch *b, int w)
{
    tp_joint_view v;
    cr_assert_eq(tp_batch_joints(b, &v), TP_OK, "%s", tp_last_error());
    return v.q[(size_t)w * (size_t)v.nq];
}

/* ---------------------------------------------------------------- force law */

/* m x'' = gear u: after t, qd = gear u t / m (semi-implicit Euler is exact for
 * a constant force), held over 60 steps without being written again. */
Test(actuators, motor_on_a_free_slider_accelerates_at_gear_u_over_m)
{
    const float m = 2.5f, gear = 3.0f, u = 0.7f;
    tp_actuator_def a = motor(gear);
    tp_model *model = slider_model(m, &a);
    cr_assert_eq(tp_model_actuator_count(model), 1);
    tp_batch *b = make_batch(model, 2, 1);
    set_ctrl_all(b, u);
    batch_steps(b, 60);
    double expect = gear * u / m * 60 * DT;
    cr_assert(fabs(qd_of(b, 1) - expect) <= 1e-4 * expect, "qd %.7f, expected gear u t / m = %.7f", qd_of(b, 1), expect);
    tp_actuator_view av;
    cr_assert_eq(tp_batch_actuators(b, &av), TP_OK, "%s", tp_last_error());
    cr_assert_eq(av.nu, 1);
    cr_assert_float_eq(av.ctrl[1], u, 0.0f, "ctrl is held as written");
    cr_assert_float_eq(av.force[1], gear * u, 1e-6f, "the dof's actuator force is gear u");
    tp_batch_destroy(b);
    tp_model_destroy(model);
}

/* A constant control over step(4) gives the bits of four step(1) calls. */
Test(actuators, held_control_over_step4_equals_four_step1)
{
    tp_actuator_def a = servo(40.0f, 3.0f);
    a.force_limited = 1;
    a.force_range[0] = -5.0f;
    a.force_range[1] = 5.0f;
    tp_model *model = slider_model(1.0f, &a);
    tp_batch *b1 = make_batch(model, 3, 1), *b4 = make_batch(model, 3, 1);
    set_ctrl_all(b1, 0.8f);
    set_ctrl_all(b4, 0.8f);
    for (int k = 0; k < 10; ++k) {
        for (int i = 0; i < 4; ++i) batch_steps(b1, 1);
        batch_steps(b4, 4);
        cr_assert_eq(batch_state_hash(b1), batch_state_hash(b4), "after %d x 4 steps", k + 1);
        cr_assert_eq(q_of(b1, 2), q_of(b4, 2));
    }
    cr_assert(q_of(b1, 0) > 0.1f, "the servo moved the slider (q %g)", q_of(b1, 0));
    tp_batch_destroy(b1);
    tp_batch_destroy(b4);
    tp_model_destroy(model);
}

/* Position servo on mass m: m x'' + kv x' + kp x = kp u, overdamped, roots
 * s = (-kv +- sqrt(kv^2 - 4 m kp)) / (2 m); x(t) = u (1 - (s2 e^{s1 t} - s1
 * e^{s2 t}) / (s2 - s1)). The time at which x reaches u (1 - 1/e) (the slow
 * pole's time constant, shifted by the fast one) within 2 %. */
Test(actuators, position_servo_step_response_has_the_closed_form_time_constant)
{
    const double m = 1.0, kp = 100.0, kv = 50.0, u = 0.5;
    tp_actuator_def a = servo((float)kp, (float)kv);
    tp_model *model = slider_model((float)m, &a);
    tp_batch *b = make_batch(model, 1, 1);
    set_ctrl_all(b, (float)u);
    double disc = sqrt(kv * kv - 4.0 * m * kp), s1 = (-kv + disc) / (2 * m), s2 = (-kv - disc) / (2 * m);
    double level = u * (1.0 - exp(-1.0)), t_exact = 0.0;
    for (double t = 0.0; t < 5.0; t += 1e-5) {
        double x = u * (1.0 - (s2 * exp(s1 * t) - s1 * exp(s2 * t)) / (s2 - s1));
        if (x >= level) { t_exact = t; break; }
    }
    double t_sim = -1.0, prev = 0.0;
    for (int step = 1; step <= 600 && t_sim < 0.0; ++step) {
        batch_steps(b, 1);
        double x = q_of(b, 0);
        if (x >= level) t_sim = (step - 1 + (level - prev) / (x - prev)) * DT; /* linear between steps */
        prev = x;
    }
    cr_assert(t_exact > 0.3, "closed form crossing %g s", t_exact);
    cr_assert(fabs(t_sim - t_exact) <= 0.02 * t_exact, "crossing at %.4f s, closed form %.4f s", t_sim, t_exact);
    batch_steps(b, 300);
    cr_assert(fabs(q_of(b, 0) - u) < 1e-3, "settles at the control %g, q %g", u, q_of(b, 0));
    tp_batch_destroy(b);
    tp_model_destroy(model);
}

/* kp 1e5 on 1 kg (natural period 20 ms, just above dt 16.7 ms), kv 0: the
 * implicit servo stays bounded and settles at the target under its own
 * numerical damping. */
Test(actuators, stiff_position_servo_stays_stable)
{
    tp_actuator_def a = servo(1e5f, 0.0f);
    tp_model *model = slider_model(1.0f, &a);
    tp_batch *b = make_batch(model, 1, 1);
    set_ctrl_all(b, 0.3f);
    float peak = 0.0f;
    for (int step = 0; step < 600; ++step) {
        batch_steps(b, 1);
        peak = fmaxf(peak, fabsf(q_of(b, 0)));
    }
    cr_assert(peak < 0.61f, "no growth past the first overshoot, peak %g", peak);
    cr_assert(fabsf(q_of(b, 0) - 0.3f) < 1e-3f, "settles at 0.3, q %g", q_of(b, 0));
    tp_batch_destroy(b);
    tp_model_destroy(model);
}

/* ctrl_range clamps the control, force_range the force: a motor with u = 5
 * limited to [-1, 1] accelerates at gear / m; one with force_range
 * [-0.5, 0.5] at 0.5 gear / m; a position servo far from its target pushes
 * at gear times its bound. */
Test(actuators, ctrl_range_and_force_range_clamp)
{
    const float m = 2.0f, gear = 2.0f;
    struct { int ctrl_limited, force_limited, position; float u, expect_f; } cases[] = {
        {1, 0, 0, 5.0f, 1.0f}, {1, 0, 0, -5.0f, -1.0f}, {0, 1, 0, 1.0f, 0.5f}, {0, 1, 0, -3.0f, -0.5f},
        {0, 1, 1, 10.0f, 0.5f}, {0, 1, 1, -10.0f, -0.5f}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        tp_actuator_def a = motor(gear);
        a.ctrl_limited = cases[c].ctrl_limited;
        a.ctrl_range[0] = -1.0f;
        a.ctrl_range[1] = 1.0f;
        a.force_limited = cases[c].force_limited;
        a.force_range[0] = -0.5f;
        a.force_range[1] = 0.5f;
        if (cases[c].position) {
            a.type = TP_ACTUATOR_POSITION;
            a.kp = 100.0f;
            a.kv = 10.0f;
        }
        tp_model *model = slider_model(m, &a);
        tp_batch *b = make_batch(model, 1, 1);
        set_ctrl_all(b, cases[c].u);
        batch_steps(b, 6);
        double expect = gear * cases[c].expect_f / m * 6 * DT;
        cr_assert(fabs(qd_of(b, 0) - expect) <= 1e-4 * fabs(expect), "case %zu: qd %.7f, expected %.7f", c,
                  qd_of(b, 0), expect);
        tp_actuator_view av;
        tp_batch_actuators(b, &av);
        cr_assert_float_eq(av.force[0], gear * cases[c].expect_f, 1e-6f, "case %zu: force %g", c, av.force[0]);
        tp_batch_destroy(b);
        tp_model_destroy(model);
    }
}

/* ---------------------------------------------------------------- errors, reset, sleep */

Test(actuators, bad_definitions_and_writes_are_refused)
{
    tp_model_def md = tp_default_model_def();
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    int body = builder_add(b, &bd);
    tp_joint_def j = tp_default_joint_def();
    j.type = TP_JOINT_FREE;
    j.child = body;
    j.axis[2] = 0.0f;
    cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    tp_actuator_def a = motor(1.0f);
    cr_assert_eq(tp_builder_add_actuator(b, &a, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "joint") && strstr(tp_last_error(), "free"), "%s", tp_last_error());
    a.joint = 3;
    cr_assert_eq(tp_builder_add_actuator(b, &a, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "[0, 1)"), "%s", tp_last_error());
    tp_builder_destroy(b);

    a = motor(1.0f);
    a.kp = 3.0f;
    tp_model *bad = NULL;
    md.gravity[2] = 0.0f;
    b = builder_begin(&md);
    body = builder_add(b, &bd);
    j = tp_default_joint_def();
    j.child = body;
    cr_assert_eq(tp_builder_add_joint(b, &j, NULL), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_builder_add_actuator(b, &a, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "kp"), "%s", tp_last_error());
    a = motor(0.0f);
    cr_assert_eq(tp_builder_add_actuator(b, &a, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "gear"), "%s", tp_last_error());
    a = motor(1.0f);
    a.ctrl_limited = 1;
    a.ctrl_range[0] = 1.0f;
    cr_assert_eq(tp_builder_add_actuator(b, &a, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "ctrl_range"), "%s", tp_last_error());
    tp_builder_destroy(b);
    (void)bad;

    tp_actuator_def ok = motor(1.0f);
    tp_model *model = slider_model(1.0f, &ok);
    tp_batch *batch = make_batch(model, 3, 1);
    float good[3] = {1.0f, 2.0f, 3.0f}, nan_rows[3] = {4.0f, NAN, 5.0f};
    cr_assert_eq(tp_batch_set_ctrl(batch, NULL, good), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_set_ctrl(batch, NULL, nan_rows), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "row 1") && strstr(tp_last_error(), "push"), "%s", tp_last_error());
    int32_t idx[2] = {2, 2};
    tp_world_select sel = {idx, 2, NULL};
    cr_assert_eq(tp_batch_set_ctrl(batch, &sel, good), TP_ERR_INVALID_ARGUMENT);
    tp_actuator_view av;
    tp_batch_actuators(batch, &av);
    for (int w = 0; w < 3; ++w) cr_assert_eq(av.ctrl[w], good[w], "world %d unchanged by refused writes", w);
    /* a list writes its rows to the worlds named; a mask skips rows */
    int32_t one[1] = {1};
    float seven = 7.0f;
    tp_world_select list = {one, 1, NULL};
    cr_assert_eq(tp_batch_set_ctrl(batch, &list, &seven), TP_OK, "%s", tp_last_error());
    uint8_t mask[3] = {1, 0, 0};
    float masked[3] = {9.0f, NAN, NAN};
    tp_world_select ms = {NULL, 0, mask};
    cr_assert_eq(tp_batch_set_ctrl(batch, &ms, masked), TP_OK, "%s", tp_last_error());
    cr_assert(av.ctrl[0] == 9.0f && av.ctrl[1] == 7.0f && av.ctrl[2] == 3.0f, "%g %g %g", av.ctrl[0], av.ctrl[1],
              av.ctrl[2]);
    /* a reset sets the world's controls to 0 */
    int w1 = 1;
    cr_assert_eq(tp_batch_reset_worlds(batch, WORLD_LIST(&w1, 1)), TP_OK, "%s", tp_last_error());
    cr_assert(av.ctrl[1] == 0.0f && av.ctrl[0] == 9.0f, "reset zeroes only world 1");
    tp_batch_destroy(batch);
    tp_model_destroy(model);

    tp_model *plain = slider_model(1.0f, NULL);
    batch = make_batch(plain, 3, 1);
    cr_assert_eq(tp_batch_set_ctrl(batch, NULL, good), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "no actuators"), "%s", tp_last_error());
    tp_batch_destroy(batch);
    tp_model_destroy(plain);
}

/* A 1 kg 0.1 x 0.1 x 1 m rod (body 0) hinged about x at its top (z = 2) by
 * joint *j (its geometry set here), gravity on with `sleepy` (sleep enabled),
 * zero g otherwise; with a gear-1 motor if `actuated`. */
static tp_model *rod_model(int sleepy, tp_joint_def *j, int actuated)
{
    tp_model_def md = tp_default_model_def();
    md.sleep.enabled = sleepy;
    if (!sleepy) md.gravity[2] = 0.0f;
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    bd.size[0] = bd.size[1] = 0.1f;
    bd.size[2] = 1.0f;
    bd.pos[2] = 1.5f;
    j->child = builder_add(b, &bd);
    j->axis[0] = 1.0f;
    j->axis[2] = 0.0f;
    j->anchor[2] = 0.5f;
    cr_assert_eq(tp_builder_add_joint(b, j, NULL), TP_OK, "%s", tp_last_error());
    tp_actuator_def a = motor(1.0f);
    if (actuated) cr_assert_eq(tp_builder_add_actuator(b, &a, NULL), TP_OK, "%s", tp_last_error());
    return builder_finish(b);
}

/* A pendulum hanging at rest sleeps under the island policy; the same one
 * with a motor (ctrl 0) stays awake, as a driven tree does. */
Test(actuators, actuated_tree_stays_awake_under_the_island_policy)
{
    for (int actuated = 0; actuated < 2; ++actuated) {
        tp_joint_def j = tp_default_joint_def();
        tp_model *model = rod_model(1, &j, actuated);
        int rod = 0;
        tp_batch *batch = make_batch(model, 1, 1);
        batch_steps(batch, 180);
        tp_state_view s = batch_view(batch);
        if (actuated) cr_assert_eq(s.sleep_state[rod], TP_AWAKE, "the actuated pendulum stays awake");
        else cr_assert_eq(s.sleep_state[rod], TP_SLEEPING, "the plain pendulum sleeps at rest");
        tp_batch_destroy(batch);
        tp_model_destroy(model);
    }
}

/* ---------------------------------------------------------------- scene */

Test(actuators, scene_actuators_load_and_errors_name_the_key)
{
    const char *text =
        "{\"version\": 2, \"gravity\": [0, 0, 0], \"bodies\": [{\"name\": \"cart\", \"shape\": \"box\", \"size\": [0.2, 0.2, 0.2],"
        " \"mass\": 2, \"pos\": [0, 0, 1]}],\n"
        " \"joints\": [{\"name\": \"slide\", \"type\": \"prismatic\", \"child\": \"cart\", \"axis\": [1, 0, 0]}],\n"
        " \"actuators\": [{\"name\": \"push\", \"type\": \"motor\", \"joint\": \"slide\", \"gear\": 4, \"ctrl_range\": [-1, 1]}]}";
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(text, "t.json", &m), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_model_actuator_count(m), 1);
    cr_assert_eq(tp_model_find_actuator(m, "push"), 0);
    tp_actuator_def d;
    cr_assert_eq(tp_model_actuator(m, 0, &d), TP_OK);
    cr_assert(d.gear == 4.0f && d.ctrl_limited && d.ctrl_range[1] == 1.0f && !d.force_limited);
    tp_batch *b = make_batch(m, 1, 1);
    float u = 3.0f; /* clamped to 1 */
    cr_assert_eq(tp_batch_set_ctrl(b, NULL, &u), TP_OK, "%s", tp_last_error());
    batch_steps(b, 30);
    double expect = 4.0 * 1.0 / 2.0 * 30 * DT;
    cr_assert(fabs(qd_of(b, 0) - expect) < 1e-4 * expect, "qd %g, expected %g", qd_of(b, 0), expect);
    tp_batch_destroy(b);
    tp_model_destroy(m);

    const char *bad[][2] = {
        {"\"joint\": \"slid\"", "actuators[0].joint"}, {"\"joint\": \"slide\", \"kp\": 3", "actuators[0].kp"},
        {"\"joint\": \"slide\", \"ctrl_range\": [1, -1]", "actuators[0].ctrl_range"},
        {"\"joint\": \"slide\", \"type\": \"servo\"", "actuators[0].type"},
        {"\"joint\": \"slide\", \"gear\": 0", "actuators[0].gear"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        char doc[1024];
        snprintf(doc, sizeof doc,
                 "{\"version\": 2, \"bodies\": [{\"name\": \"cart\", \"shape\": \"box\", \"size\": [0.2, 0.2, 0.2]}],\n"
                 " \"joints\": [{\"name\": \"slide\", \"type\": \"prismatic\", \"child\": \"cart\"}],\n"
                 " \"actuators\": [{%s}]}", bad[k][0]);
        m = NULL;
        cr_assert_eq(tp_model_load_string(doc, "bad.json", &m), TP_ERR_PARSE, "case %zu loaded", k);
        cr_assert(strstr(tp_last_error(), bad[k][1]) && strstr(tp_last_error(), "bad.json:3:"), "case %zu: %s", k,
                  tp_last_error());
    }
}

/* ---------------------------------------------------------------- limit force */

/* A hinged rod in zero g against its upper limit (0 rad), a motor pushing past
 * it with 20 N m held: at rest the limit holds with exactly -20 N m, the
 * motor's force reads +20 N m. */
Test(actuators, limit_force_equals_the_load_pushing_past_the_limit)
{
    tp_joint_def j = tp_default_joint_def();
    j.q0 = -0.2f;
    j.has_limits = 1;
    j.lower = -1.0f;
    j.upper = 0.0f;
    tp_model *model = rod_model(0, &j, 1);
    tp_batch *batch = make_batch(model, 1, 1);
    set_ctrl_all(batch, 20.0f);
    tp_actuator_view av;
    tp_batch_actuators(batch, &av);
    batch_steps(batch, 1);
    cr_assert_eq(av.limit_force[0], 0.0f, "off the limit: no limit force");
    batch_steps(batch, 59);
    cr_assert(fabsf(q_of(batch, 0)) < 1e-3f, "at the limit, q %g", q_of(batch, 0));
    cr_assert(fabsf(av.limit_force[0] + 20.0f) < 1e-3f * 20.0f, "limit force %g, expected -20", av.limit_force[0]);
    cr_assert_float_eq(av.force[0], 20.0f, 1e-5f);
    tp_batch_destroy(batch);
    tp_model_destroy(model);
}
