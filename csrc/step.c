/* step.c - the CPU backend's step: every world, in parallel over worlds.
 *
 * Worlds never interact, so the loop over worlds is an OpenMP parallel for
 * with a static schedule; each world runs serially inside, in a fixed order, so
 * its result does not depend on the thread count. The per-world stages are in
 * kernels/world_step.h, which the CUDA backend runs too. */
#include "batch.h"

#include "world_step.h"

static void world_step(tp_batch *bt, int w)
{
    if (bt->faults[w]) return; /* frozen until reset (acceptance case C12) */
    tp_world wd = tp_batch_world(bt, w);
    if (!tp_world_step(&wd, bt->model->def.dt, bt->model->def.substeps)) bt->faults[w] = 1;
    tp_world_count(&wd, bt->awake_count + w, bt->sleeping_count + w, bt->checking_count + w);
}

void tp_cpu_step(tp_batch *b)
{
    int worlds = b->worlds;
#pragma omp parallel for schedule(static) num_threads(b->threads)
    for (int w = 0; w < worlds; ++w) world_step(b, w);
}
