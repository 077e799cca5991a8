/* main.c - entry point of the `torpor` command: dispatch to a subcommand. */
#include "cli.h"
#include "shard.h"

#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "torpor %s - many replicated rigid-body worlds, with island sleep\n"
            "\n"
            "usage:\n"
            "  torpor run SCENE [--worlds N] [--seconds T | --steps K] [--backend cpu|cuda|auto]\n"
            "                   [--threads N] [--seed S] [--out DIR] [--every K] [--record-bodies] [--quiet]\n"
            "                   [--snapshot T] [--sleep on|off] [--simd auto|off|sse2|avx2]\n"
            "                   [--record-every K] [--record-worlds 0,1,2|0-15] [--view]\n"
            "                   [--video FILE.mp4] [--video-worlds N] [--video-size WxH]\n"
            "  torpor view OUT_DIR [--html FILE]   (a 3D page replaying a run's replay.json; docs/pictures.md)\n"
            "  torpor bench [PLAN.json] [--scenes A,B] [--worlds 16,128] [--sleep on,off] [--seconds T]\n"
            "               [--threads N] [--backend cpu|cuda|auto]   (table of throughput and sleep times)\n"
            "  torpor convert ROBOT.xml OUT.json   (an MJCF or URDF file as the torpor scene it loads as)\n"
            "  torpor trace SCRIPT      (the island sleep policy alone; docs/trace-format.md)\n"
            "  torpor info\n"
            "  mpirun -n K torpor run|bench ...   (worlds split over K MPI ranks; docs/scale-out.md)\n"
            "  torpor help\n"
            "\n"
            "See README.md for the scene format and the output files.\n",
            TP_VERSION_STRING);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return TP_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    /* Every command's stdout is checked at the end (a full device). */
    if (strcmp(cmd, "run") == 0) return tp_cli_finish_stdout(cmd, tp_cmd_run(argc - 1, argv + 1));
    if (strcmp(cmd, "info") == 0) return tp_cli_finish_stdout(cmd, tp_cmd_info(argc - 1, argv + 1));
    if (strcmp(cmd, "bench") == 0) return tp_cli_finish_stdout(cmd, tp_cmd_bench(argc - 1, argv + 1));
    if (strcmp(cmd, "view") == 0) return tp_cli_finish_stdout(cmd, tp_cmd_view(argc - 1, argv + 1));
    if (strcmp(cmd, "convert") == 0) return tp_cli_finish_stdout(cmd, tp_cmd_convert(argc - 1, argv + 1));
    if (strcmp(cmd, "trace") == 0) return tp_cli_finish_stdout(cmd, tp_cmd_trace(argc - 1, argv + 1));
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return tp_cli_finish_stdout("help", TP_EXIT_OK);
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("torpor %s\n", TP_VERSION_STRING);
        return tp_cli_finish_stdout(cmd, TP_EXIT_OK);
    }
    fprintf(stderr, "torpor: unknown command \"%s\"\n\n", cmd);
    usage(stderr);
    return TP_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    tp_shard_start(&argc, &argv); /* MPI, when an MPI launcher started this process (csrc/cli/shard.h) */
    int code = dispatch(argc, argv);
    tp_shard_stop();
    return code;
}
