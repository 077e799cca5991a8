/* test_sites.c - sites through the C API (include/torpor_sites.h): added to a
 * builder, kept by the model after the builder is gone (name copied,
 * quaternion normalized), found by name; refused values name their field and
 * leave the builder as it was. The MJCF import of <site> is checked against
 * MuJoCo in python/tests/test_import.py. */
#include "helpers.h"

#include <math.h>
#include <string.h>

Test(sites, kept_by_the_model_and_found_by_name)
{
    tp_model_def md = tp_default_model_def();
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    int box = builder_add(b, &bd);
    char name[8] = "tip";
    tp_site_def s = tp_default_site_def();
    s.name = name;
    s.body = box;
    s.pos[2] = 0.5f;
    s.quat[0] = 0.0f, s.quat[2] = 2.0f, s.quat[3] = 0.0f;
    int index = -1;
    cr_assert_eq(tp_builder_add_site(b, &s, &index), TP_OK, "%s", tp_last_error());
    cr_assert_eq(index, 0);
    strcpy(name, "xxx"); /* the builder keeps its own copy */
    tp_model *m = builder_finish(b);
    cr_assert_eq(tp_model_site_count(m), 1);
    cr_assert_eq(tp_model_find_site(m, "tip"), 0);
    cr_assert_eq(tp_model_find_site(m, "xxx"), -1);
    tp_site_def out;
    cr_assert_eq(tp_model_site(m, 0, &out), TP_OK);
    cr_assert_str_eq(out.name, "tip");
    cr_assert(out.body == box && out.pos[2] == 0.5f && out.quat[2] == 1.0f && out.quat[3] == 0.0f);
    cr_assert_eq(tp_model_site(m, 1, &out), TP_ERR_INVALID_ARGUMENT);
    tp_model_destroy(m);
}

Test(sites, refused_values_name_their_field)
{
    tp_model_def md = tp_default_model_def();
    tp_builder *b = builder_begin(&md);
    tp_body_def bd = tp_default_body_def();
    builder_add(b, &bd);
    tp_site_def s = tp_default_site_def();
    cr_assert_eq(tp_builder_add_site(b, &s, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "site: name:"), "%s", tp_last_error());
    s.name = "a";
    s.body = 1;
    cr_assert_eq(tp_builder_add_site(b, &s, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "site: body: no body 1"), "%s", tp_last_error());
    s.body = -1;
    s.pos[1] = NAN;
    cr_assert_eq(tp_builder_add_site(b, &s, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "site: pos:"), "%s", tp_last_error());
    s.pos[1] = 0.0f;
    s.quat[3] = 0.0f;
    cr_assert_eq(tp_builder_add_site(b, &s, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "site: quat:"), "%s", tp_last_error());
    s.quat[3] = 1.0f;
    cr_assert_eq(tp_builder_add_site(b, &s, NULL), TP_OK, "%s", tp_last_error());
    cr_assert_eq(tp_builder_add_site(b, &s, NULL), TP_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "already the name of site 0"), "%s", tp_last_error());
    tp_model *m = builder_finish(b);
    cr_assert_eq(tp_model_site_count(m), 1); /* the refused ones were not added */
    tp_model_destroy(m);
}
