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

/* A 3 kg box marked as a sensor rests on the ground with sleep on: it reads
 * m g up and touching while awake, and holds that reading once asleep (its
 * pair makes no contact points then); woken by an upward kick that lifts it
 * off the ground, it reads 0 and not touching. */
Test(contact_sensors, a_sleeping_body_holds_its_reading)
{
    static const char *box_scene =
        "{\"version\": 2,\n"
        " \"bodies\": [{\"name\": \"ground\", \"size\": [10, 10, 1], \"pos\": [0, 0, -0.5], \"static\": true},\n"
        "  {\"name\": \"box\", \"size\": [0.5, 0.5, 0.5], \"pos\": [0, 0, 0.25], \"mass\": 3, \"sensor\": true}]}";
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(box_scene, "box.json", &m), TP_OK, "%s", tp_last_error());
    tp_batch *b = make_batch(m, 2, 1);
    tp_contact_sensor_view v;
    cr_assert_eq(tp_batch_contact_sensors(b, &v), TP_OK, "%s", tp_last_error());
    const double mg = 3.0 * 9.81;
    int slept = -1;
    for (int step = 0; step < 300 && slept < 0; ++step) {
        batch_steps(b, 1);
        if (batch_view(b).sleep_state[1] == TP_SLEEPING) slept = step;
    }
    cr_assert_geq(slept, 0, "the box never slept");
    for (int step = 0; step < 30; ++step) {
        tp_state_view s = batch_view(b);
        for (int w = 0; w < 2; ++w) {
            cr_assert_eq(s.sleep_state[w * 2 + 1], TP_SLEEPING, "world %d woke", w);
            cr_assert(fabs(v.force[3 * w + 2] - mg) < 0.01 * mg, "step %d world %d: asleep, reads %g N, m g = %g N",
                      slept + step, w, v.force[3 * w + 2], mg);
            cr_assert_eq(v.touching[w], 1, "world %d: asleep, not touching", w);
        }
        batch_steps(b, 1);
    }
    int one[1] = {1};
    tp_world_select w1 = tp_world_list(one, 1);
    float dv[2 * 3 * 2] = {0}; /* [1 row][2 bodies][3] */
    dv[3 + 2] = 3.0f;           /* the box up at 3 m/s: airborne for 0.6 s */
    cr_assert_eq(tp_batch_set_velocities(b, &w1, dv, dv + 6), TP_OK, "%s", tp_last_error());
    batch_steps(b, 5);
    cr_assert(v.force[0 * 3 + 2] > 0.99 * mg && v.touching[0] == 1, "world 0, still asleep, changed its reading");
    cr_assert(v.force[1 * 3 + 2] == 0.0f && v.touching[1] == 0, "world 1, in the air, reads %g N, touching %d",
              v.force[1 * 3 + 2], v.touching[1]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}
