/* cli.h - the `torpor` command line: subcommands and their shared helpers. */
#ifndef TP_CLI_H
#define TP_CLI_H

#include "torpor.h"

#include <stdio.h>

/* Exit codes: 0 success, 1 runtime failure (an output that cannot be written
 * included), 2 bad input (usage, scene, values), 3 every world of a run
 * faulted, 130 interrupted by SIGINT, 143 by SIGTERM (128 + the signal, as a
 * shell reports a process killed by it; docs/outputs.md). */
enum {
    TP_EXIT_OK = 0,
    TP_EXIT_FAILURE = 1,
    TP_EXIT_USAGE = 2,
    TP_EXIT_FAULTED = 3,
    TP_EXIT_INTERRUPTED = 130,
    TP_EXIT_TERMINATED = 143
};

/* Flush stdout at the end of a command; a failed write (a full device) names
 * standard output and turns the exit status into TP_EXIT_FAILURE. */
int tp_cli_finish_stdout(const char *command, int code);

int tp_cmd_run(int argc, char **argv);
int tp_cmd_info(int argc, char **argv);
int tp_cmd_trace(int argc, char **argv);
int tp_cmd_bench(int argc, char **argv);
int tp_cmd_view(int argc, char **argv);

/* The file of a scene argument: `name` itself when it is a file or holds a
 * '/'; else the first of scenes/NAME.json in the current directory and in
 * the source tree's scenes/ (TP_SCENES_DIR) that exists (".json" is not
 * added twice); else `name`. May return buf. */
const char *tp_cli_scene_path(const char *name, char *buf, size_t len);

/* Load a scene (a path or a bare name, tp_cli_scene_path) with sleep forced
 * on (1) or off (0), or as written (-1). */
tp_status tp_cli_load_scene(const char *name, int sleep, tp_model **out);

/* Is the file an MJCF or URDF robot (its root element <mujoco> or <robot>)? */
int tp_cli_is_robot(const char *path);
/* Print tp_import_scene's warning lines as "torpor: PATH: warning: LINE". */
void tp_cli_print_warnings(const char *path, const char *warnings);

int tp_cmd_convert(int argc, char **argv);

/* CPU threads a batch uses when --threads is not given (OpenMP's default). */
int tp_cli_default_threads(void);

/* Exit code for a failed library call: 2 for bad input, 1 otherwise; prints the message. */
int tp_cli_report(tp_status status, const char *context);

/* 1 if `given` is one of the `count` options `known`; else prints "COMMAND:
 * unknown option GIVEN", with "(did you mean --X?)" for the closest known
 * option within a third of its length in edits, and returns 0. */
int tp_cli_known_option(const char *command, const char *given, const char *const *known, int count);

/* Parse an integer / double option value; print an error naming the option. */
int tp_cli_parse_int(const char *option, const char *text, long min, long max, long *out);
int tp_cli_parse_double(const char *option, const char *text, double min, double max, double *out);

/* Most steps one run may take: --steps's bound, and that of --seconds / dt. */
#define TP_CLI_MAX_STEPS 2000000000L

/* Steps of `seconds` at the scene's dt (rounded to nearest) into *steps; 0
 * with an error naming --seconds and dt when they exceed TP_CLI_MAX_STEPS. */
int tp_cli_steps_for(const char *command, double seconds, float dt, long *steps);

/* A progress bar on stderr, drawn only on a terminal and only once a run has
 * taken more than a second. */
typedef struct tp_progress {
    int enabled;
    double start, last_draw;
    int drawn;
    double mark_time, mark_fraction; /* the rate for the time-left estimate is taken since this mark */
    double prev_time, prev_fraction; /* previous mark, moved up every 5 s */
} tp_progress;
void tp_progress_begin(tp_progress *p, int quiet);
void tp_progress_update(tp_progress *p, double fraction, double sim_time, int worlds_asleep, int worlds);
void tp_progress_end(tp_progress *p);
double tp_now_seconds(void);

#endif
