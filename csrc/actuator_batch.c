/* actuator_batch.c - the public actuator calls of a batch: the view of the
 * controls and actuator forces, and the batched write of the controls (the
 * arrays: csrc/articulation_world.c). */
#include "articulation_host.h"
#include "batch.h"
#include "batch_wake.h"
#include "error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tp_status tp_batch_actuators(tp_batch *b, tp_actuator_view *out)
{
    if (!b || !out) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_batch_actuators: batch or out is NULL");
    memset(out, 0, sizeof *out);
    out->worlds = b->worlds;
    if (!b->artic) return TP_OK;
    tp_status st = tp_batch_pull(b, 0, b->worlds - 1, TP_MIRROR_BODIES); /* CUDA: the actuator arrays' group */
    if (st != TP_OK) return st;
    const tp_artic_model *km = &b->model->artic->km;
    out->nu = km->actuator_count;
    out->nv = km->nv;
    out->ctrl = km->actuator_count > 0 ? b->artic->ctrl : NULL;
    out->force = b->artic->act_f;
    out->limit_force = b->artic->limit_f;
    return TP_OK;
}

tp_status tp_batch_set_ctrl(tp_batch *b, const tp_world_select *s, const float *ctrl)
{
    const char *call = "tp_batch_set_ctrl";
    tp_status st = tp_select_check(b, s, call);
    if (st) return st;
    int nu = tp_model_actuator_count(b->model);
    if (nu == 0) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: model \"%s\" has no actuators", call, b->model->name);
    int rows = tp_select_rows(b, s);
    if (rows > 0 && !ctrl) return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: ctrl is NULL", call);
    for (int r = 0; r < rows; ++r) {
        if (tp_select_world(s, r) < 0) continue;
        for (int k = 0; k < nu; ++k) {
            float u = ctrl[(size_t)r * (size_t)nu + (size_t)k];
            if (!isfinite(u))
                return tp_fail(TP_ERR_INVALID_ARGUMENT, "%s: ctrl row %d [%d] (%s) must be finite, got %g; nothing was "
                               "changed", call, r, k, tp_model_actuator_name(b->model, k), (double)u);
        }
    }
    if ((st = tp_select_begin_writes(b, s))) return st;
    for (int r = 0; r < rows; ++r) {
        int w = tp_select_world(s, r);
        if (w < 0) continue;
        float *dst = b->artic->ctrl + (size_t)w * (size_t)nu;
        const float *src = ctrl + (size_t)r * (size_t)nu;
        if (memcmp(dst, src, (size_t)nu * sizeof(float)) == 0) continue; /* unchanged: wakes nothing */
        memcpy(dst, src, (size_t)nu * sizeof(float));
        tp_wake_trees(b, w);
    }
    return TP_OK;
}
