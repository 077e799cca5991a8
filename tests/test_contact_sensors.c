/* test_contact_sensors.c - per-shape contact sensors (csrc/contact_sensors.c):
 * a board resting on two static balls placed asymmetrically reports each
 * ball's share of m g from statics (the moments about each support), both on
 * the balls and on the two halves of the board (the shapes of one compound
 * body told apart); a sensor that touches nothing reads 0. */
#include "helpers.h"

#include <math.h>
#include <string.h>

/* Balls of radius 0.1 at x1 = -0.3 and x2 = 0.5 (tops at z = 0.2); a 2 kg
 * board 1.2 m long, its centre of mass at x = 0, made of two halves (left x <
 * 0, right x > 0) marked as sensors; a third ball far away, also a sensor.
 * Statics: F1 = m g (x2 - 0) / (x2 - x1), F2 = m g (0 - x1) / (x2 - x1). */
static const char *scene =
    "{\"version\": 2, \"sleep\": {\"enabled\": false},\n"
    " \"bodies\": [\n"
    "  {\"name\": \"b1\", \"shape\": \"ball\", \"size\": [0.2, 0.2, 0.2], \"pos\": [-0.3, 0, 0.1], \"static\": true,"
    " \"sensor\": true},\n"
    "  {\"name\": \"b2\", \"shape\": \"ball\", \"size\": [0.2, 0.2, 0.2], \"pos\": [0.5, 0, 0.1], \"static\": true,"
    " \"sensor\": true},\n"
    "  {\"name\": \"far\", \"shape\": \"ball\", \"size\": [0.2, 0.2, 0.2], \"pos\": [5, 0, 0.1], \"static\": true,"
    " \"sensor\": true},\n"
    "  {\"name\": \"board\", \"pos\": [0, 0, 0.25], \"mass\": 2, \"shapes\": [\n"
    "    {\"shape\": \"box\", \"size\": [0.6, 0.4, 0.1], \"pos\": [-0.3, 0, 0], \"sensor\": true},\n"
    "    {\"shape\": \"box\", \"size\": [0.6, 0.4, 0.1], \"pos\": [0.3, 0, 0], \"sensor\": true}]}]}";

Test(contact_sensors, a_board_on_two_balls_reports_each_share_of_m_g)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(scene, "board.json", &m), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_model_contact_sensor_count(m), 5);
    int body, shape;
    cr_assert_eq(tp_model_contact_sensor(m, 4, &body, &shape), TP_OK);
    cr_assert(body == 3 && shape == 1, "sensor 4 is the board's right half: body %d shape %d", body, shape);
    cr_assert_eq(tp_model_contact_sensor(m, 5, &body, &shape), TP_ERR_INVALID_ARGUMENT);
    tp_batch *b = make_batch(m, 3, 1);
    tp_contact_sensor_view v;
    cr_assert_eq(tp_batch_contact_sensors(b, &v), TP_OK, "%s", tp_last_error());
    cr_assert(v.worlds == 3 && v.sensors == 5);
    const double mg = 2.0 * 9.81, f1 = mg * 0.5 / 0.8, f2 = mg * 0.3 / 0.8;
    for (int step = 0; step < 120; ++step) {
        batch_steps(b, 1);
        if (step < 60) continue; /* settled after 1 s */
        for (int w = 0; w < 3; ++w) {
            const float *f = v.force + 3 * 5 * w;
            const uint8_t *t = v.touching + 5 * w;
            /* the balls are pushed down, the halves up, each with its support's share */
            cr_assert(fabs(-f[2] - f1) < 0.01 * f1, "step %d world %d: ball 1 carries %g N, statics %g N", step, w,
                      -f[2], f1);
            cr_assert(fabs(-f[5] - f2) < 0.01 * f2, "ball 2 carries %g N, statics %g N", -f[5], f2);
            cr_assert(fabs(f[11] - f1) < 0.01 * f1 && fabs(f[14] - f2) < 0.01 * f2, "halves: %g and %g N", f[11], f[14]);
            /* the two supports' friction may hold a stress (statics leaves it open), but sums to 0, and
               each half feels what its ball feels */
            cr_assert(fabs(f[0] + f[3]) < 1e-3 * mg && f[1] == 0.0f && f[4] == 0.0f, "horizontal balance: %g %g",
                      f[0], f[3]);
            for (int k = 0; k < 3; ++k)
                cr_assert(f[9 + k] == -f[k] && f[12 + k] == -f[3 + k], "action and reaction, component %d", k);
            cr_assert(f[6] == 0.0f && f[7] == 0.0f && f[8] == 0.0f, "the far ball touches nothing");
            cr_assert(t[0] == 1 && t[1] == 1 && t[2] == 0 && t[3] == 1 && t[4] == 1);
        }
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(contact_sensors, bad_marks_are_refused_at_their_key)
{
    const char *bad[] = {"{\"version\": 2, \"bodies\": [{\"shapes\": [{\"shape\": \"box\"}], \"sensor\": true}]}",
                         "{\"version\": 2, \"bodies\": [{\"sensor\": 2}]}"};
    const char *key[] = {"bodies[0].sensor: a compound body marks its shapes", "bodies[0].sensor"};
    for (int i = 0; i < 2; ++i) {
        tp_model *m = NULL;
        cr_assert_neq(tp_model_load_string(bad[i], "bad.json", &m), TP_OK);
        cr_assert(strstr(tp_last_error(), key[i]), "%s", tp_last_error());
    }
}

/* A 3 kg box marked as a sensor on a static ground pad, also a sensor, with
 * sleep on; sleep.skip_constraints as given. */
static tp_model *box_on_pad(int skip_constraints)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"version\": 2, \"sleep\": {\"skip_constraints\": %s},\n"
             " \"bodies\": [{\"name\": \"ground\", \"size\": [10, 10, 1], \"pos\": [0, 0, -0.5], \"static\": true,"
             " \"sensor\": true},\n"
             "  {\"name\": \"box\", \"size\": [0.5, 0.5, 0.5], \"pos\": [0, 0, 0.25], \"mass\": 3, \"sensor\": true}]}",
             skip_constraints ? "true" : "false");
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(json, "box.json", &m), TP_OK, "%s", tp_last_error());
    return m;
}

/* Steps until world 0's box sleeps; the step count. */
static int step_until_asleep(tp_batch *b)
{
    for (int step = 0; step < 300; ++step) {
        batch_steps(b, 1);
        if (batch_view(b).sleep_state[1] == TP_SLEEPING) return step;
    }
    cr_assert_fail("the box never slept");
    return -1;
}

/* Sensor k of world w reads m g up on the box (k = 1) or down on the pad (k = 0), touching. */
static void expect_weight(const tp_contact_sensor_view *v, int w, int k, double mg, const char *when)
{
    float fz = v->force[3 * (2 * w + k) + 2];
    double expect = k ? mg : -mg;
    cr_assert(fabs(fz - expect) < 0.01 * mg, "%s: world %d sensor %d reads %g N, expected %g N", when, w, k, fz, expect);
    cr_assert_eq(v->touching[2 * w + k], 1, "%s: world %d sensor %d not touching", when, w, k);
}

/* With skip_constraints on (the default) a sleeping body's pairs make no
 * points: the box's sensor holds its m g while the box sleeps, the pad reads
 * nothing of it; kicked up off the pad, world 1 reads 0 on both while world 0
 * sleeps on. */
Test(contact_sensors, a_sleeping_body_holds_its_reading)
{
    tp_model *m = box_on_pad(1);
    tp_batch *b = make_batch(m, 2, 1);
    tp_contact_sensor_view v;
    cr_assert_eq(tp_batch_contact_sensors(b, &v), TP_OK, "%s", tp_last_error());
    const double mg = 3.0 * 9.81;
    step_until_asleep(b);
    batch_steps(b, 1); /* the step it fell asleep in still made its points */
    for (int step = 0; step < 30; ++step) {
        for (int w = 0; w < 2; ++w) {
            cr_assert_eq(batch_view(b).sleep_state[w * 2 + 1], TP_SLEEPING, "world %d woke", w);
            expect_weight(&v, w, 1, mg, "asleep");
            cr_assert(v.force[3 * 2 * w + 2] == 0.0f && v.touching[2 * w] == 0, "the pad reads the sleeping box");
        }
        batch_steps(b, 1);
    }
    int one[1] = {1};
    tp_world_select w1 = tp_world_list(one, 1);
    float dv[2 * 3 * 2] = {0}; /* v and w: [1 row][2 bodies][3] each */
    dv[3 + 2] = 3.0f;           /* the box up at 3 m/s: airborne for 0.6 s */
    cr_assert_eq(tp_batch_set_velocities(b, &w1, dv, dv + 6), TP_OK, "%s", tp_last_error());
    batch_steps(b, 5);
    cr_assert_eq(batch_view(b).sleep_state[1], TP_SLEEPING, "world 0 woke with world 1");
    expect_weight(&v, 0, 1, mg, "world 0 still asleep");
    cr_assert(v.force[3 * 3 + 2] == 0.0f && v.touching[3] == 0, "world 1, in the air, reads %g N, touching %d",
              v.force[3 * 3 + 2], v.touching[3]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* With skip_constraints off a sleeping body's rows are solved: both sensors
 * read the live m g, box and pad. */
Test(contact_sensors, with_sleeping_rows_solved_both_read_the_weight)
{
    tp_model *m = box_on_pad(0);
    tp_batch *b = make_batch(m, 1, 1);
    tp_contact_sensor_view v;
    cr_assert_eq(tp_batch_contact_sensors(b, &v), TP_OK, "%s", tp_last_error());
    const double mg = 3.0 * 9.81;
    step_until_asleep(b);
    for (int step = 0; step < 30; ++step) {
        batch_steps(b, 1);
        cr_assert_eq(batch_view(b).sleep_state[1], TP_SLEEPING, "the box woke");
        expect_weight(&v, 0, 1, mg, "asleep, rows solved");
        expect_weight(&v, 0, 0, mg, "asleep, rows solved");
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}
