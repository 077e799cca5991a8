/* keyframe_batch.c - a reset that starts the joints and controls from a
 * keyframe (include/torpor_keyframes.h): the reset of tp_batch_reset_worlds
 * with the keyframe as the initial joint state it draws around
 * (csrc/robot_randomize.c reads b->reset_keyframe). */
#include "batch.h"
#include "error.h"

tp_status tp_batch_reset_to_keyframe(tp_batch *b, const tp_world_select *s, int keyframe)
{
    const char *call = "tp_batch_reset_to_keyframe";
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    tp_status st = tp_select_check(b, s, call);
    if (st) return st;
    int count = b->model->keyframes.count;
    if (keyframe < 0 || keyframe >= count)
        return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: no keyframe %d (model \"%s\" has %d)", call, keyframe,
                       b->model->name, count);
    if (b->backend == TP_BACKEND_CUDA && keyframe != b->model->start_keyframe)
        return tp_fail(TP_ERR_BACKEND, "%s: the cuda backend resets from the model's keyframe only (randomize.keyframe, "
                       "here %s); keyframe %d (%s) is not yet on the device", call,
                       b->model->start_keyframe >= 0 ? b->model->keyframes.defs[b->model->start_keyframe].name : "none",
                       keyframe, b->model->keyframes.defs[keyframe].name);
    b->reset_keyframe = keyframe;
    st = tp_batch_reset_worlds(b, s);
    b->reset_keyframe = -1;
    return st;
}
