#!/usr/bin/env bash
# callgrind_color.sh - x86 instructions of the coloring of one world's
# constraints: the serial greedy (tp_build_constraints + tp_color_constraints,
# what the CPU step runs) against the lane form run with one lane
# (tp_build_constraints_lanes + tp_color_constraints_lanes, nth = 1), on the
# contacts of a settled world (sleep off, after STEPS steps). For the choice
# in docs/cuda.md ("Coloring in lanes"). Needs a CPU build in build/ and valgrind.
#
#   bash scripts/callgrind_color.sh [SCENE] [STEPS]
set -euo pipefail
cd "$(dirname "$0")/.."
scene=${1:-scenes/pyramid3d.json}
steps=${2:-10}
source scripts/probe_setup.sh
probe_setup "$scene"
cat > "$tmp/probe.c" <<'C'
#include "batch.h"
#include "probe_batch.h"
#include "step.h"
#include <stdio.h>
#include <stdlib.h>
static tp_world_step s;
static int n_greedy, n_lanes;
__attribute__((noinline)) void color_greedy(void)
{
    n_greedy = tp_build_constraints(&s.wd, s.contacts, *s.contact_count, s.solver.cons);
    tp_color_constraints(&s.wd, s.solver.cons, n_greedy, 0, s.solver.body_mask, s.solver.order, s.solver.color_start);
}
__attribute__((noinline)) void color_lanes(void)
{
    int fresh = 0;
    n_lanes = tp_build_constraints_lanes(&s.wd, s.contacts, *s.contact_count, s.solver.cons, &s.solver.color, &fresh, 0, 1);
    tp_color_constraints_lanes(&s.wd, s.solver.cons, n_lanes, 0, s.solver.body_mask, &s.solver.color, s.solver.order,
                               s.solver.color_start, 0, 1);
}
int main(int argc, char **argv)
{
    tp_model *m = NULL;
    tp_batch *b = probe_batch(argc > 1 ? argv[1] : NULL, &m);
    tp_batch_step(b, atoi(argv[2]));
    /* the last step's contacts (buffer `current`), colored again */
    s = tp_world_step_at(&b->layout, 0, 1 - b->current, b->scratch[0]);
    color_greedy();
    color_lanes();
    /* rounds of the lane form: the longest chain in key order of constraints sharing a unit */
    int rounds = 0, *unit_round = calloc((size_t)s.wd.bodies, sizeof(int));
    for (int i = 0; i < n_greedy; ++i) {
        int ua, ub, top, r;
        tp_constraint_units(&s.wd, &s.solver.cons[i], &ua, &ub, &top);
        r = 1 + (ua >= 0 ? unit_round[ua] : 0);
        if (ub >= 0 && 1 + unit_round[ub] > r) r = 1 + unit_round[ub];
        if (ua >= 0) unit_round[ua] = r;
        if (ub >= 0) unit_round[ub] = r;
        if (r > rounds) rounds = r;
    }
    free(unit_round);
    printf("points %d constraints %d/%d rounds %d\n", *s.contact_count, n_greedy, n_lanes, rounds);
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return 0;
}
C
gcc -O2 -std=c11 -fopenmp -ffp-contract=off -Iinclude -Icsrc -Ikernels -Iscripts "$tmp/probe.c" -o "$tmp/probe" build/libtorpor.a -ljansson -lm -lpthread
valgrind --tool=callgrind --collect-atstart=no --toggle-collect=color_greedy --toggle-collect=color_lanes \
    --callgrind-out-file="$tmp/cg" "$tmp/probe" "$tmp/scene.json" "$steps" 2>&1 | grep -v "^==" || true
callgrind_annotate --inclusive=yes "$tmp/cg" 2>/dev/null | grep -E "color_greedy|color_lanes"
