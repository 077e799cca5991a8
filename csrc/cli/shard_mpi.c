/* shard_mpi.c - csrc/cli/shard.h's transport over MPI (Open MPI from Debian):
 * MPI_COMM_WORLD's ranks, and every gather and reduction one MPI collective.
 *
 * MPI is started only when an MPI launcher (mpirun, mpiexec, srun) started
 * the process, as its environment shows; a plain `torpor run` stays one
 * process without touching MPI. */
#include "shard.h"

#ifdef TP_HAVE_MPI

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int started;           /* MPI_Init was called here */
static int rank, ranks = 1, local_rank;

/* Variables an MPI launcher sets: Open MPI's mpirun, PMIx (Slurm's srun
 * --mpi=pmix, Open MPI 5), PMI-1/2 (srun --mpi=pmi2, MPICH's hydra). */
static int launched_by_mpi(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i)
        if (getenv(vars[i])) return 1;
    return 0;
}

void tp_shard_start(int *argc, char ***argv)
{
    if (!launched_by_mpi()) return;
    MPI_Init(argc, argv);
    started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
}

void tp_shard_stop(void)
{
    if (started) MPI_Finalize();
    started = 0;
}

int tp_shard_ranks(void) { return ranks; }
int tp_shard_rank(void) { return rank; }
int tp_shard_local_rank(void) { return local_rank; }

const char *tp_shard_transport(void)
{
    static char text[MPI_MAX_LIBRARY_VERSION_STRING + 96]; /* the version and the sentence after it */
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0;
    MPI_Get_library_version(version, &n); /* callable before MPI_Init */
    for (int i = 0; version[i]; ++i)
        if (version[i] == '\n' || version[i] == ',') version[i] = '\0'; /* the first part: name and version */
    snprintf(text, sizeof text, "yes (%s; mpirun -n K torpor run|bench splits the worlds over K ranks)", version);
    return text;
}

int tp_shard_any(int flag)
{
    if (!started) return flag != 0;
    int mine = flag != 0, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

long long tp_shard_sum(long long x)
{
    long long sum = x;
    if (started) MPI_Allreduce(&x, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

double tp_shard_max(double x)
{
    double max = x;
    if (started) MPI_Allreduce(&x, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
}

void tp_shard_gather_worlds(const tp_shard *s, const void *local, size_t per_world, void *all)
{
    if (!started) {
        if (local != all) memcpy(all, local, per_world * (size_t)s->worlds);
        return;
    }
    MPI_Datatype world;
    MPI_Type_contiguous((int)per_world, MPI_BYTE, &world);
    MPI_Type_commit(&world);
    const void *send = s->rank == 0 && local == all ? MPI_IN_PLACE : local;
    MPI_Gatherv(send, s->worlds, world, all, s->rank_worlds, s->rank_first, world, 0, MPI_COMM_WORLD);
    MPI_Type_free(&world);
}

void tp_shard_gather_ranks(const tp_shard *s, const void *mine, size_t bytes, void *all)
{
    (void)s;
    if (!started) {
        memcpy(all, mine, bytes);
        return;
    }
    MPI_Gather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
}

#else
/* Without MPI the transport is shard_local.c; ISO C wants a declaration here. */
typedef int tp_shard_mpi_unused;
#endif
