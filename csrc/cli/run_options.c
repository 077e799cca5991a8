/* run_options.c - the command line of `torpor run` (docs/cli.md): its
 * options, their values and the usage text. */
#include "cli.h"
#include "run.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const run_option_names[] = {
    "--worlds", "--seconds", "--steps", "--backend", "--threads", "--seed", "--out", "--every",
    "--record-bodies", "--quiet", "--snapshot", "--sleep", "--simd", "--record-every", "--record-worlds",
    "--view", "--video", "--video-worlds", "--video-size", "--help"};

void tp_run_usage(FILE *f)
{
    fprintf(f, "usage: torpor run SCENE [options]   (options also as --option=value)\n"
               "  --worlds N          replicated worlds (default 1)\n"
               "  --seconds T         simulated seconds (default 2)\n"
               "  --steps K           steps instead of --seconds\n"
               "  --backend B         cpu, cuda or auto (default cpu)\n"
               "  --threads N         CPU threads over worlds (default %d here: OMP_NUM_THREADS, else the cores)\n"
               "  --seed S            randomization seed (default: the scene's)\n"
               "  --out DIR           output directory, created if missing (default out)\n"
               "  --every K           awake.csv and bodies.csv every K steps (default 1)\n"
               "  --record-bodies     write bodies.csv (default off)\n"
               "  --quiet             no summary and no progress bar (default off)\n"
               "  --snapshot T        snapshot.png: up to 16 worlds drawn at simulated time T s (default none)\n"
               "  --sleep on|off      island sleep on or off, whatever the scene says (default: as the scene says)\n"
               "  --simd W            auto, off, sse2 or avx2: the CPU contact sweeps' width, same results "
               "(default auto)\n"
               "  --record-every K    replay.json + replay.bin: the recorded worlds every K steps\n"
               "                      (default: about 30 frames per simulated second)\n"
               "  --record-worlds L   worlds to record, e.g. 0,1,2 or 0-15 (default 0-15)\n"
               "  --view              record, then write view.html: the run in 3D in a browser (default off)\n"
               "  --video FILE.mp4    a video through ffmpeg, a frame every K steps (default none)\n"
               "  --video-worlds N    worlds in the video (default 16)\n"
               "  --video-size WxH    video frame size in pixels (default 960x720)\n",
            tp_cli_default_threads());
}

/* Value of an option that takes one; prints an error if it is missing. */
static const char *option_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc || (argv[*i + 1][0] == '-' && argv[*i + 1][1] == '-')) {
        fprintf(stderr, "torpor run: %s needs a value\n", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

static int parse_backend(const char *text, tp_backend *out)
{
    if (strcmp(text, "cpu") == 0) *out = TP_BACKEND_CPU;
    else if (strcmp(text, "cuda") == 0) *out = TP_BACKEND_CUDA;
    else if (strcmp(text, "auto") == 0) *out = TP_BACKEND_AUTO;
    else {
        fprintf(stderr, "torpor run: --backend: expected cpu, cuda or auto, got \"%s\"\n", text);
        return 0;
    }
    return 1;
}

/* --worlds at most: a batch's capacity on each MPI rank (one rank without MPI). */
static long max_worlds(void)
{
    long n = (long)TP_MAX_WORLDS * tp_shard_ranks();
    return n < INT_MAX ? n : INT_MAX;
}

int tp_run_parse_options(int argc, char **argv, run_options *o)
{
    memset(o, 0, sizeof *o);
    o->out_dir = "out";
    o->worlds = 1;
    o->every = 1;
    o->backend = TP_BACKEND_CPU;
    o->sleep = -1;
    o->video_worlds = 16;
    o->video_width = 960;
    o->video_height = 720;
    char name[64];
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = NULL, *eq = strchr(a, '=');
        long n;
        double d;
        if (a[0] == '-' && a[1] == '-' && eq && (size_t)(eq - a) < sizeof name) { /* --option=value */
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            a = name;
            v = eq + 1;
        }
        if (strcmp(a, "--record-bodies") == 0) o->record_bodies = 1;
        else if (strcmp(a, "--quiet") == 0) o->quiet = 1;
        else if (strcmp(a, "--view") == 0) o->view = 1;
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { tp_run_usage(stdout); exit(0); }
        else if (a[0] == '-' && a[1] == '-') {
            if (!tp_cli_known_option("torpor run", a, run_option_names, COUNT_OF(run_option_names))) return 0;
            if (!v && !(v = option_value(argc, argv, &i))) return 0;
            if (strcmp(a, "--worlds") == 0) { if (!tp_cli_parse_int(a, v, 1, max_worlds(), &o->worlds)) return 0; }
            else if (strcmp(a, "--threads") == 0) { if (!tp_cli_parse_int(a, v, 1, 4096, &o->threads)) return 0; }
            else if (strcmp(a, "--every") == 0) { if (!tp_cli_parse_int(a, v, 1, 1000000000L, &o->every)) return 0; }
            else if (strcmp(a, "--steps") == 0) {
                if (!tp_cli_parse_int(a, v, 0, TP_CLI_MAX_STEPS, &n)) return 0;
                o->steps = n;
                o->have_steps = 1;
            } else if (strcmp(a, "--seconds") == 0) {
                if (!tp_cli_parse_double(a, v, 0.0, 1e7, &d)) return 0;
                o->seconds = d;
                o->have_seconds = 1;
            } else if (strcmp(a, "--snapshot") == 0) {
                if (!tp_cli_parse_double(a, v, 0.0, 1e7, &o->snapshot_time)) return 0;
                o->have_snapshot = 1;
            } else if (strcmp(a, "--seed") == 0) {
                char *end = NULL;
                errno = 0;
                o->seed = strtoull(v, &end, 10);
                if (errno || end == v || *end || v[0] == '-' || o->seed > (unsigned long long)INT64_MAX) {
                    fprintf(stderr, "torpor run: --seed: expected an integer in [0, 2^63 - 1] (as in scene files), "
                                    "got \"%s\"\n", v);
                    return 0;
                }
                o->have_seed = 1;
            } else if (strcmp(a, "--backend") == 0) { if (!parse_backend(v, &o->backend)) return 0; }
            else if (strcmp(a, "--out") == 0) o->out_dir = v;
            else if (strcmp(a, "--record-every") == 0) { if (!tp_cli_parse_int(a, v, 1, 1000000000L, &o->record_every)) return 0; }
            else if (strcmp(a, "--record-worlds") == 0) o->record_worlds = v;
            else if (strcmp(a, "--video") == 0) o->video = v;
            else if (strcmp(a, "--video-worlds") == 0) { if (!tp_cli_parse_int(a, v, 1, 256, &o->video_worlds)) return 0; }
            else if (strcmp(a, "--video-size") == 0) { if (!tp_video_parse_size(v, &o->video_width, &o->video_height)) return 0; }
            else if (strcmp(a, "--simd") == 0) {
                if (strcmp(v, "auto") == 0) o->simd = TP_SIMD_AUTO;
                else if (strcmp(v, "off") == 0) o->simd = TP_SIMD_OFF;
                else if (strcmp(v, "sse2") == 0) o->simd = TP_SIMD_SSE2;
                else if (strcmp(v, "avx2") == 0) o->simd = TP_SIMD_AVX2;
                else {
                    fprintf(stderr, "torpor run: --simd: expected auto, off, sse2 or avx2, got \"%s\"\n", v);
                    return 0;
                }
            }
            else if (strcmp(a, "--sleep") == 0) {
                if (strcmp(v, "on") == 0) o->sleep = 1;
                else if (strcmp(v, "off") == 0) o->sleep = 0;
                else {
                    fprintf(stderr, "torpor run: --sleep: expected on or off, got \"%s\"\n", v);
                    return 0;
                }
            }
            else {
                fprintf(stderr, "torpor run: unknown option %s\n", a);
                return 0;
            }
        } else if (!o->scene) o->scene = a;
        else {
            fprintf(stderr, "torpor run: unexpected argument \"%s\" (the scene is \"%s\")\n", a, o->scene);
            return 0;
        }
    }
    if (!o->scene) { fprintf(stderr, "torpor run: no scene file given\n"); return 0; }
    if (o->have_seconds && o->have_steps) {
        fprintf(stderr, "torpor run: give --seconds or --steps, not both\n");
        return 0;
    }
    return 1;
}

