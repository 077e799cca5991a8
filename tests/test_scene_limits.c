/* test_scene_limits.c - what a scene read refuses before parsing: more than
 * TP_MAX_SCENE_BYTES (a file, a stream that never ends, a string, a buffer),
 * and a NUL byte in a buffer, named by its offset and line:col. */
#define _POSIX_C_SOURCE 200809L
#include "helpers.h"

#include <time.h>

static const char *const CUBE = "{\"bodies\": [{\"size\": [1, 1, 1]}]}";

Test(scene_limits, dev_zero_is_refused_after_the_limit)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    tp_model *m = (tp_model *)1;
    cr_assert_eq(tp_model_load("/dev/zero", &m), TP_ERR_CAPACITY, "%s", tp_last_error());
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cr_assert_null(m);
    cr_assert(strstr(tp_last_error(), "/dev/zero: the file has more than 67108864 bytes (64 MiB, TP_MAX_SCENE_BYTES)"),
              "%s", tp_last_error());
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_assert_lt(s, 20.0, "took %.1f s to refuse", s);
}

Test(scene_limits, a_string_or_buffer_past_the_limit_is_refused)
{
    size_t n = (size_t)TP_MAX_SCENE_BYTES + 1;
    char *big = malloc(n + 1);
    cr_assert_not_null(big);
    memset(big, ' ', n); /* whitespace: valid JSON around a value, so only the size is wrong */
    memcpy(big, CUBE, strlen(CUBE));
    big[n] = '\0';
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_string(big, "big", &m), TP_ERR_CAPACITY, "%s", tp_last_error());
    cr_assert(strstr(tp_last_error(), "big: the scene has more than 67108864 bytes"), "%s", tp_last_error());
    cr_assert_eq(tp_model_load_buffer(big, n, "big", &m), TP_ERR_CAPACITY, "%s", tp_last_error());
    /* one byte less is read (and loads) */
    cr_assert_eq(tp_model_load_buffer(big, n - 1, "big", &m), TP_OK, "%s", tp_last_error());
    tp_model_destroy(m);
    free(big);
}

Test(scene_limits, a_nul_byte_is_refused_with_its_offset)
{
    char text[128];
    size_t len = (size_t)snprintf(text, sizeof text, "%s", CUBE);
    tp_model *m = NULL;
    cr_assert_eq(tp_model_load_buffer(text, len, "t.json", &m), TP_OK, "%s", tp_last_error());
    tp_model_destroy(m);
    /* a NUL after the document: a C string would stop before it and load */
    char tail[160];
    size_t n = (size_t)snprintf(tail, sizeof tail, "%s\n  ", CUBE);
    tail[n] = '\0';
    memcpy(tail + n + 1, "{}", 2);
    cr_assert_eq(tp_model_load_buffer(tail, n + 3, "t.json", &m), TP_ERR_PARSE);
    cr_assert_null(m);
    char want[96];
    snprintf(want, sizeof want, "t.json:2:3: a NUL byte at offset %zu; a scene is JSON text", n);
    cr_assert(strstr(tp_last_error(), want), "%s (expected %s)", tp_last_error(), want);
    cr_assert_eq(tp_model_load_buffer(NULL, 3, "t.json", &m), TP_ERR_INVALID_ARGUMENT);
}
