/* test_constraint_scenes.c - the constraint scenes of scenes/README.md
 * (scripts/gen_constraint_scenes.py) do what the README says, against values
 * derived independently: the bridge sleeps held by its posts, the door follows
 * its events at its servo speed, the cart drives at wheel speed x radius, the
 * crane lifts the crate at the winch speed and sets it down, the bungee comes
 * back a quarter of its fall, the spring pad sags (m g / k), the rod pendulum's
 * period. */
#include "helpers.h"

#include <math.h>

#define G 9.81
#define PI 3.14159265358979323846

static tp_model *load(const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenes/%s", TP_SOURCE_DIR, file);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(path, &m), TP_OK, "%s", tp_last_error());
    return m;
}

static int body(const tp_model *m, const char *name)
{
    int b = tp_model_find_body(m, name);
    cr_assert_geq(b, 0, "no body %s", name);
    return b;
}

static int steps_of(const tp_model *m, double seconds) { return (int)(seconds / tp_model_settings(m).dt + 0.5); }

/* The hinge angle of constraint `name` in world 0. */
static float cons_value(tp_batch *b, const tp_model *m, const char *name)
{
    float v[64];
    cr_assert_lt(tp_model_constraint_count(m), 64);
    cr_assert_eq(tp_batch_constraints(b, v, NULL), TP_OK);
    return v[tp_model_find_constraint(m, name)];
}

/* Eight planks placed at their rest pose (the generator's statics): they
 * stay up and sleep as one island, within 10 s (test_constraints'
 * rope_bridge_at_rest_sleeps checks the pose against the statics). */
Test(constraint_scenes, rope_bridge_sleeps_held_by_its_posts, .timeout = 300)
{
    tp_model *m = load("rope_bridge.json");
    tp_batch *b = make_batch(m, 2, 1);
    batch_steps(b, steps_of(m, 10.0));
    tp_state_view v = batch_view(b);
    for (int i = 0; i < 8; ++i) {
        char name[32];
        snprintf(name, sizeof name, "plank%d", i);
        int p = body(m, name);
        cr_assert_eq(v.sleep_state[p], TP_SLEEPING, "%s awake after 10 s", name);
        cr_assert_gt(v.pos[3 * p + 2], 1.5f, "%s fell to z %g", name, v.pos[3 * p + 2]);
    }
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Open at 1 s (target 1.57 rad at 2 rad/s: there by 1.8 s), closed at 3 s. */
Test(constraint_scenes, servo_door_follows_its_events)
{
    tp_model *m = load("servo_door.json");
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, steps_of(m, 1.5));
    float mid = cons_value(b, m, "door_hinge");
    cr_assert_lt(fabsf(mid - 1.0f), 0.1f, "half a second into opening at 2 rad/s: %g rad", mid);
    batch_steps(b, steps_of(m, 1.0));
    float open = cons_value(b, m, "door_hinge");
    batch_steps(b, steps_of(m, 2.0));
    float shut = cons_value(b, m, "door_hinge");
    cr_log_info("servo door: %.4f rad at 1.5 s, %.4f at 2.5 s (open 1.57), %.4f at 4.5 s (shut 0)", mid, open, shut);
    cr_assert_lt(fabsf(open - 1.57f), 0.01f, "open at %g rad", open);
    cr_assert_lt(fabsf(shut), 0.01f, "shut at %g rad", shut);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Wheels turned at 4 rad/s relative to the chassis, 0.45 m radius, no slip: 1.8 m/s. */
Test(constraint_scenes, motor_cart_drives_at_wheel_speed)
{
    tp_model *m = load("motor_cart.json");
    tp_batch *b = make_batch(m, 1, 1);
    int c = body(m, "chassis");
    batch_steps(b, steps_of(m, 3.0));
    float y0 = batch_view(b).pos[3 * c + 1];
    batch_steps(b, steps_of(m, 1.0));
    tp_state_view v = batch_view(b);
    float speed = fabsf(v.pos[3 * c + 1] - y0);
    cr_log_info("motor cart: %.4f m/s along y (4 rad/s x 0.45 m = 1.8)", speed);
    cr_assert_lt(fabsf(speed - 1.8f), 0.05f * 1.8f, "cart at %g m/s", speed);
    cr_assert_lt(fabsf(v.pos[3 * c + 0]), 0.1f, "cart drifted sideways to x %g", v.pos[3 * c + 0]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* The serial reference mode (docs/solver.md: every row in one order, no
 * colors) drives the cart the same: the same 1.8 m/s. */
Test(constraint_scenes, motor_cart_in_the_serial_reference_mode)
{
    char path[512], file[16384], text[16448];
    snprintf(path, sizeof path, "%s/scenes/motor_cart.json", TP_SOURCE_DIR);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    size_t n = fread(file, 1, sizeof file - 1, f);
    fclose(f);
    cr_assert_lt(n, sizeof file - 1, "motor_cart.json longer than the buffer");
    file[n] = '\0';
    cr_assert_null(strstr(file, "\"solver\""), "motor_cart.json sets its solver already");
    const char *brace = strchr(file, '{');
    cr_assert_not_null(brace);
    snprintf(text, sizeof text, "%.*s{\"solver\": {\"mode\": \"serial\"},%s", (int)(brace - file), file, brace + 1);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(text, "motor_cart.json (serial)", &m), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_model_settings(m).solver.mode, TP_SOLVER_SERIAL);
    tp_batch *b = make_batch(m, 1, 1);
    int c = body(m, "chassis");
    batch_steps(b, steps_of(m, 3.0));
    float y0 = batch_view(b).pos[3 * c + 1];
    batch_steps(b, steps_of(m, 1.0));
    float speed = fabsf(batch_view(b).pos[3 * c + 1] - y0);
    cr_log_info("motor cart, serial mode: %.4f m/s along y (1.8)", speed);
    cr_assert_lt(fabsf(speed - 1.8f), 0.05f * 1.8f, "cart at %g m/s", speed);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Reeled in 3 m at 1.5 m/s from 1 s (2 s, slowing over the last 1/3 m): the
 * crate 3 m up at 4.5 s; paid out again from 5 s, back on the ground by 9 s. */
Test(constraint_scenes, crane_lifts_the_crate_and_sets_it_down)
{
    tp_model *m = load("crane.json");
    tp_batch *b = make_batch(m, 1, 1);
    int crate = body(m, "crate");
    batch_steps(b, steps_of(m, 2.0));
    float rising = batch_view(b).pos[3 * crate + 2];
    batch_steps(b, steps_of(m, 2.5));
    float up = batch_view(b).pos[3 * crate + 2];
    batch_steps(b, steps_of(m, 4.5));
    float down = batch_view(b).pos[3 * crate + 2];
    cr_log_info("crane: crate at %.4f m at 2 s (1.8 expected), %.4f at 4.5 s (3.3), %.4f at 9 s (0.3)", rising, up, down);
    cr_assert_lt(fabsf(rising - 1.8f), 0.05f, "crate at %g m after 1 s of reeling at 1.5 m/s", rising);
    cr_assert_lt(fabsf(up - 3.3f), 0.02f, "crate at %g m, 3 m up expected", up);
    cr_assert_lt(fabsf(down - 0.3f), 0.02f, "crate at %g m, on the ground expected", down);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Falls 6 m to the taut point, back at half the speed: a quarter of the fall
 * (1.5 m) above it at the top of the first bounce. */
Test(constraint_scenes, bungee_comes_back_a_quarter_of_its_fall)
{
    tp_model *m = load("bungee.json");
    tp_batch *b = make_batch(m, 1, 1);
    int w = body(m, "weight");
    float taut = 8.85f - 6.0f - 0.3f, low = 100.0f, high = -100.0f;
    int bounced = 0;
    for (int s = 0; s < steps_of(m, 3.0); ++s) {
        batch_steps(b, 1);
        tp_state_view v = batch_view(b);
        float z = v.pos[3 * w + 2];
        low = fminf(low, z);
        if (v.v[3 * w + 2] > 0.0f) bounced = 1;
        if (bounced) high = fmaxf(high, z);
    }
    cr_log_info("bungee: lowest %.4f m (taut at %.4f), first bounce to %.4f m above it (1.5 expected)", low, taut,
                high - taut);
    cr_assert_lt(fabsf((high - taut) - 1.5f), 0.04f * 1.5f, "bounced %g m above the taut point", high - taut);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Pad and box (3 kg) at rest on the 400 N/m spring: 3 g / 400 below the free length. */
Test(constraint_scenes, spring_pad_sags_m_g_over_k)
{
    tp_model *m = load("spring_pad.json");
    tp_batch *b = make_batch(m, 1, 1);
    int pad = body(m, "pad"), box = body(m, "box");
    batch_steps(b, steps_of(m, 6.0));
    tp_state_view v = batch_view(b);
    float expect = 1.2f - 3.0f * (float)G / 400.0f;
    cr_log_info("spring pad: at %.5f m, 1.2 - 3 g / k = %.5f m", v.pos[3 * pad + 2], expect);
    cr_assert_lt(fabsf(v.pos[3 * pad + 2] - expect), 2e-3f, "pad at %g m", v.pos[3 * pad + 2]);
    cr_assert_lt(fabsf(v.pos[3 * box + 2] - (expect + 0.3f)), 5e-3f, "box not on the pad: %g", v.pos[3 * box + 2]);
    cr_assert_eq(v.sleep_state[pad], TP_SLEEPING, "the pad never slept");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* Released at 30 degrees on a 2 m rod: period 2 pi sqrt(L / g) (1 + a^2 / 16 + 11 a^4 / 3072). */
Test(constraint_scenes, rod_pendulum_period)
{
    tp_model *m = load("rod_pendulum.json");
    tp_batch *b = make_batch(m, 1, 1);
    double dt = tp_model_settings(m).dt, a = PI / 6.0, t = 0.0, first = -1.0, last = -1.0;
    double expect = 2.0 * PI * sqrt(2.0 / G) * (1.0 + a * a / 16.0 + 11.0 * pow(a, 4) / 3072.0);
    int crossings = 0;
    int bob = body(m, "bob");
    float prev = batch_view(b).pos[3 * bob];
    while (crossings <= 3 && t < 20.0) {
        batch_steps(b, 1);
        t += dt;
        float x = batch_view(b).pos[3 * bob];
        if (prev < 0.0f && x >= 0.0f) {
            double tc = t - dt + dt * (double)(-prev) / (double)(x - prev);
            if (crossings == 0) first = tc;
            last = tc;
            crossings++;
        }
        prev = x;
    }
    double T = (last - first) / 3.0;
    cr_log_info("rod pendulum 30 deg: period %.5f s, series %.5f s", T, expect);
    cr_assert_lt(fabs(T - expect) / expect, 0.005, "period %.5f s, expected %.5f s", T, expect);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* A constraint event names a constraint of the scene and a parameter it has,
 * with a value it takes; the errors say which. */
Test(constraint_scenes, constraint_events_are_checked)
{
    const char *head = "{\"format\": \"torpor-scene\", \"version\": 2, \"bodies\": [{\"name\": \"bob\", \"shape\": \"ball\", "
                       "\"size\": [0.2, 0.2, 0.2], \"pos\": [0, 0, 1]}], \"constraints\": [{\"name\": \"r\", \"type\": "
                       "\"rope\", \"body1\": \"bob\", \"pos0\": [0, 0, 2], \"length\": 1}], \"events\": [";
    const struct { const char *event, *error; } cases[] = {
        {"{\"time\": 1, \"action\": \"constraint\", \"constraint\": \"q\", \"param\": \"length\", \"to\": 2}",
         "unknown constraint \"q\""},
        {"{\"time\": 1, \"action\": \"constraint\", \"constraint\": \"r\", \"param\": \"colour\", \"to\": 2}",
         "must be a constraint parameter"},
        {"{\"time\": 1, \"action\": \"constraint\", \"constraint\": \"r\", \"param\": \"length\"}", "required"},
        {"{\"time\": 1, \"action\": \"constraint\", \"constraint\": \"r\", \"param\": \"length\", \"to\": -2}",
         "length of \"r\" (a rope) must be >= 0, got -2"},
        {"{\"time\": 1, \"action\": \"constraint\", \"constraint\": \"r\", \"param\": \"target\", \"to\": 1}",
         "is not a parameter of its type"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char json[1024];
        snprintf(json, sizeof json, "%s%s]}", head, cases[i].event);
        tp_model *m = NULL;
        cr_assert_neq(tp_model_load_string(json, "e.json", &m), TP_OK, "case %zu loaded", i);
        cr_assert(strstr(tp_last_error(), cases[i].error), "case %zu: %s", i, tp_last_error());
    }
    char json[1024];
    snprintf(json, sizeof json, "%s%s]}", head,
             "{\"time\": 0.5, \"action\": \"constraint\", \"constraint\": \"r\", \"param\": \"length\", \"to\": 0.5}");
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(json, "e.json", &m), TP_OK, "%s", tp_last_error());
    tp_batch *b = make_batch(m, 1, 1);
    batch_steps(b, steps_of(m, 1.5));
    float len;
    cr_assert_eq(tp_batch_constraint_params(b, TP_CONS_LENGTH, &len), TP_OK);
    cr_assert_eq(len, 0.5f, "the event did not shorten the rope: %g", len);
    cr_assert_gt(batch_view(b).pos[2], 1.4f, "the ball hangs at %g, 0.5 m under (0, 0, 2) expected", batch_view(b).pos[2]);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}
