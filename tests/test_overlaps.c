/* test_overlaps.c - bodies that start inside one another are reported at load
 * (tp_model_overlaps), naming both bodies and the depth; touching, separated,
 * a compound body's own shapes and a joint's parent and child are not. */
#include "helpers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The warnings of a scene given as JSON (NULL when there are none). */
static char *overlaps_of(const char *json)
{
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(json, "t.json", &m), TP_OK, "%s", tp_last_error());
    char *w = NULL;
    cr_assert_eq(tp_model_overlaps(m, &w), TP_OK, "%s", tp_last_error());
    tp_model_destroy(m);
    return w;
}

/* A static ground (top at z = 0), a 1 m box "a" resting on it at x = 0, and a
 * 1 m box "b" at x = bx resting on it too, plus `extra` JSON. */
static char *two_boxes(float bx, const char *extra)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"version\": 2, \"bodies\": [{\"name\": \"ground\", \"static\": true, \"size\": [20, 20, 1],"
             " \"pos\": [0, 0, -0.5]}, {\"name\": \"a\", \"pos\": [0, 0, 0.5]}, {\"name\": \"b\", \"pos\": [%.9g, 0, 0.5]}]%s}",
             (double)bx, extra);
    return overlaps_of(json);
}

Test(overlaps, overlapping_boxes_are_named_with_their_depth)
{
    /* b's -x face is 0.07 m inside a's +x face: the geometric overlap is 70 mm */
    char *w = two_boxes(0.93f, "");
    cr_assert(w != NULL, "no warning for two boxes 70 mm inside each other");
    cr_assert(strstr(w, "\"a\"") && strstr(w, "\"b\""), "the warning names both bodies: %s", w);
    cr_assert(!strstr(w, "ground"), "boxes resting on the ground do not warn: %s", w);
    cr_assert(strchr(w, '\n') == w + strlen(w) - 1, "one line for one pair: %s", w);
    const char *at = strstr(w, "start ");
    cr_assert(at, "%s", w);
    double mm = atof(at + 6);
    cr_assert(fabs(mm - 70.0) <= 1.0, "depth %g mm, the geometric overlap is 70 mm", mm);
    tp_free(w);
}

/* An event for world 7 does not stop the check (the probe is world 0 of a run
 * of any size). */
Test(overlaps, an_event_for_a_later_world_does_not_stop_the_check)
{
    char *w = two_boxes(0.4f, ", \"events\": [{\"time\": 1, \"action\": \"impulse\", \"body\": \"a\","
                              " \"value\": [0, 0, 1], \"worlds\": [7]}]");
    cr_assert(w != NULL && strstr(w, "\"a\"") && strstr(w, "\"b\""), "no warning: %s", w ? w : tp_last_error());
    tp_free(w);
}

Test(overlaps, touching_and_separated_bodies_do_not_warn)
{
    char *w = two_boxes(1.0f, ""); /* faces touch */
    cr_assert(w == NULL, "touching boxes warned: %s", w);
    w = two_boxes(1.5f, "");
    cr_assert(w == NULL, "separated boxes warned: %s", w);
}

Test(overlaps, joint_parent_and_child_and_compound_shapes_do_not_warn)
{
    /* b is a's child through a revolute joint: links of one tree joined by a
     * joint never collide, so their overlap is allowed */
    char *w = two_boxes(0.93f, ", \"joints\": [{\"child\": \"a\", \"type\": \"free\"}, {\"parent\": \"a\", \"child\": \"b\", \"anchor\": [0.45, 0, 0.5]}]");
    cr_assert(w == NULL, "a joint's parent and child warned: %s", w);
    /* a compound body whose own shapes overlap, resting on the ground */
    w = overlaps_of("{\"version\": 2, \"bodies\": [{\"name\": \"ground\", \"static\": true, \"size\": [20, 20, 1],"
                    " \"pos\": [0, 0, -0.5]}, {\"name\": \"c\", \"pos\": [0, 0, 0.5], \"shapes\": [{\"size\": [1, 1, 1]},"
                    " {\"size\": [1, 1, 1], \"pos\": [0.5, 0, 0]}]}]}");
    cr_assert(w == NULL, "a compound body's own shapes warned: %s", w);
    /* but a compound body inside another body warns, naming both */
    w = overlaps_of("{\"version\": 2, \"bodies\": [{\"name\": \"c\", \"shapes\": [{\"size\": [1, 1, 1]},"
                    " {\"size\": [1, 1, 1], \"pos\": [0.5, 0, 0]}]}, {\"name\": \"d\", \"pos\": [1.45, 0, 0]}]}");
    cr_assert(w && strstr(w, "\"c\"") && strstr(w, "\"d\""), "a compound body 50 mm inside a box: %s", w ? w : "");
    double mm = atof(strstr(w, "start ") + 6);
    cr_assert(fabs(mm - 50.0) <= 1.0, "depth %g mm, the geometric overlap is 50 mm", mm);
    tp_free(w);
}
