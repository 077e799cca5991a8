/* keyframe_host.h - keyframes (named joint states, include/torpor_keyframes.h):
 * the builder's list and the model's (csrc/keyframe_model.c). Internal to the
 * library. */
#ifndef TP_KEYFRAME_HOST_H
#define TP_KEYFRAME_HOST_H

#include "torpor.h"

struct tp_artic_host;

/* Keyframes as added (arrays as given, NULL kept) or as the model keeps them
 * (every array full); names and arrays owned. */
typedef struct tp_keyframe_list {
    tp_keyframe_def *defs;
    int count, capacity;
} tp_keyframe_list;

/* Add one, checked against the joints (as added) and the nu actuators added so far. */
tp_status tp_keyframe_list_add(tp_keyframe_list *l, const tp_joint_def *joints, int joint_count, int nu,
                               const tp_keyframe_def *def, int *out_index);
/* The model's keyframes into an empty `to`: the builder's `from` checked
 * against the compiled joints h (NULL: none) and nu actuators, NULL arrays
 * filled (h's initial q and qd, ctrl 0), quaternions normalized. A failure
 * names keyframes[i] (tp_fail_item). */
tp_status tp_keyframe_list_compile(const tp_keyframe_list *from, const struct tp_artic_host *h, int nu,
                                   tp_keyframe_list *to);
void tp_keyframe_list_free(tp_keyframe_list *l);

#endif
