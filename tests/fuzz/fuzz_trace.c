/* fuzz_trace.c - libFuzzer target: the `torpor trace` script reader
 * (csrc/cli/trace.c), through its command entry point: any script must end
 * with status 0 (read) or 2 (refused, with a message), never crash, leak or
 * read out of bounds. The input goes through a file, as the command reads one;
 * the printed frames go to /dev/null. Built and run by scripts/fuzz.sh. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/torpor_fuzz_trace_%d.trace", (int)getpid());
        if (!freopen("/dev/null", "w", stdout)) abort();
    }
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    fwrite(data, 1, size, f);
    fclose(f);
    char *argv[] = {"trace", path, NULL};
    int st = tp_cmd_trace(2, argv);
    if (st != TP_EXIT_OK && st != TP_EXIT_USAGE) abort();
    return 0;
}
