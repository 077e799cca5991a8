/* events.h - the model's scripted events, fired by tp_batch_step (csrc/batch.c).
 *
 * Layer: called by batch.c only; calls body_ops.h (the checked-free writes) and
 * batch.h's bottom layer, never the public tp_batch_* calls. */
#ifndef TP_EVENTS_H
#define TP_EVENTS_H

#include "batch.h"

/* Turn each event's time into the step it fires before (and, for a force, the
 * last step it acts on); refuses a world index the batch does not have. */
tp_status tp_events_schedule(tp_batch *b);
/* Fire the events due before the next step (b->step_count). */
tp_status tp_events_apply_due(tp_batch *b);

#endif
