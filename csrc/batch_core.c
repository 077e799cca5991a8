/* batch_core.c - the lowest layer of a batch: world views, per-world init and
 * counts, and the host mirror's pull / begin-write.
 *
 * The arrows of csrc/ point one way:
 *   batch.c (public create / step / read) -> events.c -> body_ops.c -> batch_wake.c -> batch_core.c
 *   writes.c (public writes: the checks)  -> body_ops.c
 *   batch_core.c -> the backend's operations table (csrc/backend.h) -> kernels/
 * This file calls nothing above it: the model, the kernels, and the backend
 * only through its table (pull, begin_write). */
#include "batch.h"
#include "articulation_host.h"
#include "constraint_host.h"
#include "mover_host.h"

#include "backend.h"
#include "step.h"
#include "world_init.h"

#include <string.h>


/* The randomization of a batch (kernels/world_init.h) from its model and seed. */
tp_randomize_params tp_batch_randomize_params(const tp_batch *b)
{
    const tp_randomize_def *r = &b->model->def.randomize;
    tp_randomize_params p;
    memset(&p, 0, sizeof p);
    p.seed = b->seed;
    p.first_world = (uint32_t)b->first_world;
    p.pos_noise = r->pos_noise;
    p.yaw_amplitude = r->yaw_noise_deg * (3.14159265358979f / 180.0f);
    p.scale_mass = r->mass_scale[0] != 1.0f || r->mass_scale[1] != 1.0f;
    memcpy(p.mass_scale, r->mass_scale, sizeof p.mass_scale);
    p.draw_friction = r->has_friction_range;
    memcpy(p.friction_range, r->friction_range, sizeof p.friction_range);
    return p;
}

/* World w as the batch creates it (or a reset makes it, in the world's
 * episode): every body from the model's template and its Philox draws
 * (kernels/world_init.h), gravity from the model, no contacts, no fault. The CUDA backend does the same on the device (csrc/backend_cuda.c). */
void tp_batch_init_world(tp_batch *b, int w)
{
    const tp_model *m = b->model;
    tp_randomize_params r = tp_batch_randomize_params(b);
    tp_world wd = tp_batch_world(b, w);
    for (int i = 0; i < b->bodies; ++i) {
        tp_body_draws u = tp_body_draws_philox(r.seed, tp_draw_world(&r, w), (uint32_t)i, b->episode[w]);
        tp_world_init_body(&wd, i, &m->body_init[i], &r, &u);
    }
    tp_world_init_globals(&b->contact_count[0][w], &b->contact_count[1][w], b->gravity + 3 * w, m->def.gravity,
                          &b->contact_overflow[w], &b->faults[w]);
    tp_artic_batch_init_world(b, w); /* joints at their initial values, links placed */
    tp_cons_batch_init_world(b, w);
    tp_mover_batch_init_world(b, w);
    if (b->sensors.force) tp_contact_sensors_clear_world(&b->sensors, w); /* no contacts yet: 0 */
    tp_batch_count_world(b, w);
}

void tp_batch_count_world(tp_batch *b, int w)
{
    tp_world wd = tp_batch_world(b, w);
    tp_world_count(&wd, b->awake_count + w, b->sleeping_count + w, b->checking_count + w);
}

tp_status tp_batch_pull(tp_batch *b, int first, int last, int groups)
{
    return b->ops->pull(b, first, last, groups);
}

tp_status tp_batch_begin_write(tp_batch *b, int first, int last)
{
    return b->ops->begin_write(b, first, last);
}
