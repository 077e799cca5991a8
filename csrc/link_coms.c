/* link_coms.c - per-world link COM offsets (include/torpor_actuators.h, "link
 * COM offsets"): each world's offset of every articulation link's centre of
 * mass, link frame, set to 0 or drawn from randomize.link_com_offset at every
 * reset (kernels/robot_randomize.h, both backends; the array:
 * csrc/articulation_world.c), written and read here. Every stage reads a
 * link's COM as the model's plus this offset (tp_artic_com_local,
 * tp_body_com_local). On CUDA the array is mirrored with the bodies' group. */
#include "articulation_host.h"
#include "batch.h"
#include "batch_wake.h"
#include "error.h"
#include "mirror.h" /* TP_MIRROR_BODIES */

#include <math.h>
#include <string.h>

static const char *const axis_names = "xyz";

/* The batch's offsets, or why a call cannot use them. */
static tp_status usable(tp_batch *b, const char *call)
{
    if (!b) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: batch is NULL", call);
    if (!b->artic) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: model \"%s\" has no joints", call, b->model->name);
    return TP_OK;
}

/* World w's offset of the link of joint i (as added): its 3 floats. */
static float *offset_of(tp_batch *b, int w, int i)
{
    const tp_artic_host *h = b->model->artic;
    return b->artic->link_com + ((size_t)w * (size_t)h->km.joint_count + (size_t)h->kernel_of[i]) * 3;
}

/* Every value finite and within TP_MAX_SIZE (m), as a body's given com. */
static tp_status check_values(tp_batch *b, const tp_world_select *s, const float *values, const char *call)
{
    const tp_artic_host *h = b->model->artic;
    int J = h->km.joint_count, rows = tp_select_rows(b, s);
    for (int r = 0; r < rows; ++r) {
        int w = tp_select_world(s, r);
        if (w < 0) continue;
        for (int i = 0; i < J; ++i)
            for (int a = 0; a < 3; ++a) {
                float v = values[((size_t)r * (size_t)J + (size_t)i) * 3 + (size_t)a];
                if (isfinite(v) && fabsf(v) <= TP_MAX_SIZE) continue;
                return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: offsets row %d [%d][%d] (the %c offset of link \"%s\" of "
                               "joint \"%s\", world %d) must be finite and within [-%g, %g] m, got %g; nothing was "
                               "changed", call, r, i, a, axis_names[a], tp_model_body_name(b->model, h->defs[i].child),
                               tp_model_joint_name(b->model, i), w, (double)TP_MAX_SIZE, (double)TP_MAX_SIZE, (double)v);
            }
    }
    return TP_OK;
}

tp_status tp_batch_set_link_com_offsets(tp_batch *b, const tp_world_select *s, const float *offsets)
{
    const char *call = "tp_batch_set_link_com_offsets";
    tp_status st = usable(b, call);
    if (st || (st = tp_select_check(b, s, call))) return st;
    int J = b->model->artic->km.joint_count, rows = tp_select_rows(b, s);
    if (rows > 0 && J > 0 && !offsets) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: offsets is NULL", call);
    if ((st = check_values(b, s, offsets, call)) || (st = tp_select_begin_writes(b, s))) return st;
    for (int r = 0; r < rows; ++r) {
        int w = tp_select_world(s, r), changed = 0;
        if (w < 0) continue;
        for (int i = 0; i < J; ++i) {
            float *d = offset_of(b, w, i);
            const float *v = offsets + ((size_t)r * (size_t)J + (size_t)i) * 3;
            if (memcmp(d, v, 3 * sizeof(float)) == 0) continue;
            memcpy(d, v, 3 * sizeof(float));
            changed = 1;
        }
        if (!changed) continue;
        tp_artic_batch_publish(b, w); /* joint_qd kept: the links' COM velocities follow the new COMs */
        tp_wake_trees(b, w);
    }
    return TP_OK;
}

tp_status tp_batch_link_com_offsets(tp_batch *b, float *out)
{
    const char *call = "tp_batch_link_com_offsets";
    tp_status st = usable(b, call);
    if (st) return st;
    int J = b->model->artic->km.joint_count;
    if (J > 0 && !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: out is NULL", call);
    if ((st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_BODIES))) return st; /* CUDA: their group */
    for (int w = 0; w < b->worlds; ++w)
        for (int i = 0; i < J; ++i) memcpy(out + ((size_t)w * (size_t)J + (size_t)i) * 3, offset_of(b, w, i), 3 * sizeof(float));
    return TP_OK;
}
