/* torpor_trace.h - the simulator's island sleep rule on its own, fed speeds and links frame by frame (what `torpor trace` runs).
 *
 * Part of the public API: include torpor.h, which includes this file where
 * its declarations belong (they use torpor.h's types). */
#ifndef TORPOR_TRACE_H
#define TORPOR_TRACE_H

#ifndef TORPOR_H
#error "include torpor.h, not torpor_trace.h"
#endif

/* ---------------------------------------------------------------- sleep trace */

/* The simulator's island sleep rule alone, on bodies whose speeds the caller
 * gives frame by frame: the rule tp_batch_step runs (kernels/islands.h builds
 * the islands, kernels/wake.h wakes those an awake body joins, kernels/sleep.h
 * runs the quiet timers and puts islands to sleep), fed with links instead of
 * contacts.
 * It is what `torpor trace` runs (docs/trace-format.md), so a trace tests the
 * simulator's rule. Every body is dynamic and supported, with no angular speed
 * and no acceleration guard: a body is quiet in a frame when its speed is
 * strictly below the threshold. Not thread-safe per object; separate objects
 * may be used from separate threads. */
typedef struct tp_sleep_trace tp_sleep_trace;

/* `bodies` in [1, TP_MAX_BODIES_PER_WORLD], all awake with timers at 0, no
 * links. *out is NULL on failure. TP_ERR_INVALID_ARGUMENT (bad count, NULL
 * out), TP_ERR_OUT_OF_MEMORY. */
tp_status tp_sleep_trace_create(int bodies, tp_sleep_trace **out);
void tp_sleep_trace_destroy(tp_sleep_trace *trace); /* accepts NULL */
/* Bodies a and b (distinct, in range) touch from now on (linked = 1) or no
 * longer (0), as a contact would from the next frame: a link between a sleeping
 * island and an awake body wakes the island at the next frame; a sleeping
 * island stays whole when a link inside it goes (as in the simulator, where a
 * sleeping body keeps its island label). Linking twice, or unlinking what is
 * not linked, does nothing. TP_ERR_INVALID_ARGUMENT for a bad index,
 * TP_ERR_OUT_OF_MEMORY when the link list cannot grow. */
tp_status tp_sleep_trace_link(tp_sleep_trace *trace, int a, int b, int linked);
/* Game code touches `body`: its island (as the last frame labelled it) wakes
 * and every timer in it resets, as tp_batch_wake does. */
tp_status tp_sleep_trace_touch(tp_sleep_trace *trace, int body);
/* One frame of length dt (s, finite, > 0): velocities[bodies][3] (m/s,
 * finite; a sleeping body's are ignored; a script's speeds s go in as
 * (s, 0, 0)), threshold (m/s) and quiet_time (s) finite and >= 0. The frame
 * runs the simulator's rule, the drift rule included (a quiet run ends when
 * the velocity changed by the threshold since it began). Writes
 * asleep[bodies] (1 sleeping, 0 awake). Refused values
 * (TP_ERR_INVALID_ARGUMENT, naming the value) change nothing. */
tp_status tp_sleep_trace_frame(tp_sleep_trace *trace, const float *velocities, float threshold, float quiet_time,
                               float dt, uint8_t *asleep);

#endif
