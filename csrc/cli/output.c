/* output.c - summary.json (through jansson), awake.csv, state.csv and bodies.csv.
 *
 * Floats are printed with %.9g, enough digits to read back the same float32.
 * Column layouts are a contract with outside tools: docs/outputs.md. */
#include "output.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static FILE *open_in(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "torpor run: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

/* A write to `name` in `dir` failed (errno says why, when the failing call set
 * it): say so, naming the file. Returns 0. */
static int write_failed(const char *dir, const char *name, int err)
{
    fprintf(stderr, "torpor run: cannot write %s/%s: %s\n", dir, name, strerror(err ? err : EIO));
    return 0;
}

/* Flush and close a file written through stdio: a full disk shows up only
 * here, when the buffer goes out. Returns 0, with a message, on any error. */
static int close_output(FILE *f, const char *dir, const char *name)
{
    int err = 0, bad = ferror(f);
    errno = 0;
    if (fflush(f) != 0) err = errno, bad = 1;
    if (fclose(f) != 0 && !bad) err = errno, bad = 1;
    return bad ? write_failed(dir, name, err) : 1;
}

static const char *const state_columns = "x,y,z,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz,state";

int tp_record_open(tp_run_record *rec, const char *dir, int record_bodies, int worlds)
{
    memset(rec, 0, sizeof *rec);
    rec->dir = dir;
    rec->worlds = worlds;
    rec->all_asleep_time = malloc((size_t)rec->worlds * sizeof(double));
    rec->record_bodies = record_bodies;
    if (!dir) {
        for (int w = 0; w < worlds && rec->all_asleep_time; ++w) rec->all_asleep_time[w] = -1.0;
        return rec->all_asleep_time != NULL;
    }
    /* Files of an earlier run that this run may not write must not linger
     * beside the new ones (snapshot.png and the replay are written later, if asked for). */
    const char *stale[] = {"bodies.csv", "snapshot.png", "replay.json", "replay.bin", "view.html"};
    for (size_t i = record_bodies ? 1 : 0; i < sizeof stale / sizeof stale[0]; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, stale[i]);
        remove(path);
    }
    rec->awake_csv = open_in(dir, "awake.csv");
    if (record_bodies) rec->bodies_csv = open_in(dir, "bodies.csv");
    if (!rec->all_asleep_time || !rec->awake_csv || (record_bodies && !rec->bodies_csv)) {
        if (rec->awake_csv) fclose(rec->awake_csv);
        if (rec->bodies_csv) fclose(rec->bodies_csv);
        free(rec->all_asleep_time);
        rec->all_asleep_time = NULL;
        return 0;
    }
    for (int w = 0; w < rec->worlds; ++w) rec->all_asleep_time[w] = -1.0;
    fprintf(rec->awake_csv, "step,time,world,awake,checking,sleeping\n");
    if (rec->bodies_csv) fprintf(rec->bodies_csv, "step,time,world,body,name,%s\n", state_columns);
    return 1;
}

/* Name of a body's state in the CSV files. */
static const char *body_state_name(const tp_model *m, const tp_state_view *s, size_t k, int body)
{
    tp_body_def d;
    tp_model_body(m, body, &d);
    if (s->removed[k]) return "removed"; /* before "static": a removed ground is removed */
    if (d.type == TP_BODY_STATIC) return "static";
    return tp_sleep_state_name((tp_sleep_state)s->sleep_state[k]);
}

static void write_body_row(FILE *f, const tp_model *m, const tp_state_view *s, int w, int b)
{
    size_t k = (size_t)w * (size_t)s->bodies + (size_t)b;
    const float *p = s->pos + 3 * k, *q = s->quat + 4 * k, *v = s->v + 3 * k, *a = s->w + 3 * k;
    fprintf(f, "%d,%d,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s\n", w, b,
            tp_model_body_name(m, b), p[0], p[1], p[2], q[0], q[1], q[2], q[3], v[0], v[1], v[2], a[0], a[1], a[2],
            body_state_name(m, s, k, b));
}

tp_status tp_record_sample(tp_run_record *rec, tp_batch *batch, const tp_state_view *s)
{
    if (rec->io_failed) return TP_OK; /* said once; the run stops (run.c) */
    long long step = (long long)tp_batch_step_count(batch);
    double t = tp_batch_time(batch);
    tp_series_add(&rec->series, t, s);
    for (int w = 0; w < s->worlds; ++w)
        fprintf(rec->awake_csv, "%lld,%.6f,%d,%d,%d,%d\n", step, t, w, s->awake_count[w], s->checking_count[w],
                s->sleeping_count[w]);
    if (rec->bodies_csv) {
        const tp_model *m = tp_batch_model(batch);
        for (int w = 0; w < s->worlds; ++w)
            for (int b = 0; b < s->bodies; ++b) {
                fprintf(rec->bodies_csv, "%lld,%.6f,", step, t);
                write_body_row(rec->bodies_csv, m, s, w, b);
            }
    }
    /* A failed fprintf sets the stream's error flag and errno: stop at the first. */
    int err = errno;
    if (ferror(rec->awake_csv)) rec->io_failed = !write_failed(rec->dir, "awake.csv", err);
    else if (rec->bodies_csv && ferror(rec->bodies_csv)) rec->io_failed = !write_failed(rec->dir, "bodies.csv", err);
    return TP_OK;
}

void tp_record_asleep(tp_run_record *rec, tp_batch *batch, const tp_state_view *s)
{
    double t = tp_batch_time(batch);
    for (int w = 0; w < s->worlds; ++w) {
        /* a world without dynamic bodies counts as asleep; checking bodies are
         * counted in awake_count under the island policy, apart under the assembly one */
        int asleep = s->awake_count[w] == 0 && s->checking_count[w] == 0;
        if (!asleep) rec->all_asleep_time[w] = -1.0;
        else if (rec->all_asleep_time[w] < 0.0) rec->all_asleep_time[w] = t;
    }
}

static int write_state_csv(const char *dir, tp_batch *batch, const tp_state_view *s)
{
    FILE *f = open_in(dir, "state.csv");
    if (!f) return 0;
    fprintf(f, "world,body,name,%s\n", state_columns);
    const tp_model *m = tp_batch_model(batch);
    for (int w = 0; w < s->worlds && !ferror(f); ++w)
        for (int b = 0; b < s->bodies; ++b) write_body_row(f, m, s, w, b);
    return close_output(f, dir, "state.csv");
}

/* summary.json: serialized in memory, then written and closed with checks
 * (json_dump_file says only that it failed, not why). */
static int write_summary_json(const char *dir, json_t *j)
{
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
    if (!text) return write_failed(dir, "summary.json", ENOMEM);
    FILE *f = open_in(dir, "summary.json");
    if (!f) {
        free(text);
        return 0;
    }
    fputs(text, f);
    fputc('\n', f);
    free(text);
    return close_output(f, dir, "summary.json");
}

static json_t *hex64(uint64_t h)
{
    char text[19];
    snprintf(text, sizeof text, "%016llx", (unsigned long long)h);
    return json_string(text);
}

/* Each rank's block and stepping time (an MPI run only; docs/outputs.md). */
static json_t *ranks_json(const tp_run_info *info, long steps)
{
    json_t *ranks = json_array();
    for (int r = 0; r < info->ranks; ++r) {
        json_t *o = json_object();
        double wall = info->rank_wall_seconds[r] > 0.0 ? info->rank_wall_seconds[r] : 1e-9;
        json_object_set_new(o, "rank", json_integer(r));
        json_object_set_new(o, "first_world", json_integer(info->rank_first[r]));
        json_object_set_new(o, "worlds", json_integer(info->rank_worlds[r]));
        json_object_set_new(o, "wall_seconds", json_real(info->rank_wall_seconds[r]));
        json_object_set_new(o, "world_steps_per_second", json_real((double)info->rank_worlds[r] * (double)steps / wall));
        json_array_append_new(ranks, o);
    }
    return ranks;
}

static json_t *summary_json(tp_batch *batch, const tp_run_record *rec, const tp_run_info *info,
                            const tp_run_result *result)
{
    const tp_state_view *s = result->state;
    const tp_model *m = tp_batch_model(batch);
    tp_model_def def = tp_model_settings(m);
    int W = s->worlds;
    double world_steps = (double)W * (double)info->steps_done;
    double wall = info->wall_seconds > 0.0 ? info->wall_seconds : 1e-9;
    json_t *j = json_object();
    json_object_set_new(j, "torpor_version", json_string(TP_VERSION_STRING));
    json_object_set_new(j, "scene", json_string(info->scene));
    json_object_set_new(j, "scene_name", json_string(tp_model_name(m)));
    json_object_set_new(j, "worlds", json_integer(W));
    json_object_set_new(j, "bodies_per_world", json_integer(s->bodies));
    json_object_set_new(j, "dynamic_bodies_per_world", json_integer(tp_model_dynamic_body_count(m)));
    json_object_set_new(j, "steps", json_integer(info->steps_done));
    json_object_set_new(j, "steps_requested", json_integer(info->steps_requested));
    json_object_set_new(j, "interrupted", json_boolean(info->interrupted));
    json_object_set_new(j, "dt", json_real(def.dt));
    json_object_set_new(j, "substeps", json_integer(def.substeps));
    json_object_set_new(j, "simulated_seconds", json_real(tp_batch_time(batch)));
    json_object_set_new(j, "backend", json_string(tp_backend_name(tp_batch_backend(batch))));
    json_object_set_new(j, "seed", json_integer((json_int_t)tp_batch_seed(batch)));
    json_object_set_new(j, "threads", json_integer(tp_batch_backend(batch) == TP_BACKEND_CPU ? tp_batch_threads(batch) : 0));
    json_object_set_new(j, "simd", json_string(tp_simd_name(tp_batch_simd(batch))));
    json_object_set_new(j, "device_memory_bytes_per_world", json_integer((json_int_t)tp_batch_device_memory_bytes(batch)));
    json_object_set_new(j, "wall_seconds", json_real(info->wall_seconds));
    json_object_set_new(j, "world_steps_per_second", json_real(world_steps / wall));
    json_object_set_new(j, "body_steps_per_second",
                        json_real(world_steps * (double)tp_model_dynamic_body_count(m) / wall));
    json_t *awake = json_array(), *asleep = json_array(), *hashes = json_array(), *overflow = json_array(),
           *faults = json_array();
    for (int w = 0; w < W; ++w) {
        json_array_append_new(awake, json_integer(s->awake_count[w]));
        json_array_append_new(asleep, rec->all_asleep_time[w] >= 0.0 ? json_real(rec->all_asleep_time[w]) : json_null());
        json_array_append_new(hashes, hex64(result->world_hashes[w]));
        json_array_append_new(overflow, json_integer(s->contact_overflow[w]));
        json_array_append_new(faults, json_boolean(s->faults[w]));
    }
    json_object_set_new(j, "awake_final", awake);
    json_object_set_new(j, "all_asleep_time", asleep);
    json_object_set_new(j, "state_hash", hex64(result->state_hash));
    json_object_set_new(j, "world_hashes", hashes);
    json_object_set_new(j, "contact_overflow", overflow);
    json_object_set_new(j, "faults", faults);
    if (info->ranks > 1) json_object_set_new(j, "ranks", ranks_json(info, info->steps_done));
    return j;
}

/* awake.png from the recorded series; without cairo, one line on stderr says why not. */
static void write_awake_png(tp_run_record *rec, tp_batch *batch)
{
    const tp_model *m = tp_batch_model(batch);
    tp_awake_plot_info info = {tp_model_name(m), rec->worlds, tp_model_dynamic_body_count(m), rec->all_asleep_time,
                               tp_batch_time(batch)};
    char path[4096];
    snprintf(path, sizeof path, "%s/awake.png", rec->dir);
    rec->awake_png_written = tp_plot_awake(path, &rec->series, &info);
}

int tp_record_finish(tp_run_record *rec, tp_batch *batch, const tp_run_info *info, const tp_run_result *result)
{
    int ok = !rec->io_failed;
    if (rec->io_failed) { /* already reported */
        if (rec->awake_csv) fclose(rec->awake_csv);
        if (rec->bodies_csv) fclose(rec->bodies_csv);
    } else {
        if (rec->awake_csv && !close_output(rec->awake_csv, rec->dir, "awake.csv")) ok = 0;
        if (rec->bodies_csv && !close_output(rec->bodies_csv, rec->dir, "bodies.csv")) ok = 0;
    }
    rec->awake_csv = rec->bodies_csv = NULL;
    if (!write_state_csv(rec->dir, batch, result->state)) ok = 0;
    json_t *j = summary_json(batch, rec, info, result);
    if (!write_summary_json(rec->dir, j)) ok = 0;
    json_decref(j);
    write_awake_png(rec, batch);
    if (tp_plot_available() && !rec->awake_png_written) ok = 0; /* its own message said why */
    return ok;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void tp_print_summary(FILE *f, tp_batch *batch, const tp_run_record *rec, const tp_run_info *info,
                      const tp_run_result *result)
{
    const tp_state_view s = *result->state;
    const tp_model *m = tp_batch_model(batch);
    int W = s.worlds, asleep = 0, faults = 0;
    long long overflow = 0;
    int *awake = malloc((size_t)W * sizeof *awake);
    if (!awake) return;
    for (int w = 0; w < W; ++w) {
        awake[w] = s.awake_count[w];
        asleep += rec->all_asleep_time[w] >= 0.0;
        faults += s.faults[w] != 0;
        overflow += s.contact_overflow[w];
    }
    qsort(awake, (size_t)W, sizeof *awake, cmp_int);
    double wall = info->wall_seconds > 0.0 ? info->wall_seconds : 1e-9;
    double ws = (double)W * (double)info->steps_done / wall;
    uint64_t h = result->state_hash;
    fprintf(f, "scene            %s (%s)\n", info->scene, tp_model_name(m));
    fprintf(f, "worlds           %d x %d bodies (%d dynamic), backend %s\n", W, s.bodies,
            tp_model_dynamic_body_count(m), tp_backend_name(tp_batch_backend(batch)));
    fprintf(f, "steps            %ld (%.3f s simulated)%s\n", info->steps_done, tp_batch_time(batch),
            info->interrupted ? ", interrupted" : "");
    fprintf(f, "wall time        %.3f s%s\n", info->wall_seconds, info->ranks > 1 ? " (the slowest rank)" : "");
    if (info->ranks > 1) fprintf(f, "MPI ranks        %d (worlds split in contiguous blocks)\n", info->ranks);
    double device = (double)tp_batch_device_memory_bytes(batch); /* per world, rounded up */
    if (device > 0.0)
        fprintf(f, "device memory    %.1f KiB per world, about %.3f GiB in all\n", device / 1024.0,
                device * W / 1073741824.0);
    fprintf(f, "throughput       %.4g world-steps/s, %.4g body-steps/s\n", ws, ws * tp_model_dynamic_body_count(m));
    fprintf(f, "awake at end     min %d, median %d, max %d bodies per world\n", awake[0], awake[W / 2], awake[W - 1]);
    fprintf(f, "worlds asleep    %d of %d\n", asleep, W);
    fprintf(f, "contact overflow %lld, faulted worlds %d\n", overflow, faults);
    fprintf(f, "state hash       %016llx\n", (unsigned long long)h);
    fprintf(f, "outputs          %s/{summary.json,awake.csv,state.csv%s%s%s}\n", info->out_dir,
            rec->record_bodies ? ",bodies.csv" : "", rec->awake_png_written ? ",awake.png" : "",
            info->snapshot_written ? ",snapshot.png" : "");
    free(awake);
}

void tp_record_free(tp_run_record *rec)
{
    free(rec->all_asleep_time);
    rec->all_asleep_time = NULL;
    tp_series_free(&rec->series);
}
