/* test_scene.c - scene files: a full round trip, generators, and one test per
 * class of bad input, each asserting the status and the exact
 * "source:line:col: path: " of the message (docs/scene-format.md). */
#include <criterion/criterion.h>

#include "model.h"
#include "torpor.h"

#include <stdio.h>
#include <string.h>

#ifndef TP_SOURCE_DIR
#define TP_SOURCE_DIR "."
#endif
#define SCENES TP_SOURCE_DIR "/tests/scenes/"

/* Load `json` expecting TP_ERR_PARSE, no model, and a message that starts with
 * `where` ("t.json:LINE:COL: PATH: ") and contains `reason`. */
static void expect_error(const char *json, const char *where, const char *reason)
{
    tp_model *model = (tp_model *)&model; /* must be overwritten with NULL */
    tp_status status = tp_model_load_string(json, "t.json", &model);
    const char *msg = tp_last_error();
    cr_assert_eq(status, TP_ERR_PARSE, "status %d (%s) for: %s", (int)status, msg, json);
    cr_assert_null(model, "a model came back with an error");
    cr_assert(strncmp(msg, where, strlen(where)) == 0, "message\n  %s\ndoes not start with\n  %s", msg, where);
    cr_assert(strstr(msg, reason) != NULL, "message\n  %s\ndoes not say\n  %s", msg, reason);
}

static tp_model *load_ok(const char *json)
{
    tp_model *model = NULL;
    tp_status status = tp_model_load_string(json, "t.json", &model);
    cr_assert_eq(status, TP_OK, "load failed: %s", tp_last_error());
    cr_assert_not_null(model);
    return model;
}

static void assert_vec(const float *got, const float *want, int n, const char *what)
{
    for (int i = 0; i < n; ++i) cr_assert_eq(got[i], want[i], "%s[%d] = %g, want %g", what, i, (double)got[i], (double)want[i]);
}

/* ---------------------------------------------------------------- good scenes */

Test(scene, every_field_round_trips)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load(SCENES "good.json", &m), TP_OK, "%s", tp_last_error());
    tp_model_def d = tp_model_settings(m);
    cr_assert_str_eq(d.name, "every-field");
    assert_vec(d.gravity, (const float[]){0.5f, -1.0f, -12.0f}, 3, "gravity");
    cr_assert_eq(d.dt, 0.01f);
    cr_assert_eq(d.substeps, 6);
    cr_assert_eq(d.solver.iterations, 12);
    cr_assert_eq(d.solver.mode, TP_SOLVER_SERIAL);
    cr_assert_eq(d.solver.restitution_threshold, 0.5f);
    cr_assert_eq(d.solver.warm_starting, 0);
    cr_assert_eq(d.sleep.enabled, 0);
    cr_assert_eq(d.sleep.policy, TP_SLEEP_ASSEMBLY);
    cr_assert_eq(d.sleep.linear_threshold, 0.02f);
    cr_assert_eq(d.sleep.angular_threshold, 0.1f);
    cr_assert_eq(d.sleep.quiet_time, 1.5f);
    cr_assert_eq(d.sleep.angular_measure, TP_ANGULAR_SURFACE_SPEED);
    cr_assert_eq(d.sleep.accel_threshold, 0.0f);
    cr_assert_eq(d.sleep.require_support, 0);
    cr_assert_eq(d.sleep.skip_constraints, 0);
    const tp_assembly_def *a = &d.sleep.assembly;
    cr_assert(a->linear_velocity == 0.3f && a->rotational_velocity == 0.4f && a->linear_acceleration == 0.2f &&
              a->rotational_acceleration == 0.25f && a->neighbour_linear_velocity == 0.5f &&
              a->neighbour_rotational_velocity == 0.6f && a->wake_linear_acceleration == 17.0f &&
              a->wake_rotational_acceleration == 18.0f && a->collision_wake_speed == 2.0f &&
              a->actuated_factor == 0.5f && a->quiet_time == 0.25f, "sleep.assembly read");
    cr_assert_eq(d.randomize.seed, UINT64_C(9223372036854775807));
    cr_assert_eq(d.randomize.pos_noise, 0.1f);
    cr_assert_eq(d.randomize.yaw_noise_deg, 15.0f);

    cr_assert_eq(tp_model_body_count(m), 4);
    cr_assert_eq(tp_model_dynamic_body_count(m), 2);
    tp_body_def b;
    cr_assert_eq(tp_model_body(m, 0, &b), TP_OK);
    cr_assert_str_eq(b.name, "ground");
    cr_assert_eq(b.type, TP_BODY_STATIC);
    assert_vec(b.size, (const float[]){20, 20, 1}, 3, "ground size");
    assert_vec(b.pos, (const float[]){0, 0, -0.5f}, 3, "ground pos");

    cr_assert_eq(tp_model_body(m, 1, &b), TP_OK);
    cr_assert_str_eq(b.name, "b0");
    cr_assert_eq(b.type, TP_BODY_DYNAMIC);
    cr_assert_eq(b.shape, TP_SHAPE_CAPSULE);
    assert_vec(b.size, (const float[]){2, 0.5f, 0.75f}, 3, "b0 size");
    assert_vec(b.pos, (const float[]){1, 2, 3}, 3, "b0 pos");
    assert_vec(b.quat, (const float[]){0, 0, 0, 1}, 4, "b0 quat (normalized)");
    assert_vec(b.vel, (const float[]){1, 0, -1}, 3, "b0 vel");
    assert_vec(b.ang_vel, (const float[]){0, 0.5f, 0}, 3, "b0 ang_vel");
    cr_assert_eq(b.density, 500.0f);
    cr_assert_eq(b.mass, 0.0f);
    cr_assert_eq(b.friction, 0.25f);
    cr_assert_eq(b.restitution, 0.5f);
    cr_assert_eq(b.actuated, 1);

    cr_assert_eq(tp_model_body(m, 2, &b), TP_OK);
    cr_assert_str_eq(b.name, "heavy");
    cr_assert_eq(b.type, TP_BODY_KINEMATIC);
    cr_assert_eq(b.shape, TP_SHAPE_CORNER_WEDGE);
    cr_assert_eq(b.mass, 7.5f);

    cr_assert_eq(tp_model_body(m, 3, &b), TP_OK);
    cr_assert_str_eq(b.name, "body3");
    cr_assert_eq(b.type, TP_BODY_DYNAMIC);
    cr_assert_eq(b.shape, TP_SHAPE_BALL);
    cr_assert_eq(tp_model_find_body(m, "body3"), 3);

    /* Events come back sorted by time, ties in file order. */
    cr_assert_eq(m->event_count, 6);
    const tp_event_def *e = m->events;
    cr_assert_eq(e[0].action, TP_EVENT_TELEPORT);
    cr_assert_eq(e[0].time, 1.0);
    cr_assert_eq(e[0].body, 1);
    assert_vec(e[0].pos, (const float[]){4, 5, 6}, 3, "teleport pos");
    cr_assert_eq(e[0].has_quat, 1);
    assert_vec(e[0].quat, (const float[]){0, 0, 1, 0}, 4, "teleport quat");
    cr_assert_eq(e[0].world_count, 2);
    cr_assert_eq(e[0].worlds[0], 0);
    cr_assert_eq(e[0].worlds[1], 3);
    cr_assert_eq(e[1].action, TP_EVENT_FORCE);
    assert_vec(e[1].value, (const float[]){1, 2, 3}, 3, "force value");
    cr_assert_eq(e[1].duration, 0.25);
    cr_assert_eq(e[1].world_count, 0);
    cr_assert_null(e[1].worlds);
    cr_assert_eq(e[2].action, TP_EVENT_IMPULSE);
    cr_assert_eq(e[2].time, 2.0);
    assert_vec(e[2].value, (const float[]){0, 0, 5}, 3, "impulse value");
    cr_assert_eq(e[2].has_quat, 0);
    cr_assert_eq(e[3].action, TP_EVENT_GRAVITY);
    cr_assert_eq(e[3].body, -1);
    assert_vec(e[3].value, (const float[]){0, 0, -1.62f}, 3, "gravity value");
    cr_assert_eq(e[4].action, TP_EVENT_REMOVE);
    cr_assert_eq(e[4].body, 0);
    cr_assert_eq(e[4].world_count, 1);
    cr_assert_eq(e[4].worlds[0], 2);
    cr_assert_eq(e[5].action, TP_EVENT_RESET);
    cr_assert_eq(e[5].body, -1);
    tp_model_destroy(m);
}

/* The defaults of docs/scene-format.md, written out here as the document gives
 * them (not taken from tp_default_*_def, which makes them), for a scene, for the
 * builder's default definitions, and for the smallest scene. */
static void assert_documented_model_defaults(tp_model_def d)
{
    assert_vec(d.gravity, (const float[]){0.0f, 0.0f, -9.81f}, 3, "gravity");
    cr_assert_eq(d.dt, 1.0f / 60.0f);
    cr_assert_eq(d.substeps, 4);
    cr_assert_eq(d.solver.iterations, 8);
    cr_assert_eq(d.solver.mode, TP_SOLVER_COLORED);
    cr_assert_eq(d.solver.restitution_threshold, 1.0f);
    cr_assert_eq(d.solver.warm_starting, 1);
    cr_assert_eq(d.sleep.enabled, 1);
    cr_assert_eq(d.sleep.policy, TP_SLEEP_ISLAND);
    cr_assert_eq(d.sleep.linear_threshold, 0.05f);
    cr_assert_eq(d.sleep.angular_threshold, 0.15f);
    cr_assert_eq(d.sleep.quiet_time, 0.5f);
    cr_assert_eq(d.sleep.angular_measure, TP_ANGULAR_RAD_PER_S);
    cr_assert_eq(d.sleep.accel_threshold, 0.24f);
    cr_assert_eq(d.sleep.require_support, 1);
    cr_assert_eq(d.sleep.skip_constraints, 1);
    cr_assert_eq(d.randomize.seed, 1);
    cr_assert_eq(d.randomize.pos_noise, 0.0f);
    cr_assert_eq(d.randomize.yaw_noise_deg, 0.0f);
    assert_vec(d.randomize.mass_scale, (const float[]){1.0f, 1.0f}, 2, "mass_scale");
    cr_assert_eq(d.randomize.has_friction_range, 0);
}

static void assert_documented_body_defaults(const tp_body_def *b)
{
    cr_assert_eq(b->type, TP_BODY_DYNAMIC);
    cr_assert_eq(b->shape, TP_SHAPE_BOX);
    assert_vec(b->size, (const float[]){1, 1, 1}, 3, "size");
    assert_vec(b->pos, (const float[]){0, 0, 0}, 3, "pos");
    assert_vec(b->quat, (const float[]){0, 0, 0, 1}, 4, "quat");
    assert_vec(b->vel, (const float[]){0, 0, 0}, 3, "vel");
    assert_vec(b->ang_vel, (const float[]){0, 0, 0}, 3, "ang_vel");
    cr_assert_eq(b->density, 1000.0f);
    cr_assert_eq(b->mass, 0.0f);
    cr_assert_eq(b->friction, 0.6f);
    cr_assert_eq(b->restitution, 0.0f);
}

Test(scene, defaults_fill_what_is_absent)
{
    tp_model *m = load_ok("{\"bodies\": [{}]}");
    tp_model_def d = tp_model_settings(m);
    cr_assert_str_eq(d.name, "scene");
    assert_documented_model_defaults(d);
    tp_body_def b;
    cr_assert_eq(tp_model_body(m, 0, &b), TP_OK);
    cr_assert_str_eq(b.name, "body0");
    assert_documented_body_defaults(&b);
    /* one 1 m box of density 1000: 1000 kg, inertia m (1 + 1) / 12 */
    float mass, inertia[3];
    cr_assert_eq(tp_model_body_mass(m, 0, &mass, inertia), TP_OK);
    cr_assert_float_eq(mass, 1000.0f, 1e-3f);
    assert_vec(inertia, (const float[]){1000.0f / 6.0f, 1000.0f / 6.0f, 1000.0f / 6.0f}, 3, "inertia");
    cr_assert_eq(m->event_count, 0);
    tp_model_destroy(m);
    /* the builder's defaults are the same documented values */
    tp_model_def md = tp_default_model_def();
    cr_assert_str_eq(md.name, "scene");
    assert_documented_model_defaults(md);
    tp_body_def bd = tp_default_body_def();
    cr_assert_null(bd.name);
    assert_documented_body_defaults(&bd);
}

Test(scene, stack_generator)
{
    tp_model *m = load_ok("{\"bodies\": [{\"name\": \"ground\", \"size\": [20, 20, 1], \"pos\": [0, 0, -0.5], \"static\": true},\n"
                          "  {\"generate\": \"stack\", \"count\": 10, \"base\": [0, 0, 0.5], \"step\": [0, 0, 1],\n"
                          "   \"name\": \"b\", \"shape\": \"ball\", \"friction\": 0.3}],\n"
                          " \"events\": [{\"time\": 0, \"action\": \"wake\", \"body\": \"b9\"}]}");
    cr_assert_eq(tp_model_body_count(m), 11);
    for (int i = 0; i < 10; ++i) {
        char name[16];
        snprintf(name, sizeof name, "b%d", i);
        tp_body_def b;
        cr_assert_eq(tp_model_body(m, 1 + i, &b), TP_OK);
        cr_assert_str_eq(b.name, name);
        assert_vec(b.pos, (const float[]){0, 0, 0.5f + (float)i}, 3, name);
        cr_assert_eq(b.shape, TP_SHAPE_BALL);
        cr_assert_eq(b.friction, 0.3f);
    }
    cr_assert_eq(m->events[0].body, 10);
    tp_model_destroy(m);
}

Test(scene, grid_generator_x_fastest_and_default_names)
{
    tp_model *m = load_ok("{\"bodies\": [{\"generate\": \"grid\", \"count\": [2, 3, 2], \"base\": [1, 2, 3],\n"
                          "  \"spacing\": [1.5, 2, 0.5]}]}");
    cr_assert_eq(tp_model_body_count(m), 12);
    tp_body_def b;
    cr_assert_eq(tp_model_body(m, 7, &b), TP_OK); /* ix 1, iy 0, iz 1 */
    cr_assert_str_eq(b.name, "body7");
    assert_vec(b.pos, (const float[]){2.5f, 2.0f, 3.5f}, 3, "pos");
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- malformed JSON */

Test(scene_errors, malformed_json)
{
    expect_error("{\n  \"bodies\": [{}]\n  \"dt\": 1\n}", "t.json:3:6: malformed JSON: ", "'}' expected");
    expect_error("{\"bodies\": [{}], \"dt\": NaN}", "t.json:1:26: malformed JSON: ", "invalid token");
    expect_error("{\"bodies\": [{}], \"dt\": 1, \"dt\": 2}", "t.json:1:30: malformed JSON: ", "duplicate object key");
    expect_error("", "t.json:1:1: malformed JSON: ", "expected");
}

Test(scene_errors, syntax_error_in_a_file_names_the_file)
{
    tp_model *m = (tp_model *)&m;
    cr_assert_eq(tp_model_load(SCENES "bad/syntax.json", &m), TP_ERR_PARSE);
    cr_assert_null(m);
    const char *want = "/tests/scenes/bad/syntax.json:3:20: malformed JSON: ']' expected near '3'";
    cr_assert(strstr(tp_last_error(), want) != NULL, "%s", tp_last_error());
}

/* ---------------------------------------------------------------- unknown keys */

Test(scene_errors, unknown_keys_hint_the_nearest)
{
    expect_error("{\"bodies\": [\n  {\"sise\": [1, 1, 1]}\n]}", "t.json:2:4: bodies[0].sise: ",
                 "unknown key; did you mean \"size\"?");
    expect_error("{\"gravty\": [0, 0, -1], \"bodies\": [{}]}", "t.json:1:2: gravty: ", "did you mean \"gravity\"?");
    expect_error("{\"solver\": {\"iteration\": 3}, \"bodies\": [{}]}", "t.json:1:13: solver.iteration: ",
                 "did you mean \"iterations\"?");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 0, \"action\": \"wake\", \"bdy\": \"body0\"}]}",
                 "t.json:1:59: events[0].bdy: ", "did you mean \"body\"?");
    /* Nothing close: the valid keys are listed. */
    expect_error("{\"bodies\": [{}], \"randomize\": {\"xyzzy\": 1}}", "t.json:1:32: randomize.xyzzy: ",
                 "unknown key; expected one of \"seed\", \"pos_noise\", \"yaw_noise_deg\"");
    /* Keys written with escapes are found in the text all the same. */
    expect_error("{\"bodies\": [{\"\\u00e9t\\u00e9\": 1}]}", "t.json:1:14: bodies[0].\xc3\xa9t\xc3\xa9: ", "unknown key");
}

Test(scene_errors, generator_takes_no_pos)
{
    expect_error("{\"bodies\": [{\"generate\": \"stack\", \"count\": 2, \"step\": [0, 0, 1], \"pos\": [0, 0, 0]}]}",
                 "t.json:1:66: bodies[0].pos: ", "takes no \"pos\"");
}

/* ---------------------------------------------------------------- missing fields */

Test(scene_errors, missing_required_fields)
{
    expect_error("{\n  \"name\": \"empty\"\n}", "t.json:1:1: bodies: ", "required key is missing");
    expect_error("{\"bodies\": [{}],\n \"events\": [{\"action\": \"reset\"}]}", "t.json:2:13: events[0].time: ",
                 "required key is missing");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 1}]}", "t.json:1:29: events[0].action: ",
                 "required key is missing");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 1, \"action\": \"impulse\", \"body\": \"body0\"}]}",
                 "t.json:1:29: events[0].value: ", "required by action \"impulse\"");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 1, \"action\": \"teleport\", \"body\": \"body0\"}]}",
                 "t.json:1:29: events[0].pos: ", "required by action \"teleport\"");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 1, \"action\": \"wake\"}]}",
                 "t.json:1:29: events[0].body: ", "required by action \"wake\"");
    expect_error("{\"bodies\": [{\"generate\": \"stack\", \"step\": [0, 0, 1]}]}", "t.json:1:13: bodies[0].count: ",
                 "required key is missing");
    expect_error("{\"bodies\": [{\"generate\": \"grid\", \"count\": [1, 1, 1]}]}", "t.json:1:13: bodies[0].spacing: ",
                 "required key is missing");
}

Test(scene_errors, keys_an_action_does_not_take)
{
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 1, \"action\": \"wake\", \"body\": \"body0\", \"value\": [1, 2, 3]}]}",
                 "t.json:1:76: events[0].value: ", "action \"wake\" takes no \"value\"");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 1, \"action\": \"gravity\", \"body\": \"body0\", \"value\": [0, 0, 1]}]}",
                 "t.json:1:62: events[0].body: ", "action \"gravity\" takes no \"body\"");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 1, \"action\": \"impulse\", \"body\": \"body0\", \"value\": [0, 0, 1], \"duration\": 1}]}",
                 "t.json:1:99: events[0].duration: ", "takes no \"duration\"");
}

/* ---------------------------------------------------------------- wrong types */

Test(scene_errors, wrong_types)
{
    expect_error("{\"dt\": \"fast\", \"bodies\": [{}]}", "t.json:1:8: dt: ", "must be a number, got string");
    expect_error("{\"bodies\": [{\"static\": 1}]}", "t.json:1:24: bodies[0].static: ", "must be true or false, got number");
    expect_error("{\"solver\": [8], \"bodies\": [{}]}", "t.json:1:12: solver: ", "must be an object, got array");
    expect_error("{\"bodies\": {}}", "t.json:1:12: bodies: ", "must be an array of bodies, got object");
    expect_error("{\"bodies\": [3]}", "t.json:1:13: bodies[0]: ", "must be an object (a body or a generator), got number");
    expect_error("{\"bodies\": [{\"size\": [1, \"2\", 1]}]}", "t.json:1:26: bodies[0].size[1]: ",
                 "must be a number, got string");
    expect_error("{\"bodies\": [{\"name\": 7}]}", "t.json:1:22: bodies[0].name: ", "must be a string, got number");
    expect_error("[{\"bodies\": []}]", "t.json:1:1: ", "a scene must be a JSON object, got array");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 0, \"action\": \"wake\", \"body\": \"body0\", \"worlds\": \"some\"}]}",
                 "t.json:1:86: events[0].worlds: ", "must be \"all\" or an array of world indices, got \"some\"");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": \"now\", \"action\": \"reset\"}]}",
                 "t.json:1:38: events[0].time: ", "must be a number, got string");
}

Test(scene_errors, float_where_an_integer_is_expected)
{
    expect_error("{\"substeps\": 4.5, \"bodies\": [{}]}", "t.json:1:14: substeps: ", "must be an integer, got 4.5");
    expect_error("{\"randomize\": {\"seed\": 1.5}, \"bodies\": [{}]}", "t.json:1:24: randomize.seed: ",
                 "must be an integer");
    expect_error("{\"randomize\": {\"seed\": 1e300}, \"bodies\": [{}]}", "t.json:1:24: randomize.seed: ",
                 "must be an integer");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 0, \"action\": \"reset\", \"worlds\": [0, 1.5]}]}",
                 "t.json:1:74: events[0].worlds[1]: ", "must be an integer, got 1.5");
}

/* A whole number written as a real is that integer (docs/scene-format.md). */
Test(scene, whole_reals_are_integers)
{
    tp_model *m = load_ok("{\"substeps\": 4.0, \"solver\": {\"iterations\": 12.0}, \"bodies\": [{}]}");
    cr_assert_eq(tp_model_settings(m).substeps, 4);
    cr_assert_eq(tp_model_settings(m).solver.iterations, 12);
    tp_model_destroy(m);
}

/* ---------------------------------------------------------------- array lengths */

Test(scene_errors, wrong_array_lengths)
{
    expect_error("{\"bodies\": [{\"size\": [1, 1]}]}", "t.json:1:22: bodies[0].size: ", "must have 3 elements, got 2");
    expect_error("{\"bodies\": [{\"quat\": [0, 0, 1]}]}", "t.json:1:22: bodies[0].quat: ", "must have 4 elements, got 3");
    expect_error("{\"gravity\": [0, 0, -9.8, 0], \"bodies\": [{}]}", "t.json:1:13: gravity: ", "must have 3 elements, got 4");
    expect_error("{\"bodies\": [{\"generate\": \"grid\", \"count\": [2, 2], \"spacing\": [1, 1, 1]}]}",
                 "t.json:1:43: bodies[0].count: ", "must have 3 elements, got 2");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 0, \"action\": \"reset\", \"worlds\": []}]}",
                 "t.json:1:70: events[0].worlds: ", "must list at least one world");
    expect_error("{\"bodies\": []}", "t.json:1:12: bodies: ", "must hold at least one body");
}

/* ---------------------------------------------------------------- numbers out of range */

Test(scene_errors, numbers_out_of_float_range)
{
    expect_error("{\"bodies\": [{\"density\": 1e39}]}", "t.json:1:25: bodies[0].density: ", "out of float range");
    expect_error("{\"bodies\": [{\"pos\": [0, -4e38, 0]}]}", "t.json:1:25: bodies[0].pos[1]: ", "out of float range");
    /* A double overflow is already a syntax error in jansson. */
    expect_error("{\"bodies\": [{\"density\": 1e999}]}", "t.json:1:29: malformed JSON: ", "real number overflow");
}

Test(scene_errors, body_numbers_out_of_range)
{
    expect_error("{\n  \"bodies\": [\n    {},\n    {\"size\": [1, -1, 1]}\n  ]\n}", "t.json:4:18: bodies[1].size[1]: ",
                 "must be > 0, got -1");
    expect_error("{\"bodies\": [{\"density\": 0}]}", "t.json:1:25: bodies[0].density: ", "must be > 0");
    expect_error("{\"bodies\": [{\"mass\": 0}]}", "t.json:1:22: bodies[0].mass: ", "must be > 0 kg, got 0");
    expect_error("{\"bodies\": [{\"mass\": -2}]}", "t.json:1:22: bodies[0].mass: ", "must be > 0 kg, got -2");
    expect_error("{\"bodies\": [{\"friction\": -0.1}]}", "t.json:1:26: bodies[0].friction: ", "must be >= 0");
    expect_error("{\"bodies\": [{\"restitution\": 1.5}]}", "t.json:1:29: bodies[0].restitution: ", "within [0, 1]");
    expect_error("{\"bodies\": [{\"quat\": [0, 0, 0, 0]}]}", "t.json:1:22: bodies[0].quat: ", "zero quaternion");
}

/* C20: values whose mass, inertia or step under- or overflow a float are
 * refused where they are written, with the field (docs/scene-format.md, "Bounds"). */
Test(scene_errors, values_past_the_bounds)
{
    expect_error("{\"bodies\": [{\"mass\": 1e-45}]}", "t.json:1:22: bodies[0].mass: ", "within [1e-09, 1e+15] kg");
    expect_error("{\"bodies\": [{\"mass\": 1e20}]}", "t.json:1:22: bodies[0].mass: ", "within [1e-09, 1e+15] kg");
    expect_error("{\"bodies\": [{\"size\": [1e-20, 1e-20, 1e-20]}]}", "t.json:1:23: bodies[0].size[0]: ",
                 "must be within [0.0001, 10000] m");
    expect_error("{\"bodies\": [{\"size\": [1, 1e30, 1]}]}", "t.json:1:26: bodies[0].size[1]: ",
                 "must be within [0.0001, 10000] m");
    expect_error("{\"bodies\": [{\"size\": [1e-40, 1, 1], \"mass\": 1}]}", "t.json:1:23: bodies[0].size[0]: ",
                 "must be within");
    expect_error("{\"bodies\": [{\"density\": 1e-30}]}", "t.json:1:25: bodies[0].density: ",
                 "gives a mass of 1e-30 kg");
    expect_error("{\"bodies\": [{\"size\": [9000, 9000, 9000], \"density\": 1e10}]}",
                 "t.json:1:53: bodies[0].density: ", "outside [1e-09, 1e+15] kg");
    expect_error("{\"randomize\": {\"mass_scale\": [1e-45, 1e-45]}, \"bodies\": [{}]}",
                 "t.json:1:31: randomize.mass_scale[0]: ", "must be within [0.01, 100]");
    expect_error("{\"dt\": 3e38, \"bodies\": [{}]}", "t.json:1:8: dt: ", "must be within [1e-30, 1] s");
    expect_error("{\"dt\": 1e-35, \"bodies\": [{}]}", "t.json:1:8: dt: ", "must be within [1e-30, 1] s");
    expect_error("{\"bodies\": [{\"generate\": \"grid\", \"count\": [2147483647, 2147483647, 2], \"spacing\": [1, 1, 1]}]}",
                 "t.json:1:44: bodies[0].count[0]: ", "must be in [1, 32768]");
    expect_error("{\"bodies\": [{\"generate\": \"grid\", \"count\": [200, 200, 2], \"spacing\": [1, 1, 1]}]}",
                 "t.json:1:43: bodies[0].count: ", "makes 80000 bodies");
}

/* C20: bodies at the bounds load, and no world faults at its first steps;
 * static bodies take no mass bound (their mass is never used). */
Test(scene, values_at_the_bounds_step_without_faults)
{
    tp_model *m = load_ok("{\"dt\": 1e-30, \"bodies\": [{\"size\": [20, 20, 1], \"pos\": [0, 0, -0.5], \"static\": true, \"density\": 1e-30},"
                          " {\"size\": [0.0001, 0.0001, 0.0001], \"mass\": 1e-9, \"pos\": [0, 0, 1]},"
                          " {\"size\": [10000, 1, 1], \"mass\": 1e15, \"pos\": [0, 0, 5]},"
                          " {\"shape\": \"ball\", \"size\": [0.0001, 0.0001, 0.0001], \"mass\": 1e-9, \"pos\": [3, 0, 1]}]}");
    tp_batch *b = NULL;
    cr_assert_eq(tp_batch_create(m, NULL, &b), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_step(b, 3), TP_OK, "%s", tp_last_error());
    tp_state_view s;
    cr_assert_eq(tp_batch_state(b, &s), TP_OK);
    cr_assert_eq(s.faults[0], 0, "a world of a scene that loaded faulted");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* C20: quaternions whose squared norm over- or underflows are normalized by
 * their largest component first, in the scene and in a teleport event. */
Test(scene, huge_and_tiny_quaternions_normalize)
{
    tp_model *m = load_ok("{\"sleep\": {\"enabled\": false}, \"gravity\": [0, 0, 0],"
                          " \"bodies\": [{\"quat\": [3e38, 3e38, 0, 0]}, {\"quat\": [1e-20, 0, 0, 0], \"pos\": [5, 0, 0]}],"
                          " \"events\": [{\"time\": 0, \"action\": \"teleport\", \"body\": \"body0\", \"pos\": [0, 0, 0], \"quat\": [0, 1e-20, 0, 0]},"
                          "  {\"time\": 0, \"action\": \"teleport\", \"body\": \"body1\", \"pos\": [5, 0, 0], \"quat\": [0, 0, -3e38, 3e38]}]}");
    const float h = 0.70710677f;
    tp_body_def d;
    cr_assert_eq(tp_model_body(m, 0, &d), TP_OK);
    assert_vec(d.quat, (const float[]){h, h, 0, 0}, 4, "[3e38, 3e38, 0, 0] normalized");
    cr_assert_eq(tp_model_body(m, 1, &d), TP_OK);
    assert_vec(d.quat, (const float[]){1, 0, 0, 0}, 4, "[1e-20, 0, 0, 0] normalized");
    tp_batch *b = NULL;
    cr_assert_eq(tp_batch_create(m, NULL, &b), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_step(b, 1), TP_OK, "%s", tp_last_error());
    tp_state_view s;
    cr_assert_eq(tp_batch_state(b, &s), TP_OK);
    assert_vec(s.quat, (const float[]){0, 1, 0, 0}, 4, "teleport to [0, 1e-20, 0, 0]");
    assert_vec(s.quat + 4, (const float[]){0, 0, -h, h}, 4, "teleport to [0, 0, -3e38, 3e38]");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

/* C20 / issue 12 item 9: an event at 1e9 s with dt 1e-11 s is 1e20 steps
 * away, past an int64: it is scheduled (never reached), not undefined. */
Test(scene, event_steps_past_int64_saturate)
{
    tp_model *m = load_ok("{\"dt\": 1e-11, \"bodies\": [{}],"
                          " \"events\": [{\"time\": 1e9, \"action\": \"force\", \"body\": \"body0\", \"value\": [1, 0, 0], \"duration\": 1e9}]}");
    tp_batch *b = NULL;
    cr_assert_eq(tp_batch_create(m, NULL, &b), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_batch_step(b, 2), TP_OK, "%s", tp_last_error());
    tp_state_view s;
    cr_assert_eq(tp_batch_state(b, &s), TP_OK);
    cr_assert_eq(s.v[0], 0.0f, "the event fired");
    tp_batch_destroy(b);
    tp_model_destroy(m);
}

Test(scene_errors, capsule_shorter_than_its_diameter)
{
    expect_error("{\"bodies\": [{\"shape\": \"capsule\", \"size\": [0.5, 1, 1]}]}", "t.json:1:42: bodies[0].size: ",
                 "must be >= its diameter");
}

Test(scene_errors, model_numbers_out_of_range)
{
    expect_error("{\"gravity\": [0, 600, -9.81], \"bodies\": [{}]}", "t.json:1:17: gravity[1]: ", "within [-500, 500]");
    expect_error("{\"dt\": 0, \"bodies\": [{}]}", "t.json:1:8: dt: ", "must be > 0");
    expect_error("{\"dt\": -0.01, \"bodies\": [{}]}", "t.json:1:8: dt: ", "must be > 0");
    expect_error("{\"substeps\": 0, \"bodies\": [{}]}", "t.json:1:14: substeps: ", "must be in [1, 1000], got 0");
    expect_error("{\"solver\": {\"iterations\": 0}, \"bodies\": [{}]}", "t.json:1:27: solver.iterations: ",
                 "must be in [1, 1000], got 0");
    expect_error("{\"sleep\": {\"quiet_time\": -1}, \"bodies\": [{}]}", "t.json:1:26: sleep.quiet_time: ", ">= 0");
    expect_error("{\"sleep\": {\"linear_threshold\": -0.5}, \"bodies\": [{}]}", "t.json:1:32: sleep.linear_threshold: ",
                 ">= 0");
    expect_error("{\"randomize\": {\"seed\": -1}, \"bodies\": [{}]}", "t.json:1:24: randomize.seed: ",
                 "must be an integer >= 0, got -1");
    expect_error("{\"randomize\": {\"pos_noise\": -1}, \"bodies\": [{}]}", "t.json:1:29: randomize.pos_noise: ", ">= 0");
    expect_error("{\"sleep\": {\"assembly\": {\"linear_velocity\": -1}}, \"bodies\": [{}]}",
                 "t.json:1:44: sleep.assembly.linear_velocity: ", ">= 0");
    expect_error("{\"sleep\": {\"assembly\": {\"actuated_factor\": 2}}, \"bodies\": [{}]}",
                 "t.json:1:44: sleep.assembly.actuated_factor: ", "(0, 1]");
    expect_error("{\"sleep\": {\"assembly\": {\"quiet\": 1}}, \"bodies\": [{}]}", "t.json:1:", "unknown key");
    expect_error("{\"sleep\": {\"assembly\": 3}, \"bodies\": [{}]}", "t.json:1:", "must be an object");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": -1, \"action\": \"reset\"}]}", "t.json:1:38: events[0].time: ",
                 ">= 0");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 0, \"action\": \"gravity\", \"value\": [0, 0, -501]}]}",
                 "t.json:1:78: events[0].value[2]: ", "within [-500, 500]");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 0, \"action\": \"force\", \"body\": \"body0\", \"value\": [1, 0, 0], \"duration\": -1}]}",
                 "t.json:1:109: events[0].duration: ", ">= 0");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 0, \"action\": \"reset\", \"worlds\": [0, -3]}]}",
                 "t.json:1:74: events[0].worlds[1]: ", "must be a world index >= 0, got -3");
}

/* The randomize block's joint noise and robot scales within the bounds the
 * batch's writes take (TP_MAX_JOINT_Q, TP_MAX_JOINT_QD, TP_MAX_MASS_SCALE):
 * 1e30 rad/s of noise faulted every world at its first step, a gear scale of
 * 1e38 made the gears infinite. The bounds themselves load. */
Test(scene_errors, randomize_noise_and_scales_are_bounded)
{
    expect_error("{\"randomize\": {\"joint_qd_noise\": 1e30}, \"bodies\": [{}]}", "t.json:1:34: randomize.joint_qd_noise: ",
                 "must be within [0, 10000] rad/s or m/s (TP_MAX_JOINT_QD), got 1e+30");
    expect_error("{\"randomize\": {\"joint_q_noise\": 2e6}, \"bodies\": [{}]}", "t.json:1:33: randomize.joint_q_noise: ",
                 "must be within [0, 1e+06] rad or m (TP_MAX_JOINT_Q), got 2e+06");
    expect_error("{\"randomize\": {\"actuator_gear_scale\": [1e38, 1e38]}, \"bodies\": [{}]}",
                 "t.json:1:", "randomize.actuator_gear_scale[1]: must be <= 100 (TP_MAX_MASS_SCALE");
    const char *scales[] = {"joint_damping_scale", "joint_armature_scale", "joint_friction_scale",
                            "actuator_kp_scale", "actuator_kv_scale"};
    for (int i = 0; i < 5; ++i) {
        char json[160], want[96];
        snprintf(json, sizeof json, "{\"randomize\": {\"%s\": [0, 100.5]}, \"bodies\": [{}]}", scales[i]);
        snprintf(want, sizeof want, "randomize.%s[1]: must be <= 100", scales[i]);
        expect_error(json, "t.json:1:", want);
        snprintf(json, sizeof json, "{\"randomize\": {\"%s\": [0, 100]}, \"bodies\": [{}]}", scales[i]);
        tp_model_destroy(load_ok(json));
    }
    tp_model_destroy(load_ok("{\"randomize\": {\"joint_q_noise\": 1e6, \"joint_qd_noise\": 1e4, "
                             "\"actuator_gear_scale\": [0.5, 100]}, \"bodies\": [{}]}"));
}

Test(scene_errors, unknown_names_of_values)
{
    expect_error("{\"bodies\": [{\"shape\": \"sphere\"}]}", "t.json:1:23: bodies[0].shape: ", "unknown shape \"sphere\"");
    expect_error("{\"bodies\": [{\"shape\": \"bx\"}]}", "t.json:1:23: bodies[0].shape: ",
                 "unknown shape \"bx\"; did you mean \"box\"?");
    expect_error("{\"solver\": {\"mode\": \"parallel\"}, \"bodies\": [{}]}", "t.json:1:21: solver.mode: ",
                 "unknown solver mode \"parallel\"; expected one of \"colored\", \"serial\"");
    expect_error("{\"sleep\": {\"policy\": \"islands\"}, \"bodies\": [{}]}", "t.json:1:22: sleep.policy: ",
                 "did you mean \"island\"?");
    expect_error("{\"sleep\": {\"angular_measure\": \"deg\"}, \"bodies\": [{}]}", "t.json:1:31: sleep.angular_measure: ",
                 "unknown angular measure");
    expect_error("{\"bodies\": [{}], \"events\": [{\"time\": 0, \"action\": \"impluse\"}]}", "t.json:1:51: events[0].action: ",
                 "unknown action \"impluse\"; did you mean \"impulse\"?");
    expect_error("{\"bodies\": [{\"generate\": \"tower\"}]}", "t.json:1:26: bodies[0].generate: ", "unknown generator");
}

Test(scene_errors, format_and_version)
{
    expect_error("{\"format\": \"mujoco\", \"bodies\": [{}]}", "t.json:1:12: format: ", "must be \"torpor-scene\"");
    expect_error("{\"version\": 3, \"bodies\": [{}]}", "t.json:1:13: version: ",
                 "this torpor reads versions 1 and 2, got 3");
    expect_error("{\"version\": 0, \"bodies\": [{}]}", "t.json:1:13: version: ", "must be 1 or 2, got 0");
}

Test(scene_errors, generated_positions_that_overflow)
{
    expect_error("{\"bodies\": [{\"generate\": \"stack\", \"name\": \"b\", \"count\": 3, \"step\": [0, 0, 3e38]}]}",
                 "t.json:1:13: bodies[0].base[2]: ", "generated body \"b2\"");
}

/* ---------------------------------------------------------------- bodies and names */

Test(scene_errors, conflicting_body_keys)
{
    expect_error("{\"bodies\": [{\"static\": true, \"kinematic\": true}]}", "t.json:1:30: bodies[0].kinematic: ",
                 "both \"static\" and \"kinematic\"");
    expect_error("{\"bodies\": [{\"density\": 10, \"mass\": 2}]}", "t.json:1:29: bodies[0].mass: ",
                 "give either \"density\" or \"mass\", not both");
}

Test(scene_errors, duplicate_body_names)
{
    expect_error("{\"bodies\": [\n  {\"name\": \"a\"},\n  {\"name\": \"b\"},\n  {\"name\": \"a\"}\n]}",
                 "t.json:4:12: bodies[2].name: ", "duplicate body name \"a\"; bodies[0] already has it");
    /* A generated name clashes with a written one. */
    expect_error("{\"bodies\": [{\"name\": \"b1\"},\n {\"generate\": \"stack\", \"name\": \"b\", \"count\": 3, \"step\": [0, 0, 1]}]}",
                 "t.json:2:32: bodies[1].name: ", "duplicate body name \"b1\"");
    /* A written name clashes with a default one. */
    expect_error("{\"bodies\": [{}, {\"name\": \"body0\"}]}", "t.json:1:26: bodies[1].name: ", "duplicate body name \"body0\"");
    expect_error("{\"bodies\": [{\"name\": \"\"}]}", "t.json:1:22: bodies[0].name: ", "must not be empty");
}

Test(scene_errors, events_naming_unknown_bodies)
{
    expect_error("{\"bodies\": [{\"name\": \"crate\"}],\n \"events\": [{\"time\": 1, \"action\": \"wake\", \"body\": \"crat\"}]}",
                 "t.json:2:51: events[0].body: ", "unknown body \"crat\"; did you mean \"crate\"?");
    expect_error("{\"bodies\": [{\"name\": \"crate\"}],\n \"events\": [{\"time\": 1, \"action\": \"wake\", \"body\": \"zzzzzzz\"}]}",
                 "t.json:2:51: events[0].body: ", "unknown body \"zzzzzzz\"; no body");
    /* Acting on a static body is refused by tp_event_def_check. */
    expect_error("{\"bodies\": [{\"static\": true}],\n \"events\": [{\"time\": 1, \"action\": \"impulse\", \"body\": \"body0\", \"value\": [0, 0, 1]}]}",
                 "t.json:2:54: events[0].body: ", "acts on dynamic bodies");
}

/* ---------------------------------------------------------------- positions */

Test(scene_errors, columns_count_code_points)
{
    /* "é" is two bytes but one column, as in jansson's own messages. */
    expect_error("{\"name\": \"\xc3\xa9t\xc3\xa9\", \"dt\": -1, \"bodies\": [{}]}", "t.json:1:23: dt: ", "must be > 0");
}

/* ---------------------------------------------------------------- files */

Test(scene_files, bad_file_message_names_file_line_and_column)
{
    tp_model *m = (tp_model *)&m;
    cr_assert_eq(tp_model_load(SCENES "bad/size.json", &m), TP_ERR_PARSE);
    cr_assert_null(m);
    const char *want = "/tests/scenes/bad/size.json:8:32: bodies[3].size[1]: must be > 0, got -1";
    const char *msg = tp_last_error();
    cr_assert(strstr(msg, want) != NULL, "%s", msg);
}

Test(scene_files, missing_file_is_an_io_error)
{
    tp_model *m = (tp_model *)&m;
    cr_assert_eq(tp_model_load(SCENES "no-such-scene.json", &m), TP_ERR_IO);
    cr_assert_null(m);
    cr_assert(strstr(tp_last_error(), "no-such-scene.json: cannot open: No such file or directory") != NULL, "%s",
              tp_last_error());
}

Test(scene_files, directory_is_an_io_error)
{
    tp_model *m = (tp_model *)&m;
    cr_assert_eq(tp_model_load(SCENES "bad", &m), TP_ERR_IO, "%s", tp_last_error());
    cr_assert_null(m);
    cr_assert(strstr(tp_last_error(), "cannot read: Is a directory") != NULL, "%s", tp_last_error());
}

Test(scene_files, null_arguments)
{
    tp_model *m = (tp_model *)&m;
    cr_assert_eq(tp_model_load(NULL, &m), TP_ERR_INVALID_ARGUMENT);
    cr_assert_null(m);
    cr_assert_eq(tp_model_load_string(NULL, "x", &m), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_model_load_string("{}", "x", NULL), TP_ERR_INVALID_ARGUMENT);
}
