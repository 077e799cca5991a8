#define _POSIX_C_SOURCE 200809L
/* test_mpi_cli.c - `mpirun -n K torpor run` (docs/scale-out.md): the files
 * rank 0 writes are those of one process running the same worlds, byte for
 * byte, but for the timing fields of summary.json and its per-rank block. In a
 * build without MPI, `torpor info` says so. */
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
    strcpy(tmpdir, "/tmp/tp_mpi_XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    cr_assert_eq(system(cmd), 0);
}

static int shell(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *read_file(const char *dir, const char *name, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s is missing", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    *size = (size_t)n;
    return text;
}

#ifdef TP_CLI_MPI

static void assert_same_bytes(const char *a, const char *b, const char *name)
{
    size_t na, nb;
    char *x = read_file(a, name, &na), *y = read_file(b, name, &nb);
    cr_assert(na == nb && memcmp(x, y, na) == 0, "%s differs between %s and %s", name, a, b);
    free(x);
    free(y);
}

/* summary.json without the fields that are timings. */
static json_t *summary_without_timings(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    cr_assert_not_null(j, "%s: %s", path, err.text);
    const char *timings[] = {"wall_seconds", "world_steps_per_second", "body_steps_per_second"};
    for (size_t i = 0; i < 3; ++i) cr_assert_eq(json_object_del(j, timings[i]), 0, "%s: no %s", path, timings[i]);
    return j;
}

/* One process, then K ranks, of the same run; every file compared. */
static void compare_ranks(const char *scene, int worlds, int ranks)
{
    make_tmpdir();
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1); /* CI runs as root; Open MPI refuses it otherwise */
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    char cmd[2048], one[128], many[128];
    snprintf(one, sizeof one, "%s/one", tmpdir);
    snprintf(many, sizeof many, "%s/many", tmpdir);
    const char *args = "--steps 150 --every 7 --threads 1 --snapshot 1.5 --quiet";
    snprintf(cmd, sizeof cmd, "%s run %s/scenes/%s --worlds %d %s --out %s 2>%s/one.err", TP_CLI, TP_SOURCE_DIR, scene,
             worlds, args, one, tmpdir);
    cr_assert_eq(shell(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "%s -n %d --oversubscribe %s run %s/scenes/%s --worlds %d %s --out %s 2>%s/many.err",
             TP_MPIEXEC, ranks, TP_CLI, TP_SOURCE_DIR, scene, worlds, args, many, tmpdir);
    cr_assert_eq(shell(cmd), 0, "%s", cmd);
    const char *files[] = {"awake.csv", "state.csv", "awake.png", "snapshot.png"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) assert_same_bytes(one, many, files[i]);
    json_t *a = summary_without_timings(one), *b = summary_without_timings(many);
    cr_assert_null(json_object_get(a, "ranks"), "a one-process run has no per-rank block");
    json_t *r = json_object_get(b, "ranks");
    cr_assert_eq(json_array_size(r), (size_t)ranks);
    int next = 0;
    for (int k = 0; k < ranks; ++k) { /* contiguous blocks, in rank order, covering every world */
        json_t *e = json_array_get(r, (size_t)k);
        cr_assert_eq(json_integer_value(json_object_get(e, "first_world")), next);
        int n = (int)json_integer_value(json_object_get(e, "worlds"));
        cr_assert(n == worlds / ranks || n == worlds / ranks + 1, "rank %d: %d worlds", k, n);
        cr_assert(json_real_value(json_object_get(e, "wall_seconds")) > 0.0);
        next += n;
    }
    cr_assert_eq(next, worlds);
    json_object_del(b, "ranks");
    char *ta = json_dumps(a, JSON_SORT_KEYS), *tb = json_dumps(b, JSON_SORT_KEYS);
    cr_assert_str_eq(ta, tb, "summary.json differs beyond its timings");
    free(ta);
    free(tb);
    json_decref(a);
    json_decref(b);
    remove_tmpdir();
}

Test(mpi_cli, tower_on_2_ranks_writes_the_files_of_one_process, .timeout = 120) { compare_ranks("tower.json", 11, 2); }
Test(mpi_cli, tower_on_3_ranks_writes_the_files_of_one_process, .timeout = 120) { compare_ranks("tower.json", 11, 3); }
Test(mpi_cli, heap_on_2_ranks_writes_the_files_of_one_process, .timeout = 120) { compare_ranks("heap.json", 5, 2); }
Test(mpi_cli, heap_on_3_ranks_writes_the_files_of_one_process, .timeout = 120) { compare_ranks("heap.json", 5, 3); }

/* The tower.json row of a bench table in dir/name: its worlds, steps and
 * all-asleep column (simulated times: the same at any split). */
static void bench_row(const char *name, char *row, size_t n)
{
    size_t size;
    char *text = read_file(tmpdir, name, &size);
    char *line = strstr(text, "\ntower.json");
    cr_assert_not_null(line, "no tower row in:\n%s", text);
    cr_assert_null(strstr(line + 1, "\ntower.json"), "more than one tower row (every rank printed?):\n%s", text);
    char scene[64], worlds[16], sleep[8], steps[16], wall[16], ws[16], bs[16], bst[16], settled[16], asleep[64];
    cr_assert_eq(sscanf(line + 1, "%63s %15s %7s %15s %15s %15s %15s %15s %15s %63s", scene, worlds, sleep, steps, wall,
                        ws, bs, bst, settled, asleep), 10);
    snprintf(row, n, "%s %s %s %s", worlds, sleep, steps, asleep);
    free(text);
}

Test(mpi_cli, bench_on_2_ranks_prints_one_table_of_all_the_worlds, .timeout = 120)
{
    make_tmpdir();
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    char cmd[2048], one[128], two[128];
    const char *args = "bench --scenes " TP_SOURCE_DIR "/scenes/tower.json --worlds 9 --seconds 1 --threads 1";
    snprintf(cmd, sizeof cmd, "%s %s >%s/one.txt 2>/dev/null", TP_CLI, args, tmpdir);
    cr_assert_eq(shell(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "%s -n 2 %s %s >%s/two.txt 2>/dev/null", TP_MPIEXEC, TP_CLI, args, tmpdir);
    cr_assert_eq(shell(cmd), 0, "%s", cmd);
    bench_row("one.txt", one, sizeof one);
    bench_row("two.txt", two, sizeof two);
    cr_assert_str_eq(two, one, "2 ranks: %s; one process: %s", two, one);
    cr_assert(strstr(one, "9 on 60 "), "%s", one);
    size_t n;
    char *text = read_file(tmpdir, "two.txt", &n);
    cr_assert(strstr(text, "2 MPI ranks"), "%s", text);
    free(text);
    remove_tmpdir();
}

Test(mpi_cli, fewer_worlds_than_ranks_is_refused, .timeout = 60)
{
    make_tmpdir();
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s -n 3 --oversubscribe %s run %s/scenes/tower.json --worlds 2 --quiet --out %s/o 2>%s/err",
             TP_MPIEXEC, TP_CLI, TP_SOURCE_DIR, tmpdir, tmpdir);
    cr_assert_neq(shell(cmd), 0);
    size_t n;
    char *err = read_file(tmpdir, "err", &n);
    cr_assert(strstr(err, "2 worlds over 3 MPI ranks"), "%s", err);
    free(err);
    remove_tmpdir();
}

/* The replay and the video record one process's worlds: over several ranks
 * they are refused before anything is written. */
static void refused_over_ranks(const char *option)
{
    make_tmpdir();
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    char cmd[2048], want[128];
    snprintf(cmd, sizeof cmd, "%s -n 2 --oversubscribe %s run %s/scenes/tower.json --worlds 4 --steps 5 %s --quiet "
             "--out %s/o 2>%s/err", TP_MPIEXEC, TP_CLI, TP_SOURCE_DIR, option, tmpdir, tmpdir);
    cr_assert_eq(shell(cmd), 2, "%s", cmd); /* TP_EXIT_USAGE */
    size_t n;
    char *err = read_file(tmpdir, "err", &n);
    snprintf(want, sizeof want, "%.*s is not available over 2 MPI ranks", (int)strcspn(option, " "), option);
    cr_assert(strstr(err, want), "%s", err);
    char out[128];
    snprintf(out, sizeof out, "%s/o", tmpdir);
    cr_assert_eq(access(out, F_OK), -1, "%s was made", out);
    free(err);
    remove_tmpdir();
}

Test(mpi_cli, view_is_refused_over_ranks, .timeout = 60) { refused_over_ranks("--view"); }
Test(mpi_cli, record_every_is_refused_over_ranks, .timeout = 60) { refused_over_ranks("--record-every 2"); }
Test(mpi_cli, video_is_refused_over_ranks, .timeout = 60) { refused_over_ranks("--video v.mp4"); }

#endif

Test(mpi_cli, info_says_whether_mpi_is_built_in)
{
    make_tmpdir();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s info >%s/info.txt", TP_CLI, tmpdir);
    cr_assert_eq(shell(cmd), 0);
    size_t n;
    char *text = read_file(tmpdir, "info.txt", &n);
#ifdef TP_CLI_MPI
    cr_assert(strstr(text, "mpi: yes (Open MPI"), "%s", text);
#else
    cr_assert(strstr(text, "mpi: no (built without MPI"), "%s", text);
#endif
    free(text);
    remove_tmpdir();
}
