/* shard.c - the split of a run's worlds over ranks and the gathered view,
 * on top of the transport's collectives (shard_mpi.c or shard_local.c). */
#include "shard.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tp_shard_split(int total, tp_shard *out)
{
    memset(out, 0, sizeof *out);
    int ranks = tp_shard_ranks();
    out->rank = tp_shard_rank();
    out->ranks = ranks;
    out->total_worlds = total;
    if (total < ranks) {
        if (out->rank == 0)
            fprintf(stderr, "torpor: %d worlds over %d MPI ranks: every rank needs at least one world; use --worlds >= "
                            "%d or fewer ranks\n", total, ranks, ranks);
        return 0;
    }
    out->rank_first = malloc((size_t)ranks * sizeof(int));
    out->rank_worlds = malloc((size_t)ranks * sizeof(int));
    if (!out->rank_first || !out->rank_worlds) {
        tp_shard_free(out);
        fprintf(stderr, "torpor: out of memory for the split of %d worlds over %d ranks\n", total, ranks);
        return 0;
    }
    int base = total / ranks, extra = total % ranks;
    for (int r = 0; r < ranks; ++r) {
        out->rank_worlds[r] = base + (r < extra);
        out->rank_first[r] = r * base + (r < extra ? r : extra);
    }
    out->first_world = out->rank_first[out->rank];
    out->worlds = out->rank_worlds[out->rank];
    out->local_rank = tp_shard_local_rank();
    return 1;
}

void tp_shard_free(tp_shard *s)
{
    free(s->rank_first);
    free(s->rank_worlds);
    s->rank_first = s->rank_worlds = NULL;
}

int tp_shard_device(const tp_shard *s)
{
    int n = tp_cuda_device_count();
    return n > 0 ? s->local_rank % n : 0;
}

/* ---------------------------------------------------------------- the gathered view */

/* The arrays of a view the files read, with their bytes per world. */
typedef struct view_field {
    const void **field;
    size_t per_world;
    int whole; /* 1: body state, gathered by tp_shard_gather_whole only */
} view_field;

static int view_fields(tp_state_view *v, int bodies, view_field f[13])
{
    size_t B = (size_t)bodies;
    view_field all[13] = {
        {(const void **)&v->awake_count, 4, 0},    {(const void **)&v->sleeping_count, 4, 0},
        {(const void **)&v->checking_count, 4, 0}, {(const void **)&v->contact_overflow, 4, 0},
        {(const void **)&v->faults, 1, 0},         {(const void **)&v->body_awake, B, 0},
        {(const void **)&v->pos, 12 * B, 1},       {(const void **)&v->quat, 16 * B, 1},
        {(const void **)&v->v, 12 * B, 1},         {(const void **)&v->w, 12 * B, 1},
        {(const void **)&v->sleep_state, B, 1},    {(const void **)&v->quiet_timer, 4 * B, 1},
        {(const void **)&v->removed, B, 1}};
    memcpy(f, all, sizeof all);
    return 13;
}

int tp_shard_view_init(tp_shard_view *g, const tp_shard *s, int bodies)
{
    memset(g, 0, sizeof *g);
    g->view.worlds = s->total_worlds;
    g->view.bodies = bodies;
    if (s->ranks == 1 || s->rank != 0) return 1; /* one rank: the local view itself; others: nothing kept */
    view_field f[13];
    int n = view_fields(&g->view, bodies, f);
    size_t bytes = 0;
    for (int i = 0; i < n; ++i) bytes += (f[i].per_world * (size_t)s->total_worlds + 15) & ~(size_t)15;
    char *p = g->block = malloc(bytes);
    if (!p) {
        fprintf(stderr, "torpor: out of memory for the gathered state of %d worlds (%zu bytes)\n", s->total_worlds,
                bytes);
        return 0;
    }
    for (int i = 0; i < n; ++i) {
        *f[i].field = p;
        p += (f[i].per_world * (size_t)s->total_worlds + 15) & ~(size_t)15;
    }
    return 1;
}

static void gather(tp_shard_view *g, const tp_shard *s, const tp_state_view *local, int whole)
{
    if (s->ranks == 1) {
        g->view = *local;
        return;
    }
    tp_state_view lv = *local;
    view_field mine[13], all[13];
    int n = view_fields(&lv, local->bodies, mine);
    view_fields(&g->view, local->bodies, all);
    for (int i = 0; i < n; ++i)
        if (whole || !mine[i].whole) tp_shard_gather_worlds(s, *mine[i].field, mine[i].per_world, (void *)*all[i].field);
}

void tp_shard_gather_counts(tp_shard_view *g, const tp_shard *s, const tp_state_view *local) { gather(g, s, local, 0); }
void tp_shard_gather_whole(tp_shard_view *g, const tp_shard *s, const tp_state_view *local) { gather(g, s, local, 1); }

void tp_shard_view_free(tp_shard_view *g)
{
    free(g->block);
    g->block = NULL;
}
