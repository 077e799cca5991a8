/* wake.c - wake events and explicit sleep on the host. */
#include "wake.h"

#include <string.h>

static void set_awake(tp_batch *b, size_t k)
{
    b->sleep_state[k] = TP_AWAKE;
    b->quiet_timer[k] = 0.0f;
}

void tp_wake_body(tp_batch *b, int world, int body)
{
    size_t k = (size_t)world * (size_t)b->bodies + (size_t)body;
    if (b->model->bodies[body].type != TP_BODY_DYNAMIC) return;
    set_awake(b, k);
    tp_batch_count_world(b, world);
}

void tp_wake_world(tp_batch *b, int world)
{
    size_t o = (size_t)world * (size_t)b->bodies;
    for (int i = 0; i < b->bodies; ++i)
        if (b->model->bodies[i].type == TP_BODY_DYNAMIC) set_awake(b, o + (size_t)i);
    tp_batch_count_world(b, world);
}

void tp_wake_force_sleep(tp_batch *b, int world, int body)
{
    size_t k = (size_t)world * (size_t)b->bodies + (size_t)body;
    if (b->model->bodies[body].type != TP_BODY_DYNAMIC || (b->flags[k] & TP_FLAG_REMOVED)) return;
    b->sleep_state[k] = TP_SLEEPING;
    /* A sleeping body's published velocity reads zero (DESIGN.md section 7). */
    memset(b->v + 3 * k, 0, 3 * sizeof(float));
    memset(b->w + 3 * k, 0, 3 * sizeof(float));
    tp_batch_count_world(b, world);
}
