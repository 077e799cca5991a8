/* wake.h - wake events and explicit sleep, applied on the host between steps.
 *
 * DESIGN.md section 7: a write of pose or velocity, a non-zero force, torque or
 * impulse, a removal, a change of gravity, a reset and an explicit wake are wake
 * events. Waking resets the quiet timers of what wakes. */
#ifndef TP_WAKE_H
#define TP_WAKE_H

#include "batch.h"

/* Wake `body` in `world` (and, once islands exist, its whole island); resets timers. */
void tp_wake_body(tp_batch *b, int world, int body);
/* Wake every body of `world` (a change of gravity). */
void tp_wake_world(tp_batch *b, int world);
/* Put `body` (and its island) to sleep at once, even in mid-air. */
void tp_wake_force_sleep(tp_batch *b, int world, int body);

#endif
