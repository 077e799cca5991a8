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
#include <unistd.h>

static char tmpdir[64];

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
