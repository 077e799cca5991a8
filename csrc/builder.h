/* builder.h - the builder's state (csrc/builder.c), which tp_builder_finish
 * (csrc/model.c) compiles into a model. */
#ifndef TP_BUILDER_H
#define TP_BUILDER_H

#include "articulation_host.h"
#include "constraint_host.h"
#include "keyframe_host.h"
#include "mover_host.h"
#include "model.h"

struct tp_builder {
    tp_model_def def;
    char *name;
    tp_body_def *bodies;
    char **body_names;
    int body_count, body_capacity;
    int32_t *name_slots;       /* open-addressing index of body_names: body + 1, 0 = empty */
    uint32_t name_slot_count;  /* a power of two, at least twice body_count */
    tp_event_def *events;
    int event_count, event_capacity;
    tp_artic_builder joints;   /* articulation joints (csrc/articulation_model.c) */
    tp_cons_builder cons;      /* constraints between two bodies (csrc/constraint_model.c) */
    tp_mover_builder movers;   /* movers (csrc/mover_model.c) */
    tp_site_list sites;        /* named frames on bodies (csrc/site_model.c) */
    tp_keyframe_list keyframes; /* named joint states (csrc/keyframe_model.c) */
    char *start_keyframe;      /* def.randomize.keyframe's copy (def points here), or NULL */
    int *excludes;             /* [exclude_count][2] body pairs that never collide */
    int exclude_count, exclude_capacity;
};

/* The bodies (+ 1) excluded with `body` (tp_builder_exclude_pair), zero-filled. */
void tp_builder_body_excludes(const tp_builder *b, int body, int32_t out[TP_MAX_BODY_EXCLUDES]);

#endif
