/* batch_wake.c - wake events and explicit sleep of a batch's worlds, on the
 * host between steps.
 *
 * Under the island policy they act on whole islands, as the labels of the
 * last step left them (kernels/islands.h), by the rules of kernels/wake.h:
 * waking one body wakes its island and resets the timers of all of it;
 * putting one body to sleep puts its island to sleep. Under the assembly
 * policy they act on the body alone (kernels/sleep_assembly.h): its sleeping
 * neighbours turn sleep-checking in the next step if it touches them. */
#include "batch_wake.h"

#include "sleep.h"
#include "sleep_assembly.h"
#include "wake.h"

void tp_wake_body(tp_batch *b, int world, int body)
{
    tp_world wd = tp_batch_world(b, world);
    if (wd.assembly) tp_assembly_wake_body(&wd, body);
    else tp_wake_body_in(&wd, body);
    tp_batch_count_world(b, world);
}

void tp_wake_island(tp_batch *b, int world, int body)
{
    tp_world wd = tp_batch_world(b, world);
    tp_wake_body_in(&wd, body);
    tp_batch_count_world(b, world);
}

void tp_wake_world(tp_batch *b, int world)
{
    tp_world wd = tp_batch_world(b, world);
    tp_world_wake_all(&wd);
    tp_batch_count_world(b, world);
}

void tp_wake_force_sleep(tp_batch *b, int world, int body)
{
    tp_world wd = tp_batch_world(b, world);
    if (!tp_body_in_islands(&wd, body)) return;
    if (wd.assembly) {
        tp_assembly_sleep_body(&wd, body);
    } else {
        if (wd.island[body] < 0) wd.island[body] = body;
        tp_island_sleep(&wd, wd.island[body]);
    }
    tp_batch_count_world(b, world);
}

void tp_wake_sphere(tp_batch *b, int world, const float center[3], float radius)
{
    tp_world wd = tp_batch_world(b, world);
    if (wd.assembly) tp_assembly_wake_sphere(&wd, tp_v3_load(center), radius);
    else tp_wake_sphere_in(&wd, tp_v3_load(center), radius);
    tp_batch_count_world(b, world);
}
