/* shard_local.c - csrc/cli/shard.h's transport in a build without MPI: one
 * rank, and every collective a copy. */
#include "shard.h"

#ifndef TP_HAVE_MPI

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Started by mpirun with more than one process: each would run every world
 * and write the same files, so stop and say why. */
void tp_shard_start(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *size = getenv("OMPI_COMM_WORLD_SIZE");
    if (!size) size = getenv("PMI_SIZE");
    if (size && atoi(size) > 1) {
        fprintf(stderr, "torpor: started as one of %s MPI processes, but this build has no MPI: each would run every "
                        "world; install libopenmpi-dev and rebuild (torpor info says whether MPI is in)\n", size);
        exit(2);
    }
}
void tp_shard_stop(void) {}
int tp_shard_ranks(void) { return 1; }
int tp_shard_rank(void) { return 0; }
int tp_shard_local_rank(void) { return 0; }
const char *tp_shard_transport(void) { return "no (built without MPI; install libopenmpi-dev and rebuild)"; }
int tp_shard_any(int flag) { return flag != 0; }
long long tp_shard_sum(long long x) { return x; }
double tp_shard_max(double x) { return x; }

void tp_shard_gather_worlds(const tp_shard *s, const void *local, size_t per_world, void *all)
{
    if (local != all) memcpy(all, local, per_world * (size_t)s->worlds);
}

void tp_shard_gather_ranks(const tp_shard *s, const void *mine, size_t bytes, void *all)
{
    (void)s;
    memcpy(all, mine, bytes);
}

#else
/* The MPI transport is shard_mpi.c; ISO C wants a declaration here. */
typedef int tp_shard_local_unused;
#endif
