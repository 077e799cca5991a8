/* shard_local.c - csrc/cli/shard.h's transport in a build without MPI: one
 * rank, and every collective a copy. */
#include "shard.h"

#ifndef TP_HAVE_MPI

#include <string.h>

void tp_shard_start(int *argc, char ***argv) { (void)argc, (void)argv; }
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
