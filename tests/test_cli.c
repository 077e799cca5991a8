#define _POSIX_C_SOURCE 200809L
/* test_cli.c - `torpor run` and `torpor info` as a user runs them: exit codes,
 * messages and the output files of docs/outputs.md. */
#include <criterion/criterion.h>

#include "torpor.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[64];
static char *read_text(const char *path);

static void make_tmpdir(void)
{
    strcpy(tmpdir, "/tmp/tp_cli_XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    cr_assert_eq(system(cmd), 0);
}

/* Run the CLI with `args`; returns the exit status, stderr in err (if given). */
static int run_cli(const char *args, char *err, size_t err_len)
{
    char cmd[2048], errfile[128];
    snprintf(errfile, sizeof errfile, "%s/stderr.txt", tmpdir);
    snprintf(cmd, sizeof cmd, "%s %s >%s/stdout.txt 2>%s", TP_CLI, args, tmpdir, errfile);
    int st = system(cmd);
    if (err) {
        FILE *f = fopen(errfile, "r");
        size_t n = f ? fread(err, 1, err_len - 1, f) : 0;
        err[n] = '\0';
        if (f) fclose(f);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static long count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s is missing", path);
    long n = 0;
    int c;
    while ((c = fgetc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n;
}

static char *first_line(const char *path)
{
    static char line[512];
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s is missing", path);
    cr_assert_not_null(fgets(line, sizeof line, f));
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    return line;
}

Test(cli, run_writes_the_documented_files, .init = make_tmpdir, .fini = remove_tmpdir)
{
    char args[512], path[256], err[4096];
    snprintf(args, sizeof args, "run scenes/tower.json --worlds 3 --steps 30 --every 10 --record-bodies --out %s/o", tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 0, "%s", err);

    snprintf(path, sizeof path, "%s/o/awake.csv", tmpdir);
    cr_assert_str_eq(first_line(path), "step,time,world,awake,checking,sleeping");
    cr_assert_eq(count_lines(path), 1 + 3 * 4, "header + 3 worlds x steps 0, 10, 20, 30");
    snprintf(path, sizeof path, "%s/o/state.csv", tmpdir);
    cr_assert_str_eq(first_line(path), "world,body,name,x,y,z,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz,state");
    cr_assert_eq(count_lines(path), 1 + 3 * 11);
    snprintf(path, sizeof path, "%s/o/bodies.csv", tmpdir);
    cr_assert_str_eq(first_line(path), "step,time,world,body,name,x,y,z,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz,state");
    cr_assert_eq(count_lines(path), 1 + 4 * 3 * 11);

    snprintf(path, sizeof path, "%s/o/summary.json", tmpdir);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    cr_assert_not_null(j, "summary.json: %s", je.text);
    const char *keys[] = {"scene", "worlds", "bodies_per_world", "dynamic_bodies_per_world", "steps", "dt",
                          "substeps", "backend", "threads", "wall_seconds", "world_steps_per_second",
                          "body_steps_per_second", "awake_final", "all_asleep_time", "state_hash",
                          "world_hashes", "contact_overflow", "faults", "device_memory_bytes_per_world"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i)
        cr_assert_not_null(json_object_get(j, keys[i]), "summary.json lacks %s", keys[i]);
    cr_assert_eq(json_integer_value(json_object_get(j, "worlds")), 3);
    cr_assert_eq(json_integer_value(json_object_get(j, "bodies_per_world")), 11);
    cr_assert_eq(json_integer_value(json_object_get(j, "dynamic_bodies_per_world")), 10);
    cr_assert_eq(json_integer_value(json_object_get(j, "steps")), 30);
    cr_assert_str_eq(json_string_value(json_object_get(j, "backend")), "cpu");
    cr_assert_eq(json_integer_value(json_object_get(j, "device_memory_bytes_per_world")), 0, "no device memory on the CPU");
    cr_assert_eq(json_array_size(json_object_get(j, "world_hashes")), 3);
    cr_assert_eq(json_array_size(json_object_get(j, "awake_final")), 3);
    cr_assert_eq(strlen(json_string_value(json_object_get(j, "state_hash"))), 16);
    json_decref(j);
}

/* The same scene twice, in two processes: the same state hash (C10's form). */
Test(cli, two_processes_same_hash, .init = make_tmpdir, .fini = remove_tmpdir)
{
    char args[512], path[256], err[2048];
    const char *hash[2];
    json_t *j[2];
    for (int i = 0; i < 2; ++i) {
        snprintf(args, sizeof args, "run scenes/tower.json --worlds 4 --steps 40 --threads %d --out %s/o%d", i + 1,
                 tmpdir, i);
        cr_assert_eq(run_cli(args, err, sizeof err), 0, "%s", err);
        snprintf(path, sizeof path, "%s/o%d/summary.json", tmpdir, i);
        json_error_t je;
        j[i] = json_load_file(path, 0, &je);
        cr_assert_not_null(j[i]);
        hash[i] = json_string_value(json_object_get(j[i], "state_hash"));
    }
    cr_assert_str_eq(hash[0], hash[1], "1 and 2 threads, two processes");
    json_decref(j[0]);
    json_decref(j[1]);
}

Test(cli, bad_input_exits_2_with_a_clear_message, .init = make_tmpdir, .fini = remove_tmpdir)
{
    char err[4096], args[512];
    cr_assert_eq(run_cli("run", err, sizeof err), 2);
    cr_assert(strstr(err, "no scene file"), "%s", err);
    snprintf(args, sizeof args, "run scenes/tower.json --worlds 0 --out %s/o", tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 2);
    cr_assert(strstr(err, "--worlds"), "%s", err);
    snprintf(args, sizeof args, "run scenes/tower.json --seconds 1 --steps 3 --out %s/o", tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 2);
    snprintf(args, sizeof args, "run scenes/tower.json --bogus --out %s/o", tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 2);
    cr_assert(strstr(err, "--bogus"), "%s", err);
    snprintf(args, sizeof args, "run /nonexistent/scene.json --out %s/o", tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 2);
    cr_assert(strstr(err, "/nonexistent/scene.json"), "%s", err);
    snprintf(args, sizeof args, "run tests/scenes/bad/size.json --out %s/o", tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 2);
    cr_assert(strstr(err, "tests/scenes/bad/size.json:") && strstr(err, "size"), "%s", err);
    cr_assert_eq(run_cli("frobnicate", err, sizeof err), 2);
}

/* Write `text` to tmpdir/name. */
static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* Run `torpor ARGS` with stdout going to `out` (a path); stderr into err. */
static int run_cli_to(const char *args, const char *out, char *err, size_t err_len)
{
    char cmd[2048], errfile[128];
    snprintf(errfile, sizeof errfile, "%s/stderr.txt", tmpdir);
    snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s", TP_CLI, args, out, errfile);
    int st = system(cmd);
    FILE *f = fopen(errfile, "r");
    size_t n = f ? fread(err, 1, err_len - 1, f) : 0;
    err[n] = '\0';
    if (f) fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* C21: each output file, made a link to the always-full /dev/full, is named
 * on stderr with the reason, and the run exits 1, at 1 and at 3 worlds; so is
 * standard output (run, info and trace). */
Test(cli, output_write_failures_are_never_silent, .init = make_tmpdir, .fini = remove_tmpdir)
{
    if (access("/dev/full", W_OK) != 0) cr_skip_test("no /dev/full here");
    const char *files[] = {"state.csv", "awake.csv", "summary.json", "bodies.csv", "awake.png"};
    char args[512], path[256], err[4096];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i)
        for (int worlds = 1; worlds <= 3; worlds += 2) {
            snprintf(path, sizeof path, "%s/o%zu_%d", tmpdir, i, worlds);
            cr_assert_eq(mkdir(path, 0777), 0);
            snprintf(path, sizeof path, "%s/o%zu_%d/%s", tmpdir, i, worlds, files[i]);
            cr_assert_eq(symlink("/dev/full", path), 0);
            snprintf(args, sizeof args, "run scenes/tower.json --worlds %d --steps 5 --record-bodies --quiet --out %s/o%zu_%d",
                     worlds, tmpdir, i, worlds);
            int st = run_cli(args, err, sizeof err);
            if (i == 4 && strstr(err, "no cairo")) continue; /* no pictures in this build */
            cr_expect_eq(st, 1, "%s with %d worlds: exit %d\n%s", files[i], worlds, st, err);
            cr_expect(strstr(err, files[i]) && strstr(err, "cannot write"), "%s: %s", files[i], err);
        }
    snprintf(args, sizeof args, "run scenes/tower.json --steps 5 --out %s/ok", tmpdir);
    cr_assert_eq(run_cli_to(args, "/dev/full", err, sizeof err), 1, "%s", err);
    cr_assert(strstr(err, "standard output") && strstr(err, "No space left"), "%s", err);
    cr_assert_eq(run_cli_to("info", "/dev/full", err, sizeof err), 1, "%s", err);
    cr_assert(strstr(err, "standard output"), "%s", err);
    write_file("t.trace", "threshold 0.5\nduration 1\ndt 0.5\nbodies 2\nframe 1e-16 1e-16\nframe 1e-16 1e-16\n");
    snprintf(args, sizeof args, "trace %s/t.trace", tmpdir);
    cr_assert_eq(run_cli_to(args, "/dev/full", err, sizeof err), 1, "%s", err);
    cr_assert(strstr(err, "standard output"), "%s", err);
}

/* C21: a run in which every world faulted exits 3 and says so; --out creates
 * missing parents; a valid scene with dt = 1e-30 finishes its step (and its
 * plot) at once. */
Test(cli, all_faulted_exit_status_out_parents_and_tiny_dt, .init = make_tmpdir, .fini = remove_tmpdir)
{
    char args[512], path[256], err[4096];
    write_file("fault.json", "{\"gravity\": [0, 0, 0], \"dt\": 1, \"bodies\": [{\"vel\": [3e38, 0, 0]}]}");
    snprintf(args, sizeof args, "run %s/fault.json --worlds 3 --steps 4 --out %s/f", tmpdir, tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 3, "%s", err);
    cr_assert(strstr(err, "every world (3 of 3) faulted"), "%s", err);
    snprintf(args, sizeof args, "run scenes/tower.json --steps 2 --quiet --out %s/a/b/c", tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/a/b/c/state.csv", tmpdir);
    cr_assert_eq(access(path, R_OK), 0, "--out a/b/c made no state.csv");
    write_file("tiny.json", "{\"dt\": 1e-30, \"bodies\": [{\"size\": [20, 20, 1], \"pos\": [0, 0, -0.5], "
                            "\"static\": true}, {\"pos\": [0, 0, 0.5]}]}");
    snprintf(args, sizeof args, "run %s/tiny.json --steps 1 --quiet --out %s/t", tmpdir, tmpdir);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cr_assert_eq(run_cli(args, err, sizeof err), 0, "%s", err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_assert_lt(secs, 1.0, "dt 1e-30, one step: %.2f s", secs);
}

/* Issue 12 item 11: help of every command, the default bench plan with
 * progress, the sleep switch, a removed static body, an event at the end time. */
Test(cli, help_default_bench_sleep_switch_and_labels, .init = make_tmpdir, .fini = remove_tmpdir)
{
    char args[512], path[256], err[8192];
    const char *helps[] = {"trace --help", "info --help", "run --help", "bench --help", "help"};
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; ++i)
        cr_expect_eq(run_cli(helps[i], err, sizeof err), 0, "torpor %s: %s", helps[i], err);
    cr_assert_eq(run_cli("bench --worlds 1 --seconds 0.05 --sleep on", err, sizeof err), 0, "%s", err);
    cr_expect(strstr(err, "default plan bench/default.json") && strstr(err, "case 1 of 4"), "%s", err);
    /* --sleep off: the tower never sleeps in 2 s; on (the scene's own) it does */
    snprintf(args, sizeof args, "run scenes/tower.json --sleep off --worlds 2 --out %s/off", tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/off/summary.json", tmpdir);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    cr_assert_not_null(j);
    cr_expect(json_is_null(json_array_get(json_object_get(j, "all_asleep_time"), 0)), "slept with --sleep off");
    json_decref(j);
    snprintf(args, sizeof args, "run scenes/tower.json --sleep on --worlds 2 --out %s/on", tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/on/summary.json", tmpdir);
    j = json_load_file(path, 0, &je);
    cr_assert_not_null(j);
    cr_expect(json_is_real(json_array_get(json_object_get(j, "all_asleep_time"), 0)), "never slept with --sleep on");
    json_decref(j);
    snprintf(args, sizeof args, "run scenes/tower.json --sleep maybe --out %s/x", tmpdir);
    cr_expect_eq(run_cli(args, err, sizeof err), 2, "%s", err);
    /* the ground removed at 1 s: "removed" in state.csv; an event at exactly
     * the end time (2 steps of 0.5 s) has not fired and is counted */
    write_file("ev.json", "{\"dt\": 0.5, \"bodies\": [{\"size\": [20, 20, 1], \"pos\": [0, 0, -0.5], "
                          "\"static\": true}, {\"pos\": [0, 0, 0.5]}], \"events\": [{\"time\": 1.0, \"action\": "
                          "\"remove\", \"body\": \"body0\"}]}");
    snprintf(args, sizeof args, "run %s/ev.json --steps 2 --quiet --out %s/e2", tmpdir, tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(err, "1 scripted event at or after t = 1 s did not fire"), "%s", err);
    snprintf(args, sizeof args, "run %s/ev.json --steps 3 --quiet --out %s/e3", tmpdir, tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 0, "%s", err);
    cr_expect(!strstr(err, "did not fire"), "%s", err);
    snprintf(path, sizeof path, "%s/e3/state.csv", tmpdir);
    char *text = read_text(path);
    cr_expect(strstr(text, "\n0,0,ground") == NULL && strstr(text, "0,0,body0,") != NULL, "%s", text);
    char *row = strstr(text, "0,0,body0,");
    cr_assert_not_null(row);
    row[strcspn(row, "\n")] = '\0';
    cr_expect(strlen(row) > 8 && strcmp(row + strlen(row) - 8, ",removed") == 0, "a removed ground: %s", row);
    free(text);
}

/* C22: the trace reader takes a frame line of 78 kB (4,096 speeds written as
 * 0.0000000000000001) whole, and 2,000 touches of 4,096 bodies take well under
 * a second (a touch costs O(bodies), not O(bodies^2)). */
Test(cli, trace_reads_long_lines_and_touches_fast, .init = make_tmpdir, .fini = remove_tmpdir)
{
    char path[256], args[512], err[4096];
    snprintf(path, sizeof path, "%s/long.trace", tmpdir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "threshold 0.5\nduration 1\ndt 0.5\nbodies 4096\nframe");
    for (int i = 0; i < 4096; ++i) fprintf(f, " 0.0000000000000001");
    fprintf(f, "\n");
    long size = ftell(f);
    fclose(f);
    cr_assert_gt(size, 65536, "the frame line is longer than 64 KiB");
    snprintf(args, sizeof args, "trace %s", path);
    cr_assert_eq(run_cli(args, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/stdout.txt", tmpdir);
    char *out = read_text(path);
    cr_assert_eq(count_lines(path), 1, "one frame, one line");
    int a = 0;
    for (char *c = out; *c; ++c) a += *c == 'A';
    cr_assert_eq(a, 4096, "%d bodies awake, expected 4096", a);
    free(out);
    snprintf(path, sizeof path, "%s/touch.trace", tmpdir);
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "threshold 0.5\nduration 1\ndt 0.5\nbodies 4096\n");
    for (int i = 0; i < 2000; ++i) fprintf(f, "touch %d\n", (i * 2654435761u) % 4096u);
    fclose(f);
    snprintf(args, sizeof args, "trace %s", path);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cr_assert_eq(run_cli(args, err, sizeof err), 0, "%s", err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_assert_lt(secs, 1.0, "2,000 touches of 4,096 bodies: %.2f s", secs);
    snprintf(path, sizeof path, "%s/stdout.txt", tmpdir);
    cr_assert_eq(count_lines(path), 0, "no frame, no output");
}

Test(cli, cuda_backend_without_gpu_says_so, .init = make_tmpdir, .fini = remove_tmpdir)
{
    char err[4096], args[512];
    snprintf(args, sizeof args, "run scenes/tower.json --backend cuda --steps 1 --out %s/o", tmpdir);
    int st = run_cli(args, err, sizeof err);
    if (st == 0) return; /* a machine with a GPU: nothing to check here */
    cr_assert_eq(st, 2, "%s", err);
    cr_assert(strstr(err, "cuda") && (strstr(err, "no CUDA device") || strstr(err, "no CUDA backend")), "%s", err);
}

Test(cli, info_lists_backends, .init = make_tmpdir, .fini = remove_tmpdir)
{
    cr_assert_eq(run_cli("info", NULL, 0), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/stdout.txt", tmpdir);
    FILE *f = fopen(path, "r");
    char text[1024];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    cr_assert(strstr(text, "torpor 0."), "%s", text);
    cr_assert(strstr(text, "cpu") && strstr(text, "cuda"), "%s", text);
    /* the cuda line says what this build and this machine have */
    char expect[128];
#ifdef TP_EXPECT_CUDA
    snprintf(expect, sizeof expect, "cuda  built in; %d device(s) usable now", tp_cuda_device_count());
#else
    snprintf(expect, sizeof expect, "cuda  not built in");
#endif
    cr_assert(strstr(text, expect), "no \"%s\" in:\n%s", expect, text);
}

/* ---------------------------------------------------------------- the README's C example */

/* The text of `path`, malloc'd. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    cr_assert_not_null(text);
    cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* Copy `from` into `out`, replacing every `what` with `with`. */
static void replace_all(const char *from, const char *what, const char *with, char *out, size_t out_len)
{
    size_t used = 0, wl = strlen(what);
    for (const char *p = from; *p;) {
        const char *piece = strncmp(p, what, wl) == 0 ? with : NULL;
        size_t n = piece ? strlen(with) : 1;
        cr_assert_lt(used + n, out_len, "command too long");
        memcpy(out + used, piece ? with : p, n);
        used += n;
        p += piece ? wl : 1;
    }
    out[used] = '\0';
}

/* The README's C example compiles and links with the README's own command
 * line, as a user copies them (the libraries' link order broke once). */
Test(cli, readme_c_example_builds, .init = make_tmpdir, .fini = remove_tmpdir)
{
#ifdef TP_SANITIZE
    cr_skip_test("the sanitizer build's libraries need the sanitizer runtime to link");
#endif
    char *readme = read_text(TP_SOURCE_DIR "/README.md");
    char *code = strstr(readme, "```c\n");
    cr_assert_not_null(code, "README has no C example");
    code += 5;
    char *code_end = strstr(code, "```");
    cr_assert_not_null(code_end);
    char path[256];
    snprintf(path, sizeof path, "%s/example.c", tmpdir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fwrite(code, 1, (size_t)(code_end - code), f);
    fclose(f);
#ifdef TP_EXPECT_CUDA
    char *line = strstr(code_end, "gcc -std=c11 -Iinclude example.c build/libtorpor.a build/libtorpor_cuda.a");
#else
    char *line = strstr(code_end, "gcc -std=c11 -Iinclude example.c build/libtorpor.a -fopenmp");
#endif
    cr_assert_not_null(line, "README has no link line for this build");
    char line_text[1024], joined[2048], step[2048], command[4096];
    size_t n = strcspn(line, "`\n");
    if (line[n] == '\n' && n > 0 && line[n - 1] == '\\') n = strcspn(line + n + 1, "\n") + n + 1; /* continued */
    cr_assert_lt(n, sizeof line_text);
    memcpy(line_text, line, n);
    line_text[n] = '\0';
    replace_all(line_text, "\\\n", " ", joined, sizeof joined);
    char build_dir[512], include[600];
    snprintf(build_dir, sizeof build_dir, "%s", TP_CLI);
    strcpy(strrchr(build_dir, '/'), "/"); /* the directory of the CLI is the build directory */
    snprintf(include, sizeof include, "-I%s/include", TP_SOURCE_DIR);
    replace_all(joined, "-Iinclude", include, step, sizeof step);
    replace_all(step, "build/", build_dir, joined, sizeof joined);
    snprintf(command, sizeof command, "cd %s && %s 2>link.txt", tmpdir, joined);
    int st = system(command);
    snprintf(path, sizeof path, "%s/link.txt", tmpdir);
    char *log = read_text(path);
    cr_assert_eq(st, 0, "the README's example does not build:\n%s\n%s", command, log);
    snprintf(path, sizeof path, "%s/example", tmpdir);
    cr_assert_eq(access(path, X_OK), 0, "no executable from %s", command);
    free(log);
    free(readme);
}

/* A dt of 1e-30 s with --seconds (or the default 2 s) is 2e30 steps, past
 * what a run may take: refused with status 2 naming --seconds and dt, and
 * nothing written; --steps with the same scene still runs. */
Test(cli, seconds_over_a_tiny_dt_are_refused, .init = make_tmpdir, .fini = remove_tmpdir)
{
    char args[512], path[256], err[4096];
    write_file("tiny.json", "{\"dt\": 1e-30, \"bodies\": [{\"pos\": [0, 0, 0.5]}]}");
    const char *lengths[] = {"--seconds 2", ""};
    for (int i = 0; i < 2; ++i) {
        snprintf(args, sizeof args, "run %s/tiny.json %s --quiet --out %s/t%d", tmpdir, lengths[i], tmpdir, i);
        cr_assert_eq(run_cli(args, err, sizeof err), 2, "%s: %s", lengths[i], err);
        cr_expect(strstr(err, "--seconds 2") && strstr(err, "dt 1e-30"), "%s", err);
        snprintf(path, sizeof path, "%s/t%d/summary.json", tmpdir, i);
        cr_expect_neq(access(path, F_OK), 0, "a refused run wrote %s", path);
    }
    snprintf(args, sizeof args, "bench --scenes %s/tiny.json --seconds 1 --worlds 1", tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 2, "%s", err);
    cr_expect(strstr(err, "--seconds 1") && strstr(err, "dt 1e-30"), "%s", err);
}

/* Articulation links are dynamic bodies: the walker's 9 links count, so its
 * throughput is not 0 and awake.png's y axis (its top is the dynamic count,
 * as the summary gives it) holds every awake count awake.csv records. */
Test(cli, links_count_as_dynamic_bodies, .init = make_tmpdir, .fini = remove_tmpdir)
{
    char args[512], path[256], err[4096];
    snprintf(args, sizeof args, "run scenes/walker.json --steps 30 --every 1 --out %s/w", tmpdir);
    cr_assert_eq(run_cli(args, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/w/summary.json", tmpdir);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    cr_assert_not_null(j);
    json_int_t dyn = json_integer_value(json_object_get(j, "dynamic_bodies_per_world"));
    cr_expect_eq(dyn, 9, "walker: 9 links, got %lld dynamic", (long long)dyn);
    json_decref(j);
    snprintf(path, sizeof path, "%s/stdout.txt", tmpdir);
    char *out = read_text(path);
    cr_expect(strstr(out, "(9 dynamic)") && !strstr(out, " 0 body-steps/s"), "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/w/awake.csv", tmpdir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[256];
    int max_awake = 0;
    cr_assert_not_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        int step, world, awake;
        double t;
        if (sscanf(line, "%d,%lf,%d,%d", &step, &t, &world, &awake) == 4 && awake > max_awake) max_awake = awake;
    }
    fclose(f);
    cr_expect(max_awake > 0 && max_awake <= dyn, "awake up to %d, axis top %lld", max_awake, (long long)dyn);
}

/* torpor bench: a bare scene name is scenes/NAME.json; the stage shares
 * shown are the four named groups and add up to 100 (each rounded: +-2). An
 * unknown name is reported once, not "name: name: ...". */
Test(cli, bench_scene_names_and_stage_groups, .init = make_tmpdir, .fini = remove_tmpdir)
{
    char path[256], err[8192];
    cr_assert_eq(run_cli("bench --scenes tower --worlds 1 --seconds 0.1 --sleep off", err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/stdout.txt", tmpdir);
    char *out = read_text(path);
    cr_assert(strstr(out, "collide/color/solve/finish"), "%s", out);
    const char *row = strstr(out, "\ntower ");
    cr_assert_not_null(row, "%s", out);
    const char *end = strchr(row + 1, '\n');
    const char *p = end;
    while (p > row && p[-1] != ' ') --p; /* the last column: a/b/c/d */
    int a, b, c, d;
    cr_assert_eq(sscanf(p, "%d/%d/%d/%d", &a, &b, &c, &d), 4, "%.*s", (int)(end - row), row);
    cr_expect(a + b + c + d >= 98 && a + b + c + d <= 102, "shares %d/%d/%d/%d", a, b, c, d);
    cr_expect_gt(c, 0, "solve share 0: %d/%d/%d/%d", a, b, c, d);
    free(out);
    cr_assert_eq(run_cli("bench --scenes towr --worlds 1 --seconds 0.1", err, sizeof err), 2, "%s", err);
    cr_expect(strstr(err, "towr: cannot open") && !strstr(err, "towr: towr"), "%s", err);
}
