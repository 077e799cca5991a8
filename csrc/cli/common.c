/* common.c - helpers shared by the subcommands: errors, numbers, progress, info. */
#include "cli.h"
#include "shard.h"

#include <jansson.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
#include <unistd.h>

int tp_cli_report(tp_status status, const char *context)
{
    const char *msg = tp_last_error();
    size_t n = context ? strlen(context) : 0;
    if (context && strncmp(msg, context, n) == 0 && msg[n] == ':') context = NULL; /* the message names it */
    fprintf(stderr, "torpor: %s%s%s%s\n", context ? context : "", context ? ": " : "", msg,
            status == TP_ERR_BACKEND ? " (--backend cpu)" : "");
    int bad_input = status == TP_ERR_INVALID_ARGUMENT || status == TP_ERR_PARSE || status == TP_ERR_IO ||
                    status == TP_ERR_BACKEND || status == TP_ERR_CAPACITY;
    return bad_input ? TP_EXIT_USAGE : TP_EXIT_FAILURE;
}

/* Levenshtein distance between a and b (insertions, deletions, substitutions),
 * capped at 64 characters (options are shorter). */
static int edit_distance(const char *a, const char *b)
{
    size_t len = strlen(b);
    int n = len < 64 ? (int)len : 64, row[65];
    for (int j = 0; j <= n; ++j) row[j] = j;
    for (int i = 1; *a && i <= 64; ++i, ++a) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= n; ++j) {
            int up = row[j], best = diag + (*a != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[n];
}

int tp_cli_known_option(const char *command, const char *given, const char *const *known, int count)
{
    const char *closest = NULL;
    int best = 0;
    for (int i = 0; i < count; ++i) {
        if (strcmp(given, known[i]) == 0) return 1;
        int d = edit_distance(given, known[i]);
        if (!closest || d < best) closest = known[i], best = d;
    }
    if (closest && 3 * best <= (int)strlen(closest))
        fprintf(stderr, "%s: unknown option %s (did you mean %s?)\n", command, given, closest);
    else
        fprintf(stderr, "%s: unknown option %s\n", command, given);
    return 0;
}

int tp_cli_parse_int(const char *option, const char *text, long min, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "torpor: %s: expected an integer in [%ld, %ld], got \"%s\"\n", option, min, max, text);
        return 0;
    }
    *out = v;
    return 1;
}

int tp_cli_parse_double(const char *option, const char *text, double min, double max, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end != '\0' || !isfinite(v) || v < min || v > max) {
        fprintf(stderr, "torpor: %s: expected a number in [%g, %g], got \"%s\"\n", option, min, max, text);
        return 0;
    }
    *out = v;
    return 1;
}

double tp_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tp_progress_begin(tp_progress *p, int quiet)
{
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->start = tp_now_seconds();
    p->last_draw = 0.0;
    p->drawn = 0;
    p->mark_time = p->prev_time = p->start;
    p->mark_fraction = p->prev_fraction = 0.0;
}

/* Seconds left at the rate of the last 5-10 s, not of the whole run: steps get
 * much cheaper once worlds fall asleep, and the estimate should follow. */
static double progress_eta(tp_progress *p, double now, double fraction)
{
    if (now - p->mark_time >= 5.0) {
        p->prev_time = p->mark_time;
        p->prev_fraction = p->mark_fraction;
        p->mark_time = now;
        p->mark_fraction = fraction;
    }
    double df = fraction - p->prev_fraction, dt = now - p->prev_time;
    return df > 0.0 ? (1.0 - fraction) * dt / df : 0.0;
}

void tp_progress_update(tp_progress *p, double fraction, double sim_time, int worlds_asleep, int worlds)
{
    if (!p->enabled) return;
    double now = tp_now_seconds(), elapsed = now - p->start;
    if (elapsed < 1.0 || now - p->last_draw < 0.1) return; /* only runs longer than a second, at 10 Hz */
    p->last_draw = now;
    p->drawn = 1;
    const int width = 30;
    int filled = (int)(fraction * width);
    char bar[64];
    for (int i = 0; i < width; ++i) bar[i] = i < filled ? '#' : '-';
    bar[width] = '\0';
    double eta = progress_eta(p, now, fraction);
    fprintf(stderr, "\r[%s] %5.1f%%  t = %.2f s  asleep %d/%d worlds  %.0f s left   ", bar, 100.0 * fraction,
            sim_time, worlds_asleep, worlds, eta);
    fflush(stderr);
}

void tp_progress_end(tp_progress *p)
{
    if (p->enabled && p->drawn) fprintf(stderr, "\n");
}

int tp_cli_default_threads(void) { return omp_get_max_threads(); }

int tp_cmd_info(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: torpor info   (version, backends and pictures of this build)\n");
        return TP_EXIT_OK;
    }
    if (argc > 1) {
        fprintf(stderr, "torpor info: takes no arguments (torpor info --help)\n");
        return TP_EXIT_USAGE;
    }
    printf("torpor %s\n", TP_VERSION_STRING);
    printf("backends:\n");
    printf("  cpu   yes (OpenMP, %d threads available)\n", omp_get_max_threads());
    if (tp_cuda_built()) {
        char why[256];
        int n = tp_cuda_probe(why, sizeof why);
        if (n > 0) printf("  cuda  built in; %d device(s) usable now\n", n);
        else printf("  cuda  built in; 0 device(s) usable now (%s)\n", why);
    } else {
        printf("  cuda  not built in (nvcc was not found at configure time)\n");
    }
    printf("mpi: %s\n", tp_shard_transport());
#ifdef TP_HAVE_CAIRO
    printf("pictures: yes (cairo: awake.png, snapshot.png, --video frames with ffmpeg)\n");
#else
    printf("pictures: no (built without cairo; install libcairo2-dev and rebuild)\n");
#endif
    return TP_EXIT_OK;
}

int tp_cli_finish_stdout(const char *command, int code)
{
    errno = 0;
    int bad = fflush(stdout) != 0 || ferror(stdout);
    if (!bad) return code;
    fprintf(stderr, "torpor %s: cannot write to standard output: %s\n", command, strerror(errno ? errno : EIO));
    return code == TP_EXIT_OK || code == TP_EXIT_FAULTED ? TP_EXIT_FAILURE : code;
}

int tp_cli_is_robot(const char *path)
{
    char head[4096];
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    return tp_xml_kind_of(head) != TP_XML_NONE;
}

void tp_cli_print_warnings(const char *path, const char *warnings)
{
    for (const char *p = warnings; p && *p;) {
        const char *e = strchr(p, '\n');
        if (!e) e = p + strlen(p);
        fprintf(stderr, "torpor: %s: warning: %.*s\n", path, (int)(e - p), p);
        p = *e ? e + 1 : e;
    }
}

/* The scene of an MJCF or URDF file as JSON, its warnings printed; NULL when it
 * cannot be read (the caller's tp_model_load then reports why). */
static json_t *robot_scene_json(const char *path)
{
    char *json = NULL, *warnings = NULL;
    if (tp_import_scene(path, &json, &warnings) != TP_OK) return NULL;
    tp_cli_print_warnings(path, warnings);
    tp_free(warnings);
    json_t *root = json_loads(json, 0, NULL);
    tp_free(json);
    return root;
}

static int is_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f) fclose(f);
    return f != NULL;
}

const char *tp_cli_scene_path(const char *name, char *buf, size_t len)
{
    if (is_file(name) || strchr(name, '/')) return name;
    const char *dirs[] = {"scenes", TP_SCENES_DIR};
    const char *ext = strlen(name) > 5 && strcmp(name + strlen(name) - 5, ".json") == 0 ? "" : ".json";
    for (int i = 0; i < 2; ++i) {
        snprintf(buf, len, "%s/%s%s", dirs[i], name, ext);
        if (is_file(buf)) return buf;
    }
    return name;
}

/* A scene with sleep.enabled forced on (1) or off (0), or as written (-1).
 * The file is loaded as it is first, so that its errors carry their line and
 * column; only then is it loaded again from a copy with the sleep switch
 * changed (events and everything else kept). An MJCF or URDF file's warnings
 * are printed here. */
static tp_status load_scene(const char *path, int sleep, tp_model **out)
{
    int robot = tp_cli_is_robot(path);
    json_t *robot_json = robot ? robot_scene_json(path) : NULL;
    tp_status st = tp_model_load(path, out);
    if (st != TP_OK || sleep < 0 || tp_model_settings(*out).sleep.enabled == sleep) {
        json_decref(robot_json);
        return st;
    }
    tp_model_destroy(*out);
    *out = NULL;
    json_error_t err;
    json_t *root = robot ? robot_json : json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!root) return tp_model_load(path, out);
    json_t *sleep_obj = json_object_get(root, "sleep");
    if (!json_is_object(sleep_obj)) {
        sleep_obj = json_object();
        json_object_set_new(root, "sleep", sleep_obj);
    }
    json_object_set_new(sleep_obj, "enabled", json_boolean(sleep));
    char *text = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (!text) return tp_model_load(path, out);
    st = tp_model_load_string(text, path, out);
    free(text);
    return st;
}

/* The scene, then its bodies that start inside one another printed as warnings. */
tp_status tp_cli_load_scene(const char *name, int sleep, tp_model **out)
{
    char buf[4096];
    const char *path = tp_cli_scene_path(name, buf, sizeof buf);
    tp_status st = load_scene(path, sleep, out);
    if (st != TP_OK) return st;
    char *warnings = NULL;
    if (tp_model_overlaps(*out, &warnings) == TP_OK) tp_cli_print_warnings(path, warnings);
    else fprintf(stderr, "torpor: %s: warning: overlaps not checked: %s\n", path, tp_last_error());
    tp_free(warnings);
    return TP_OK;
}

int tp_cli_steps_for(const char *command, double seconds, float dt, long *steps)
{
    double n = seconds / (double)dt + 0.5;
    if (!(n < (double)TP_CLI_MAX_STEPS + 1.0)) {
        fprintf(stderr, "torpor %s: --seconds %g at the scene's dt %g s is %.3g steps, more than %ld; give fewer "
                        "seconds or a scene with a longer dt\n", command, seconds, (double)dt, n, TP_CLI_MAX_STEPS);
        return 0;
    }
    *steps = (long)n;
    return 1;
}
