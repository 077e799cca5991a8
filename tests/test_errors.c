/* test_errors.c - errors without globals where they hurt (issue 11, item 4):
 * the error record in parts (tp_last_error_info, tp_model_load*_with_error),
 * a successful load clearing it, the device probe writing only the caller's
 * buffer; and reading a model's events (what the command line needs). Every
 * expected place (line, column) is counted by hand in the scene text. */
#include <criterion/criterion.h>

#include "torpor.h"

#include <stdio.h>
#include <string.h>

/* A scene whose second body has size[1] = -1: line 4 (1-based), and the value
 * -1 starts at column 50 of that line (counted below). */
static const char *bad_scene =
    "{\"format\": \"torpor-scene\", \"version\": 1,\n"
    " \"bodies\": [\n"
    "  {\"name\": \"ground\", \"size\": [9, 9, 1], \"static\": true},\n"
    "  {\"name\": \"cube\", \"pos\": [0, 0, 1], \"size\": [1, -1, 1]}\n"
    " ]}\n";
/* line 4: two spaces, then {"name": "cube", "pos": [0, 0, 1], "size": [1, -1, 1]}
 *         columns: '{' is 3, "cube", ends at 18, "pos": [0, 0, 1], at 36, then
 *         ' ' 37, "size": 38-44, ' ' 45, '[' 46, '1' 47, ',' 48, ' ' 49, '-' 50. */

static const char *good_scene =
    "{\"format\": \"torpor-scene\", \"version\": 1,\n"
    " \"bodies\": [{\"name\": \"cube\", \"pos\": [0, 0, 1]}],\n"
    " \"events\": [{\"time\": 2.0, \"action\": \"wake\", \"body\": \"cube\"},\n"
    "            {\"time\": 0.5, \"action\": \"impulse\", \"body\": \"cube\", \"value\": [1, 0, 0], \"worlds\": [3, 1]}]}\n";

Test(errors, parse_error_in_parts)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(bad_scene, "bad.json", &m), TP_ERR_PARSE);
    cr_assert_null(m);
    tp_error_info e;
    cr_assert_eq(tp_last_error_info(&e), TP_OK);
    cr_assert_eq(e.status, TP_ERR_PARSE);
    cr_assert_str_eq(e.path, "bad.json");
    cr_assert_eq(e.line, 4, "line %d", e.line);
    cr_assert_eq(e.column, 50, "column %d", e.column);
    cr_assert_str_eq(e.field, "bodies[1].size[1]");
    cr_assert(strstr(e.reason, "-1") && !strstr(e.reason, "bad.json"), "reason: %s", e.reason);
    /* the string is the parts put together */
    char expect[2048];
    snprintf(expect, sizeof expect, "bad.json:4:50: bodies[1].size[1]: %s", e.reason);
    cr_assert_str_eq(e.message, expect);
    cr_assert_str_eq(tp_last_error(), expect);
}

Test(errors, malformed_json_and_missing_file_in_parts)
{
    tp_model *m = NULL;
    tp_error_info e;
    /* the missing value after "version": is at line 2, column 13 */
    cr_assert_eq(tp_model_load_string_with_error("{\"format\": 1,\n \"version\": }", "j.json", &m, &e), TP_ERR_PARSE);
    cr_assert_eq(e.status, TP_ERR_PARSE);
    cr_assert_str_eq(e.path, "j.json");
    cr_assert_eq(e.line, 2, "line %d (%s)", e.line, e.message);
    cr_assert_gt(e.column, 0);
    cr_assert_str_eq(e.field, "");
    cr_assert(strncmp(e.reason, "malformed JSON", 14) == 0, "%s", e.reason);

    cr_assert_eq(tp_model_load_with_error("/nonexistent/dir/x.json", &m, &e), TP_ERR_IO);
    cr_assert_eq(e.status, TP_ERR_IO);
    cr_assert_str_eq(e.path, "/nonexistent/dir/x.json");
    cr_assert_eq(e.line, 0);
    cr_assert_eq(e.column, 0);
    cr_assert(strncmp(e.reason, "cannot open", 11) == 0, "%s", e.reason);
    cr_assert(strncmp(e.message, "/nonexistent/dir/x.json: cannot open", 36) == 0, "%s", e.message);
}

Test(errors, successful_load_clears_the_last_error)
{
    tp_model *m = NULL;
    cr_assert_neq(tp_model_load_string(bad_scene, "bad.json", &m), TP_OK);
    cr_assert_neq(tp_last_error()[0], '\0');
    cr_assert_eq(tp_model_load_string(good_scene, "good.json", &m), TP_OK, "%s", tp_last_error());
    cr_assert_str_eq(tp_last_error(), "");
    tp_error_info e;
    cr_assert_eq(tp_last_error_info(&e), TP_OK);
    cr_assert_eq(e.status, TP_OK);
    cr_assert_str_eq(e.message, "");
    tp_model_destroy(m);

    /* the out-parameter form reports success in the caller's record too */
    cr_assert_neq(tp_model_load_string(bad_scene, "bad.json", &m), TP_OK);
    memset(&e, 0x5a, sizeof e);
    cr_assert_eq(tp_model_load_string_with_error(good_scene, "good.json", &m, &e), TP_OK);
    cr_assert_eq(e.status, TP_OK);
    cr_assert_str_eq(e.message, "");
    cr_assert_str_eq(e.path, "");
    tp_model_destroy(m);
    cr_assert_eq(tp_model_load_string_with_error(bad_scene, "bad.json", &m, NULL), TP_ERR_PARSE);
}

Test(errors, other_calls_fill_status_reason_and_message)
{
    cr_assert_eq(tp_batch_create(NULL, NULL, NULL), TP_ERR_INVALID_ARGUMENT);
    tp_error_info e;
    cr_assert_eq(tp_last_error_info(&e), TP_OK);
    cr_assert_eq(e.status, TP_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(e.path, "");
    cr_assert_eq(e.line, 0);
    cr_assert_str_eq(e.reason, e.message);
    cr_assert(strstr(e.message, "tp_batch_create"), "%s", e.message);
    cr_assert_eq(tp_last_error_info(NULL), TP_ERR_INVALID_ARGUMENT);
}

/* A fault that only the finished model shows (a constraint holding an
 * articulation link: the links are known once the joints are compiled) is
 * placed at the scene's element, here constraints[0]: line 5, whose '{' is
 * column 3 (two spaces before it). */
static const char *link_constraint_scene =
    "{\"format\": \"torpor-scene\", \"version\": 2,\n"
    " \"bodies\": [{\"name\": \"rod\", \"pos\": [0, 0, 1]}],\n"
    " \"joints\": [{\"name\": \"pivot\", \"type\": \"revolute\", \"parent\": \"world\", \"child\": \"rod\", \"axis\": [0, 1, 0]}],\n"
    " \"constraints\": [\n"
    "  {\"name\": \"pin\", \"type\": \"ball\", \"body0\": \"rod\", \"body1\": \"world\"}]}\n";

Test(errors, model_fault_placed_at_the_scene_element)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(link_constraint_scene, "link.json", &m), TP_ERR_PARSE);
    cr_assert_null(m);
    tp_error_info e;
    cr_assert_eq(tp_last_error_info(&e), TP_OK);
    cr_assert_eq(e.line, 5, "line %d: %s", e.line, e.message);
    cr_assert_eq(e.column, 3, "column %d: %s", e.column, e.message);
    cr_assert_str_eq(e.field, "constraints[0]");
    cr_assert(strstr(e.reason, "articulation link") && strstr(e.reason, "\"pin\""), "%s", e.reason);
    const char *where = "link.json:5:3: constraints[0]: ";
    cr_assert(strncmp(e.message, where, strlen(where)) == 0, "%s", e.message);
}

/* The same for a mover on an articulation link (movers[1]: line 6, column 3). */
static const char *link_mover_scene =
    "{\"format\": \"torpor-scene\", \"version\": 2,\n"
    " \"bodies\": [{\"name\": \"rod\", \"pos\": [0, 0, 1]}, {\"name\": \"box\", \"pos\": [2, 0, 1]}],\n"
    " \"joints\": [{\"name\": \"pivot\", \"type\": \"revolute\", \"parent\": \"world\", \"child\": \"rod\", \"axis\": [0, 1, 0]}],\n"
    " \"movers\": [\n"
    "  {\"name\": \"lift\", \"type\": \"vector_force\", \"body0\": \"box\"},\n"
    "  {\"name\": \"spin\", \"type\": \"torque\", \"body0\": \"rod\"}]}\n";

/* A constraint event whose parameter its constraint lacks (a hinge has no
 * length), written second but due first: the place is events[1] as written
 * (line 8, column 3), not its index in time order. */
static const char *bad_constraint_event_scene =
    "{\"format\": \"torpor-scene\", \"version\": 2,\n"
    " \"bodies\": [{\"name\": \"door\", \"pos\": [0, 0, 1]}],\n"
    " \"constraints\": [{\"name\": \"hinge\", \"type\": \"hinge\", \"body1\": \"door\"}],\n"
    " \"events\": [\n"
    "  {\"time\": 1.0, \"action\": \"constraint\", \"constraint\": \"hinge\",\n"
    "   \"param\": \"target\", \"to\": 1},\n"
    "\n"
    "  {\"time\": 0.5, \"action\": \"constraint\", \"constraint\": \"hinge\", \"param\": \"length\", \"to\": 2}]}\n";

static void expect_placed(const char *json, const char *source, int line, int column, const char *field,
                          const char *needle)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(json, source, &m), TP_ERR_PARSE, "%s", tp_last_error());
    cr_assert_null(m);
    tp_error_info e;
    cr_assert_eq(tp_last_error_info(&e), TP_OK);
    cr_assert_eq(e.line, line, "line %d: %s", e.line, e.message);
    cr_assert_eq(e.column, column, "column %d: %s", e.column, e.message);
    cr_assert_str_eq(e.field, field);
    cr_assert(strstr(e.reason, needle), "%s", e.reason);
}

/* A bad mover event written before a bad constraint event: the first written
 * is the one named (events[0]: line 6, column 3). */
static const char *bad_mover_then_constraint_event_scene =
    "{\"format\": \"torpor-scene\", \"version\": 2,\n"
    " \"bodies\": [{\"name\": \"door\", \"pos\": [0, 0, 1]}],\n"
    " \"constraints\": [{\"name\": \"hinge\", \"type\": \"hinge\", \"body1\": \"door\"}],\n"
    " \"movers\": [{\"name\": \"turn\", \"type\": \"align_orientation\", \"body0\": \"door\"}],\n"
    " \"events\": [\n"
    "  {\"time\": 2.0, \"action\": \"mover\", \"mover\": \"turn\", \"target\": [0, 0, 0, 0]},\n"
    "  {\"time\": 1.0, \"action\": \"constraint\", \"constraint\": \"hinge\", \"param\": \"length\", \"to\": 2}]}\n";

Test(errors, mover_and_constraint_event_faults_placed_at_the_scene_element)
{
    expect_placed(bad_mover_then_constraint_event_scene, "events.json", 6, 3, "events[0]",
                  "non-zero quaternion");
    expect_placed(link_mover_scene, "mover.json", 6, 3, "movers[1]", "\"spin\": body0: \"rod\" is an articulation link");
    expect_placed(bad_constraint_event_scene, "event.json", 8, 3, "events[1]", "length of \"hinge\" (a hinge) is not a parameter");
}

Test(errors, probe_writes_the_callers_buffer)
{
    char a[256], tiny[5];
    memset(tiny, 'x', sizeof tiny);
    int n = tp_cuda_probe(a, sizeof a);
    cr_assert_eq(n, tp_cuda_device_count());
    cr_assert_eq(tp_cuda_probe(NULL, 0), n);
    cr_assert_eq(tp_cuda_probe(tiny, sizeof tiny), n);
    cr_assert_eq(tiny[sizeof tiny - 1], '\0', "not NUL-terminated");
    cr_assert(strncmp(a, tiny, sizeof tiny - 1) == 0, "\"%s\" is not the start of \"%s\"", tiny, a);
    if (!tp_cuda_built()) cr_assert_str_eq(a, "this build has no CUDA backend");
    else if (n > 0) {
        char expect[64];
        snprintf(expect, sizeof expect, "%d device(s)", n);
        cr_assert_str_eq(a, expect);
    } else cr_assert_neq(a[0], '\0', "no reason given for 0 devices");
}

Test(errors, model_events_readable_in_firing_order)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(good_scene, "good.json", &m), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_model_event_count(m), 2);
    cr_assert_eq(tp_model_event_count(NULL), 0);
    tp_event_def e;
    cr_assert_eq(tp_model_event(m, 0, &e), TP_OK);
    cr_assert_eq(e.time, 0.5); /* sorted by time: the impulse written second fires first */
    cr_assert_eq(e.action, TP_EVENT_IMPULSE);
    cr_assert_eq(e.body, 0);
    cr_assert_eq(e.value[0], 1.0f);
    cr_assert_eq(e.world_count, 2);
    cr_assert_eq(e.worlds[0], 3);
    cr_assert_eq(e.worlds[1], 1);
    cr_assert_eq(tp_model_event(m, 1, &e), TP_OK);
    cr_assert_eq(e.time, 2.0);
    cr_assert_eq(e.action, TP_EVENT_WAKE);
    cr_assert_eq(e.world_count, 0);
    cr_assert_null(e.worlds);
    cr_assert_eq(tp_model_event(m, 2, &e), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "index 2"), "%s", tp_last_error());
    cr_assert_eq(tp_model_event(m, -1, &e), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_model_event(m, 0, NULL), TP_ERR_INVALID_ARGUMENT);
    tp_model_destroy(m);
}

/* tp_batch_device_state: the cpu backend has no device arrays; it says so and
 * writes nothing into the caller's view. */
Test(errors, device_state_on_the_cpu_backend_is_refused_and_writes_nothing)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(good_scene, "good", &m), TP_OK, "%s", tp_last_error());
    tp_batch_def bd = tp_default_batch_def();
    bd.worlds = 4; /* the scene's events name world 3 */
    tp_batch *b = NULL;
    cr_assert_eq(tp_batch_create(m, &bd, &b), TP_OK, "%s", tp_last_error());
    tp_state_view v;
    memset(&v, 0xAB, sizeof v);
    tp_state_view before = v;
    cr_assert_eq(tp_batch_device_state(b, &v), TP_ERR_BACKEND);
    cr_assert(strstr(tp_last_error(), "cpu backend"), "%s", tp_last_error());
    cr_assert(memcmp(&v, &before, sizeof v) == 0, "the view was changed by a failed call");
    cr_assert_eq(tp_batch_device_state(b, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert_eq(tp_batch_device_state(NULL, &v), TP_ERR_INVALID_ARGUMENT);
    tp_batch_destroy(b);
    tp_model_destroy(m);
}
