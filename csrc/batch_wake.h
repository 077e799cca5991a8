/* batch_wake.h - wake events and explicit sleep, applied on the host between steps.
 *
 * DESIGN.md section 7: a write of pose or velocity, a non-zero force, torque or
 * impulse, a removal, a change of gravity, a reset and an explicit wake are wake
 * events. Waking resets the quiet timers of what wakes. */
#ifndef TP_BATCH_WAKE_H
#define TP_BATCH_WAKE_H

#include "batch.h"

/* Wake `body` in `world` and its whole island; resets the island's timers.
 * Under the assembly policy, the body alone. */
void tp_wake_body(tp_batch *b, int world, int body);
/* Wake the whole island of `body` under either policy (a removal: what it
 * carried, directly or not, loses its support). */
void tp_wake_island(tp_batch *b, int world, int body);
/* Wake every body of `world` (a change of gravity). */
void tp_wake_world(tp_batch *b, int world);
/* Wake every articulation tree of `world` and what their islands hold (a
 * write of its joint state, targets or controls). The model has joints. */
void tp_wake_trees(tp_batch *b, int world);
/* Put `body` (and its island; under the assembly policy the body alone) to
 * sleep at once, even in mid-air. */
void tp_wake_force_sleep(tp_batch *b, int world, int body);

/* Wake every island (assembly policy: every body) with a body whose bounding
 * sphere meets the sphere (center, radius): the explosion situation of
 * assembly sleep (everything near an explosion wakes). */
void tp_wake_sphere(tp_batch *b, int world, const float center[3], float radius);

#endif
