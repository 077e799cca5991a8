/* wake.c - wake events and explicit sleep, on the host between steps.
 *
 * They act on whole islands, as the labels of the last step left them
 * (kernels/islands.h): waking one body wakes its island and resets the timers
 * of all of it; putting one body to sleep puts its island to sleep. */
#include "wake.h"

#include "world_step.h"

void tp_wake_body(tp_batch *b, int world, int body)
{
    tp_world wd = tp_batch_world(b, world);
    if (!tp_body_in_islands(&wd, body)) return;
    if (wd.island[body] >= 0) tp_island_wake(&wd, wd.island[body]);
    /* a body that has not been through a step yet has no island: itself */
    wd.sleep_state[body] = TP_AWAKE;
    wd.quiet_timer[body] = 0.0f;
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
    if (wd.island[body] < 0) wd.island[body] = body;
    tp_island_sleep(&wd, wd.island[body]);
    tp_batch_count_world(b, world);
}

void tp_wake_sphere(tp_batch *b, int world, const float center[3], float radius)
{
    tp_world wd = tp_batch_world(b, world);
    tp_vec3 c = tp_v3_load(center);
    for (int i = 0; i < wd.bodies; ++i) {
        if (!tp_body_in_islands(&wd, i)) continue;
        float reach = radius + wd.model[i].bound_radius;
        if (tp_len_sq(tp_sub(tp_v3_load(wd.pos + 3 * i), c)) <= reach * reach) {
            if (wd.island[i] >= 0) tp_island_wake(&wd, wd.island[i]);
            wd.sleep_state[i] = TP_AWAKE;
            wd.quiet_timer[i] = 0.0f;
        }
    }
    tp_batch_count_world(b, world);
}
