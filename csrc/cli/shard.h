/* shard.h - the command line's worlds split over processes (docs/scale-out.md).
 *
 * Under `mpirun -n K torpor run|bench ...` (a build with MPI), each of the K
 * ranks steps one contiguous block of the worlds, a batch made with
 * tp_batch_def.first_world, so every world draws and steps exactly as in one
 * process; rank 0 gathers what the output files show and writes them. The
 * transport is MPI's collectives (csrc/cli/shard_mpi.c); a build without MPI,
 * or a process not started by an MPI launcher, is one rank
 * (csrc/cli/shard_local.c), and every call below is then a copy or nothing. */
#ifndef TP_SHARD_H
#define TP_SHARD_H

#include "torpor.h"

#include <stddef.h>

/* This process's part of a run of `total` worlds. */
typedef struct tp_shard {
    int rank, ranks;             /* this process, and how many step the run */
    int local_rank;              /* rank among those on this node (devices: local_rank mod device count) */
    int total_worlds;
    int first_world, worlds;     /* this rank's block: worlds [first_world, first_world + worlds) */
    int *rank_first, *rank_worlds; /* [ranks] every rank's block (for the gathers) */
} tp_shard;

/* Start MPI when the process was started by an MPI launcher and the build
 * has MPI; nothing otherwise. Call once, first thing in main. */
void tp_shard_start(int *argc, char ***argv);
/* Finish MPI if tp_shard_start started it. */
void tp_shard_stop(void);
/* Ranks of this run (1 without MPI) and this process's rank. */
int tp_shard_ranks(void);
int tp_shard_rank(void);
int tp_shard_local_rank(void); /* rank among the processes on this node */
/* One line on the transport: "MPI (Open MPI v4.1.4, ...)" or why there is none. */
const char *tp_shard_transport(void);

/* Split `total` worlds over the ranks in contiguous blocks, the first
 * total mod ranks ranks one world more (csrc/cli/shard.c). Returns 0 when out
 * of memory or when a rank would get no world (a message says which). */
int tp_shard_split(int total, tp_shard *out);
void tp_shard_free(tp_shard *s);
/* The CUDA device of this rank: local rank modulo the devices there are
 * (0 without any). */
int tp_shard_device(const tp_shard *s);

/* Collectives (every rank must call them, in the same order). */
/* 1 on every rank if `flag` is non-zero on any (stop together: Ctrl-C, errors). */
int tp_shard_any(int flag);
/* The sum of x over the ranks, and the largest x, on every rank. */
long long tp_shard_sum(long long x);
double tp_shard_max(double x);
/* Rank 0 gets every rank's `per_world` bytes of each of its worlds, in world
 * order, in `all` (total_worlds x per_world bytes); rank 0's own part may
 * already be in place (local == all). `all` is not touched elsewhere. */
void tp_shard_gather_worlds(const tp_shard *s, const void *local, size_t per_world, void *all);
/* Rank 0 gets one `bytes`-sized value from each rank, in rank order. */
void tp_shard_gather_ranks(const tp_shard *s, const void *mine, size_t bytes, void *all);

/* A state view of every world of the run, on rank 0 (the local view itself
 * with one rank: no copy). gather_whole fills the counters and the body state
 * (pos, quat, v, w, sleep_state, quiet_timer, removed); gather_counts only the
 * counters. Returns 0 when out of memory (said on stderr). */
typedef struct tp_shard_view {
    tp_state_view view;   /* what the output files read (rank 0) */
    void *block;          /* the gathered arrays, one allocation (more than one rank) */
} tp_shard_view;
int tp_shard_view_init(tp_shard_view *g, const tp_shard *s, int bodies);
void tp_shard_gather_counts(tp_shard_view *g, const tp_shard *s, const tp_state_view *local);
void tp_shard_gather_whole(tp_shard_view *g, const tp_shard *s, const tp_state_view *local);
void tp_shard_view_free(tp_shard_view *g);

#endif
