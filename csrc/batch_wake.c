/* batch_wake.c - wake events and explicit sleep of a batch's worlds, on the
 * host between steps, by the world's sleep policy (kernels/sleep_policy.h):
 * under the island policy they act on whole islands, as the labels of the
 * last step left them; under the assembly policy on the body alone (its
 * sleeping neighbours turn sleep-checking in the next step if it touches
 * them). docs/sleep-policies.md gives both. */
#include "batch_wake.h"

#include "articulation_host.h"
#include "sleep_policy.h"

void tp_wake_body(tp_batch *b, int world, int body)
{
    tp_world wd = tp_batch_world(b, world);
    tp_sleep_wake_body(&wd, body);
    tp_batch_count_world(b, world);
}

void tp_wake_island(tp_batch *b, int world, int body)
{
    tp_world wd = tp_batch_world(b, world);
    tp_sleep_wake_island(&wd, body);
    tp_batch_count_world(b, world);
}

void tp_wake_world(tp_batch *b, int world)
{
    tp_world wd = tp_batch_world(b, world);
    tp_world_wake_all(&wd);
    tp_batch_count_world(b, world);
}

void tp_wake_trees(tp_batch *b, int world)
{
    tp_world wd = tp_batch_world(b, world);
    tp_sleep_wake_trees(&b->model->artic->km, &wd);
    tp_batch_count_world(b, world);
}

void tp_wake_force_sleep(tp_batch *b, int world, int body)
{
    tp_world wd = tp_batch_world(b, world);
    tp_sleep_sleep_body(&wd, body);
    tp_batch_count_world(b, world);
}

void tp_wake_sphere(tp_batch *b, int world, const float center[3], float radius)
{
    tp_world wd = tp_batch_world(b, world);
    tp_sleep_wake_sphere(&wd, tp_v3_load(center), radius);
    tp_batch_count_world(b, world);
}
