/* overlaps.c - bodies that start inside one another (tp_model_overlaps).
 *
 * The template world (no randomization, joints at their initial values) is
 * built in a one-world batch; the broadphase (kernels/broadphase.h) bounds the
 * pairs to those whose boxes meet, with the pair filter of a step (contype /
 * conaffinity, excluded pairs, a joint's parent and child), and the
 * narrowphase gives each pair's deepest point. Pairs deeper than the slop the
 * solver leaves alone (TP_LINEAR_SLOP) are reported: the solver would push
 * them apart in the first steps. */
#include "articulation_host.h"
#include "batch.h"
#include "broadphase.h"
#include "collision.h"
#include "error.h"
#include "model.h"
#include "sweeps.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deepest penetration (m, > 0 when overlapping) of bodies a and b. */
static float pair_depth(const tp_world *wd, int a, int b)
{
    enum { MOST = TP_MAX_BODY_SHAPES * TP_MAX_BODY_SHAPES * TP_MAX_MANIFOLD_POINTS };
    tp_contact pts[MOST]; /* every point of every pair of shapes */
    int n;
    if (tp_body_is_compound(wd, a) || tp_body_is_compound(wd, b)) {
        tp_contact_buffer cb = {pts, MOST, 0, 0, 0};
        tp_collide_compound_pair(wd, a, b, 0.0f, &cb);
        n = cb.count;
    } else {
        n = tp_collide_pair(wd, a, b, 0.0f, pts);
    }
    float depth = 0.0f;
    for (int i = 0; i < n; ++i)
        if (-pts[i].separation > depth) depth = -pts[i].separation;
    return depth;
}

/* Append one line to *text (NULL at first); 0 when out of memory. */
static int append_line(char **text, size_t *len, const char *line)
{
    size_t add = strlen(line);
    char *g = realloc(*text, *len + add + 2);
    if (!g) return 0;
    memcpy(g + *len, line, add);
    g[*len + add] = '\n';
    g[*len + add + 1] = '\0';
    *text = g;
    *len += add + 1;
    return 1;
}

tp_status tp_model_overlaps(const tp_model *m, char **out_warnings)
{
    if (!m || !out_warnings) return tp_fail(TP_ERR_INVALID_ARGUMENT, "tp_model_overlaps: model or out_warnings is NULL");
    *out_warnings = NULL;
    tp_batch_def bd = tp_default_batch_def();
    bd.threads = 1;
    bd.total_worlds = INT_MAX; /* world 0 of a run of any size: events may name any world */
    tp_batch *b = NULL;
    tp_status st = tp_batch_create(m, &bd, &b);
    if (st != TP_OK) return st;
    /* The template: world 0 without its pose noise. */
    tp_world wd = tp_batch_world(b, 0);
    tp_randomize_params r = tp_batch_randomize_params(b);
    r.pos_noise = 0.0f;
    r.yaw_amplitude = 0.0f;
    for (int i = 0; i < m->body_count; ++i) {
        tp_body_draws u = tp_body_draws_philox(r.seed, 0u, (uint32_t)i, 0u);
        tp_world_init_body(&wd, i, &m->body_init[i], &r, &u);
    }
    tp_artic_batch_init_world(b, 0);
    void *scratch = malloc(tp_broadphase_scratch_bytes(m->body_count));
    char *text = NULL;
    size_t len = 0;
    int ok = scratch != NULL;
    if (ok) {
        tp_broadphase bp;
        tp_broadphase_begin(&bp, &wd, 0.0f, scratch);
        int a, c;
        while (ok && tp_broadphase_next(&bp, &a, &c)) {
            float depth = pair_depth(&wd, a, c);
            if (depth <= TP_LINEAR_SLOP) continue;
            char line[512];
            snprintf(line, sizeof line,
                     "bodies \"%s\" and \"%s\" start %.1f mm inside each other; the solver will push them apart",
                     m->body_names[a], m->body_names[c], 1000.0 * depth);
            ok = append_line(&text, &len, line);
        }
    }
    free(scratch);
    tp_batch_destroy(b);
    if (!ok) {
        free(text);
        return tp_fail(TP_ERR_OUT_OF_MEMORY, "tp_model_overlaps: out of memory");
    }
    *out_warnings = text;
    return TP_OK;
}
