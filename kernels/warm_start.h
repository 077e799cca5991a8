/* warm_start.h - the warm-start stage: last step's impulses for this step's
 * contact points (Catto, "Iterative Dynamics with Temporal Coherence", GDC
 * 2005; the matching by key, then by place, is torpor's, docs/solver.md). */
#ifndef TP_WARM_START_H
#define TP_WARM_START_H

#include "contact_sort.h"
#include "tp_math.h"

/* Two points closer than this (m, in A's frame) are taken as the same contact
 * point when their feature ids differ (Jolt keeps impulses within 1 cm too). */
#define TP_WARM_MATCH_DISTANCE 0.01f

TP_HD uint64_t tp_pair_of_key(uint64_t key) { return key >> TP_KEY_BODY_B_SHIFT; }

TP_HD void tp_copy_impulses(tp_contact *to, const tp_contact *from)
{
    to->normal_impulse = from->normal_impulse;
    to->tangent_impulse[0] = from->tangent_impulse[0];
    to->tangent_impulse[1] = from->tangent_impulse[1];
}

/* Warm starting: give each of this step's points the accumulated impulses of
 * last step's point of the same pair with the same contact key, or else of the
 * nearest one within TP_WARM_MATCH_DISTANCE (in body A's frame). Feature ids
 * of clipped points can flip between neighbouring features when faces are
 * exactly flush (two equal boxes stacked); matching by place keeps the
 * impulses there. Both lists are sorted by key, so the points of a pair are
 * contiguous in each: one merge pass over pairs. */
TP_HD void tp_match_impulses(tp_contact *cur, int n, const tp_contact *prev, int n_prev)
{
    int j = 0;
    for (int i = 0; i < n;) {
        uint64_t pair = tp_pair_of_key(cur[i].key);
        int i_end = i;
        while (i_end < n && tp_pair_of_key(cur[i_end].key) == pair) ++i_end;
        while (j < n_prev && tp_pair_of_key(prev[j].key) < pair) ++j;
        int j_end = j;
        while (j_end < n_prev && tp_pair_of_key(prev[j_end].key) == pair) ++j_end;
        for (int k = i; k < i_end; ++k) {
            int best = -1;
            float best_d2 = TP_WARM_MATCH_DISTANCE * TP_WARM_MATCH_DISTANCE;
            for (int m = j; m < j_end; ++m) {
                if (prev[m].key == cur[k].key) { best = m; break; }
                float d2 = tp_len_sq(tp_sub(tp_v3_load(prev[m].local_a), tp_v3_load(cur[k].local_a)));
                if (d2 < best_d2) { best_d2 = d2; best = m; }
            }
            if (best >= 0) tp_copy_impulses(&cur[k], &prev[best]);
        }
        i = i_end;
        j = j_end;
    }
}

#endif
