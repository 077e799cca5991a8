/* convert.c - `torpor convert ROBOT.xml OUT.json`: an MJCF or URDF file
 * written as the torpor scene it loads as (docs/import.md), for users to read
 * and edit. The scene is checked by loading it before anything is written, and
 * written to a temporary file renamed over OUT, so a failure leaves OUT as it was. */
#define _POSIX_C_SOURCE 200809L /* fileno, fsync */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_whole(const char *out, const char *text)
{
    size_t n = strlen(out) + 16;
    char *tmp = malloc(n);
    if (!tmp) {
        fprintf(stderr, "torpor convert: out of memory\n");
        return TP_EXIT_FAILURE;
    }
    snprintf(tmp, n, "%s.tmp%ld", out, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    int saved = errno;
    if (f && fclose(f) != 0 && ok) { ok = 0; saved = errno; }
    if (ok && rename(tmp, out) != 0) { ok = 0; saved = errno; }
    if (!ok) {
        fprintf(stderr, "torpor convert: cannot write %s: %s\n", out, strerror(saved));
        remove(tmp);
    }
    free(tmp);
    return ok ? TP_EXIT_OK : TP_EXIT_FAILURE;
}

int tp_cmd_convert(int argc, char **argv)
{
    if (argc != 3 || argv[1][0] == '-' || argv[2][0] == '-') {
        fprintf(stderr, "usage: torpor convert ROBOT.xml OUT.json   (ROBOT.xml: MJCF or URDF)\n");
        return TP_EXIT_USAGE;
    }
    const char *in = argv[1], *out = argv[2];
    char *json = NULL, *warnings = NULL;
    tp_status st = tp_import_scene(in, &json, &warnings);
    if (st != TP_OK) return tp_cli_report(st, "convert");
    tp_cli_print_warnings(in, warnings);
    tp_free(warnings);
    tp_model *model = NULL;
    st = tp_model_load_string(json, out, &model); /* what `torpor run OUT` would build */
    if (st != TP_OK) {
        tp_free(json);
        return tp_cli_report(st, "convert: the converted scene does not load");
    }
    int code = write_whole(out, json);
    if (code == TP_EXIT_OK)
        printf("%s: %d bodies, %d joints -> %s\n", in, tp_model_body_count(model), tp_model_joint_count(model), out);
    tp_model_destroy(model);
    tp_free(json);
    return code;
}
